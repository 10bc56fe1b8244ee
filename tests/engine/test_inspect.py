"""Gathering evidence facts: files seen on disk and in git, evidence commands re-run only when
allowed, and the test commands a project's own files declare."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import CommandFact, FileFact, Inspect
from goalkeeper.engine.inspect import allowed_commands, gather_facts
from goalkeeper.engine.ports import Completed, SubprocessRunner
from goalkeeper.store.project import declared_test_commands

PY = sys.executable
GIT = ("git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false")


class RecordingRunner:
    """The real subprocess runner, remembering every argument vector it was given."""

    def __init__(self) -> None:
        self.real = SubprocessRunner()
        self.calls: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], *, cwd: Path, timeout_s: float) -> Completed:
        self.calls.append(tuple(argv))
        return self.real.run(argv, cwd=cwd, timeout_s=timeout_s)


def git(repo: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git work tree with ``tracked.txt`` and ``same.txt`` committed."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "tracked.txt").write_text("one\n", encoding="utf-8")
    (root / "same.txt").write_text("same\n", encoding="utf-8")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    return root


def files_of(project: Path, *paths: str) -> dict[str, FileFact]:
    facts = gather_facts(Inspect(files=paths), project, Config(), SubprocessRunner())
    return {f.path: f for f in facts.files}


def marker_command(marker: Path) -> str:
    """A command (free of shell operators) that creates ``marker`` when it runs."""
    return f'{shlex.quote(PY)} -c \'open("{marker}", "w").close()\''


def one_command(project: Path, cmd: str, config: Config) -> CommandFact:
    facts = gather_facts(Inspect(commands=(cmd,)), project, config, SubprocessRunner())
    assert len(facts.commands) == 1
    return facts.commands[0]


# ---------------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------------


def test_git_changed_files(repo: Path) -> None:
    """An untracked new file and a modified tracked file are changed; an unmodified one is not."""
    (repo / "new.txt").write_text("new\n", encoding="utf-8")
    (repo / "tracked.txt").write_text("two\n", encoding="utf-8")
    seen = files_of(repo, "new.txt", "tracked.txt", "same.txt")
    assert seen["new.txt"].git_changed is True
    assert seen["tracked.txt"].git_changed is True
    assert seen["same.txt"].git_changed is False
    assert all(f.exists for f in seen.values())


def test_untracked_file_in_a_new_folder_is_changed(repo: Path) -> None:
    """A new file inside a new folder is reported by itself (all untracked files are listed)."""
    (repo / "pkg").mkdir()
    (repo / "pkg" / "mod.py").write_text("x = 1\n", encoding="utf-8")
    assert files_of(repo, "pkg/mod.py")["pkg/mod.py"].git_changed is True


def test_staged_file_is_changed(repo: Path) -> None:
    """A change that is staged but not committed is a change."""
    (repo / "tracked.txt").write_text("staged\n", encoding="utf-8")
    git(repo, "add", "tracked.txt")
    assert files_of(repo, "tracked.txt")["tracked.txt"].git_changed is True


def test_deleted_tracked_file(repo: Path) -> None:
    """A deleted tracked file does not exist and git reports it changed."""
    (repo / "tracked.txt").unlink()
    fact = files_of(repo, "tracked.txt")["tracked.txt"]
    assert (fact.exists, fact.mtime, fact.git_changed) == (False, None, True)


def test_missing_file(repo: Path) -> None:
    """A file that was never there does not exist and is not a git change."""
    fact = files_of(repo, "nowhere.txt")["nowhere.txt"]
    assert (fact.exists, fact.mtime, fact.git_changed) == (False, None, False)


def test_file_mtime_is_reported(repo: Path) -> None:
    """The file's modification time is the one on disk."""
    os.utime(repo / "same.txt", (1_000_000.0, 1_000_000.0))
    assert files_of(repo, "same.txt")["same.txt"].mtime == 1_000_000.0


def test_absolute_path_of_a_changed_file(repo: Path) -> None:
    """An absolute path is resolved like a relative one and keeps its spelling in the fact."""
    (repo / "tracked.txt").write_text("two\n", encoding="utf-8")
    path = str(repo / "tracked.txt")
    fact = files_of(repo, path)[path]
    assert (fact.path, fact.exists, fact.git_changed) == (path, True, True)


def test_project_in_a_subfolder_of_the_work_tree(repo: Path) -> None:
    """Git's root-relative paths are matched when the project is a subfolder of the work tree."""
    sub = repo / "sub"
    sub.mkdir()
    (sub / "kept.txt").write_text("k\n", encoding="utf-8")
    (sub / "edited.txt").write_text("e\n", encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "sub")
    (sub / "edited.txt").write_text("e2\n", encoding="utf-8")
    seen = files_of(sub, "kept.txt", "edited.txt")
    assert (seen["kept.txt"].git_changed, seen["edited.txt"].git_changed) == (False, True)


def test_paths_with_spaces_and_non_ascii(repo: Path) -> None:
    """Names git would quote in plain output are matched exactly."""
    (repo / "a b.txt").write_text("x\n", encoding="utf-8")
    (repo / "文档.md").write_text("x\n", encoding="utf-8")
    seen = files_of(repo, "a b.txt", "文档.md", "same.txt")
    assert (seen["a b.txt"].git_changed, seen["文档.md"].git_changed) == (True, True)
    assert seen["same.txt"].git_changed is False


def test_a_staged_rename_does_not_mark_an_unrelated_file(repo: Path) -> None:
    """Both sides of a staged rename are named; an unrelated unmodified file stays unchanged."""
    (repo / "xyzsame.txt").write_text("rename me, long enough to be detected\n", encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "more")
    git(repo, "mv", "xyzsame.txt", "renamed.txt")
    seen = files_of(repo, "renamed.txt", "xyzsame.txt", "same.txt")
    assert seen["renamed.txt"].git_changed is True
    assert seen["same.txt"].git_changed is False


def test_outside_a_git_work_tree(tmp_path: Path) -> None:
    """In a folder that is not a git work tree, ``git_changed`` is unknown (None)."""
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.txt").write_text("a\n", encoding="utf-8")
    seen = files_of(plain, "a.txt", "gone.txt")
    assert (seen["a.txt"].exists, seen["a.txt"].git_changed) == (True, None)
    assert (seen["gone.txt"].exists, seen["gone.txt"].git_changed) == (False, None)


def test_no_files_asked_means_no_git_call(tmp_path: Path) -> None:
    """Git is only asked when a file is named."""
    runner = RecordingRunner()
    facts = gather_facts(Inspect(), tmp_path, Config(), runner)
    assert (facts.files, facts.commands, runner.calls) == ((), (), [])


# ---------------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------------


def test_allowed_command_runs_and_reports_exit_and_output(tmp_path: Path) -> None:
    """An allowed command is run and its real exit code and output tail are reported."""
    cmd = f"{shlex.quote(PY)} -c 'raise SystemExit(print(\"tail-marker\") or 3)'"
    fact = one_command(tmp_path, cmd, Config(evidence_commands=(cmd,)))
    assert (fact.cmd, fact.allowed, fact.exit_code, fact.timed_out) == (cmd, True, 3, False)
    assert "tail-marker" in fact.output_tail


def test_allowed_command_runs_in_the_project_folder(tmp_path: Path) -> None:
    """The command's working folder is the project."""
    cmd = f"{shlex.quote(PY)} -c 'print(__import__(\"os\").getcwd())'"
    fact = one_command(tmp_path, cmd, Config(evidence_commands=(cmd,)))
    assert fact.exit_code == 0
    assert Path(fact.output_tail.strip()).resolve() == tmp_path.resolve()


def test_command_that_is_not_allowed_is_never_run(tmp_path: Path) -> None:
    """A command that is not allowed is reported as such and provably not executed."""
    marker = tmp_path / "marker"
    cmd = marker_command(marker)
    runner = RecordingRunner()
    config = Config(evidence_commands=("pytest",))
    facts = gather_facts(Inspect(commands=(cmd,)), tmp_path, config, runner)
    assert facts.commands == (
        CommandFact(cmd, allowed=False, refusal="not_approved", detail="`pytest`"),
    )
    assert not marker.exists()
    assert runner.calls == []


def test_the_same_command_runs_when_allowed(tmp_path: Path) -> None:
    """The marker command does run once the user approved it (so the test above is sound)."""
    marker = tmp_path / "marker"
    cmd = marker_command(marker)
    fact = one_command(tmp_path, cmd, Config(evidence_commands=(cmd,)))
    assert fact.exit_code == 0
    assert marker.exists()


def test_shell_operators_are_never_run_even_with_an_allowed_prefix(tmp_path: Path) -> None:
    """An allowed program followed by a shell operator is refused and not executed."""
    marker = tmp_path / "marker"
    cmd = f"{shlex.quote(PY)} -V && touch {shlex.quote(str(marker))}"
    fact = one_command(tmp_path, cmd, Config(evidence_commands=(PY,)))
    assert (fact.allowed, fact.exit_code, fact.refusal) == (False, None, "shell")
    assert not marker.exists()


def test_timeout_is_reported(tmp_path: Path) -> None:
    """A command that outlives its timeout is reported as timed out, without an exit code."""
    cmd = f"{shlex.quote(PY)} -c '__import__(\"time\").sleep(30)'"
    config = Config(evidence_commands=(cmd,), evidence_timeout_s=0.3)
    fact = one_command(tmp_path, cmd, config)
    assert (fact.allowed, fact.exit_code, fact.timed_out) == (True, None, True)


def test_inferred_test_command_is_allowed(tmp_path: Path) -> None:
    """A test command the project declares is allowed without configuration."""
    (tmp_path / "Makefile").write_text("test:\n\t@echo ok\n", encoding="utf-8")
    assert allowed_commands(tmp_path, Config()) == ("make test",)


def test_allowed_commands_combine_configured_and_declared(tmp_path: Path) -> None:
    """Configured commands come first, then the declared test command, else the inferred ones."""
    (tmp_path / "go.mod").write_text("module x\n", encoding="utf-8")
    assert allowed_commands(tmp_path, Config(evidence_commands=("a",))) == (
        "a",
        "go test ./...",
        "go test",
    )
    config = Config(evidence_commands=("a",), test_command="make check")
    assert allowed_commands(tmp_path, config) == ("a", "make check")


# ---------------------------------------------------------------------------------------------
# declared_test_commands: what the project declares, in every spelling
# ---------------------------------------------------------------------------------------------

PYTEST = ("python -m pytest -q", "pytest", "python -m pytest", "python3 -m pytest")


def test_infer_pytest_from_pyproject(tmp_path: Path) -> None:
    """A pyproject that configures pytest declares the pytest commands (the goal's verify
    command first: both come from one reading of the project)."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n', encoding="utf-8"
    )
    assert declared_test_commands(tmp_path) == PYTEST


def test_pyproject_without_pytest_declares_nothing(tmp_path: Path) -> None:
    """A pyproject that never mentions pytest declares no test command."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    assert declared_test_commands(tmp_path) == ()


def test_infer_npm_test_script(tmp_path: Path) -> None:
    """A package.json with a ``test`` script declares the npm-family test commands."""
    (tmp_path / "package.json").write_text('{"scripts": {"test": "vitest"}}', encoding="utf-8")
    assert declared_test_commands(tmp_path) == (
        "npm test",
        "npm run test",
        "pnpm test",
        "pnpm run test",
        "yarn test",
        "yarn run test",
    )


def test_infer_make_test_target(tmp_path: Path) -> None:
    """A Makefile with a ``test:`` target declares ``make test``, first line or later."""
    (tmp_path / "Makefile").write_text("all:\n\techo\ntest: all\n\techo\n", encoding="utf-8")
    assert declared_test_commands(tmp_path) == ("make test",)
    (tmp_path / "Makefile").write_text("test:\n\techo\n", encoding="utf-8")
    assert declared_test_commands(tmp_path) == ("make test",)


def test_makefile_without_a_test_target(tmp_path: Path) -> None:
    """A Makefile without a ``test:`` target declares nothing."""
    (tmp_path / "Makefile").write_text("all:\n\techo test\n", encoding="utf-8")
    assert declared_test_commands(tmp_path) == ()


def test_infer_cargo_and_go(tmp_path: Path) -> None:
    """Cargo.toml declares ``cargo test``; go.mod declares ``go test``."""
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "x"\n', encoding="utf-8")
    assert declared_test_commands(tmp_path) == ("cargo test",)
    (tmp_path / "go.mod").write_text("module x\n", encoding="utf-8")
    assert declared_test_commands(tmp_path) == ("cargo test", "go test ./...", "go test")


def test_infer_nothing_in_an_empty_folder(tmp_path: Path) -> None:
    """An empty folder declares no test command."""
    assert declared_test_commands(tmp_path) == ()


def test_infer_in_a_missing_folder(tmp_path: Path) -> None:
    """A folder that does not exist declares nothing and does not raise."""
    assert declared_test_commands(tmp_path / "missing") == ()


@pytest.mark.parametrize(
    "claimed",
    [
        "python -m pytest -q -p evil",
        "python -m pytest --junitxml=/tmp/elsewhere.xml",
        "python -m pytest ../outside_tests",
        "python -m pytest -c evil.ini",
    ],
)
def test_a_project_test_command_with_more_than_test_selection_is_never_run(
    tmp_path: Path, claimed: str
) -> None:
    """The audit's argument vectors: refused with the argument named, nothing run."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    runner = RecordingRunner()
    facts = gather_facts(Inspect(commands=(claimed,)), tmp_path, Config(), runner)
    assert facts.commands[0].refusal == "argument" and runner.calls == []


def test_a_test_path_linked_out_of_the_project_is_not_selection(tmp_path: Path) -> None:
    """`pytest tests/link` where the link leaves the project is refused."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    (project / "link").symlink_to(tmp_path / "elsewhere")
    runner = RecordingRunner()
    facts = gather_facts(Inspect(commands=("pytest link",)), project, Config(), runner)
    assert (facts.commands[0].refusal, facts.commands[0].detail) == ("argument", "link")
    assert runner.calls == []
