"""A state database from a newer goalkeeper is refused, never written (audit defect 9)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from goalkeeper.store.db import Store, StoreDamaged, state_path


def test_a_newer_schema_is_refused_and_left_untouched(tmp_path: Path) -> None:
    created = Store(tmp_path)
    created.connection()  # create it
    created.close()  # now, not whenever the collector gets to it (its close may checkpoint)
    path = state_path(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = path.read_bytes()
    store = Store(tmp_path)
    with pytest.raises(StoreDamaged, match="newer goalkeeper"):
        store.connection()
    assert path.read_bytes() == before
