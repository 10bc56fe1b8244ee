"""A goal's protected tests on disk: what is kept, and what it is at a later stop."""

from __future__ import annotations

import os
from pathlib import Path

from goalkeeper.store.db import Store
from goalkeeper.store.test_baseline import (
    KEPT_SESSIONS,
    MAX_FILE_BYTES,
    current_digests,
    keep_tests,
    load_baseline,
    session_keys,
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


def test_session_tests_are_kept_once_and_only_the_newest_stay(tmp_path: Path) -> None:
    """`keep_tests` takes a session's baseline once; a later prompt of the same session keeps
    the first one; past `KEPT_SESSIONS`, the oldest session baselines are dropped."""
    (tmp_path / "test_a.py").write_text("def test_a():\n    assert 1\n", "utf-8")
    store = Store(tmp_path)
    with store.transaction() as conn:
        assert keep_tests(conn, "session:first", tmp_path, 1.0)
        (tmp_path / "test_a.py").write_text("def test_a():\n    assert True\n", "utf-8")
        assert not keep_tests(conn, "session:first", tmp_path, 2.0)
        kept = load_baseline(conn, "session:first")
        assert kept is not None and kept.contents["test_a.py"].endswith(b"assert 1\n")
        for n in range(KEPT_SESSIONS + 2):
            keep_tests(conn, f"session:s{n}", tmp_path, 10.0 + n)
        keys = session_keys(conn)
    store.close()
    assert len(keys) == KEPT_SESSIONS and keys[0] == f"session:s{KEPT_SESSIONS + 1}"
    assert "session:first" not in keys


def test_a_goals_tests_are_copied_outside_the_project_and_come_back(tmp_path: Path) -> None:
    """`take_baseline(backup=True)` keeps a copy in the user's state folder; after
    the project's state folder is deleted, `restore_baseline` puts the original tests back, not the
    weakened ones now in the tree."""
    import shutil

    from goalkeeper.store.baseline_backup import backup_path
    from goalkeeper.store.test_baseline import restore_baseline

    project = _project(tmp_path / "p")
    store = Store(project)
    with store.transaction() as conn:
        take_baseline(conn, "g-1", project, 1.0, backup=True)
    store.close()
    copy = backup_path(project, "g-1")
    assert copy.is_file() and str(copy).startswith(str(tmp_path / "xdg-state" / "goalkeeper"))
    (project / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n", "utf-8")
    shutil.rmtree(store.path.parent)
    store = Store(project)
    with store.transaction() as conn:
        assert load_baseline(conn, "g-1") is None
        assert restore_baseline(conn, "g-1", project, 2.0) == len(snapshot(project))
        kept = load_baseline(conn, "g-1")
        assert restore_baseline(conn, "g-other", project, 2.0) is None
    store.close()
    assert kept is not None and kept.contents["tests/test_a.py"].endswith(b"assert 1\n")


def test_a_damaged_or_hostile_copy_restores_nothing(tmp_path: Path) -> None:
    import zipfile

    from goalkeeper.store.baseline_backup import backup_path, load_backup

    project = _project(tmp_path / "p")
    copy = backup_path(project, "g-1")
    copy.parent.mkdir(parents=True)
    copy.write_bytes(b"not a zip")
    assert load_backup(project, "g-1") is None
    with zipfile.ZipFile(copy, "w") as archive:
        archive.writestr("../escape.py", b"x")
    assert load_backup(project, "g-1") is None
