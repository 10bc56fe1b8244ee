"""What every host's doctor check is built from: the report of one host, the reader that turns an
unusable file into a finding, the context, and the launcher probe (run once per interpreter and
environment)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
from msgspec import Struct

import goalkeeper
from goalkeeper.hosts.command_hooks.findings import Finding

PROBE_TIMEOUT_S = 20.0
MAX_BYTES = 16 * 1024 * 1024


class HostReport(Struct, frozen=True):
    """One host: ``healthy``, ``problem`` or ``not installed`` (nothing of goalkeeper's is
    configured for it: not a failure)."""

    host: str
    status: str
    findings: tuple[Finding, ...] = ()
    shell: str = ""
    """The agent's shell: ``confined``, ``writes confined`` or ``not confined`` by the host's
    sandbox ("" when goalkeeper is not installed for the host)."""
    guarantees: dict[str, str] = msgspec.field(default_factory=dict)
    """Each guarantee of the README's security model: ``holds`` or ``best effort``."""


class Reader:
    """Reads the files one host's checks need; a file that exists but cannot be used becomes an
    ``unreadable`` finding (and the host counts as configured: nobody can tell otherwise)."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.problems: list[Finding] = []

    def text(self, path: Path) -> str | None:
        from goalkeeper.store.safe_read import UnsafeFile, read_capped

        try:
            return read_capped(path, MAX_BYTES).decode("utf-8")
        except UnsafeFile as exc:
            if exc.kind != "missing":
                self._unreadable(path, exc.reason)
        except (OSError, UnicodeDecodeError) as exc:
            self._unreadable(path, str(exc))
        return None

    def json(self, path: Path) -> dict[str, Any] | None:
        """The file's JSON object; ``None`` when it is missing or unreadable."""
        text = self.text(path)
        if text is None:
            return None
        if not text.strip():
            return {}
        try:
            data = json.loads(text)
        except ValueError as exc:
            self._unreadable(path, f"not valid JSON ({exc})")
            return None
        if not isinstance(data, dict):
            self._unreadable(path, "does not hold a JSON object")
            return None
        return data

    def toml(self, path: Path) -> dict[str, Any] | None:
        import tomllib

        text = self.text(path)
        if text is None:
            return None
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            self._unreadable(path, f"not valid TOML ({exc})")
            return None

    def _unreadable(self, path: Path, why: str) -> None:
        self.problems.append(
            Finding(self.host, "readable", False, f"unreadable: {path}: {why}", f"fix {path}")
        )


class Context(Struct, frozen=True):
    project: Path
    """The project folder, real (hosts key their trust by the real path)."""
    home: Path
    env: dict[str, str]
    git_root: str | None


def git_root(folder: Path) -> str | None:
    for item in (folder, *folder.parents):
        if (item / ".git").exists():
            return str(item)
    return None


class Prober:
    """Runs goalkeeper's own launcher once per interpreter fallback and environment."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.seen: dict[tuple[str | None, str], str | None] = {}

    def finding(self, host: str, python: str | None, extra: dict[str, str]) -> Finding:
        from goalkeeper.cli.install.common import launcher_version

        key = (python, json.dumps(extra, sort_keys=True))
        if key not in self.seen:
            self.seen[key] = launcher_version(self.ctx.project, python, extra, PROBE_TIMEOUT_S)
        out = self.seen[key]
        if out is None:
            return Finding(
                host,
                "runnable",
                False,
                "the hooks' launcher finds no goalkeeper from here: every hook would only say "
                "goalkeeper is not installed",
                "put `goalkeeper` on PATH (uv tool install, pipx) or set GOALKEEPER_PYTHON="
                f"{sys.executable} where you start the agent",
            )
        version = out.split()[-1] if out.split() else ""
        if version != goalkeeper.__version__:
            return Finding(
                host,
                "runnable",
                False,
                f"the launcher finds goalkeeper {version or '?'}, this is {goalkeeper.__version__}",
                "upgrade the goalkeeper on PATH (or the one GOALKEEPER_PYTHON names)",
            )
        return Finding(host, "runnable", True, f"the launcher finds goalkeeper {version}")

    def hooks(
        self,
        host: str,
        layers: list[tuple[str, list[str]]],
        command_for: Callable[[str | None], str],
        extra: dict[str, str] | None = None,
    ) -> list[Finding]:
        """``current`` and ``runnable`` for the configured ``layers`` (layer, its commands):
        a command this goalkeeper would write tells the interpreter it falls back to."""
        from goalkeeper.cli.install.common import baked_python

        out: list[Finding] = []
        for layer, commands in layers:
            python: str | None = None
            fallbacks = [None]
            if layer != "project":
                fallbacks.append(baked_python(layer, self.ctx.project))  # type: ignore[arg-type]
            known = {command_for(p): p for p in fallbacks}
            if all(c in known for c in commands):
                python = known[commands[0]] if commands else None
            else:
                scope = "" if layer == "project" else f" --{layer}"
                out.append(
                    Finding(
                        host,
                        "current",
                        True,
                        f"{layer}: goalkeeper's hook command differs from this goalkeeper's "
                        "(another version, or edited)",
                        f"goalkeeper install {host}{scope}",
                        warn=True,
                    )
                )
            out.append(self.finding(host, python, extra or {}))
        return out


def report(
    host: str, findings: list[Finding], shell: str = "", walls: list[Finding] | None = None
) -> HostReport:
    """The host's status from its findings; ``shell`` and the sandbox's findings (``walls``),
    with the last line saying what the agent's shell can do and so which guarantees hold."""
    from goalkeeper.core.messages import make_say
    from goalkeeper.hosts.command_hooks.own_folders import guarantees

    unique = list(dict.fromkeys([*findings, *(walls or [])]))
    if shell:
        key = "sandbox.shell." + shell.replace(" ", "_")
        unique.append(Finding(host, "shell", True, make_say("en")(key)))
    status = "healthy" if all(f.ok for f in unique) else "problem"
    return HostReport(host, status, tuple(unique), shell, guarantees(shell) if shell else {})
