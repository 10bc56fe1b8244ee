"""What the user approved, kept where goalkeeper keeps machine state (the state database in
the project's state folder, outside the project: ``store.db``).

Two kinds of approval: the digests of project config files (``goalkeeper allow``) and each
goal's promise with the repair counters goalkeeper recorded (see ``core.promise``). A row
becomes a value here; nothing above the store sees a column. Config approvals are also read
with a read-only connection that never creates the database, because every configuration load
may ask for them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from goalkeeper.core.goals.promise import OPEN_STATUSES, Promise

_GOAL_COLUMNS = (
    "goal_id, objective, verify, criteria, rounds, timeout_s, retries, source, approved_at, "
    "attempts, status, blocked_reason"
)


# ---------------------------------------------------------------------------------------------
# Config files (goalkeeper allow)
# ---------------------------------------------------------------------------------------------


def approve_config(conn: sqlite3.Connection, digests: Mapping[str, str], now: float) -> None:
    """Record the digests the user approved, replacing earlier ones; files not named lose
    their approval."""
    conn.execute("DELETE FROM config_approvals")
    conn.executemany(
        "INSERT INTO config_approvals (file, digest, approved_at) VALUES (?, ?, ?)",
        [(name, digest, now) for name, digest in digests.items()],
    )


def revoke_config(conn: sqlite3.Connection) -> int:
    return conn.execute("DELETE FROM config_approvals").rowcount


def config_approvals(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT file, digest FROM config_approvals").fetchall())


def read_config_approvals(project: Path) -> dict[str, str]:
    """The approved digest per config file, read without creating or migrating anything
    (a legacy ``.goalkeeper/state.db`` is moved out first, once: ``store.legacy``); {} when
    there is no database or it predates approvals. Never raises."""
    from goalkeeper.store.db import Store, StoreError

    store = Store(project)
    path = store.path
    try:
        if not store.exists():
            return {}
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=2.0)
    except (sqlite3.Error, OSError, ValueError, StoreError):
        return {}
    try:
        return config_approvals(conn)
    except sqlite3.Error:
        return {}
    finally:
        conn.close()


# ---------------------------------------------------------------------------------------------
# Goals
# ---------------------------------------------------------------------------------------------


def save_promise(conn: sqlite3.Connection, promise: Promise) -> None:
    """Record (or replace) the approved promise of ``promise.goal_id``."""
    conn.execute(
        f"INSERT OR REPLACE INTO goals ({_GOAL_COLUMNS}, digest) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            promise.goal_id,
            promise.objective,
            json.dumps(list(promise.verify), ensure_ascii=False),
            json.dumps(list(promise.criteria), ensure_ascii=False),
            promise.rounds,
            promise.timeout_s,
            promise.retries,
            promise.source,
            promise.approved_at,
            promise.attempts,
            promise.status,
            promise.blocked_reason,
            promise.digest,
        ),
    )


def record_progress(conn: sqlite3.Connection, goal_id: str, fields: Mapping[str, Any]) -> None:
    """Mirror what goalkeeper wrote into GOAL.md's repair counters (``attempts``, ``status``,
    ``blocked_reason``) into the goal's row, so an edit of GOAL.md cannot undo them. Only the
    fields present change; attempts never go down."""
    sets: list[str] = []
    values: list[Any] = []
    attempts = fields.get("attempts")
    if isinstance(attempts, int) and not isinstance(attempts, bool):
        sets.append("attempts = MAX(attempts, ?)")
        values.append(attempts)
    status = fields.get("status")
    if isinstance(status, str):
        sets.append("status = ?")
        values.append(status)
    if "blocked_reason" in fields:
        reason = fields["blocked_reason"]
        sets.append("blocked_reason = ?")
        values.append(reason if isinstance(reason, str) else None)
    limits = fields.get("limits")  # goalkeeper writes limits only when the user resumes
    if isinstance(limits, Mapping):
        for key, column in (
            ("rounds", "rounds"),
            ("timeout_s", "timeout_s"),
            ("retries", "retries"),
        ):
            value = limits.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                sets.append(f"{column} = ?")
                values.append(value)
    if sets:
        conn.execute(f"UPDATE goals SET {', '.join(sets)} WHERE goal_id = ?", (*values, goal_id))


def close_promise(conn: sqlite3.Connection, goal_id: str, status: str) -> None:
    """A goal that is complete or cleared promises nothing any more."""
    conn.execute("UPDATE goals SET status = ? WHERE goal_id = ?", (status, goal_id))


def close_others(conn: sqlite3.Connection, goal_id: str, status: str) -> None:
    """One goal per project: approving ``goal_id`` closes every other open promise."""
    marks = ", ".join("?" for _ in OPEN_STATUSES)
    conn.execute(
        f"UPDATE goals SET status = ? WHERE goal_id != ? AND status IN ({marks})",
        (status, goal_id, *OPEN_STATUSES),
    )


def current_promise(conn: sqlite3.Connection, goal_id: str | None) -> Promise | None:
    """The promise GOAL.md is judged against: the open one of ``goal_id``, else the latest open
    promise (GOAL.md then holds another goal), else None (no goal was approved)."""
    marks = ", ".join("?" for _ in OPEN_STATUSES)
    if goal_id:
        row = conn.execute(
            f"SELECT {_GOAL_COLUMNS} FROM goals WHERE goal_id = ? AND status IN ({marks})",
            (goal_id, *OPEN_STATUSES),
        ).fetchone()
        if row is not None:
            return _promise(row)
    row = conn.execute(
        f"SELECT {_GOAL_COLUMNS} FROM goals WHERE status IN ({marks}) "
        "ORDER BY approved_at DESC, rowid DESC LIMIT 1",
        OPEN_STATUSES,
    ).fetchone()
    return _promise(row) if row is not None else None


def get_promise(conn: sqlite3.Connection, goal_id: str) -> Promise | None:
    row = conn.execute(f"SELECT {_GOAL_COLUMNS} FROM goals WHERE goal_id = ?", (goal_id,))
    found = row.fetchone()
    return _promise(found) if found is not None else None


def _promise(row: tuple[Any, ...]) -> Promise:
    return Promise(
        goal_id=str(row[0]),
        objective=str(row[1] or ""),
        verify=_texts(row[2]),
        criteria=_texts(row[3]),
        rounds=int(row[4]),
        timeout_s=float(row[5]),
        retries=int(row[6]),
        source=str(row[7] or ""),
        approved_at=float(row[8]),
        attempts=int(row[9]),
        status=str(row[10] or "active"),
        blocked_reason=row[11] if isinstance(row[11], str) else None,
    )


def _texts(raw: object) -> tuple[str, ...]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return ()
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


# ---------------------------------------------------------------------------------------------
# Plans (goalkeeper plan accept)
# ---------------------------------------------------------------------------------------------


def accept_plan(conn: sqlite3.Connection, digest: str, path: str, now: float) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO plan_acceptances (digest, path, accepted_at) VALUES (?, ?, ?)",
        (digest, path, now),
    )


def accepted_plans(conn: sqlite3.Connection) -> frozenset[str]:
    """The plan digests the user accepted (the most recent hundred: old ones cannot recur)."""
    rows = conn.execute(
        "SELECT digest FROM plan_acceptances ORDER BY accepted_at DESC LIMIT 100"
    ).fetchall()
    return frozenset(str(r[0]) for r in rows)
