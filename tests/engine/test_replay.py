"""The verify run again against the original tests, in a scratch copy; the user's tree is
never touched."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from goalkeeper.engine.ports import SubprocessRunner
from goalkeeper.engine.replay import check_protected
from goalkeeper.store.db import Store
from goalkeeper.store.test_baseline import Baseline, load_baseline, take_baseline

# The "verify" prints what the copy holds; it passes only with the weakened test.
VERIFY = (
    f"{sys.executable} -c \"import pathlib,sys; t=pathlib.Path('tests/test_a.py').read_text(); "
    "print(t); print(sorted(p.name for p in pathlib.Path('.').iterdir())); "
    "sys.exit(0 if 'assert True' in t else 1)\""
)


def _baseline(project: Path) -> Baseline:
    store = Store(project)
    with store.transaction() as conn:
        take_baseline(conn, "g", project, 0.0)
        found = load_baseline(conn, "g")
    store.close()
    assert found is not None
    return found


def _project(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_a.py").write_text("def test_a():\n    assert 1 == 1\n", "utf-8")
    return root


def test_nothing_changed_means_no_second_run(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    replay = check_protected(project, _baseline(project), [VERIFY], SubprocessRunner(), 30)
    assert replay is not None and replay.changes == () and replay.runs == () and replay.passed


def test_the_original_test_is_restored_in_a_copy(tmp_path: Path) -> None:
    """A weakened test: the copy has the original again and fails; the user's file keeps the
    agent's change; a new conftest.py is left out of the copy; a dependency folder is linked."""
    project = _project(tmp_path / "p")
    baseline = _baseline(project)
    (project / "node_modules").mkdir()
    (project / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n", "utf-8")
    (project / "conftest.py").write_text("collect_ignore = ['tests']\n", "utf-8")
    os.mkfifo(project / "pipe")
    replay = check_protected(project, baseline, [VERIFY], SubprocessRunner(), 30)
    assert replay is not None and not replay.passed
    assert [(c.path, c.kind) for c in replay.changes] == [
        ("tests/test_a.py", "modified"),
        ("conftest.py", "added"),
    ]
    out = replay.runs[0].output_tail
    assert "assert 1 == 1" in out and "conftest.py" not in out and "pipe" not in out
    assert "node_modules" in out and "'.goalkeeper'" not in out
    assert "assert True" in (project / "tests" / "test_a.py").read_text("utf-8")
    assert (project / "conftest.py").exists()


def test_without_a_baseline_nothing_is_checked(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    assert check_protected(project, None, [VERIFY], SubprocessRunner(), 30) is None
