"""The goal guard with plain values: detection, criteria changes, stagnation, honest exit."""

from __future__ import annotations

from dataclasses import replace

from goalkeeper.core.goal import Criterion, Goal, GoalDoc, criteria_hash
from goalkeeper.core.values import (
    Activity,
    Advise,
    Continue,
    Facts,
    Inspect,
    Notify,
    SetGoal,
    Settled,
    UserPrompt,
    VerifyRun,
    WriteGoal,
)
from goalkeeper.guards.goal import GoalGuard, GoalState
from goalkeeper.guards.spec import Verdict
from goalkeeper.testing import context

guard = GoalGuard()
CRITERIA = (Criterion("`pytest -q` exits 0", "open"), Criterion("docs mention --json", "open"))
GOAL = Goal(
    "All tests pass",
    verify=("pytest -q",),
    criteria=CRITERIA,
    progress_log=("goal set",),
    goal_id="g-1",
    criteria_hash=criteria_hash(CRITERIA, ("pytest -q",)),
    log_mark=1,
)


def ctx_for(goal: Goal | None, facts: Facts | None = None):  # type: ignore[no-untyped-def]
    doc = GoalDoc(".agents/goal/GOAL.md", goal) if goal else None
    return replace(context(None), goal=doc, facts=facts)


def settle(
    goal: Goal, state: GoalState, facts: Facts | None, text: str = "done"
) -> Verdict[GoalState]:
    return guard.on_event(Settled("s", text, activity=Activity(1)), state, ctx_for(goal, facts))


def passing() -> Facts:
    return Facts(verify=(VerifyRun("pytest -q", 0, "2 passed"),), tamper=())


def test_a_prompt_stating_a_goal_asks_to_record_it() -> None:
    """Detection yields SetGoal with the command from the text; none when a goal is active."""
    verdict = guard.on_event(
        UserPrompt("s", "my goal is that `pytest -q` passes"), GoalState(), ctx_for(None)
    )
    action = verdict.actions[0]
    assert isinstance(action, SetGoal) and action.verify == ("pytest -q",)
    again = guard.on_event(
        UserPrompt("s", "my goal is that `pytest -q` passes"), GoalState(), ctx_for(GOAL)
    )
    assert again.actions == ()


def test_verification_is_asked_for_before_deciding() -> None:
    """Without facts the guard asks the engine to run the verify commands and compare tests."""
    verdict = settle(GOAL, GoalState(), None)
    assert verdict.actions == (Inspect(verify=("pytest -q",), verify_timeout_s=120.0, tamper=True),)


def test_a_changed_criterion_without_a_reason_is_flagged_once() -> None:
    """Rewording a criterion with no logged reason: the agent and the user are told, once."""
    changed = replace(GOAL, criteria=(Criterion("`pytest -q` mostly exits 0", "open"),))
    first = settle(changed, GoalState(goal_id="g-1"), passing())
    assert any(
        isinstance(a, Continue) and "changed without a reason" in a.text for a in first.actions
    )
    assert any(isinstance(a, Notify) for a in first.actions)
    second = settle(changed, first.state or GoalState(), passing())
    assert second.actions == ()


def test_a_changed_criterion_with_a_reason_is_accepted_and_recorded() -> None:
    """A Progress Log reason since the last agreement: the new hash is stored, work goes on."""
    changed = replace(
        GOAL,
        criteria=(Criterion("`pytest -q` exits 0", "open"),),
        progress_log=("goal set", "criteria changed because the docs item was out of scope"),
    )
    verdict = settle(changed, GoalState(goal_id="g-1"), passing())
    writes = [a for a in verdict.actions if isinstance(a, WriteGoal)]
    assert writes[0].update.fields["criteria_hash"] == criteria_hash(
        changed.criteria, changed.verify
    )


def test_stagnation_needs_both_signals_then_two_prompts_then_the_user() -> None:
    """Same passing count and no progress words for 3 iterations → recovery prompt; twice;
    then one notice to the user."""
    state = GoalState(goal_id="g-1")
    seen = []
    for i in range(12):
        failing = Facts(verify=(VerifyRun("pytest -q", 1, f"FAILED tests/t.py::test_{i} - x"),))
        verdict = settle(GOAL, state, failing)
        state = verdict.state or state
        for action in verdict.actions:
            if isinstance(action, Advise) and "No measurable progress" in action.text:
                seen.append(("recovery", i))
            if isinstance(action, Notify) and "no progress for" in action.text:
                seen.append(("user", i))
    assert [k for k, _ in seen] == ["recovery", "recovery", "user"]


def test_progress_words_in_the_log_reset_stagnation() -> None:
    """A logged fix counts as progress even when the passing count stays the same."""
    state = GoalState(goal_id="g-1")
    goal = GOAL
    for i in range(6):
        goal = replace(goal, progress_log=(*goal.progress_log, f"fixed bug {i}"))
        verdict = settle(
            goal, state, Facts(verify=(VerifyRun("pytest -q", 1, f"FAILED t::test_{i}"),))
        )
        state = verdict.state or state
        assert not any(isinstance(a, Advise) and "No measurable" in a.text for a in verdict.actions)


def test_no_verify_command_asks_once() -> None:
    """A goal without a verify command: the user and the agent are asked, once."""
    goal = replace(GOAL, verify=(), criteria_hash=criteria_hash(GOAL.criteria, ()))
    first = settle(goal, GoalState(goal_id="g-1"), None)
    assert {type(a) for a in first.actions} == {Notify, Advise}
    assert settle(goal, first.state or GoalState(), None).actions == ()


def test_a_blocked_or_missing_goal_is_left_alone() -> None:
    """Only an active goal is verified; a paused one waits for the user."""
    assert settle(replace(GOAL, status="blocked"), GoalState(), None).actions == ()
    assert guard.on_event(Settled("s", "x"), GoalState(), ctx_for(None)).actions == ()


def _written(goal: Goal, verdict: Verdict[GoalState]) -> Goal:
    """The goal as GOAL.md reads after the verdict's writes (its Progress Log lines)."""
    for action in verdict.actions:
        if isinstance(action, WriteGoal):
            goal = replace(goal, progress_log=(*goal.progress_log, *action.update.log))
    return goal


def test_a_pass_with_open_criteria_is_logged_once_until_the_log_changes() -> None:
    """GOAL.md gets one 'verified' line per change, not one per Stop; a new line from the agent
    makes the next pass worth logging again."""
    state, goal, writes = GoalState(goal_id="g-1"), GOAL, []
    for i in range(5):
        if i == 3:
            goal = replace(goal, progress_log=(*goal.progress_log, "looked at the docs"))
        verdict = settle(goal, state, passing())
        writes.append(any(isinstance(a, WriteGoal) for a in verdict.actions))
        assert any(isinstance(a, Continue) for a in verdict.actions)
        state, goal = verdict.state or state, _written(goal, verdict)
    assert writes == [True, False, False, True, False]
    assert sum("verified" in line for line in goal.progress_log) == 2


def test_goalkeepers_own_pass_line_is_not_progress_in_chinese_either() -> None:
    """'验证通过' contains 通过 (a progress word); it must not hide a stalled goal."""
    state, goal = GoalState(goal_id="g-1"), GOAL
    ctx = replace(context(None, lang="zh"), facts=passing())
    advised = []
    for i in range(6):
        ctx = replace(ctx, goal=GoalDoc(".agents/goal/GOAL.md", goal))
        verdict = guard.on_event(Settled("s", "好了", activity=Activity(1)), state, ctx)
        advised += [i for a in verdict.actions if isinstance(a, Advise)]
        state, goal = verdict.state or state, _written(goal, verdict)
    assert advised == [3]
