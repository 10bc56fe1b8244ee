"""Read a file the agent may have planted: a regular file only, size-capped, never blocking.

GOAL.md, plans, catalogs, the project's configuration and Claude Code's transcript are read by
hooks on every event, and the agent can make any of them a FIFO (every hook would hang on the
open), a symlink to ``/dev/zero`` (an unbounded read) or a symlink to a file outside the
project. So each is opened non-blocking, ``fstat`` must show a regular file, its size is
checked before reading and at most ``limit + 1`` bytes are ever read, and a path that resolves
outside its folder is refused. A refusal is ``UnsafeFile`` with a reason fit for a notice; the
caller turns it into its own "cannot read" value. Nothing here writes.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import NamedTuple

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20


class UnsafeFile(OSError):
    """The path is not a regular file goalkeeper may read; ``kind`` is one of ``missing``,
    ``special``, ``too_large``, ``outside``, ``unreadable``, and the message says why."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


def read_capped(path: Path | str, limit: int, *, within: Path | str | None = None) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them, else
    ``UnsafeFile``. With ``within``, a path that resolves (symlinks followed) outside that
    folder is refused."""
    name = os.fspath(path)
    try:
        outside = within is not None and not resolves_within(name, within)
        st = os.stat(name)
    except FileNotFoundError:
        raise UnsafeFile("missing", "does not exist") from None
    except ValueError:  # a NUL byte in the name
        raise UnsafeFile("unreadable", "has a NUL byte in its name") from None
    except OSError as exc:
        raise UnsafeFile("unreadable", f"cannot be read ({exc.strerror})") from None
    if outside:
        raise UnsafeFile("outside", f"points outside {os.fspath(within or '')}")
    _check(st, limit)
    try:
        fd = os.open(name, _FLAGS)
    except OSError as exc:
        raise UnsafeFile("unreadable", f"cannot be read ({exc.strerror})") from None
    try:
        _check(os.fstat(fd), limit)  # swapped for a FIFO between the stat and the open?
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise UnsafeFile("unreadable", f"cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)
    if total > limit:  # grew while it was read
        raise UnsafeFile("too_large", _too_large(total, limit))
    return b"".join(chunks)


def open_regular(path: Path | str) -> int:
    """A non-blocking read descriptor of the regular file at ``path`` (the caller closes it),
    else ``UnsafeFile``: for files read from an offset, such as a transcript's new tail."""
    name = os.fspath(path)
    try:
        fd = os.open(name, _FLAGS)
    except FileNotFoundError:
        raise UnsafeFile("missing", "does not exist") from None
    except ValueError:
        raise UnsafeFile("unreadable", "has a NUL byte in its name") from None
    except OSError as exc:
        raise UnsafeFile("unreadable", f"cannot be read ({exc.strerror})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UnsafeFile("special", f"is {_kind(mode)}, not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_new_lines(path: Path | str, offset: int | None, max_bytes: int) -> NewLines | None:
    """The whole lines a log (a host's transcript) gained after ``offset``, at most the last
    ``max_bytes``; None when it cannot be read. A FIFO or a device would hang the hook: regular
    files only. An unknown or stale offset reads the tail and drops its first, partial line;
    an unfinished last line waits for the next read (``NewLines.offset`` stops before it)."""
    try:
        fd = open_regular(path)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        known = offset is not None and 0 <= offset <= size
        start = offset if known and offset is not None else max(0, size - max_bytes)
        if size - start > max_bytes:
            start, known = size - max_bytes, False
        data = os.pread(fd, size - start, start)
    except OSError:
        return None
    finally:
        os.close(fd)
    end = data.rfind(b"\n") + 1
    body = data[:end]
    if start > 0 and not known:
        body = body[body.find(b"\n") + 1 :]  # began mid-line
    return NewLines(body, size, start + end)


class NewLines(NamedTuple):
    body: bytes
    """Whole lines, each ending in a newline."""
    size: int
    """The file's size when read."""
    offset: int
    """Where the next read starts."""


_NOFOLLOW = _FLAGS | getattr(os, "O_NOFOLLOW", 0)


def open_exact(path: Path | str, limit: int) -> tuple[int, int] | None:
    """A read descriptor (the caller closes it) and the size of the regular file that is
    ``path`` itself, at most ``limit`` bytes; None for anything else: missing, a symlink (not
    followed), a FIFO or device (opened non-blocking, never waited on), larger. For hashing a
    file's content where a wrong file must count as unknown, not as read."""
    try:
        fd = os.open(os.fspath(path), _NOFOLLOW)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
        os.close(fd)
        return None
    return fd, st.st_size


def sha256_of(path: Path | str, limit: int) -> str | None:
    """The sha256 of the regular file ``path`` (``open_exact``'s rules), or None, also when
    it changed size while it was read."""
    import hashlib

    opened = open_exact(path, limit)
    if opened is None:
        return None
    fd, size = opened
    try:
        digest = hashlib.sha256()
        read = 0
        while data := os.read(fd, _CHUNK):
            digest.update(data)
            read += len(data)
            if read > size:
                return None
        return digest.hexdigest() if read == size else None
    except OSError:
        return None
    finally:
        os.close(fd)


def resolves_within(path: Path | str, folder: Path | str) -> bool:
    """Whether ``path``, symlinks resolved, lies inside ``folder`` (also resolved)."""
    real = os.path.realpath(path)
    root = os.path.realpath(folder)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _check(st: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFile("special", f"is {_kind(st.st_mode)}, not a regular file")
    if st.st_size > limit:
        raise UnsafeFile("too_large", _too_large(st.st_size, limit))


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a file"


def _too_large(size: int, limit: int) -> str:
    return f"is {_size(size)}, more than the {_size(limit)} goalkeeper reads"


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / 1024 / 1024:.1f} MB"
    if n >= 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n} bytes"


def file_size(path: str | None) -> int | None:
    """The size of the file at ``path`` (a host's session log), None when there is none or it
    cannot be read: a measure of the session, never a reason to fail an event."""
    if not path:
        return None
    try:
        return os.stat(path).st_size
    except OSError:
        return None
