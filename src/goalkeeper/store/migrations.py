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


MIGRATIONS: tuple[Migration, ...] = (
    m001_initial,
    m002_deferred_advice,
    m003_trust,
    m004_test_baselines,
    m005_plan_acceptances,
)
