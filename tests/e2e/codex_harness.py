"""The pinned Codex CLI and one end-to-end case: a temporary HOME and CODEX_HOME, a git repo,
goalkeeper installed with ``goalkeeper install codex --trust`` (as a user runs it, from this
virtualenv's goalkeeper via ``GOALKEEPER_PYTHON``), and ``codex exec`` against the fake
Responses API (``fake_responses``), under a timeout, its process group killed afterwards.
See ``../shared/reference/codex-offline-e2e.md``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .fake_responses import FakeResponses
from .harness import find_npm

CODEX_VERSION = "0.171.0"
CODEX_DIR = Path(__file__).parent / "codex"
CODEX_BIN = CODEX_DIR / "node_modules" / ".bin" / "codex"
CODEX_TIMEOUT_S = 90
STRIPPED_PREFIXES = ("OPENAI_", "CODEX_", "GOALKEEPER_", "CLAUDE_", "ANTHROPIC_")


class CodexInstallError(RuntimeError):
    pass


def codex_version() -> str | None:
    if not CODEX_BIN.exists():
        return None
    try:
        out = subprocess.run(
            [str(CODEX_BIN), "--version"], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def ensure_codex() -> Path:
    """The pinned ``codex`` under tests/e2e/codex/node_modules, installed with npm if needed."""
    wanted = f"codex-cli {CODEX_VERSION}"
    if codex_version() == wanted:
        return CODEX_BIN
    npm, env = find_npm()
    lock = CODEX_DIR / "package-lock.json"
    cmd = [npm, "ci" if lock.exists() else "install", "--no-audit", "--no-fund"]
    try:
        proc = subprocess.run(
            cmd, cwd=CODEX_DIR, env=env, capture_output=True, text=True, timeout=600
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise CodexInstallError(f"`{' '.join(cmd)}` in {CODEX_DIR}: {exc}") from exc
    if proc.returncode != 0:
        raise CodexInstallError((proc.stdout + proc.stderr)[-3000:])
    got = codex_version()
    if got != wanted:
        raise CodexInstallError(f"installed {got!r}, wanted {wanted!r}")
    return CODEX_BIN


@dataclass
class CodexRun:
    returncode: int
    stdout: str
    stderr: str
    wall: float
    requests: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rules(self) -> list[str | None]:
        return [r["rule"] for r in self.requests]

    def describe(self) -> str:
        tails = [[(i.get("type"), i.get("role")) for i in r["input"][-3:]] for r in self.requests]
        return (
            f"exit {self.returncode} in {self.wall:.1f}s, rules {self.rules}\n"
            f"input tails: {tails}\n"
            f"stdout: {self.stdout[-1500:]}\nstderr: {self.stderr[-4000:]}"
        )


def resent_dropped(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The requests without one that repeats the previous request's input exactly: Codex now
    and then sends a turn's request twice (seen: 1 run in 6), which says nothing about
    goalkeeper and would shift every index a test reads."""
    kept: list[dict[str, Any]] = []
    for request in requests:
        if kept and request["input"] == kept[-1]["input"]:
            kept[-1].setdefault("resent", 0)
            kept[-1]["resent"] += 1
            continue
        kept.append(request)
    return kept


class CodexCase:
    def __init__(self, root: Path, codex: Path) -> None:
        self.root = Path(os.path.realpath(root))
        self.codex = codex
        self.home = self.root / "home"
        self.codex_home = self.home / ".codex"
        self.repo = self.root / "repo"
        self.codex_home.mkdir(parents=True)
        self.repo.mkdir()
        subprocess.run(["git", "init", "-q", str(self.repo)], check=True)

    def base_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(STRIPPED_PREFIXES)}
        env.update(
            HOME=str(self.home),
            CODEX_HOME=str(self.codex_home),
            FAKE_API_KEY="fake-key",
            GOALKEEPER_PYTHON=sys.executable,
            GOALKEEPER_SERVER_IDLE_S="30",
            GOALKEEPER_REVIEW="off",  # the review round is tests/engine/test_review.py's
        )
        return env

    def goalkeeper(self, *args: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [sys.executable, "-m", "goalkeeper", "-C", str(self.repo), *args],
            cwd=self.repo,
            env=self.base_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, f"goalkeeper {args}: {proc.stdout}\n{proc.stderr}"
        return proc

    def configure(self) -> None:
        """The provider config Codex needs offline (the fake's port is set per run)."""
        (self.codex_home / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false\n'
            '\n[model_providers.fake]\nname = "Fake"\nbase_url = "http://127.0.0.1:9/v1"\n'
            'env_key = "FAKE_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n'
            "stream_max_retries = 0\n\n[analytics]\nenabled = false\n\n[features]\n"
            "plugins = false\nremote_plugin = false\napps = false\n",
            encoding="utf-8",
        )

    def install(self) -> str:
        """``configure``, then ``goalkeeper install codex --trust`` as a user runs it."""
        self.configure()
        return self.goalkeeper("install", "codex", "--trust").stdout

    def write(self, rel: str, text: str) -> Path:
        path = self.repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def run(
        self,
        rules: Sequence[Mapping[str, Any]],
        prompt: str,
        extra_env: Mapping[str, str] | None = None,
        *,
        wrapper: Sequence[str] = (),
    ) -> CodexRun:
        """``codex exec`` (after ``wrapper``: e.g. ``goalkeeper run --``) against the fake."""
        out = self.root / "last-message.txt"
        with FakeResponses(rules) as fake:
            args = [
                *wrapper, str(self.codex), "exec", "--skip-git-repo-check", "--color", "never",
                "--dangerously-bypass-approvals-and-sandbox",
                "-c", f'model_providers.fake.base_url="{fake.url}"',
                "-C", str(self.repo), "-o", str(out), prompt,
            ]  # fmt: skip
            t0 = time.monotonic()
            proc = subprocess.Popen(
                args,
                cwd=self.repo,
                env={**self.base_env(), **(extra_env or {})},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
            try:
                stdout, stderr = proc.communicate(timeout=CODEX_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                stdout, stderr = proc.communicate()
                raise AssertionError(
                    f"codex exec did not finish in {CODEX_TIMEOUT_S}s; rules so far "
                    f"{[r['rule'] for r in fake.requests]}\n{stderr[-3000:]}"
                ) from None
            finally:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)  # anything it left running
                except ProcessLookupError:
                    pass
            wall = time.monotonic() - t0
            return CodexRun(proc.returncode, stdout, stderr, wall, resent_dropped(fake.requests))

    def status(self) -> dict[str, Any]:
        out = self.goalkeeper("status", "--json", "--limit", "1000").stdout
        data: dict[str, Any] = json.loads(out)
        return data

    def journal(self, kinds: set[str]) -> list[dict[str, Any]]:
        return [e for e in self.status()["recent"] if e["kind"] in kinds]

    def stop_engine(self) -> None:
        subprocess.run(
            [sys.executable, "-m", "goalkeeper", "-C", str(self.repo), "server", "stop"],
            env=self.base_env(),
            capture_output=True,
            timeout=60,
        )
