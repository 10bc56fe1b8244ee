"""Issue 23 §1: every condition a goal names becomes a check this project can run, or a criterion
the goal cannot be proven without. "pytest passes and coverage is at least 80%" was verified by
pytest alone and archived as proven; "所有测试通过，且 ruff 无告警" by pytest alone; "every test in
tests/ passes" found no command at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goalkeeper.core.goals.verify import verify_request
from goalkeeper.core.values import Close, Pause, UserPrompt
from goalkeeper.store.conditions import resolve_conditions
from goalkeeper.store.goalfile import load_goal
from goalkeeper.testing import FakeRunner, supervisor
from tests.engine.test_goal_loop import Outputs, settle, text, tick_criteria


def python_project(root: Path, deps: str = "") -> Path:
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text("def test_add():\n    assert 1 + 2 == 3\n")
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "calc"\noptional-dependencies = {{ dev = [{deps}] }}\n'
        "[tool.pytest.ini_options]\n"
    )
    return root


def node_project(root: Path, **dev: str) -> Path:
    package = {"scripts": {"test": "jest"}, "devDependencies": dev}
    (root / "package.json").write_text(json.dumps(package))
    (root / "src").mkdir()
    return root


def checks(root: Path, goal: str) -> dict[str, tuple[str, ...]]:
    """What each condition the goal names became: its kind → its commands."""
    asked = verify_request(goal)
    return {c.condition.kind: c.commands for c in resolve_conditions(root, asked.conditions)}


# --- what each condition becomes -------------------------------------------------------------


def test_a_coverage_threshold_with_pytest_cov_is_enforced_by_pytest(tmp_path: Path) -> None:
    found = checks(
        python_project(tmp_path, '"pytest-cov"'), "pytest passes and coverage is at least 80%"
    )
    assert found["coverage"] == ("python -m pytest -q --cov --cov-fail-under=80",)


def test_coverage_beside_an_explicit_pytest_is_kept(tmp_path: Path) -> None:
    """The explicit command covers the tests; the threshold is still a condition of its own."""
    asked = verify_request("`pytest -q` passes and coverage is at least 80%")
    assert asked.commands == ("pytest -q",) and asked.kinds == ("coverage",)


def test_a_coverage_threshold_with_coverage_py(tmp_path: Path) -> None:
    found = checks(python_project(tmp_path, '"coverage"'), "all tests pass with 90% coverage")
    assert found["coverage"] == (
        "python -m coverage run -m pytest -q",
        "python -m coverage report --fail-under=90",
    )


def test_the_plain_test_run_is_not_repeated_beside_the_coverage_run(tmp_path: Path) -> None:
    found = checks(python_project(tmp_path, '"pytest-cov"'), "all tests pass, coverage ≥ 85%")
    assert found["tests"] == found["coverage"] == ("python -m pytest -q --cov --cov-fail-under=85",)


@pytest.mark.parametrize(
    ("dep", "command"),
    [
        ("vitest", "npx vitest run --coverage --coverage.thresholds.lines=75"),
        ("jest", """npx jest --coverage --coverageThreshold='{"global":{"lines":75}}'"""),
        ("c8", "npx c8 --check-coverage --lines 75 npm test"),
        ("nyc", "npx nyc --check-coverage --lines 75 npm test"),
    ],
)
def test_a_coverage_threshold_in_a_node_project(tmp_path: Path, dep: str, command: str) -> None:
    found = checks(node_project(tmp_path, **{dep: "1"}), "test coverage of at least 75%")
    assert found["coverage"] == (command,)


def test_a_coverage_threshold_no_tool_enforces_stays_unchecked(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module calc\n")
    assert checks(tmp_path, "go test passes and coverage reaches 80%")["coverage"] == ()


def test_a_named_linter_is_that_linter_in_either_language(tmp_path: Path) -> None:
    python_project(tmp_path)
    found = checks(tmp_path, "所有测试通过，且 ruff 无告警")
    assert found == {"tests": ("python -m pytest -q",), "lint": ("ruff check .",)}


def test_eslint_asked_for_no_warnings_fails_on_warnings(tmp_path: Path) -> None:
    found = checks(node_project(tmp_path, eslint="9"), "eslint reports no warnings")
    assert found["lint"] == ("npx eslint --max-warnings=0 .",)


def test_every_test_in_a_folder_runs_that_folder(tmp_path: Path) -> None:
    python_project(tmp_path)
    (tmp_path / "tests" / "unit").mkdir()
    assert checks(tmp_path, "every test in tests/unit passes")["tests"] == (
        "python -m pytest -q tests/unit",
    )
    assert checks(tmp_path, "tests/ 下的所有测试通过")["tests"] == ("python -m pytest -q tests",)


@pytest.mark.parametrize("folder", ["nowhere/", "../outside/", "tests/;rm"])
def test_a_folder_that_is_not_there_or_not_plain_has_no_command(
    tmp_path: Path, folder: str
) -> None:
    python_project(tmp_path)
    assert checks(tmp_path, f"every test in {folder} passes").get("tests", ()) == ()


# --- the goal keeps every condition -----------------------------------------------------------


def test_the_goal_verifies_every_condition_and_says_what_each_became(tmp_path: Path) -> None:
    python_project(tmp_path, '"pytest-cov"')
    sup = supervisor(tmp_path, FakeRunner(Outputs()))
    actions = sup.handle(
        [UserPrompt("s", "/gk-goal pytest passes and coverage is at least 80%")]
    ).actions
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal is not None
    # ``pytest`` is the user's own command; the threshold is enforced beside it
    assert doc.goal.verify == ("pytest", "python -m pytest -q --cov --cov-fail-under=80")
    told = "\n".join(getattr(a, "text", "") for a in actions)
    assert "coverage is at least 80% → `python -m pytest -q --cov --cov-fail-under=80`" in told


def test_a_condition_without_a_command_keeps_the_goal_from_being_proven(tmp_path: Path) -> None:
    """pytest passes, but nothing in the project enforces the coverage the user named: the goal
    is not proven, the user is asked to settle it, and the agent ticking it changes nothing."""
    python_project(tmp_path)  # no coverage tool declared
    outputs = Outputs()
    sup = supervisor(tmp_path, FakeRunner(outputs))
    actions = sup.handle(
        [UserPrompt("s", "/gk-goal pytest passes and coverage is at least 80%")]
    ).actions
    told = "\n".join(getattr(a, "text", "") for a in actions)
    assert "coverage is at least 80% → no command found" in told
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal is not None
    assert doc.goal.verify == ("pytest",)
    assert any("no command checks this" in c.text for c in doc.goal.criteria)

    tick_criteria(tmp_path)  # the agent marks every criterion done in GOAL.md
    after = settle(sup)
    assert outputs.runs >= 1  # the verify ran and passed
    assert not any(isinstance(a, Close) for a in after)
    paused = text(after, Pause)
    assert "coverage is at least 80%" in paused and "goal approve" in paused
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal is not None and doc.goal.status == "active"


def test_a_goal_whose_conditions_all_have_commands_is_proven_as_before(tmp_path: Path) -> None:
    python_project(tmp_path)
    sup = supervisor(tmp_path, FakeRunner(Outputs()))
    sup.handle([UserPrompt("s", "/gk-goal 所有测试通过，且 ruff 无告警")])
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal is not None
    assert doc.goal.verify == ("python -m pytest -q", "ruff check .")
    assert any(isinstance(a, Close) for a in settle(sup))
