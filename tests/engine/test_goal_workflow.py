"""A coarse goal handed to a workflow keeps its proof (issue 23 item 2, seed 001 decision 7:
delegation, not abandonment), through the engine with plain events: the route fits the goal,
the goal's verify runs at the workflow's stops and after its completion, and a stop that
decides nothing tells the user why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from goalkeeper.core.values import (
    Action,
    BeforeAgentStart,
    Close,
    Continue,
    Notify,
    Pause,
    Reply,
    ToolCall,
    UserPrompt,
)
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.store import journal
from goalkeeper.store.goalfile import load_goal
from goalkeeper.testing import FakeRunner, supervisor
from tests.engine.test_goal_loop import FAIL, Outputs, settle, text, tick_criteria

RESTRUCTURE = "Goal: restructure the auth, billing and notifications modules; `pytest -q` passes"
FEATURE = "/gk-goal rewrite the store, then port the CLI, then update the docs; `pytest -q` passes"


@pytest.fixture
def outputs() -> Outputs:
    return Outputs()


@pytest.fixture
def sup(tmp_path: Path, outputs: Outputs) -> Supervisor:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_auth.py").write_text("def test_a():\n    assert 1\n", "utf-8")
    return supervisor(tmp_path, FakeRunner(outputs))  # the review round: test_review.py


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


def test_every_stop_of_a_goals_workflow_runs_the_verify_and_none_is_silent(
    sup: Supervisor, outputs: Outputs
) -> None:
    """Issue 23: after one reminder every later stop was allowed with no verify and no notice.
    Each stop runs the goal's verify; each either sends the agent back or tells the user why
    it stands."""
    set_goal(sup, RESTRUCTURE)
    for n in range(1, 6):
        outputs.queue.append((1, FAIL.format(t=n)))
        stopped = settle(sup, "I surveyed the modules.")
        assert outputs.runs == n
        assert decided(stopped) or [a for a in stopped if isinstance(a, Notify)], n
    goal = load_goal(sup.project).goal  # type: ignore[union-attr]
    assert goal.status == "active" and goal.attempts == 0  # shaping spends no round


def test_completing_the_goals_workflow_does_not_complete_the_goal(
    sup: Supervisor, outputs: Outputs
) -> None:
    """The workflow's completion is not the goal's: the agent and the user are told the goal
    stays open, the next stop verifies it, a failure keeps it open; only a pass with every
    criterion ticked proves it."""
    set_goal(sup, RESTRUCTURE)
    settle(sup, "I looked around.")  # the route starts
    done = sup.handle([ToolCall("s", "workflow_active", {"action": "complete"})]).actions
    (reply,) = [a for a in done if isinstance(a, Reply)]
    assert "not done with it" in reply.text and "`pytest -q`" in reply.text
    assert any("the goal stays open" in a.text for a in done if isinstance(a, Notify))
    outputs.queue.append((1, FAIL.format(t=1)))
    failed = settle(sup, "All done, the workflow is complete.")
    assert decided(failed) == ["Continue"] and "[1/3]" in text(failed)
    assert load_goal(sup.project).goal.status == "active"  # type: ignore[union-attr]
    tick_criteria(sup.project)
    proven = settle(sup, "Fixed.")
    assert decided(proven) == ["Close"] and load_goal(sup.project) is None


def test_a_workflow_stop_that_is_let_through_tells_the_user_why(sup: Supervisor) -> None:
    """Without a goal, the stop after the one reminder stands; it stood in silence before. The
    user reads why (the work item, its phase, how to go on or end it), in the session's
    language."""
    sup.handle([ToolCall("s", "workflow", {"mode": "workflow", "route": "architecture"})])
    reminded = settle(sup, "stopping")
    assert decided(reminded) == ["Continue"]
    for _ in range(2):
        allowed = settle(sup, "stopping")
        assert decided(allowed) == []
        (note,) = [a for a in allowed if isinstance(a, Notify)]
        assert "architecture · survey" in note.text and "this stop stands" in note.text


def test_with_a_goal_the_workflow_leaves_the_stop_to_the_goal(
    sup: Supervisor, outputs: Outputs
) -> None:
    """The goal's verify decides a stop; the workflow adds no second notice that contradicts it."""
    set_goal(sup, RESTRUCTURE)
    settle(sup, "I looked around.")
    settle(sup, "still surveying")
    outputs.queue.append((0, "1 passed in 0.01s"))
    stopped = settle(sup, "still surveying")
    assert decided(stopped) == ["Continue"]  # the verify passes; the criteria are still open
    assert not [a for a in stopped if isinstance(a, Notify) and "this stop stands" in a.text]


def test_the_agent_may_move_a_goal_onto_the_route_that_fits_and_the_goal_stays_verified(
    sup: Supervisor, outputs: Outputs
) -> None:
    """The router reads words (half of the architecture goals it never saw go to idea-to-ship:
    benchmarks/goal_routing.py), so the idea-to-ship start says how to move a goal that only
    restructures code onto the architecture route; after the move the goal is not started on
    idea-to-ship again, and every stop still runs its verify."""
    set_goal(sup, FEATURE)
    started = settle(sup, "I looked around.")
    assert "Route: idea-to-ship" in text(started) and '"route": "architecture"' in text(started)
    sup.handle([ToolCall("s", "workflow_active", {"action": "cancel", "reason": "structural"})])
    moved = sup.handle([ToolCall("s", "workflow", {"mode": "workflow", "route": "architecture"})])
    (reply,) = [a for a in moved.actions if isinstance(a, Reply)]
    assert reply.data["route"] == "architecture"  # type: ignore[index]
    runs = outputs.runs
    outputs.queue.append((1, FAIL.format(t=1)))
    stopped = settle(sup, "I surveyed the modules.")
    assert outputs.runs == runs + 1 and "Route: idea-to-ship" not in text(stopped)
    assert [r["route"] for r in workflow_records(sup)][-1] == "architecture"
