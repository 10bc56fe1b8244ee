"""The journal as a stream: the one JSON shape of an entry for machines (``status --follow
--json``, ``status --json``'s ``recent``), and the follower that ``status --follow`` and
``watch`` poll. The shape and every kind are documented in ``docs/journal.md``; a change to
either is a new ``STREAM_VERSION``.

Nothing here is on a hook's path: a follower reads the state database from its own process,
and between polls it holds no connection (a hook's ``BEGIN IMMEDIATE`` never waits on it).
Polls are cheap: the database file and its WAL are stat'ed first, and only a change (or
``RECHECK_S`` without one) costs a query.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from goalkeeper.cli.report.journal_view import describe
from goalkeeper.store import journal
from goalkeeper.store.db import Store

STREAM_VERSION = 1
"""``v`` in every line. Fields are only added within a version; one removed or changed in
meaning is a new version."""

POLL_S = 0.5
PAGE = 500
RECHECK_S = 5.0
"""A query even when the files look unchanged: a file system whose timestamps are coarser
than two writes of the same size must not hide an entry for longer than this."""


def stream_record(e: journal.JournalEntry) -> dict[str, Any]:
    """One journal entry as one line of the stream (``docs/journal.md``)."""
    return {
        "v": STREAM_VERSION,
        "id": e.id,
        "at": e.at,
        "session_id": e.session_id,
        "kind": e.kind,
        "text": describe(e.kind, e.data),
        "data": e.data,
    }


class JournalFollower:
    """The entries of a project's journal after ``start`` (one session's, with
    ``session_id``), each returned once, oldest first."""

    def __init__(
        self,
        store: Store,
        start: int,
        session_id: str | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.last = start
        self.session_id = session_id
        self._clock = clock
        self._seen: tuple[int, ...] | None = None
        self._checked = 0.0

    def poll(self) -> list[journal.JournalEntry]:
        """What was appended since the last poll; empty when nothing was (or there is no
        database yet)."""
        mark = _files_mark(self.store.path)
        now = self._clock()
        if mark is None or (mark == self._seen and now - self._checked < RECHECK_S):
            return []
        fresh: list[journal.JournalEntry] = []
        try:
            while True:  # a burst larger than one page is read whole
                conn = self.store.connection()
                page = journal.after(conn, self.last, self.session_id, limit=PAGE)
                fresh += page
                if page:
                    self.last = page[-1].id
                if len(page) < PAGE:
                    break
        finally:
            self.store.close()
        self._seen, self._checked = mark, now
        return fresh

    def follow(
        self, *, poll_s: float = POLL_S, sleep: Callable[[float], None] = time.sleep
    ) -> Iterator[list[journal.JournalEntry]]:
        """Each poll's new entries (often none), forever: the caller stops iterating."""
        while True:
            yield self.poll()
            sleep(poll_s)


def _files_mark(db: Path) -> tuple[int, ...] | None:
    """Size and modification time of the database and its write-ahead log: every commit
    changes one of them. ``None``: no database yet."""
    try:
        main = db.stat()
    except OSError:
        return None
    try:
        wal = Path(f"{db}-wal").stat()
        wal_mark: tuple[int, int] = (wal.st_size, wal.st_mtime_ns)
    except OSError:
        wal_mark = (-1, -1)
    return (main.st_size, main.st_mtime_ns, *wal_mark)
