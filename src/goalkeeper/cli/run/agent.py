"""The agent process of ``goalkeeper run``: started in its own process group, its output
passed through, ended at the time limit; and the error every run failure exits with (3)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from goalkeeper.store.outcome import AgentExit

ERROR = 3
_TERM_GRACE_S = 10.0


class RunError(click.ClickException):
    """goalkeeper could not run the agent at all: exit status 3, like every run error."""

    exit_code = ERROR


def program_name(path: str) -> str:
    """The program a command starts, without folder or launcher suffix (``claude.exe``,
    ``cli.js``): how ``goalkeeper run`` tells the hosts apart."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    for suffix in (".exe", ".cmd", ".js", ".mjs"):
        name = name.removesuffix(suffix)
    return name


def runs_goalkeeper_hooks(
    settings: Mapping[str, Any], is_goalkeeper_command: Callable[[object], bool]
) -> bool:
    """Whether a settings document already runs goalkeeper's hooks: a handler in its ``hooks``
    map (event → groups → ``hooks`` → handlers), the shape Claude Code's settings and Gemini
    CLI's share, whose ``command`` the host's own test calls goalkeeper's. ``goalkeeper run``
    then uses that install as it is: a second set of hooks would count every stop twice. Any
    other shape is no hook (the agent may have written the file)."""
    hooks = settings.get("hooks")
    groups = hooks.values() if isinstance(hooks, dict) else ()
    for group in (g for listed in groups if isinstance(listed, list) for g in listed):
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for handler in handlers if isinstance(handlers, list) else ():
            if isinstance(handler, dict) and is_goalkeeper_command(handler.get("command")):
                return True
    return False


def run_process(
    argv: Sequence[str], cwd: Path, env: dict[str, str], limit_s: float | None, as_json: bool
) -> AgentExit:
    """Run the agent in its own process group (so a time limit ends its children too), its
    output passed through (to stderr with --json, so stdout holds only goalkeeper's JSON)."""
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=env,
            stdout=sys.stderr.fileno() if as_json else None,
            start_new_session=True,
        )
    except OSError as exc:
        return AgentExit(False, None, error=f"cannot start {argv[0]}: {exc.strerror or exc}")
    try:
        return AgentExit(True, proc.wait(limit_s))
    except subprocess.TimeoutExpired:
        _stop_group(proc)
        why = f"the time limit (--max-minutes) stopped the agent after {limit_s or 0:g} s"
        return AgentExit(True, proc.returncode, True, why)
    except KeyboardInterrupt:
        _stop_group(proc)
        return AgentExit(True, proc.returncode, error="interrupted")


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGTERM, _TERM_GRACE_S), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue
