"""Hidden acceptance tests (issue 22, item 5): tests the user gives with the goal, kept in
goalkeeper's state folder and laid over a scratch copy of the work tree at each proof, so an
agent that special-cases the visible test's input is not proven. Real CLI, real hook, real
pytest."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from goalkeeper.store.locations import hidden_tests_dir

from .conftest import run_hook, stop
from .test_goal_vectors import _env, goalkeeper

VISIBLE = "from calc import subtract\n\n\ndef test_visible():\n    assert subtract(2, 3) == -1\n"
HIDDEN = (
    "from calc import subtract\n\n\n"
    "def test_other_cases():\n"
    "    assert subtract(5, 1) == 4\n"
    "    assert subtract(0, 7) == -7\n"
)
CHEAT = "def subtract(a, b):\n    return -1 if (a, b) == (2, 3) else a + b\n"
HONEST = "def subtract(a, b):\n    return a - b\n"
VERIFY = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(VISIBLE, "utf-8")
    (root / "calc.py").write_text("def subtract(a, b):\n    raise NotImplementedError\n")
    return root


@pytest.fixture
def hidden(tmp_path: Path) -> Path:
    folder = tmp_path / "acceptance"
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "test_hidden_calc.py").write_text(HIDDEN, "utf-8")
    return folder


def set_goal(project: Path, hidden: Path, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return goalkeeper(
        project,
        "goal",
        "set",
        "subtract(a, b) works",
        "--verify",
        VERIFY,
        "--hidden-tests",
        str(hidden),
        env=env,
    )


def proven(project: Path) -> bool:
    done = goalkeeper(project, "report", "--format", "json")
    return bool(json.loads(done.stdout)["verdict"]["state"] == "proven")


def files_in(project: Path) -> set[str]:
    return {p.name for p in project.rglob("*") if p.is_file()}


def test_special_casing_the_visible_input_is_not_proven(project: Path, hidden: Path) -> None:
    done = set_goal(project, hidden)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Hidden acceptance tests: 1 file(s)" in done.stdout
    (project / "calc.py").write_text(CHEAT, "utf-8")
    answer = run_hook(project, stop(project), timeout_s=60).answer
    assert answer.get("decision") == "block", answer
    assert "acceptance tests you cannot see" in answer["reason"]
    assert "subtract(5, 1)" not in json.dumps(answer)  # what they test is not shown
    assert not proven(project)
    assert "test_hidden_calc.py" not in files_in(project)
    again = run_hook(project, stop(project), timeout_s=60).answer  # the same failure: paused
    assert again.get("decision") != "block" and not proven(project)
    assert "hidden acceptance tests fail" in again.get("systemMessage", ""), again


def test_the_honest_implementation_is_proven(project: Path, hidden: Path) -> None:
    assert set_goal(project, hidden).returncode == 0
    (project / "calc.py").write_text(HONEST, "utf-8")
    answer = run_hook(project, stop(project), timeout_s=60).answer
    assert proven(project)  # proven at once; the stop is the one review round (seed 002)
    assert answer.get("decision") == "block" and "fresh reviewer" in answer["reason"], answer
    assert run_hook(project, stop(project), timeout_s=60).answer.get("decision") != "block"
    assert "test_hidden_calc.py" not in files_in(project)
    report = goalkeeper(project, "report").stdout
    assert "Hidden acceptance tests ran" in report and "subtract(5, 1)" not in report


def test_an_agents_shell_cannot_set_hidden_tests(project: Path, hidden: Path) -> None:
    done = set_goal(project, hidden, env=_env({"CLAUDECODE": "1"}))
    assert done.returncode == 2 and "your own terminal" in done.stderr
    assert not hidden_tests_dir(project, _env()).exists()


def test_hidden_tests_inside_the_project_are_refused(project: Path) -> None:
    (project / "acceptance").mkdir()
    (project / "acceptance" / "test_x.py").write_text("def test_x():\n    pass\n")
    done = set_goal(project, project / "acceptance")
    assert done.returncode == 2 and "inside the project" in done.stderr


def test_a_sandboxed_claude_code_cannot_read_the_hidden_tests(
    project: Path, hidden: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copy lives under the state home, which `install claude --sandbox` denies to the
    agent's reads: the deny rule Claude Code gets covers the folder the hidden tests are in."""
    from goalkeeper.cli.app import run
    from goalkeeper.hosts.command_hooks.own_folders import covered

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    assert set_goal(project, hidden, env={**_env(), "HOME": str(home)}).returncode == 0
    kept = hidden_tests_dir(project)
    assert (kept / "tests" / "test_hidden_calc.py").read_text("utf-8") == HIDDEN
    assert run(["install", "claude", "--sandbox"]) == 0
    settings = json.loads((home / ".claude" / "settings.json").read_text("utf-8"))
    assert covered(str(kept), settings["sandbox"]["filesystem"]["denyRead"])


def test_a_cleared_or_new_goal_drops_the_hidden_tests(project: Path, hidden: Path) -> None:
    """They belong to the goal they were given with: `goal clear` and a goal the user sets
    without them forget them."""
    kept = hidden_tests_dir(project, _env())
    assert set_goal(project, hidden).returncode == 0 and kept.is_dir()
    assert goalkeeper(project, "goal", "clear").returncode == 0
    assert not kept.exists()
    assert set_goal(project, hidden).returncode == 0 and kept.is_dir()
    done = goalkeeper(project, "goal", "set", "other", "--verify", VERIFY, "--replace")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not kept.exists()
