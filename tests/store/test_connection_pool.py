"""The warm engine's connection reuse (``store.db.ConnectionPool``): the same open connection
serves the next request's ``Store``; a database moved aside is never written through an old
handle; a connection left inside a transaction is not kept."""

from __future__ import annotations

from pathlib import Path

import pytest

import goalkeeper.store.db as db
from goalkeeper.store.db import ConnectionPool, Store, state_path


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch) -> ConnectionPool:
    pool = ConnectionPool(size=2)
    monkeypatch.setattr(db, "POOL", pool)
    return pool


def test_the_next_store_reuses_the_connection(tmp_path: Path, pool: ConnectionPool) -> None:
    first = Store(tmp_path)
    conn = first.connection()
    first.close()
    second = Store(tmp_path)
    assert second.connection() is conn
    second.close()


def test_a_database_moved_aside_is_not_written_through_an_old_handle(
    tmp_path: Path, pool: ConnectionPool
) -> None:
    first = Store(tmp_path)
    with first.transaction() as conn:
        conn.execute("CREATE TABLE t (x)")
    first.close()
    state = state_path(tmp_path)
    state.rename(tmp_path / "aside.db")
    second = Store(tmp_path)
    with second.transaction() as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    second.close()
    assert "t" not in tables  # a fresh database, not the moved one
    assert state.is_file()


def test_a_connection_inside_a_transaction_is_not_kept(
    tmp_path: Path, pool: ConnectionPool
) -> None:
    store = Store(tmp_path)
    conn = store.connection()
    conn.execute("BEGIN")
    store.close()
    assert Store(tmp_path).connection() is not conn
