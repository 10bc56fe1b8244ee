"""The one place that opens the state database (``state.db`` in the project's state folder).

The folder is the user's (``locations.project_state_dir``), never the project, where the
agent's shell writes: ``git clean -fdx`` or a write the trust guard cannot read leaves
goalkeeper's counters, approvals and promises as they were. A project whose state an older
goalkeeper kept in ``.goalkeeper/`` is moved once, when its store is first opened
(``store.legacy``).

SQLite in WAL mode with a busy timeout, so parallel hook processes queue instead of failing, and
``BEGIN IMMEDIATE`` per event, so every read-modify-write of a session is one transaction and no
update is lost. ``sqlite3`` errors are translated here into ``StoreBusy`` / ``StoreDamaged``.
"""

from __future__ import annotations

import _thread  # its lock is threading.Lock itself, without importing threading (~1 ms)
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from goalkeeper.store.locations import PROJECTS, project_state_dir, state_home
from goalkeeper.store.migrations import MIGRATIONS

DB_NAME = "state.db"
BUSY_TIMEOUT_MS = 10_000  # 20 hooks at once, a few ms each: far below this, even on a slow disk


class StoreError(Exception):
    """The state database cannot be used."""


class StoreBusy(StoreError):
    """Another process held the database longer than the busy timeout."""


class StoreDamaged(StoreError):
    """The file is not a usable goalkeeper database; it is left untouched."""


def state_path(project: Path) -> Path:
    """``project``'s state database, in its folder under the user's state home."""
    return project_state_dir(project) / DB_NAME


def ensure_state_dir(project: Path) -> Path:
    """Create ``project``'s state folder (and the state home above it) readable by the user
    alone (mode 0700): what is in it is the user's record of what they approved. A folder that
    exists with wider bits (an install receipt written first) is narrowed. Called only while
    the database does not exist yet, so a hook pays for it once per project."""
    directory = project_state_dir(project)
    home = state_home()
    home.parent.mkdir(parents=True, exist_ok=True)  # ~/.local/state: the user's, as it is
    for folder in (home, home / PROJECTS, directory):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            if folder.stat().st_mode & 0o077:
                os.chmod(folder, 0o700)
    return directory


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating and migrating if needed) the database at ``path``."""
    try:
        conn = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open {path}: {exc}") from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # WAL with NORMAL: a commit is durable across a crash of the process, not of the whole
        # machine, and costs no fsync; state that a power cut could roll back is recoverable.
        conn.execute("PRAGMA synchronous = NORMAL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version < len(MIGRATIONS):
            _migrate(conn)
        elif version > len(MIGRATIONS):  # a newer goalkeeper's schema: never write to it
            conn.close()
            raise StoreDamaged(
                f"{path} was written by a newer goalkeeper (schema {version}, this one knows "
                f"{len(MIGRATIONS)}); upgrade goalkeeper, or move the file aside to start fresh"
            )
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise _translate(exc, path) from exc
    return conn


class ConnectionPool:
    """Open connections kept for reuse by a long-lived process (the warm hook engine), which
    serves each hook request with a fresh ``Store``. Opening a connection and closing it cost
    about 1 ms per request, and the close of the last one checkpoints and deletes the WAL for
    the next request to re-create (two fsync waits; tens of ms on a busy disk: performance
    audit improvement 3). A connection is reused only for the same file (path and inode: a
    database moved aside is never written through an old handle) and never inside a
    transaction. Thread-safe: each connection serves one request at a time."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._idle: list[tuple[Path, int, sqlite3.Connection]] = []
        self._lock = _thread.allocate_lock()

    def take(self, path: Path) -> sqlite3.Connection | None:
        try:
            inode = path.stat().st_ino
        except OSError:
            return None
        found, stale = None, []
        with self._lock:
            keep = []
            for entry in self._idle:
                if entry[0] != path:
                    keep.append(entry)
                elif entry[1] != inode:
                    stale.append(entry[2])  # that file was moved aside or replaced
                elif found is None:
                    found = entry[2]
                else:
                    keep.append(entry)
            self._idle = keep
        for conn in stale:
            conn.close()
        return found

    def give(self, path: Path, conn: sqlite3.Connection) -> bool:
        """Keep ``conn`` for the next request (True), or not (the caller closes it)."""
        try:
            inode = path.stat().st_ino
        except OSError:
            return False
        if conn.in_transaction:
            return False
        with self._lock:
            if len(self._idle) >= self.size:
                return False
            self._idle.append((path, inode, conn))
        return True


POOL: ConnectionPool | None = None
"""Set by the warm engine (``use_pool``); a hook process or a CLI command has none."""


def use_pool(size: int = 4) -> None:
    """Reuse connections between ``Store`` objects of this process (the warm engine only)."""
    global POOL
    POOL = POOL or ConnectionPool(size)


def _migrate(conn: sqlite3.Connection) -> None:
    if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        conn.execute("PRAGMA journal_mode = WAL")  # persistent: set once, on creation
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]  # re-read under the lock
        for migration in MIGRATIONS[version:]:
            migration(conn)
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


@contextmanager
def transaction(conn: sqlite3.Connection, path: Path) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE … COMMIT``: the write lock is taken before the first read."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.DatabaseError as exc:
        raise _translate(exc, path) from exc
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.DatabaseError as exc:
        conn.execute("ROLLBACK")
        raise _translate(exc, path) from exc


def _translate(exc: sqlite3.DatabaseError, path: Path) -> StoreError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreBusy(f"{path} stayed locked for {BUSY_TIMEOUT_MS / 1000:g} s")
    if isinstance(exc, sqlite3.DatabaseError) and (
        "not a database" in text or "malformed" in text or "no such table" in text
    ):
        return StoreDamaged(f"{path} is damaged ({text}); move it aside to start fresh")
    return StoreError(f"{path}: {text}")


class Store:
    """The state database of one project, opened lazily on first use."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.path = state_path(project)
        self._conn: sqlite3.Connection | None = None

    def exists(self) -> bool:
        """Whether goalkeeper has state for this project. A project whose state is still in
        its legacy ``.goalkeeper/`` has it moved here first (once): the answer is then yes."""
        return self.path.exists() or self._adopt_legacy(create=False)

    def connection(self) -> sqlite3.Connection:
        if self._conn is None:
            pooled = POOL.take(self.path) if POOL is not None else None
            if pooled is None and not self.path.exists():
                self._adopt_legacy(create=True)
            self._conn = pooled or connect(self.path)
        return self._conn

    def _adopt_legacy(self, *, create: bool) -> bool:
        """The database is missing: move a legacy one into place (``store.legacy``), and with
        ``create`` make the folder for a new one. True when a database now exists."""
        from goalkeeper.store.legacy import adopt_legacy, has_legacy

        if not create and not has_legacy(self.project):
            return False  # a question asked of a project goalkeeper never saw: nothing made
        try:
            ensure_state_dir(self.project)
            return adopt_legacy(self.project, self.path)
        except OSError as exc:
            raise StoreError(f"cannot create {self.path.parent}: {exc.strerror}") from exc

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with transaction(self.connection(), self.path) as conn:
            yield conn

    def close(self) -> None:
        if self._conn is not None:
            if POOL is None or not POOL.give(self.path, self._conn):
                self._conn.close()
            self._conn = None
