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


def _calc_project(root: Path) -> Path:
    """A project whose one test fails: `add` subtracts."""
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n", "utf-8")
    (root / "tests" / "test_calc.py").write_text(
        "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n", "utf-8"
    )
    return root


PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"


def test_a_new_test_module_that_patches_the_code_is_left_out(tmp_path: Path) -> None:
    """The agent adds `tests/test_zz.py`, which replaces `calc.add` at import: its tree passes
    under real pytest, the original tests without that module fail."""
    project = _calc_project(tmp_path / "p")
    baseline = _baseline(project)
    (project / "tests" / "test_zz.py").write_text(
        "import calc\ncalc.add = lambda a, b: a + b\n\n\ndef test_zz():\n    pass\n", "utf-8"
    )
    agent_run = SubprocessRunner().run(PYTEST.split(), cwd=project, timeout_s=60)
    assert agent_run.exit_code == 0, agent_run.output
    replay = check_protected(project, baseline, [PYTEST], SubprocessRunner(), 60)
    assert replay is not None and not replay.passed
    assert [(c.path, c.kind) for c in replay.changes] == [("tests/test_zz.py", "added")]
    assert "1 failed" in replay.runs[0].output_tail


def test_an_honest_new_test_still_proves_a_real_fix(tmp_path: Path) -> None:
    """The agent fixes `add` and adds a test of its own: the original tests pass without it."""
    project = _calc_project(tmp_path / "p")
    baseline = _baseline(project)
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n", "utf-8")
    (project / "tests" / "test_more.py").write_text(
        "import calc\n\n\ndef test_zero():\n    assert calc.add(0, 0) == 0\n", "utf-8"
    )
    replay = check_protected(project, baseline, [PYTEST], SubprocessRunner(), 60)
    assert replay is not None and replay.passed, replay
    assert "1 passed" in replay.runs[0].output_tail


def test_a_new_test_file_the_verify_names_is_kept(tmp_path: Path) -> None:
    """The user's verify names a test file the agent was to write: the replay keeps it."""
    project = _calc_project(tmp_path / "p")
    baseline = _baseline(project)
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n", "utf-8")
    (project / "tests" / "test_new.py").write_text("def test_new():\n    pass\n", "utf-8")
    verify = f"{PYTEST} tests/test_new.py"
    replay = check_protected(project, baseline, [verify], SubprocessRunner(), 60)
    assert replay is not None and replay.passed, replay


def test_a_pytest_shim_in_the_project_proves_nothing(tmp_path: Path) -> None:
    """A `pytest.py` that exits 0: `python -m pytest` runs it, prints no summary, and the
    verify does not pass; the replay runs the real pytest without it, and fails."""
    from goalkeeper.engine.commands import run_verification

    project = _calc_project(tmp_path / "p")
    baseline = _baseline(project)
    (project / "pytest.py").write_text("raise SystemExit(0)\n", "utf-8")
    (run,) = run_verification([PYTEST], project, SubprocessRunner(), 60)
    assert run.exit_code == 0 and run.no_tests and not run.passed
    replay = check_protected(project, baseline, [PYTEST], SubprocessRunner(), 60)
    assert replay is not None and not replay.passed
    assert [(c.path, c.kind) for c in replay.changes] == [("pytest.py", "added")]


def test_pytest_run_quietly_is_a_passing_verify(tmp_path: Path) -> None:
    """The user's verify is `pytest -qq` (or `-q` over an `addopts = -q`): the real pytest prints
    only its progress, and a fixed project passes. Code that ends the run early with exit 0
    (`os._exit(0)` in the code under test) still proves nothing: no run reached its end."""
    from goalkeeper.engine.commands import run_verification

    project = _calc_project(tmp_path / "p")
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n", "utf-8")
    (project / "pytest.ini").write_text("[pytest]\naddopts = -q\n", "utf-8")
    (run,) = run_verification([PYTEST], project, SubprocessRunner(), 60)
    assert "passed" not in run.output_tail and "[100%]" in run.output_tail, run.output_tail
    assert run.passed and not run.no_tests, run
    (quiet,) = run_verification([PYTEST.replace("-q", "-qq")], project, SubprocessRunner(), 60)
    assert quiet.passed, quiet
    (project / "calc.py").write_text("import os\n\nos._exit(0)\n", "utf-8")
    (cut,) = run_verification([PYTEST], project, SubprocessRunner(), 60)
    assert cut.exit_code == 0 and cut.no_tests and not cut.passed, cut
