"""The work-tree copy the hidden tests run in, kept between proofs (``engine.scratch_tree``):
brought up to date, never trusting what the agent or the verify run could have changed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from goalkeeper.core.values import VerifyRun
from goalkeeper.engine.hidden import keep_hidden_tests, run_hidden
from goalkeeper.engine.scratch_tree import RACY_NS, locked, sync_tree
from goalkeeper.store.locations import hidden_run_dir, hidden_tests_dir


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "calc.py").write_text("def f():\n    return 1\n", "utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text("def test():\n    pass\n", "utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref\n", "utf-8")
    (root / ".venv" / "bin").mkdir(parents=True)
    time.sleep(RACY_NS / 1e9 + 0.05)  # older than the racy window: trusted when unchanged
    return root


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "state" / "hidden-run"


def files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and ".venv" not in p.parts
    }


def same_size_edit(path: Path, text: str) -> None:
    """An edit that keeps the file's size and mtime, as an agent hiding it would."""
    st = path.stat()
    assert len(text.encode()) == st.st_size
    path.write_text(text, "utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_the_copy_is_the_project_and_follows_its_edits(project: Path, home: Path) -> None:
    """First sync copies the work tree (no .git, .venv linked); later ones see every edit,
    even one keeping size and mtime, a new file and a deleted one."""
    tree = sync_tree(project, home)
    assert files(tree) == {k: v for k, v in files(project).items() if not k.startswith(".git")}
    assert (tree / ".venv").is_symlink() and not (tree / ".git").exists()
    same_size_edit(project / "src" / "calc.py", "def f():\n    return 2\n")
    (project / "src" / "new.py").write_text("X = 1\n", "utf-8")
    (project / "tests" / "test_calc.py").unlink()
    tree = sync_tree(project, home)
    assert (tree / "src" / "calc.py").read_text("utf-8").endswith("return 2\n")
    assert (tree / "src" / "new.py").exists() and not (tree / "tests" / "test_calc.py").exists()


def test_what_the_run_changed_in_the_copy_is_undone(project: Path, home: Path) -> None:
    """A file rewritten in the copy (size and mtime kept), a planted cache file and a folder
    swapped for a link to the project: the next sync restores the copy and the project is
    untouched."""
    tree = sync_tree(project, home)
    before = files(project)
    same_size_edit(tree / "src" / "calc.py", "def f():\n    return 9\n")
    (tree / "tests" / "__pycache__").mkdir()
    (tree / "tests" / "__pycache__" / "test_calc.pyc").write_bytes(b"planted")
    os.rename(tree / "tests", tree / "tests.old")
    os.symlink(project / "src", tree / "tests")  # emptying "tests" would empty the project's src
    tree = sync_tree(project, home)
    assert files(project) == before
    assert (tree / "src" / "calc.py").read_text("utf-8").endswith("return 1\n")
    assert not (tree / "tests").is_symlink() and (tree / "tests" / "test_calc.py").exists()
    assert not (tree / "tests.old").exists() and not (tree / "tests" / "__pycache__").exists()


def test_no_file_of_the_copy_is_a_link_to_the_project(project: Path, home: Path) -> None:
    tree = sync_tree(project, home)
    for path in tree.rglob("*"):
        if path.is_file() and not path.is_symlink() and ".venv" not in path.parts:
            assert path.stat().st_nlink == 1, path


def test_a_copy_in_use_is_not_shared(project: Path, home: Path) -> None:
    with locked(home) as held:
        assert held == home
        with locked(home) as second:
            assert second is None


def test_hidden_tests_run_in_the_kept_copy_and_never_reach_the_project(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two proofs: the hidden file is in the copy at each, whatever the first run did to it;
    the user's kept copy and the project never change."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    given = tmp_path / "acceptance"
    (given / "tests").mkdir(parents=True)
    (given / "tests" / "test_hidden.py").write_text("def test_h():\n    pass\n", "utf-8")
    keep_hidden_tests(project, given)
    kept = files(hidden_tests_dir(project))
    before = files(project)
    seen: list[str] = []

    def run(tree: Path) -> tuple[VerifyRun, ...]:
        hidden = tree / "tests" / "test_hidden.py"
        seen.append(hidden.read_text("utf-8"))
        hidden.write_text("def test_h():\n    assert 0  \n", "utf-8")  # the run's own write
        return (VerifyRun("pytest", 0, "1 passed"),)

    assert run_hidden(project, run).passed  # type: ignore[union-attr]
    assert run_hidden(project, run).passed  # type: ignore[union-attr]
    assert seen == ["def test_h():\n    pass\n"] * 2
    assert files(project) == before and files(hidden_tests_dir(project)) == kept
    assert hidden_run_dir(project).is_dir()


def test_the_overlay_wins_over_the_project_and_its_links(
    project: Path, home: Path, tmp_path: Path
) -> None:
    """A hidden file at a project file's path replaces it in the copy; one under the linked
    ``.venv`` makes that a real folder of the copy; the project keeps its own."""
    overlay = tmp_path / "hidden"
    (overlay / "tests").mkdir(parents=True)
    (overlay / "tests" / "test_calc.py").write_text("HIDDEN = 1\n", "utf-8")
    (overlay / ".venv").mkdir()
    (overlay / ".venv" / "marker.py").write_text("M = 1\n", "utf-8")
    before = files(project)
    for _ in range(2):  # built, then brought up to date
        tree = sync_tree(project, home, overlay=overlay)
        assert (tree / "tests" / "test_calc.py").read_text("utf-8") == "HIDDEN = 1\n"
        assert not (tree / ".venv").is_symlink() and (tree / ".venv" / "marker.py").exists()
    assert files(project) == before and not (project / ".venv" / "marker.py").exists()
    tree = sync_tree(project, home)  # without the overlay: the project's files come back
    assert (tree / "tests" / "test_calc.py").read_text("utf-8") == before[
        "tests/test_calc.py"
    ].decode()
    assert (tree / ".venv").is_symlink()
