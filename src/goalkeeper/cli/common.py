"""What every command shares: the exit statuses, the context object, and how errors and JSON
are printed. Commands import these from here, not from ``app`` (which imports every command to
register it), so no command module and the app wiring import each other.
"""

from __future__ import annotations

from enum import IntEnum
from pathlib import Path

import click
from msgspec import Struct


class ExitCode(IntEnum):
    OK = 0  # done; for `gates`: every gate passes
    NOT_PASSED = 1  # the answer is "no": a gate is open, no marker found
    USAGE = 2  # bad flags or arguments (click's own code)
    INTERNAL = 3  # goalkeeper failed; never returned by `goalkeeper hook`
    NO_SESSION = 4  # `workflow`, `mode`: no agent session to act on yet (start one, or --session)


class App(Struct, frozen=True):
    project: Path
    verbose: bool


class UserError(click.ClickException):
    """A user-facing error, printed as ``goalkeeper: <what>; <what to do>``, exit status 2."""

    exit_code = int(ExitCode.USAGE)


class NotPassedError(click.ClickException):
    """The answer is "no" (nothing to act on), printed like an error, exit status 1."""

    exit_code = int(ExitCode.NOT_PASSED)


def fail(message: str, code: int = int(ExitCode.USAGE)) -> click.ClickException:
    return NotPassedError(message) if code == int(ExitCode.NOT_PASSED) else UserError(message)


def echo_json(value: object) -> None:
    import json

    click.echo(json.dumps(value, ensure_ascii=False, indent=2))
