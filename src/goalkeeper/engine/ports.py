"""The seams where time and processes enter the engine, with their real implementations.

Guards never read a clock or start a process: the engine stamps ``now`` from a ``Clock`` and
runs commands through a ``Runner``. ``goalkeeper.testing`` ships fakes for both.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.time()


@dataclass(frozen=True, slots=True)
class Completed:
    """How a command ended: exit code (None on timeout) and the tail of its output."""

    argv: tuple[str, ...]
    exit_code: int | None
    output_tail: str
    timed_out: bool = False


class Runner(Protocol):
    def run(self, argv: Sequence[str], *, cwd: Path, timeout_s: float) -> Completed: ...


class SubprocessRunner:
    """Runs a command in the project directory; keeps the last ``tail_chars`` of its output."""

    def __init__(self, tail_chars: int = 4000) -> None:
        self.tail_chars = tail_chars

    def run(self, argv: Sequence[str], *, cwd: Path, timeout_s: float) -> Completed:
        import subprocess

        try:
            proc = subprocess.run(
                list(argv),
                cwd=cwd,
                capture_output=True,
                timeout=timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            out = (exc.stdout or b"") + (exc.stderr or b"")
            return Completed(tuple(argv), None, self._tail(out), timed_out=True)
        except OSError as exc:
            return Completed(tuple(argv), 127, f"{type(exc).__name__}: {exc}")
        return Completed(tuple(argv), proc.returncode, self._tail(proc.stdout + proc.stderr))

    def _tail(self, data: bytes) -> str:
        return data.decode("utf-8", "replace")[-self.tail_chars :]
