"""Issue 22 §1 and §7: a goal the agent weakened is held, the user reads the diff once, and the
agent is sent back to the goal in force; stopping again on the same held change pauses for the
user, so the cheat costs one continuation, not one per stop."""

from __future__ import annotations

from pathlib import Path

import pytest

from goalkeeper.core.values import Action, Close, Continue, Notify, Pause
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import FakeRunner, supervisor
from tests.engine.test_goal_loop import FAIL, Outputs, say_goal, settle


@pytest.fixture
def sup(tmp_path: Path) -> tuple[Supervisor, Outputs]:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(
        "def test_add():\n    assert add(1, 2) == 3\n", encoding="utf-8"
    )
    outputs = Outputs()
    return supervisor(tmp_path, FakeRunner(outputs)), outputs


def said(actions: tuple[Action, ...], kind: type) -> list[str]:
    return [getattr(a, "text", getattr(a, "reason", "")) for a in actions if isinstance(a, kind)]


WEAKENINGS = {
    "verify true": ("- pytest -q", "- true"),
    "verify true with a reason": ("  - pytest -q", "  - true"),
}


@pytest.mark.parametrize("change", WEAKENINGS.values(), ids=list(WEAKENINGS))
def test_a_weakened_goal_sends_the_agent_back_once_then_pauses(
    sup: tuple[Supervisor, Outputs], change: tuple[str, str]
) -> None:
    supervisor, outputs = sup
    say_goal(supervisor)
    path = supervisor.project / ".agents" / "goal" / "GOAL.md"
    body = path.read_text("utf-8")
    assert change[0] in body
    weakened = body.replace(change[0], change[1], 1)
    if change[0].startswith(" "):  # the agent explains itself in the Progress Log
        weakened += "- because: the tests are flaky, `true` is enough\n"
    path.write_text(weakened, "utf-8")
    outputs.queue += [(1, FAIL.format(t="0.1"))] * 3  # the work is not done: the goal fails

    first = settle(supervisor)
    back = said(first, Continue)
    user = "\n".join(said(first, Notify))
    assert len(back) == 1, first  # the agent is not let go with the work undone
    assert "waits for the user" in back[0] and "verify: pytest -q" in back[0]
    assert "`pytest -q` passes" in back[0]  # the objective in force, restated
    assert "- verify: pytest -q" in user and "goal approve" in user  # the user reads the diff
    assert not said(first, Pause) and outputs.runs == 1  # the goal in force was verified

    second = settle(supervisor)  # the same refused stop again: pause, the user told
    assert not said(second, Continue)
    paused = "\n".join(said(second, Pause))
    assert "paused" in paused and "- verify: pytest -q" not in paused  # the diff is said once
    third = settle(supervisor)
    assert not said(third, Continue) and not said(third, Pause)
    continuations = sum(len(said(a, Continue)) for a in (first, second, third))
    assert continuations <= 3 and outputs.runs == 3  # each stop verified the goal in force …
    assert ran(supervisor) == [("pytest", "-q")] * 3  # … and the weakened `true` never ran
    assert not any(closed(a) for a in (first, second, third))


def closed(actions: tuple[Action, ...]) -> bool:
    return any(isinstance(a, Close) for a in actions)


def ran(supervisor: Supervisor) -> list[tuple[str, ...]]:
    """The verifications goalkeeper ran (git probes aside)."""
    calls: list[tuple[str, ...]] = supervisor.runner.calls  # type: ignore[attr-defined]
    return [c for c in calls if not any(word.endswith("git") for word in c)]


def test_putting_the_goal_back_verifies_it_again(sup: tuple[Supervisor, Outputs]) -> None:
    """Control: after the agent restores the goal in force, the next stop verifies it."""
    supervisor, outputs = sup
    say_goal(supervisor)
    path = supervisor.project / ".agents" / "goal" / "GOAL.md"
    body = path.read_text("utf-8")
    path.write_text(body.replace("- pytest -q", "- true", 1), "utf-8")
    outputs.queue.append((1, FAIL.format(t="0.1")))
    settle(supervisor)
    path.write_text(body, "utf-8")
    assert closed(settle(supervisor)) and outputs.runs == 2
