"""Helpers for goalkeeper's Gemini CLI end-to-end tests: the pinned CLI (installed with npm into
tests/e2e/gemini), the fake Gemini API, and one isolated project per case with goalkeeper's hooks
installed by ``goalkeeper install gemini`` (as a user installs them).

The CLI runs headless (``-p``, ``-o stream-json``) with an environment built from scratch (see
``gemini-offline-e2e.md``): a fresh ``HOME`` whose settings choose API-key auth (the base URL
alone fails with exit 41 in 0.61.0) and turn usage statistics off, a trusted workspace (else exit
55 and no hooks), ``GEMINI_CLI_NO_RELAUNCH`` (else the started pid is a parent that ignores
SIGTERM), its own process group, and a timeout after which the group is killed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .harness import ClaudeInstallError, _read_line, find_npm, read_jsonl

GEMINI_VERSION = "0.61.0"
GEMINI_DIR = Path(__file__).resolve().parent / "gemini"
GEMINI_BIN = GEMINI_DIR / "node_modules" / ".bin" / "gemini"
FAKE_SERVER = Path(__file__).resolve().parent / "fake_gemini.py"
MODEL = "gemini-2.5-flash"
NPM_TIMEOUT_S = 300
GEMINI_TIMEOUT_S = 120
GOALKEEPER_TIMEOUT_S = 60
USER_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "ide": {"enabled": False},
}


class GeminiInstallError(RuntimeError):
    pass


def gemini_version() -> str | None:
    if not GEMINI_BIN.exists():
        return None
    try:
        proc = subprocess.run(
            [str(GEMINI_BIN), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "GEMINI_CLI_NO_RELAUNCH": "true"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def ensure_gemini() -> Path:
    """The pinned ``gemini`` binary, installed with ``npm ci`` from the lock file if needed."""
    if gemini_version() == GEMINI_VERSION:
        return GEMINI_BIN
    try:
        npm, env = find_npm()
    except ClaudeInstallError as exc:
        raise GeminiInstallError(str(exc)) from None
    cmd = [npm, "ci", "--no-audit", "--no-fund"]
    try:
        proc = subprocess.run(
            cmd, cwd=GEMINI_DIR, env=env, capture_output=True, text=True, timeout=NPM_TIMEOUT_S
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GeminiInstallError(f"`{' '.join(cmd)}` in {GEMINI_DIR}: {exc}") from None
    if proc.returncode != 0:
        raise GeminiInstallError(
            f"`{' '.join(cmd)}` failed ({proc.returncode}):\n{(proc.stdout + proc.stderr)[-3000:]}"
        )
    got = gemini_version()
    if got != GEMINI_VERSION:
        raise GeminiInstallError(f"after npm ci, gemini --version printed {got!r}")
    return GEMINI_BIN


class FakeGemini:
    """``fake_gemini.py`` on a free port; ``set_rules`` may be called at any time."""

    def __init__(self, workdir: Path) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.script = workdir / "rules.json"
        self.log = workdir / "requests.jsonl"
        self.stderr_path = workdir / "fake.stderr"
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.set_rules([])

    def set_rules(self, rules: Sequence[Mapping[str, Any]]) -> None:
        self.script.write_text(json.dumps(list(rules), ensure_ascii=False, indent=1), "utf-8")

    def start(self) -> FakeGemini:
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, str(FAKE_SERVER), "--script", str(self.script), "--log",
                 str(self.log)],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err,
            )  # fmt: skip
        assert self.proc.stdout is not None
        line = _read_line(self.proc.stdout, 15)
        if not line.startswith(b"LISTENING "):
            self.stop()
            raise RuntimeError(f"fake Gemini server did not start: {line!r}")
        self.port = int(line.split()[1])
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def entries(self) -> list[dict[str, Any]]:
        return read_jsonl(self.log)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()

    def __enter__(self) -> FakeGemini:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def newest_entry(request: Mapping[str, Any]) -> dict[str, Any]:
    contents = request["body"].get("contents") or [{}]
    entry: dict[str, Any] = contents[-1]
    return entry


def texts(entry: Mapping[str, Any]) -> list[str]:
    return [p["text"] for p in entry.get("parts") or [] if isinstance(p.get("text"), str)]


def function_responses(entry: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [p["functionResponse"] for p in entry.get("parts") or [] if "functionResponse" in p]


@dataclass
class GeminiRun:
    """One ``gemini -p`` run: its exit, its stream-json events and the model requests."""

    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    log: list[dict[str, Any]]
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def requests(self) -> list[dict[str, Any]]:
        return [
            e for e in self.log if str(e.get("path", "")).endswith("streamGenerateContent?alt=sse")
        ]

    @property
    def stray(self) -> list[dict[str, Any]]:
        return [e for e in self.log if e not in self.requests]

    @property
    def rules(self) -> list[str | None]:
        return [e.get("rule") for e in self.requests]

    def tool_results(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("type") == "tool_result"]

    def describe(self) -> str:
        rows = [f"exit={self.returncode} wall={self.wall_s:.1f}s rules={self.rules}"]
        if self.stray:
            rows.append(f"stray={[(e.get('method'), e.get('path')) for e in self.stray]}")
        rows.append("stderr: " + self.stderr.strip()[-2000:])
        return "\n".join(rows)


class GeminiCase:
    """A fresh folder with ``proj/`` (a git repository), ``home/`` and ``tmp/``."""

    def __init__(self, root: Path, gemini: Path) -> None:
        self.root = root.resolve()
        self.proj, self.home, self.tmp = self.root / "proj", self.root / "home", self.root / "tmp"
        for d in (self.proj, self.home / ".gemini", self.tmp):
            d.mkdir(parents=True, exist_ok=True)
        (self.home / ".gemini" / "settings.json").write_text(json.dumps(USER_SETTINGS), "utf-8")
        subprocess.run(["git", "init", "-q", str(self.proj)], check=True, timeout=30)
        self.gemini = gemini
        self.fake = FakeGemini(self.root / "fake").start()

    def close(self) -> None:
        try:
            self.goalkeeper("server", "stop", check=False)
        except subprocess.TimeoutExpired:
            pass
        self.fake.stop()

    def plan_path(self, topic: str) -> Path:
        return self.proj / "plan" / f"{topic}.md"

    def write_plan(self, topic: str, text: str) -> Path:
        path = self.plan_path(topic)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
        return path

    def base_env(self) -> dict[str, str]:
        """From scratch: no developer credentials, no surrounding agent, no GITHUB_SHA (which
        makes Gemini strip the hooks' environment)."""
        return {
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOME": str(self.home),
            "TMPDIR": str(self.tmp),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
        }

    def goalkeeper(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [sys.executable, "-m", "goalkeeper", "-C", str(self.proj), *args],
            cwd=self.proj, env=self.base_env(), capture_output=True, text=True,
            timeout=GOALKEEPER_TIMEOUT_S,
        )  # fmt: skip
        if check and proc.returncode != 0:
            raise AssertionError(f"goalkeeper {args} exited {proc.returncode}:\n{proc.stderr}")
        return proc

    def install(self) -> dict[str, Any]:
        """``goalkeeper install gemini``, exactly as a user runs it; the project settings."""
        self.goalkeeper("install", "gemini")
        data: dict[str, Any] = json.loads(
            (self.proj / ".gemini" / "settings.json").read_text("utf-8")
        )
        return data

    def status(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(
            self.goalkeeper("status", "--json", "--limit", "1000").stdout
        )
        return data

    def journal(self, kinds: Iterable[str] | None = None) -> list[dict[str, Any]]:
        wanted = set(kinds) if kinds is not None else None
        return [e for e in self.status()["recent"] if wanted is None or e["kind"] in wanted]

    def gemini_env(self, extra_env: Mapping[str, str] | None = None) -> dict[str, str]:
        """The CLI's environment: the fake API, trust, no relaunch, goalkeeper found through
        ``GOALKEEPER_PYTHON`` (as a user's environment would name it)."""
        env = self.base_env()
        env.update(
            {
                "GOOGLE_GEMINI_BASE_URL": self.fake.url,
                "GEMINI_API_KEY": "fake-key",
                "GEMINI_CLI_TRUST_WORKSPACE": "true",
                "GEMINI_CLI_NO_RELAUNCH": "true",
                "GEMINI_TELEMETRY_ENABLED": "false",
                "HTTPS_PROXY": self.fake.url,
                "HTTP_PROXY": self.fake.url,
                "NO_PROXY": "127.0.0.1,localhost",
                "GOALKEEPER_PYTHON": sys.executable,
                "GOALKEEPER_SERVER_IDLE_S": "30",
                "GOALKEEPER_LANG": "en",
                "GOALKEEPER_REVIEW": "off",  # the review round is tests/engine/test_review.py's
            }
        )
        env.update(extra_env or {})
        return env

    def gemini_argv(self, prompt: str) -> list[str]:
        return [str(self.gemini), "-m", MODEL, "--yolo", "-o", "stream-json", "-p", prompt]

    def run(
        self,
        rules: Sequence[Mapping[str, Any]],
        prompt: str = "Make greet.sh print hello.",
        extra_env: Mapping[str, str] | None = None,
        timeout: float = GEMINI_TIMEOUT_S,
        wrap: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> GeminiRun:
        """``gemini -p prompt`` in the project (after ``wrap``, e.g. ``goalkeeper run … --``),
        in its own process group, killed with it after ``timeout`` seconds."""
        self.fake.set_rules(rules)
        if self.fake.log.exists():
            self.fake.log.unlink()
        env = {**(env if env is not None else self.gemini_env()), **(extra_env or {})}
        argv = [*wrap, *self.gemini_argv(prompt)]
        start = time.monotonic()
        proc = subprocess.Popen(
            argv, cwd=self.proj, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate(timeout=10)
            err += f"\n[harness] killed after {timeout}s"
        try:  # anything the run left in its group (a hook, a shell command)
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        events = []
        for line in out.splitlines():
            try:
                events.append(json.loads(line))
            except ValueError:
                continue
        return GeminiRun(
            proc.returncode, out, err, time.monotonic() - start, self.fake.entries(), events
        )
