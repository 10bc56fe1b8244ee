"""What one frame of ``goalkeeper watch`` shows, as data: the newest sessions of a project, each
with its phase, goal and last verify, open gates, todos, continuations, spend against budget,
the last refusal and why, and the verdict.

Built on what ``status`` computes (``status.focus_json``, ``status.session_json``: the session,
its goal, todos and verdict from ``report.data.session_proof``); this module adds only the
newest entries of a few kinds (``journal.latest``). ``watch --once --json`` prints the frame.

The JSON shape (``FRAME_VERSION`` 1)::

    {"version": 1, "project", "state_dir", "at", "last_id",
     "sessions": [{"session_id", "host", "phase", "round", "updated_at", "goal": {...} | null,
                   "last_verify": {"at", "passed", "text"} | null,
                   "open_gates": [...] | null, "todos": {...}, "continuations": {...},
                   "spend": {"usage": {...} | null, "budget": {...} | null},
                   "last_refusal": {"at", "kind", "text"} | null, "verdict": {...}}]}

``open_gates`` is ``null`` before any close attempt, ``[]`` after one that passed. ``usage``
and ``budget`` are the data of the newest such entries (``docs/journal.md``), ``null`` when the
session has none.
"""

from __future__ import annotations

from typing import Any

from goalkeeper.cli.report.journal_view import describe, run_line
from goalkeeper.cli.report.status import focus_json, session_json
from goalkeeper.store import journal
from goalkeeper.store.db import Store
from goalkeeper.store.sessions import SessionRow, list_sessions

FRAME_VERSION = 1
SESSIONS = 3
"""Sessions one frame shows by default, newest first: a terminal holds about three."""

REFUSALS = (
    "refused",
    "todo_refused",
    "trust_refused",
    "mode_gate",
    "subagent_refused",
    "goal_failed",
    "goal_hidden_failed",
    "goal_tests_held",
    "plan_tests_held",
)
"""What goalkeeper said no to: a close, a todo's completion, a tool call, a subagent's stop, a
goal's verify, a pass its protected or hidden tests did not hold."""

_CLOSES = ("refused", "closed")
_KINDS = (*REFUSALS, "closed", "verify_run", "usage", "budget")


def watch_frame(
    store: Store,
    project: str,
    now: float,
    *,
    session_id: str | None = None,
    sessions: int = SESSIONS,
) -> dict[str, Any]:
    """The frame for ``project``: ``session_id`` alone, or the ``sessions`` newest. Reads
    only; a project goalkeeper has not seen gives a frame without sessions."""
    rows: list[SessionRow] = []
    last_id = 0
    if store.exists():
        conn = store.connection()
        rows = list_sessions(conn)
        if session_id is not None:
            rows = [r for r in rows if r.session_id == session_id]
        rows = rows[: max(sessions, 1)]
        last_id = journal.last_id(conn)
    shown = [_session(store, row) for row in rows]
    return {
        "version": FRAME_VERSION,
        "project": project,
        "state_dir": str(store.path.parent),
        "at": now,
        "last_id": last_id,
        "sessions": shown,
    }


def _session(store: Store, row: SessionRow) -> dict[str, Any]:
    focus = focus_json(store, row.session_id)
    base = session_json(row)
    last = journal.latest(store.connection(), row.session_id, _KINDS)
    verify = last.get("verify_run")
    close = max((last[k] for k in _CLOSES if k in last), key=lambda e: e.id, default=None)
    refusal = max((last[k] for k in REFUSALS if k in last), key=lambda e: e.id, default=None)
    return {
        "session_id": row.session_id,
        "host": row.host,
        "phase": base["phase"],
        "round": base["round"],
        "updated_at": row.updated_at,
        "goal": focus["goal"],
        "last_verify": (
            {
                "at": verify.at,
                "passed": bool(verify.data.get("passed")),
                "text": run_line(verify.data),
            }
            if verify is not None
            else None
        ),
        "open_gates": _open_gates(close),
        "todos": focus["todos"],
        "continuations": focus["continuations"],
        "spend": {
            "usage": last["usage"].data if "usage" in last else None,
            "budget": last["budget"].data if "budget" in last else None,
        },
        "last_refusal": (
            {"at": refusal.at, "kind": refusal.kind, "text": describe(refusal.kind, refusal.data)}
            if refusal is not None
            else None
        ),
        "verdict": focus["verdict"],
    }


def _open_gates(close: journal.JournalEntry | None) -> list[str] | None:
    if close is None:
        return None
    if close.kind == "closed":
        return []
    gates = close.data.get("gates")
    return [str(g) for g in gates] if isinstance(gates, list) else []
