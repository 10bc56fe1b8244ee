"""Session rows: per-session counters, each guard's state and the host's bookkeeping.

A row becomes a ``SessionRow`` value here (``from_row``) and goes back through ``save``; nothing
above the store sees a tuple or a column name. A damaged JSON column degrades to ``{}``.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

_COLUMNS = (
    "session_id, host, created_at, updated_at, events, continuations, lang, guards, host_state, "
    "deferred"
)


@dataclass(frozen=True, slots=True)
class SessionRow:
    session_id: str
    host: str
    created_at: float
    updated_at: float
    events: int = 0
    continuations: int = 0
    lang: str | None = None
    guards: dict[str, dict[str, Any]] = field(default_factory=dict)
    host_state: dict[str, Any] = field(default_factory=dict)
    deferred: tuple[str, ...] = ()
    """Advice waiting for the next answer that can carry it."""

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> SessionRow:
        return cls(
            session_id=row[0],
            host=row[1],
            created_at=row[2],
            updated_at=row[3],
            events=row[4],
            continuations=row[5],
            lang=row[6],
            guards=json_object(row[7]),
            host_state=json_object(row[8]),
            deferred=_json_texts(row[9]),
        )


def load_session(conn: sqlite3.Connection, session_id: str, host: str, now: float) -> SessionRow:
    row = conn.execute(f"SELECT {_COLUMNS} FROM sessions WHERE session_id = ?", (session_id,))
    found = row.fetchone()
    if found is None:
        return SessionRow(session_id, host, now, now)
    return SessionRow.from_row(found)


def get_session(conn: sqlite3.Connection, session_id: str) -> SessionRow | None:
    found = conn.execute(
        f"SELECT {_COLUMNS} FROM sessions WHERE session_id = ?", (session_id,)
    ).fetchone()
    return SessionRow.from_row(found) if found else None


def list_sessions(conn: sqlite3.Connection, limit: int = 20) -> list[SessionRow]:
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM sessions ORDER BY updated_at DESC LIMIT ?", (limit,)
    ).fetchall()
    return [SessionRow.from_row(r) for r in rows]


def save_session(conn: sqlite3.Connection, row: SessionRow) -> None:
    conn.execute(
        f"INSERT OR REPLACE INTO sessions ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            row.session_id,
            row.host,
            row.created_at,
            row.updated_at,
            row.events,
            row.continuations,
            row.lang,
            json.dumps(row.guards, ensure_ascii=False),
            json.dumps(row.host_state, ensure_ascii=False),
            json.dumps(list(row.deferred), ensure_ascii=False),
        ),
    )


def _json_texts(raw: object) -> tuple[str, ...]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return ()
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def json_object(raw: object) -> dict[str, Any]:
    """A stored JSON object, or {} for anything damaged: a column never wedges an event."""
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
