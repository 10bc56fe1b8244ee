"""The agent process of ``goalkeeper run``: started in its own process group, its output
passed through, ended at the time limit; and the error every run failure exits with (3)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

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
