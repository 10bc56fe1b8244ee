"""A project's state that an older goalkeeper kept in the project, moved out once.

Before issue 21, ``state.db`` lived in ``.goalkeeper/`` in the project, where the agent's shell
writes. The first goalkeeper process that opens such a project's store (a hook, the MCP server,
a command) copies it into the project's state folder (``locations.project_state_dir``); the
legacy folder is looked at only while that folder holds no database, so once the move is done
it is never read again, and the user is told once where the state now is and that the old
folder can be deleted.

What may be there is the agent's to write, so it is read with care: the legacy folder and file
are opened without following symbolic links and must be regular files (a FIFO is never waited
on, a link out is never followed) under ``MAX_LEGACY_BYTES``; goalkeeper's own reads copy them
(the WAL too, so the last commits come along) into a private staging folder, and SQLite only
ever opens the copies. The copy must be a goalkeeper database that passes SQLite's quick check,
and is written with SQLite's backup API into a new file; anything else starts fresh and says
why. The new file is linked into place with ``os.link``, which fails when another process got
there first: two processes that migrate at once each build a copy, one wins and leaves the
notice, the other discards its own.

Trust: the legacy file was writable by the agent, so the approvals and counters it holds are
only as trustworthy as the project folder was before the move; it is the agent-writable record
goalkeeper used until now, taken over once, not a new opening.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

from goalkeeper.store.db import DB_NAME, connect
from goalkeeper.store.locations import legacy_state_dir
from goalkeeper.store.migrations import MIGRATIONS

MAX_LEGACY_BYTES = 256 * 1024 * 1024
"""A state database holds counters, todos and a journal: megabytes. Beyond this, a hook would
spend seconds copying what is more likely not goalkeeper's file at all."""
NOTICE_NAME = "legacy-notice.json"
"""Left in the state folder by the process that moved the state; taken (deleted) by the first
session start or command that tells the user."""
_CHUNK = 1024 * 1024
_OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def has_legacy(project: Path) -> bool:
    """Whether ``project`` holds something where an older goalkeeper kept its database (a
    link or a FIFO counts: it is reported, not followed)."""
    return os.path.lexists(legacy_state_dir(project) / DB_NAME)


def adopt_legacy(project: Path, target: Path) -> bool:
    """Move ``project``'s legacy database to ``target`` (missing; its folder exists), or put a
    fresh one there when the legacy one cannot be used; leave the user a notice either way.
    False when there is no legacy database (the caller's first connection creates one). Raises
    ``OSError`` only for the state folder itself; the legacy side never raises."""
    if not has_legacy(project):
        return False
    import shutil
    import tempfile

    staging = Path(tempfile.mkdtemp(prefix=".legacy-", dir=target.parent))
    try:
        built = staging / "adopted.db"
        problem = _copy_legacy(legacy_state_dir(project), staging)
        if problem is None:
            problem = _build(staging / DB_NAME, built)
        if problem is not None:
            built.unlink(missing_ok=True)
            connect(built).close()  # fresh, with the schema: the legacy file is not retried
        if _link(built, target):
            _leave_notice(staging, target.parent, legacy_state_dir(project), problem)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return True


def take_notice(folder: Path) -> tuple[str, dict[str, object]] | None:
    """The move's notice for the user as a catalog key and its fields, once: the file is
    deleted, and only the process whose delete succeeds says it. None when there is none."""
    path = folder / NOTICE_NAME
    try:
        raw = path.read_bytes()[:8192]
        path.unlink()
    except OSError:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        data = {}
    data = data if isinstance(data, dict) else {}
    problem, detail = data.get("problem"), str(data.get("detail") or "")[:300]
    fields: dict[str, object] = {"state_dir": str(folder), "legacy": data.get("legacy") or ""}
    if problem is None:
        return "state.moved", fields
    key = f"state.fresh.{problem}" if problem in _PROBLEMS else "state.fresh.not_db"
    return key, {**fields, "detail": detail, "mb": MAX_LEGACY_BYTES // (1024 * 1024)}


_PROBLEMS = ("link", "not_file", "too_large", "unreadable", "not_db")


def _copy_legacy(legacy: Path, staging: Path) -> tuple[str, str] | None:
    """Copy the legacy database (and its WAL, when it is a regular file) into ``staging``;
    the problem (kind, detail) when the database itself cannot be copied."""
    try:
        folder = os.open(legacy, _OPEN | os.O_DIRECTORY)
    except OSError as exc:
        return _problem(exc)
    try:
        problem = _copy_one(folder, DB_NAME, staging / DB_NAME)
        if problem is None:  # a WAL that is not a plain file is left out: the database stands
            _copy_one(folder, DB_NAME + "-wal", staging / (DB_NAME + "-wal"))
        return problem
    finally:
        os.close(folder)


def _copy_one(folder: int, name: str, dest: Path) -> tuple[str, str] | None:
    try:
        fd = os.open(name, _OPEN, dir_fd=folder)
    except OSError as exc:
        return _problem(exc)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "not_file", ""
        if info.st_size > MAX_LEGACY_BYTES:
            return "too_large", ""
        copied = 0
        with open(dest, "xb") as out:
            while chunk := os.read(fd, _CHUNK):
                copied += len(chunk)
                if copied > MAX_LEGACY_BYTES:
                    return "too_large", ""
                out.write(chunk)
    except OSError as exc:
        return _problem(exc)
    finally:
        os.close(fd)
    return None


def _problem(exc: OSError) -> tuple[str, str]:
    import errno

    if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # O_NOFOLLOW met a link (or a file)
        return "link", ""
    return "unreadable", exc.strerror or type(exc).__name__


def _build(copy: Path, built: Path) -> tuple[str, str] | None:
    """Check the staged copy and write it into ``built`` with SQLite's backup API; the
    problem when it is not a goalkeeper database in good order."""
    try:
        source = sqlite3.connect(copy, isolation_level=None)
        try:
            version = source.execute("PRAGMA user_version").fetchone()[0]
            if not 1 <= version <= len(MIGRATIONS):
                return "not_db", f"schema {version}"
            verdict = source.execute("PRAGMA quick_check").fetchone()[0]
            if verdict != "ok":
                return "not_db", str(verdict)[:200]
            dest = sqlite3.connect(built, isolation_level=None)
            try:
                source.backup(dest)
                dest.execute("PRAGMA journal_mode = WAL")
            finally:
                dest.close()
        finally:
            source.close()
    except sqlite3.Error as exc:
        return "not_db", str(exc)[:200]
    return None


def _link(built: Path, target: Path) -> bool:
    """Put ``built`` at ``target`` unless a database is there already; whether it was put."""
    try:
        os.link(built, target)
    except FileExistsError:
        return False
    except OSError:  # a file system without hard links: rename, checking first
        if target.exists():
            return False
        os.replace(built, target)
    return True


def _leave_notice(
    staging: Path, folder: Path, legacy: Path, problem: tuple[str, str] | None
) -> None:
    """Write the notice whole, then rename it into ``folder``: a reader never sees half."""
    data = {"legacy": str(legacy), "problem": problem[0] if problem else None}
    if problem:
        data["detail"] = problem[1]
    try:
        (staging / NOTICE_NAME).write_text(json.dumps(data), encoding="utf-8")
        os.replace(staging / NOTICE_NAME, folder / NOTICE_NAME)
    except OSError:
        pass  # the move stands; only the word about it is lost
