"""A coarse goal handed to a workflow keeps its proof (issue 23 item 2, seed 001 decision 7:
delegation, not abandonment), through the engine with plain events: the route fits the goal,
the goal's verify runs at the workflow's stops and after its completion, and a stop that
decides nothing tells the user why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import (
    Action,
    BeforeAgentStart,
    Close,
    Continue,
    Pause,
    UserPrompt,
)
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.store import journal
from goalkeeper.store.goalfile import load_goal
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock, FakeRunner
from tests.engine.test_goal_loop import Outputs, settle, text

RESTRUCTURE = "Goal: restructure the auth, billing and notifications modules; `pytest -q` passes"
FEATURE = "/gk-goal rewrite the store, then port the CLI, then update the docs; `pytest -q` passes"


@pytest.fixture
def outputs() -> Outputs:
    return Outputs()


@pytest.fixture
def sup(tmp_path: Path, outputs: Outputs) -> Supervisor:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_auth.py").write_text("def test_a():\n    assert 1\n", "utf-8")
    return Supervisor(
        tmp_path,
        Config(no_plan="silent", lang="en"),
        host="test",
        capabilities=CLAUDE_CAPABILITIES,
        clock=FakeClock(),
        runner=FakeRunner(outputs),
    )


def set_goal(sup: Supervisor, goal: str) -> None:
    sup.handle([UserPrompt("s", goal), BeforeAgentStart("s")])


def workflow_records(sup: Supervisor) -> list[dict[str, Any]]:
    entries = journal.recent(sup.store.connection(), 500, "s")
    return [e.data for e in entries if e.kind == "workflow"]


def decided(actions: tuple[Action, ...]) -> list[str]:
    return [type(a).__name__ for a in actions if isinstance(a, Continue | Pause | Close)]


def test_a_restructuring_goal_is_worked_through_the_architecture_route(sup: Supervisor) -> None:
    """Issue 23: "restructure the auth, billing and notifications modules" went to idea-to-ship;
    it is recorded with the architecture route, and that route starts at the first stop."""
    set_goal(sup, RESTRUCTURE)
    goal = load_goal(sup.project).goal  # type: ignore[union-attr]
    assert goal.route == "architecture"
    started = settle(sup, "I looked around.")
    assert "Route: architecture" in text(started) and "Phase: survey" in text(started)
    assert [r["route"] for r in workflow_records(sup)] == ["architecture"]


def test_a_coarse_goal_that_keeps_the_structure_still_takes_idea_to_ship(sup: Supervisor) -> None:
    """The architecture route is for structural goals only: a rewrite in stages is a feature."""
    set_goal(sup, FEATURE)
    assert load_goal(sup.project).goal.route == "idea-to-ship"  # type: ignore[union-attr]
