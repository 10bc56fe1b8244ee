"""Seed 002's verification duty through the engine (issue 22 §5): when a goal is proven or a
test-gated todo completes, the agent is asked once for a fresh reviewer, and then let go."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import (
    Action,
    Activity,
    Capability,
    Close,
    Continue,
    Pause,
    Settled,
    ToolCall,
    UserPrompt,
)
from goalkeeper.engine.ports import Completed
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.store import journal
from goalkeeper.store.goalfile import load_goal
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock, FakeRunner

PASS = (0, "1 passed in 0.01s")
FAIL = (1, "FAILED tests/test_calc.py::test_add - assert 3 == 4\n1 failed in 0.1s")


class Outputs:
    """What the goal's verify prints next (a queue; empty: it passes)."""

    def __init__(self) -> None:
        self.queue: list[tuple[int, str]] = []

    def __call__(self, argv: Sequence[str]) -> Completed:
        if any(word.endswith("git") for word in argv):
            return Completed(tuple(argv), 1, "not a git repository")
        code, out = self.queue.pop(0) if self.queue else PASS
        return Completed(tuple(argv), code, out)


def engine(
    project: Path,
    outputs: Outputs,
    config: Config | None = None,
    caps: frozenset[Capability] = CLAUDE_CAPABILITIES,
) -> Supervisor:
    """A fresh engine on ``project``'s store: a new one is a warm engine restarted."""
    return Supervisor(
        project,
        config or Config(no_plan="silent", lang="en"),
        host="test",
        capabilities=caps,
        clock=FakeClock(),
        runner=FakeRunner(outputs),
    )


@pytest.fixture
def outputs() -> Outputs:
    return Outputs()


def settle(sup: Supervisor) -> tuple[Action, ...]:
    return sup.handle([Settled("s", "done", activity=Activity(tool_calls=1))]).actions


def kinds(actions: tuple[Action, ...]) -> list[str]:
    return [type(a).__name__ for a in actions if isinstance(a, Continue | Pause | Close)]


def said(actions: tuple[Action, ...]) -> str:
    return "\n".join(a.text for a in actions if isinstance(a, Continue))


def recorded(sup: Supervisor, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in journal.recent(sup.store.connection(), 500) if e.kind == kind]


def set_goal(sup: Supervisor) -> None:
    sup.handle([UserPrompt("s", "/gk-goal `pytest -q` passes")])


def test_a_proven_goal_gets_one_review_round_then_the_stop_is_allowed(
    tmp_path: Path, outputs: Outputs
) -> None:
    """The proof stands at once (archived, recorded); the stop becomes one round asking for a
    subagent reviewer with the goal restated; the next stop closes, the one after is left alone."""
    sup = engine(tmp_path, outputs)
    set_goal(sup)
    first = settle(sup)
    assert kinds(first) == ["Continue"]
    assert "fresh reviewer" in said(first) and "subagent" in said(first)
    assert "`pytest -q` passes" in said(first)  # the goal restated for the reviewer
    assert load_goal(tmp_path) is None  # proven and archived: the review changes no verdict
    assert len(recorded(sup, "goal_complete")) == 1
    assert recorded(sup, "review_asked") and not recorded(sup, "goal_reviewed")
    second = settle(sup)
    assert kinds(second) == ["Close"]
    assert "goal proven" in next(a.summary for a in second if isinstance(a, Close))
    assert kinds(settle(sup)) == []  # nothing left to say: not asked again
    assert len(recorded(sup, "review_asked")) == 1


def test_the_review_is_not_asked_again_after_a_warm_engine_restart(
    tmp_path: Path, outputs: Outputs
) -> None:
    """What was asked is in the store: a new engine process closes, it does not ask again."""
    sup = engine(tmp_path, outputs)
    set_goal(sup)
    assert kinds(settle(sup)) == ["Continue"]
    sup.store.close()
    restarted = engine(tmp_path, outputs)
    assert kinds(settle(restarted)) == ["Close"]
    assert kinds(settle(restarted)) == []


def test_a_host_without_subagents_asks_for_a_review_with_fresh_eyes(
    tmp_path: Path, outputs: Outputs
) -> None:
    """The wording follows the host's capability, not its name."""
    caps: frozenset[Capability] = frozenset({"continue", "advise", "block", "notify"})
    sup = engine(tmp_path, outputs, caps=caps)
    set_goal(sup)
    text = said(settle(sup))
    assert "fresh eyes" in text and "subagent (" not in text


def test_the_review_is_asked_in_chinese(tmp_path: Path, outputs: Outputs) -> None:
    sup = engine(tmp_path, outputs, Config(no_plan="silent", lang="zh"))
    set_goal(sup)
    text = said(settle(sup))
    assert "目标已证明" in text and "subagent" in text


@pytest.mark.parametrize(("cap", "after_the_pass"), [(2, "Continue"), (1, "Close")])
def test_the_review_is_asked_only_below_the_continuation_cap(
    tmp_path: Path, outputs: Outputs, cap: int, after_the_pass: str
) -> None:
    """One continuation spent on a failure: with room for one more the review is asked; at the
    cap the extra round would be the cap's pause, so the proven goal closes instead."""
    config = Config(no_plan="silent", lang="en", max_continuations=cap)
    sup = engine(tmp_path, outputs, config)
    set_goal(sup)
    outputs.queue.append(FAIL)
    assert kinds(settle(sup)) == ["Continue"]
    assert kinds(settle(sup)) == [after_the_pass]
    assert bool(recorded(sup, "review_asked")) == (after_the_pass == "Continue")


def test_the_user_can_turn_the_review_off(tmp_path: Path, outputs: Outputs) -> None:
    sup = engine(tmp_path, outputs, Config(no_plan="silent", lang="en", review="off"))
    set_goal(sup)
    assert kinds(settle(sup)) == ["Close"]


def test_the_user_speaking_first_drops_the_owed_close(tmp_path: Path, outputs: Outputs) -> None:
    """The close owed after the review round is for that round's stop only."""
    sup = engine(tmp_path, outputs)
    set_goal(sup)
    settle(sup)
    sup.handle([UserPrompt("s", "thanks, also rename the module")])
    assert kinds(settle(sup)) == []


def test_the_owed_close_is_said_while_the_agents_replacement_waits(
    tmp_path: Path, outputs: Outputs
) -> None:
    """The user's goal is proven while GOAL.md holds the agent's replacement (left there for the
    user): the review round is asked, and its stop closes the proven goal. The replacement is
    not a goal the user set meanwhile, so it does not drop the close."""
    from tests.engine.test_goal_in_force import REPLACEMENT

    sup = engine(tmp_path, outputs)
    set_goal(sup)
    (tmp_path / ".agents" / "goal" / "GOAL.md").write_text(REPLACEMENT, "utf-8")
    first = settle(sup)
    assert kinds(first) == ["Continue"] and "fresh reviewer" in said(first)
    second = settle(sup)
    assert kinds(second) == ["Close"]
    assert "goal proven" in next(a.summary for a in second if isinstance(a, Close))
    assert kinds(settle(sup)) == [] and len(recorded(sup, "review_asked")) == 1


def todo(sup: Supervisor, tool_input: dict[str, Any]) -> tuple[Action, ...]:
    return sup.handle([ToolCall("s", "todo", tool_input)]).actions


def complete_with_test(task: int) -> dict[str, Any]:
    evidence = [{"type": "cmd", "cmd": "pytest -q", "exit": 0}]
    return {
        "action": "update",
        "id": task,
        "status": "completed",
        "metadata": {"evidence": {"kind": "runnable", "evidence": evidence}},
    }


def test_a_test_gated_todo_completed_gets_one_review_round(
    tmp_path: Path, outputs: Outputs
) -> None:
    """Asked once at the stop after the gated completion, naming it (with the open task's
    ultimatum); an ungated one completed later is not; never again, across a restart too."""
    sup = engine(tmp_path, outputs, Config(no_plan="silent", lang="en", evidence_check="off"))
    todo(sup, {"action": "create", "subject": "fix add", "metadata": {"gate": {"test": True}}})
    todo(sup, {"action": "create", "subject": "tidy docs"})
    todo(sup, complete_with_test(1))
    todo(sup, {"action": "update", "id": 2, "status": "in_progress"})
    first = settle(sup)
    assert "test-gated task #1 completed" in said(first)
    assert recorded(sup, "review_asked") == [{"todos": [1]}]
    sup.store.close()  # a warm engine restarted: what was asked is in the store
    sup = engine(tmp_path, outputs, Config(no_plan="silent", lang="en", evidence_check="off"))
    todo(sup, complete_with_test(2))
    later = settle(sup)
    assert "test-gated" not in said(later)
    assert "test-gated" not in said(settle(sup))
    assert len(recorded(sup, "review_asked")) == 1


def test_an_ungated_todo_completed_gets_no_review_round(tmp_path: Path, outputs: Outputs) -> None:
    sup = engine(tmp_path, outputs, Config(no_plan="silent", lang="en", evidence_check="off"))
    todo(sup, {"action": "create", "subject": "tidy docs"})
    todo(sup, complete_with_test(1))
    assert kinds(settle(sup)) == []


def test_a_project_file_turns_the_review_off_only_once_approved(tmp_path: Path) -> None:
    """Turning it off loosens the proof: held from the agent's file, the user's env applies."""
    from goalkeeper.config import load_config

    (tmp_path / ".goalkeeper.toml").write_text('review = "off"\n', encoding="utf-8")
    config = load_config(tmp_path)
    assert config.review == "on" and "review" in config.held
    assert load_config(tmp_path, {"GOALKEEPER_REVIEW": "off"}).review == "off"
