"""Session rows: per-session counters, each guard's state and the host's bookkeeping.

A row becomes a ``SessionRow`` value here (``from_row``) and goes back through ``save``; nothing
above the store sees a tuple or a column name. A damaged JSON column degrades to ``{}``.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from msgspec import Struct, field

_COLUMNS = (
    "session_id, host, created_at, updated_at, events, continuations, lang, guards, host_state, "
    "deferred"
)


class SessionRow(Struct, frozen=True):
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


class SessionNotFound(LookupError):
    """No session matches the id or prefix a person typed; ``candidates`` when several do."""

    def __init__(self, wanted: str, candidates: tuple[str, ...] = ()) -> None:
        self.wanted = wanted
        self.candidates = candidates
        if candidates:
            shown = ", ".join(candidates[:10]) + (" …" if len(candidates) > 10 else "")
            text = f"session {wanted!r} is ambiguous: it starts {len(candidates)} ids ({shown})"
        else:
            text = f"no session starts with {wanted!r}"
        super().__init__(text)


def resolve_session_id(conn: sqlite3.Connection, wanted: str) -> str:
    """The one session ``wanted`` names: its full id, or a prefix only one id starts with.

    ``status`` and ``report`` print shortened ids; a person pastes them back, so a unique
    prefix must work, and a prefix several ids share must say which, never pick one silently.
    Sessions the journal knows but the session table no longer holds count too (a report of
    an old session). Raises ``SessionNotFound``."""
    if not wanted:
        raise SessionNotFound(wanted)
    exact = conn.execute("SELECT 1 FROM sessions WHERE session_id = ?", (wanted,)).fetchone()
    if exact is not None:
        return wanted
    rows = conn.execute(
        "SELECT session_id FROM sessions WHERE substr(session_id, 1, ?) = ? "
        "UNION SELECT DISTINCT session_id FROM journal "
        "WHERE session_id IS NOT NULL AND substr(session_id, 1, ?) = ? ORDER BY 1 LIMIT 51",
        (len(wanted), wanted, len(wanted), wanted),
    ).fetchall()
    found = tuple(str(r[0]) for r in rows)
    if wanted in found:
        return wanted
    if len(found) == 1:
        return found[0]
    raise SessionNotFound(wanted, found)


def latest_session_id(conn: sqlite3.Connection) -> str | None:
    """The session goalkeeper saw last (``report --last``), or None before any."""
    row = conn.execute(
        "SELECT session_id FROM sessions ORDER BY updated_at DESC, rowid DESC LIMIT 1"
    ).fetchone()
    return str(row[0]) if row else None
