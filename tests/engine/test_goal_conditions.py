"""A goal's verify keeps every condition its text names, and a goal that names none gets none
(audit seed001-004 D5 and D8, issue 12): from a prompt (the goal guard) and from
``goalkeeper goal set`` (through the engine that writes GOAL.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.cli.app import run
from goalkeeper.core.values import SetGoal, UserPrompt
from goalkeeper.guards.goal import GoalGuard, GoalState
from goalkeeper.testing import context


def _prompted(text: str) -> SetGoal:
    verdict = GoalGuard().on_event(UserPrompt("s", text), GoalState(), context(None))
    action = verdict.actions[0]
    assert isinstance(action, SetGoal)
    return action


def _set(capsys: pytest.CaptureFixture[str], project: Path, text: str) -> Any:
    run(["-C", str(project), "goal", "set", text, "--json"])
    return json.loads(capsys.readouterr().out)


def test_a_prompt_without_a_check_asks_for_nothing_to_be_inferred() -> None:
    """ "Goal: ship the CSV export" names no check: no command and no kind, so no test suite is
    picked for it behind the user's back."""
    action = _prompted("Goal: ship the CSV export for the reports page")
    assert action.verify == () and action.kinds == ()


def test_a_prompt_keeps_the_command_and_the_prose_condition() -> None:
    """ "npm test passes and lint is clean": ``npm test`` and the lint kind."""
    action = _prompted("Goal: npm test passes and lint is clean")
    assert action.verify == ("npm test",) and action.kinds == ("lint",)


def test_goal_without_a_check_gets_no_pytest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a pytest project, a goal that names no check is set without a verify and the user is
    told to give one; it used to get ``python -m pytest -q`` silently."""
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    data = _set(capsys, tmp_path, "ship the CSV export for the reports page")
    assert data["ok"] is False and data["goal"]["verify"] == []
    assert any("no verify command was found" in m for m in data["messages"])


def test_goal_naming_tests_still_infers_the_test_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An explicit "all tests pass" is a check: the project's test command is inferred."""
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    data = _set(capsys, tmp_path, "the CSV export works and all tests pass")
    assert data["goal"]["verify"] == ["python -m pytest -q"]


def test_npm_test_and_lint_both_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ "npm test 全部通过 且 lint 干净" with a lint script: ``npm test`` and ``npm run lint``."""
    scripts = {"test": "vitest run", "lint": "eslint ."}
    (tmp_path / "package.json").write_text(json.dumps({"scripts": scripts}), encoding="utf-8")
    data = _set(capsys, tmp_path, "npm test 全部通过 且 lint 干净")
    assert data["goal"]["verify"] == ["npm test", "npm run lint"]


def test_make_build_and_lint_both_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "The build succeeds and lint is clean" with Makefile targets test, lint, build."""
    makefile = "test:\n\ttrue\nlint:\n\ttrue\nbuild:\n\ttrue\n"
    (tmp_path / "Makefile").write_text(makefile, encoding="utf-8")
    data = _set(capsys, tmp_path, "the build succeeds and lint is clean")
    assert data["goal"]["verify"] == ["make lint", "make build"]


def test_a_goal_from_a_prompt_uses_the_users_test_command_too(tmp_path: Path) -> None:
    """The user's configured test command (environment: the user's own) is the "tests" check
    of a goal set from a prompt, as it is for `goalkeeper goal set` and for todo evidence: one
    answer to "what are this project's tests?"."""
    from goalkeeper.config import load_config
    from goalkeeper.engine.supervisor import Supervisor
    from goalkeeper.store.goalfile import load_goal
    from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock

    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    config = load_config(tmp_path, env={"GOALKEEPER_TEST_COMMAND": "make check"})
    assert config.test_command == "make check"
    sup = Supervisor(
        tmp_path, config, host="test", capabilities=CLAUDE_CAPABILITIES, clock=FakeClock()
    )
    sup.handle([UserPrompt("s", "Goal: all the tests pass for the billing refactor.")])
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal is not None
    assert doc.goal.verify == ("make check",)
