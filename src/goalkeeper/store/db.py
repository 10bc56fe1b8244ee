"""The one place that opens the state database (``.goalkeeper/state.db``).

SQLite in WAL mode with a busy timeout, so parallel hook processes queue instead of failing, and
``BEGIN IMMEDIATE`` per event, so every read-modify-write of a session is one transaction and no
update is lost. ``sqlite3`` errors are translated here into ``StoreBusy`` / ``StoreDamaged``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from goalkeeper.store.migrations import MIGRATIONS

STATE_DIR = ".goalkeeper"
DB_NAME = "state.db"
BUSY_TIMEOUT_MS = 10_000  # 20 hooks at once, a few ms each: far below this, even on a slow disk


class StoreError(Exception):
    """The state database cannot be used."""


class StoreBusy(StoreError):
    """Another process held the database longer than the busy timeout."""


class StoreDamaged(StoreError):
    """The file is not a usable goalkeeper database; it is left untouched."""


def state_path(project: Path) -> Path:
    return project / STATE_DIR / DB_NAME


def ensure_state_dir(project: Path) -> Path:
    """Create ``.goalkeeper/`` with a ``.gitignore`` so machine state is never committed. Only
    in a project folder that exists: a missing one is an error, never a tree made up."""
    directory = project / STATE_DIR
    directory.mkdir(exist_ok=True)
    ignore = directory / ".gitignore"
    if not ignore.exists():
        try:
            ignore.write_text("*\n", encoding="utf-8")
        except OSError:
            pass
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


def hold_open(project: Path) -> sqlite3.Connection | None:
    """A connection that does nothing but stay open, for a long-lived process (the warm hook
    engine), or None while the project has no state database yet. While one connection stays
    open, SQLite keeps the WAL file when another closes; without it every hook request's close
    checkpoints and deletes the WAL and the next one re-creates it: two fsync waits per event
    (0.8 ms on a quiet disk, tens of ms on a busy one). After one read it holds no lock.
    """
    path = state_path(project)
    if not path.is_file():
        return None
    try:
        conn = sqlite3.connect(path, timeout=1, isolation_level=None, check_same_thread=False)
        # one read opens the WAL index: from then on this connection counts as open for it
        conn.execute("SELECT count(*) FROM sqlite_master").fetchall()
    except sqlite3.Error:
        return None
    return conn


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
        return self.path.exists()

    def connection(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                ensure_state_dir(self.project)
            except OSError as exc:
                raise StoreError(f"cannot create {self.path.parent}: {exc.strerror}") from exc
            self._conn = connect(self.path)
        return self._conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with transaction(self.connection(), self.path) as conn:
            yield conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
