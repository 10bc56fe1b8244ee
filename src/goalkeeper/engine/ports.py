"""The seams where time and processes enter the engine, with their real implementations.

Guards never read a clock or start a process: the engine stamps ``now`` from a ``Clock`` and
runs commands through a ``Runner``. ``goalkeeper.testing`` ships fakes for both.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from msgspec import Struct

if TYPE_CHECKING:  # subprocess, selectors and signal cost ~5 ms to import: only when running
    import subprocess


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.time()


class Completed(Struct, frozen=True):
    """How a command ended: exit code (None on timeout) and the tail of its output."""

    argv: tuple[str, ...]
    exit_code: int | None
    output_tail: str
    timed_out: bool = False


class Runner(Protocol):
    def run(self, argv: Sequence[str], *, cwd: Path, timeout_s: float) -> Completed: ...


# After the command's own process ends, output still arriving (a background child that writes
# its last lines) is read this long before the rest of its process group is killed.
LINGER_S = 0.5
# After the kill: how long to read what is left in the pipe, and to wait for the process to be
# reaped. A process that escaped the group (setsid) and holds the pipe cannot stretch this.
DRAIN_S = 1.0
REAP_S = 1.0
_READ_CHUNK = 1 << 16
_POLL_S = 0.02  # how often the runner looks whether the command's own process has ended


class SubprocessRunner:
    """Runs a command in the project folder so that it cannot wedge the caller.

    - stdin is ``/dev/null``: a command that reads it gets EOF at once;
    - stdout and stderr are one pipe, read as the output arrives; only the last ``tail_chars``
      characters are kept (about ``4 * tail_chars`` bytes), so 200 MB of output costs no memory;
    - the command runs in a session of its own; when its own process ends, or at the timeout,
      the whole process group is killed, so a background child that keeps the pipe open
      (``sleep 60 &``) cannot make the runner wait;
    - every wait after that is bounded (``DRAIN_S``, ``REAP_S``).

    A program that cannot be started is exit code 127 with the error as the output.
    """

    def __init__(self, tail_chars: int = 4000) -> None:
        self.tail_chars = tail_chars

    def run(self, argv: Sequence[str], *, cwd: Path, timeout_s: float) -> Completed:
        import subprocess

        args = tuple(argv)
        try:
            proc = subprocess.Popen(
                args,
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except (OSError, ValueError) as exc:
            return Completed(args, 127, f"{type(exc).__name__}: {exc}")
        tail = _Tail(4 * self.tail_chars + 4)
        try:
            timed_out = _pump(proc, tail, time.monotonic() + timeout_s)
        finally:
            _kill_group(proc)
            _drain(proc, tail)
        try:
            code = proc.wait(REAP_S)
        except subprocess.TimeoutExpired:  # unkillable (uninterruptible sleep): give up on it
            timed_out, code = True, None
        text = tail.text()[-self.tail_chars :] if self.tail_chars > 0 else ""
        return Completed(args, None if timed_out else code, text, timed_out=timed_out)


class _Tail:
    """The last ``keep`` bytes written to it."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.buf = bytearray()

    def add(self, data: bytes) -> None:
        if len(data) >= self.keep:
            self.buf[:] = data[len(data) - self.keep :]
            return
        self.buf += data
        if len(self.buf) > self.keep:
            del self.buf[: len(self.buf) - self.keep]

    def text(self) -> str:
        return self.buf.decode("utf-8", "replace")


def _pump(proc: subprocess.Popen[bytes], tail: _Tail, deadline: float) -> bool:
    """Read the output until the command's process has ended and the pipe is closed (or the
    linger after the end runs out); True if the deadline came first."""
    import selectors

    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        is_open = True
        ended_at: float | None = None
        pause = 0.0005
        while True:
            now = time.monotonic()
            if ended_at is None and _has_ended(proc):
                ended_at = now
            if ended_at is not None and (not is_open or now >= ended_at + LINGER_S):
                return False
            if now >= deadline:
                return True
            if is_open:
                limit = deadline if ended_at is None else min(deadline, ended_at + LINGER_S)
                if sel.select(min(limit - now, _POLL_S)):
                    data = os.read(fd, _READ_CHUNK)
                    if data:
                        tail.add(data)
                    else:
                        sel.unregister(fd)
                        is_open = False
            else:  # the pipe is closed but the process has not been seen to end yet
                time.sleep(min(pause, max(deadline - now, 0.0)))
                pause = min(pause * 2, _POLL_S)


def _has_ended(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the command's own process has ended, without reaping it: while it is a zombie
    its pid, which is the process group id, cannot be reused, so the group kill that follows
    cannot hit an unrelated group."""
    if proc.returncode is not None:
        return True
    waitid = getattr(os, "waitid", None)
    if waitid is None:
        return proc.poll() is not None
    try:
        info = waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL whatever is left of the command's process group (its session leader included)."""
    import signal

    if proc.returncode is not None:  # already reaped: its pid may belong to someone else now
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _drain(proc: subprocess.Popen[bytes], tail: _Tail) -> None:
    """Read what is left in the pipe for at most ``DRAIN_S``, then close it."""
    import selectors

    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + DRAIN_S
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while (left := deadline - time.monotonic()) > 0 and sel.select(left):
                data = os.read(fd, _READ_CHUNK)
                if not data:
                    break
                tail.add(data)
    except (OSError, ValueError):
        pass
    finally:
        proc.stdout.close()


def find_program(name: str) -> str | None:
    """The absolute path of the executable ``name`` on ``PATH``, or None.

    Relative ``PATH`` entries (an empty entry, ``.``, ``node_modules/.bin``) are skipped: a
    command runs in the project folder, so they would name programs the agent wrote. A name
    with a slash is returned as it is if it is an executable file.
    """
    if "/" in name:
        return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not os.path.isabs(folder):
            continue
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None
