"""The event journal: what happened and what goalkeeper decided, for ``status`` and post-mortems.

Append-only; old entries are pruned so the file stays small over months of use.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from msgspec import Struct

KEEP = 20_000  # entries kept per project; pruning runs every PRUNE_EVERY appends
PRUNE_EVERY = 500


class JournalEntry(Struct, frozen=True):
    id: int
    session_id: str | None
    at: float
    kind: str
    data: dict[str, Any]


def append(
    conn: sqlite3.Connection, session_id: str | None, at: float, kind: str, data: dict[str, Any]
) -> None:
    cur = conn.execute(
        "INSERT INTO journal (session_id, at, kind, data) VALUES (?, ?, ?, ?)",
        (session_id, at, kind, json.dumps(data, ensure_ascii=False, default=str)),
    )
    if cur.lastrowid and cur.lastrowid % PRUNE_EVERY == 0:
        conn.execute("DELETE FROM journal WHERE id <= ?", (cur.lastrowid - KEEP,))


def recent(
    conn: sqlite3.Connection, limit: int = 20, session_id: str | None = None
) -> list[JournalEntry]:
    if session_id is None:
        rows = conn.execute(
            "SELECT id, session_id, at, kind, data FROM journal ORDER BY id DESC LIMIT ?", (limit,)
        ).fetchall()
    else:
        rows = conn.execute(
            "SELECT id, session_id, at, kind, data FROM journal WHERE session_id = ? "
            "ORDER BY id DESC LIMIT ?",
            (session_id, limit),
        ).fetchall()
    return [JournalEntry(r[0], r[1], r[2], r[3], _data(r[4])) for r in reversed(rows)]


def session_entries(
    conn: sqlite3.Connection, session_id: str, limit: int = KEEP
) -> list[JournalEntry]:
    """Everything the journal kept of one session, oldest first (``goalkeeper report``)."""
    rows = conn.execute(
        "SELECT id, session_id, at, kind, data FROM journal WHERE session_id = ? "
        "ORDER BY id LIMIT ?",
        (session_id, limit),
    ).fetchall()
    return [JournalEntry(r[0], r[1], r[2], r[3], _data(r[4])) for r in rows]


def after(
    conn: sqlite3.Connection, last_id: int, session_id: str | None = None, limit: int = 500
) -> list[JournalEntry]:
    """The entries appended since ``last_id``, oldest first: what ``status --follow`` polls."""
    where = "id > ?" if session_id is None else "id > ? AND session_id = ?"
    args: tuple[object, ...] = (last_id,) if session_id is None else (last_id, session_id)
    rows = conn.execute(
        f"SELECT id, session_id, at, kind, data FROM journal WHERE {where} ORDER BY id LIMIT ?",
        (*args, limit),
    ).fetchall()
    return [JournalEntry(r[0], r[1], r[2], r[3], _data(r[4])) for r in rows]


def last_id(conn: sqlite3.Connection) -> int:
    """The newest entry's id (0 when empty): where a live view starts."""
    row = conn.execute("SELECT MAX(id) FROM journal").fetchone()
    return int(row[0] or 0)


def _data(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def latest(
    conn: sqlite3.Connection, session_id: str, kinds: tuple[str, ...]
) -> dict[str, JournalEntry]:
    """The newest entry of each of ``kinds`` in one session (a kind never written is absent):
    what a live view shows without reading the session's whole journal."""
    if not kinds:
        return {}
    marks = ", ".join("?" for _ in kinds)
    rows = conn.execute(
        "SELECT id, session_id, at, kind, data FROM journal WHERE id IN ("
        f"SELECT MAX(id) FROM journal WHERE session_id = ? AND kind IN ({marks}) GROUP BY kind)",
        (session_id, *kinds),
    ).fetchall()
    return {r[3]: JournalEntry(r[0], r[1], r[2], r[3], _data(r[4])) for r in rows}
