"""A goal's protected tests on disk: what is kept, and what it is at a later stop."""

from __future__ import annotations

import os
from pathlib import Path

from goalkeeper.store.db import Store
from goalkeeper.store.test_baseline import (
    MAX_FILE_BYTES,
    current_digests,
    load_baseline,
    snapshot,
    take_baseline,
)


def _project(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_a.py").write_text("def test_a():\n    assert 1\n", "utf-8")
    (root / "calc.py").write_text("x = 1\n", "utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", "utf-8")
    return root


def test_snapshot_keeps_tests_and_their_configuration_not_code(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / "node_modules").mkdir()
    (project / "node_modules" / "x.test.js").write_text("vendored", "utf-8")
    assert sorted(snapshot(project)) == ["pytest.ini", "tests/test_a.py"]


def test_planted_and_oversize_files_are_not_read(tmp_path: Path) -> None:
    project = _project(tmp_path)
    os.mkfifo(project / "tests" / "test_fifo.py")
    (project / "tests" / "test_big.py").write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    (project / "tests" / "test_out.py").symlink_to(tmp_path.parent / "elsewhere.py")
    assert sorted(snapshot(project)) == ["pytest.ini", "tests/test_a.py"]
    assert sorted(current_digests(project)) == ["pytest.ini", "tests/test_a.py"]


def test_the_baseline_lives_in_the_state_database(tmp_path: Path) -> None:
    project = _project(tmp_path)
    store = Store(project)
    with store.transaction() as conn:
        assert load_baseline(conn, "g-1") is None
        assert take_baseline(conn, "g-1", project, 1.0) == 2
        baseline = load_baseline(conn, "g-1")
    store.close()
    assert baseline is not None
    assert baseline.contents["tests/test_a.py"].startswith(b"def test_a")
    assert baseline.digests == current_digests(project)


def test_a_changed_file_has_another_digest(tmp_path: Path) -> None:
    project = _project(tmp_path)
    before = current_digests(project)
    (project / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n", "utf-8")
    assert current_digests(project)["tests/test_a.py"] != before["tests/test_a.py"]
