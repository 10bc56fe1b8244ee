"""The state schema, as an append-only list of named migrations.

The applied count lives in ``PRAGMA user_version``, so the hot path reads one integer. Never edit
or reorder a released migration: append a new one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

Migration = Callable[[sqlite3.Connection], None]


def m001_initial(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE sessions (
            session_id    TEXT PRIMARY KEY,
            host          TEXT NOT NULL,
            created_at    REAL NOT NULL,
            updated_at    REAL NOT NULL,
            events        INTEGER NOT NULL DEFAULT 0,
            continuations INTEGER NOT NULL DEFAULT 0,
            lang          TEXT,
            guards        TEXT NOT NULL DEFAULT '{}',
            host_state    TEXT NOT NULL DEFAULT '{}'
        )"""
    )
    conn.execute(
        """CREATE TABLE journal (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT,
            at         REAL NOT NULL,
            kind       TEXT NOT NULL,
            data       TEXT NOT NULL DEFAULT '{}'
        )"""
    )
    conn.execute("CREATE INDEX journal_by_session ON journal (session_id, id)")


def m002_deferred_advice(conn: sqlite3.Connection) -> None:
    """Advice a host could not deliver yet (no follow-up channel), kept for its next answer."""
    conn.execute("ALTER TABLE sessions ADD COLUMN deferred TEXT NOT NULL DEFAULT '[]'")


def m003_trust(conn: sqlite3.Connection) -> None:
    """What the user approved: project config files by digest (``goalkeeper allow``) and each
    goal's promise with the repair counters goalkeeper recorded (``core.promise``)."""
    conn.execute(
        """CREATE TABLE config_approvals (
            file        TEXT PRIMARY KEY,
            digest      TEXT NOT NULL,
            approved_at REAL NOT NULL
        )"""
    )
    conn.execute(
        """CREATE TABLE goals (
            goal_id        TEXT PRIMARY KEY,
            objective      TEXT NOT NULL,
            verify         TEXT NOT NULL DEFAULT '[]',
            criteria       TEXT NOT NULL DEFAULT '[]',
            rounds         INTEGER NOT NULL,
            timeout_s      REAL NOT NULL,
            retries        INTEGER NOT NULL,
            source         TEXT NOT NULL,
            approved_at    REAL NOT NULL,
            attempts       INTEGER NOT NULL DEFAULT 0,
            status         TEXT NOT NULL DEFAULT 'active',
            blocked_reason TEXT,
            digest         TEXT NOT NULL
        )"""
    )


def m004_test_baselines(conn: sqlite3.Connection) -> None:
    """Protected tests: the content of every test file and test configuration when a goal was
    set (``store.test_baseline``), so a passing verify can be run again against them."""
    conn.execute(
        """CREATE TABLE test_baselines (
            goal_id TEXT NOT NULL,
            path    TEXT NOT NULL,
            digest  TEXT NOT NULL,
            content BLOB NOT NULL,
            PRIMARY KEY (goal_id, path)
        )"""
    )
    conn.execute(
        """CREATE TABLE test_baseline_goals (
            goal_id  TEXT PRIMARY KEY,
            taken_at REAL NOT NULL
        )"""
    )


def m005_plan_acceptances(conn: sqlite3.Connection) -> None:
    """Plans whose changed commitments the user accepted (``goalkeeper plan accept``)."""
    conn.execute(
        """CREATE TABLE plan_acceptances (
            digest      TEXT PRIMARY KEY,
            path        TEXT NOT NULL,
            accepted_at REAL NOT NULL
        )"""
    )


def m006_todo_tasks(conn: sqlite3.Connection) -> None:
    """The todo tree leaves the session row (issue 12): one row per task, indexed by what an
    event asks (open, gated, parent), and per session the next id and the counts by state.
    Existing trees move over, each task with the baseline ident the guard kept for it."""
    conn.execute(
        """CREATE TABLE todo_tasks (
            session_id TEXT NOT NULL,
            id         INTEGER NOT NULL,
            status     TEXT NOT NULL,
            open       INTEGER NOT NULL,
            gated      INTEGER NOT NULL,
            parent_id  INTEGER,
            task       TEXT NOT NULL,
            PRIMARY KEY (session_id, id)
        ) WITHOUT ROWID"""
    )
    conn.execute("CREATE INDEX todo_tasks_open ON todo_tasks (session_id, open, id)")
    conn.execute(
        "CREATE INDEX todo_tasks_gated ON todo_tasks (session_id, id) WHERE open = 1 AND gated = 1"
    )
    conn.execute("CREATE INDEX todo_tasks_parent ON todo_tasks (session_id, parent_id)")
    conn.execute(
        """CREATE TABLE todo_trees (
            session_id TEXT PRIMARY KEY,
            next_id    INTEGER NOT NULL,
            counts     TEXT NOT NULL DEFAULT '{}'
        )"""
    )
    from goalkeeper.store.todo_moves import move_session_trees

    move_session_trees(conn)


def m007_claims(conn: sqlite3.Connection) -> None:
    """Todo completions goalkeeper could not check (an ``effect`` declaration, a review it
    cannot read), kept until the user accepts them (``goalkeeper todo accept``): seed 002
    leaves such a claim to human acceptance, so it is never counted as proven."""
    conn.execute(
        """CREATE TABLE claims (
            session_id   TEXT NOT NULL,
            task_id      INTEGER NOT NULL,
            subject      TEXT NOT NULL DEFAULT '',
            what         TEXT NOT NULL DEFAULT '',
            completed_at REAL NOT NULL,
            accepted_at  REAL,
            PRIMARY KEY (session_id, task_id)
        ) WITHOUT ROWID"""
    )


MIGRATIONS: tuple[Migration, ...] = (
    m001_initial,
    m002_deferred_advice,
    m003_trust,
    m004_test_baselines,
    m005_plan_acceptances,
    m006_todo_tasks,
    m007_claims,
)
