"""Claims the user must accept (issue 22 item 2, seed 002): todo completions goalkeeper could
not check, an ``effect`` declaration or a review it cannot read.

Seed 002 does not block such a claim but leaves it to human acceptance. So the completion
stands in the tree, and a row here says it awaits the user: the stop names it, ``report``
shows it unverified, and a ``run`` whose session holds one is not "proven". Only the user
clears it, with ``goalkeeper todo accept ID`` in their own terminal. A task completed again
with evidence goalkeeper could check drops its row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from msgspec import Struct
from msgspec.structs import replace


class Claim(Struct, frozen=True):
    session_id: str
    task_id: int
    subject: str
    what: str
    completed_at: float
    accepted_at: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "session": self.session_id,
            "id": self.task_id,
            "subject": self.subject,
            "what": self.what,
            "completed_at": self.completed_at,
            "accepted_at": self.accepted_at,
        }


def record_completion(
    conn: sqlite3.Connection, session_id: str, now: float, record: Mapping[str, Any]
) -> None:
    """Keep, or drop, a completed task's claim: awaiting the user when it rests on something
    goalkeeper could not check, else nothing (a re-completion with real evidence)."""
    task_id = record.get("id")
    if not isinstance(task_id, int) or isinstance(task_id, bool):
        return
    what = record.get("awaiting_acceptance")  # the todos guard's word (``completion_record``)
    if not isinstance(what, str) or not what:
        conn.execute(
            "DELETE FROM claims WHERE session_id = ? AND task_id = ?", (session_id, task_id)
        )
        return
    subject = record.get("subject")
    conn.execute(
        "INSERT OR REPLACE INTO claims (session_id, task_id, subject, what, completed_at, "
        "accepted_at) VALUES (?, ?, ?, ?, ?, NULL)",
        (session_id, task_id, subject if isinstance(subject, str) else "", what, now),
    )


def session_claims(conn: sqlite3.Connection, session_id: str) -> tuple[Claim, ...]:
    """All of a session's claims, accepted or not, by task id."""
    rows = conn.execute(
        "SELECT session_id, task_id, subject, what, completed_at, accepted_at FROM claims "
        "WHERE session_id = ? ORDER BY task_id",
        (session_id,),
    ).fetchall()
    return tuple(Claim(*row) for row in rows)


def awaiting(conn: sqlite3.Connection, session_id: str) -> tuple[Claim, ...]:
    """The session's unaccepted claims on tasks still completed: one reopened or deleted
    since claims nothing now (its next completion records again)."""
    rows = conn.execute(
        "SELECT c.session_id, c.task_id, c.subject, c.what, c.completed_at, c.accepted_at "
        "FROM claims c JOIN todo_tasks t ON t.session_id = c.session_id AND t.id = c.task_id "
        "WHERE c.session_id = ? AND c.accepted_at IS NULL AND t.status = 'completed' "
        "ORDER BY c.task_id",
        (session_id,),
    ).fetchall()
    return tuple(Claim(*row) for row in rows)


def accept(conn: sqlite3.Connection, session_id: str, task_id: int, now: float) -> Claim | None:
    """Accept one claim; None when the session has no claim for that task."""
    found = next((c for c in session_claims(conn, session_id) if c.task_id == task_id), None)
    if found is None:
        return None
    if found.accepted_at is None:
        conn.execute(
            "UPDATE claims SET accepted_at = ? WHERE session_id = ? AND task_id = ?",
            (now, session_id, task_id),
        )
        found = replace(found, accepted_at=now)
    return found
