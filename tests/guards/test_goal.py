"""The goal guard with plain values: detection, held changes, stagnation, honest exit."""

from __future__ import annotations

from msgspec.structs import replace

from goalkeeper.core.goals.goal import Criterion, Goal, GoalDoc
from goalkeeper.core.goals.promise import Promise, goal_digest, promise_of
from goalkeeper.core.values import (
    Activity,
    Advise,
    ApproveGoal,
    Ask,
    BeforeAgentStart,
    Choice,
    Close,
    Continue,
    Facts,
    Inspect,
    Notify,
    Pause,
    SetGoal,
    Settled,
    TestReplay,
    UserPrompt,
    VerifyRun,
    WriteGoal,
)
from goalkeeper.guards.goal import GoalGuard, GoalState
from goalkeeper.guards.spec import Verdict, WorkflowView
from goalkeeper.testing import context

guard = GoalGuard()
CRITERIA = (Criterion("`pytest -q` exits 0", "open"), Criterion("docs mention --json", "open"))
GOAL = Goal(
    "All tests pass",
    verify=("pytest -q",),
    criteria=CRITERIA,
    progress_log=("goal set",),
    goal_id="g-1",
)
APPROVED = promise_of(GOAL, goal_id="g-1", source="prompt", now=0.0)
"""What the user approved when they set GOAL (the tests' default)."""
SAME = object()


def ctx_for(  # type: ignore[no-untyped-def]
    goal: Goal | None, facts: Facts | None = None, promise: object = SAME, capabilities=None
):
    doc = GoalDoc(".agents/goal/GOAL.md", goal) if goal else None
    approved = APPROVED if promise is SAME else promise
    assert approved is None or isinstance(approved, Promise)
    ctx = replace(context(None), goal=doc, facts=facts, promise=approved)
    return replace(ctx, capabilities=capabilities) if capabilities is not None else ctx


def settle(
    goal: Goal,
    state: GoalState,
    facts: Facts | None,
    text: str = "done",
    promise: object = SAME,
    capabilities: frozenset[str] | None = None,
) -> Verdict[GoalState]:
    ctx = ctx_for(goal, facts, promise, capabilities)
    return guard.on_event(Settled("s", text, activity=Activity(1)), state, ctx)


def passing() -> Facts:
    return Facts(verify=(VerifyRun("pytest -q", 0, "2 passed"),), tamper=TestReplay())


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
    ask = Inspect(verify=("pytest -q",), verify_timeout_s=120.0, tamper=True, hidden=True)
    assert verdict.actions == (ask,)


def failing() -> Facts:
    return Facts(verify=(VerifyRun("pytest -q", 1, "FAILED tests/t.py::test_add - x"),))


def test_a_changed_criterion_is_held_and_the_user_told_once() -> None:
    """Rewording a criterion changes the promise: none of the change counts, the goal in force
    is verified (here it fails), the user reads the diff once per change and the agent is sent
    back to the goal in force (a logged reason changes nothing); stopping again on the same
    change pauses, without the diff."""
    changed = replace(
        GOAL,
        criteria=(Criterion("`pytest -q` mostly exits 0", "open"),),
        progress_log=("goal set", "criteria changed because the docs item was out of scope"),
    )
    ask = settle(changed, GoalState(goal_id="g-1"), None)
    assert ask.actions == (
        Inspect(verify=("pytest -q",), verify_timeout_s=120.0, tamper=True, hidden=True),
    )
    first = settle(changed, GoalState(goal_id="g-1"), failing())
    assert not any(isinstance(a, Inspect | WriteGoal | Close) for a in first.actions)
    told = next(a for a in first.actions if isinstance(a, Notify))
    assert "- criterion: docs mention --json" in told.text
    assert "+ criterion: `pytest -q` mostly exits 0" in told.text
    assert "goalkeeper goal approve" in told.text
    back = next(a for a in first.actions if isinstance(a, Continue))
    assert "waits for the user" in back.text and "criterion: docs mention --json" in back.text
    second = settle(changed, first.state or GoalState(), failing())
    pause = next(a for a in second.actions if isinstance(a, Pause))
    assert "docs mention" not in pause.reason and not any(
        isinstance(a, Continue) for a in second.actions
    )
    assert settle(changed, second.state or GoalState(), failing()).actions == ()


def test_a_changed_verify_command_is_never_run() -> None:
    """`verify: [touch pwned]` with any justification: no Inspect; the user is shown it."""
    changed = replace(GOAL, verify=("touch pwned",), progress_log=("verify fixed because CI",))
    verdict = settle(changed, GoalState(goal_id="g-1"), passing())
    assert not any(isinstance(a, Inspect | WriteGoal) for a in verdict.actions)
    assert any(isinstance(a, Notify) and "+ verify: touch pwned" in a.text for a in verdict.actions)


def test_a_goal_nobody_approved_is_not_a_goal() -> None:
    """GOAL.md written when no goal was set: a notice, no verification, no anchors."""
    verdict = settle(GOAL, GoalState(), None, promise=None)
    assert not any(isinstance(a, Inspect | Pause) for a in verdict.actions)
    assert any(isinstance(a, Notify) and "nobody approved" in a.text for a in verdict.actions)
    anchors = guard.on_event(BeforeAgentStart("s"), GoalState(), ctx_for(GOAL, promise=None))
    assert all("Objective" not in a.text for a in anchors.actions if isinstance(a, Advise))


def test_limits_and_counters_in_goal_md_are_never_looser_than_recorded() -> None:
    """`rounds: 1000` and `attempts: 0` in GOAL.md: the approved rounds and recorded attempts
    decide; a pause goalkeeper recorded stands even if GOAL.md says active."""
    recorded = replace(APPROVED, attempts=3)
    loosened = replace(GOAL, rounds=1000, attempts=0)
    failing = Facts(verify=(VerifyRun("pytest -q", 1, "FAILED tests/t.py::test_new - x"),))
    verdict = settle(loosened, GoalState(goal_id="g-1"), failing, promise=recorded)
    assert any(isinstance(a, Pause) for a in verdict.actions)  # round 4 of 3: the limit
    paused = replace(APPROVED, status="blocked", blocked_reason="round limit")
    assert settle(GOAL, GoalState(goal_id="g-1"), None, promise=paused).actions == ()


def test_where_the_host_can_ask_the_user_chooses_and_keeping_is_the_default() -> None:
    """Pi: the held change comes with a question; "approve" asks the engine to record the
    shown promise, "keep" tells the agent what to restore."""
    changed = replace(GOAL, verify=("pytest -q -k add",))
    caps = frozenset({"continue", "notify", "ask"})
    first = settle(changed, GoalState(goal_id="g-1"), failing(), capabilities=caps)
    ask = next(a for a in first.actions if isinstance(a, Ask))
    assert ask.default == "keep" and {k for k, _ in ask.options} == {"approve", "keep"}
    state = first.state or GoalState()
    ctx = ctx_for(changed)
    approve = guard.on_event(Choice("s", ask.key, "approve"), state, ctx)
    assert ApproveGoal(goal_digest(changed)) in approve.actions
    keep = guard.on_event(Choice("s", ask.key, "keep"), state, ctx)
    assert any(isinstance(a, Continue) and "verify: pytest -q" in a.text for a in keep.actions)


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
    goal = replace(GOAL, verify=())
    approved = promise_of(goal, goal_id="g-1", source="prompt", now=0.0)
    first = settle(goal, GoalState(goal_id="g-1"), None, promise=approved)
    assert {type(a) for a in first.actions} == {Notify, Advise}
    assert settle(goal, first.state or GoalState(), None, promise=approved).actions == ()


def test_a_blocked_or_missing_goal_is_left_alone() -> None:
    """Only an active goal is verified; one goalkeeper paused waits for the user."""
    paused = replace(APPROVED, status="blocked", blocked_reason="round limit")
    blocked = replace(GOAL, status="blocked")
    assert settle(blocked, GoalState(), None, promise=paused).actions == ()
    assert guard.on_event(Settled("s", "x"), GoalState(), ctx_for(None, promise=None)).actions == ()


def test_a_status_the_agent_writes_into_goal_md_does_not_end_the_goal() -> None:
    """`status: complete` or `blocked` written over the open goal: the stop still verifies."""
    for status in ("complete", "blocked"):
        actions = settle(replace(GOAL, status=status), GoalState(), None).actions
        assert [type(a).__name__ for a in actions] == ["Inspect"], status


def test_a_removed_goal_file_is_reported_while_the_approved_goal_is_open() -> None:
    """Deleting GOAL.md does not prove the goal: the user hears it is gone and not proven."""
    verdict = guard.on_event(Settled("s", "x"), GoalState(), ctx_for(None))
    assert any(isinstance(a, Notify) and "is gone" in a.text for a in verdict.actions)


def _written(goal: Goal, verdict: Verdict[GoalState]) -> Goal:
    """The goal as GOAL.md reads after the verdict's writes (its Progress Log lines, the
    criteria goalkeeper ticked)."""
    for action in verdict.actions:
        if isinstance(action, WriteGoal):
            ticked = tuple(
                replace(c, state="done") if c.text in action.update.tick else c
                for c in goal.criteria
            )
            log = (*goal.progress_log, *action.update.log)
            goal = replace(goal, progress_log=log, criteria=ticked)
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


def test_goalkeeper_ticks_the_criterion_its_passing_verify_proves() -> None:
    """ "`pytest -q` exits 0" is goalkeeper's own criterion: a passing verify ticks it (no
    continuation asks the agent to); the other open criterion is the only one named."""
    verdict = settle(GOAL, GoalState(goal_id="g-1"), passing())
    (write,) = [a for a in verdict.actions if isinstance(a, WriteGoal)]
    assert write.update.tick == ("`pytest -q` exits 0",)
    (cont,) = [a for a in verdict.actions if isinstance(a, Continue)]
    assert "- [ ] docs mention --json" in cont.text and "exits 0" not in cont.text
    only_own = replace(GOAL, criteria=CRITERIA[:1])
    closed = settle(only_own, GoalState(goal_id="g-1"), passing(), promise=promise_of(
        only_own, goal_id="g-1", source="prompt", now=0.0
    ))  # fmt: skip
    (done,) = [a for a in closed.actions if isinstance(a, WriteGoal)]
    assert done.update.fields["status"] == "complete", closed.actions  # then the review round


def test_goalkeepers_own_pass_line_is_not_progress_in_chinese_either() -> None:
    """'验证通过' contains 通过 (a progress word); it must not hide a stalled goal."""
    state, goal = GoalState(goal_id="g-1"), GOAL
    ctx = replace(context(None, lang="zh"), facts=passing(), promise=APPROVED)
    advised = []
    for i in range(6):
        ctx = replace(ctx, goal=GoalDoc(".agents/goal/GOAL.md", goal))
        verdict = guard.on_event(Settled("s", "好了", activity=Activity(1)), state, ctx)
        advised += [i for a in verdict.actions if isinstance(a, Advise)]
        state, goal = verdict.state or state, _written(goal, verdict)
    assert advised == [2, 3]


def test_the_agent_can_ask_the_user_to_approve_through_goal_approval() -> None:
    """`goal_approval`: a form for the user where the host can show one (its answer comes back
    as the host's `_outcome`), else the way to `goalkeeper goal approve`; nothing when nothing
    is held."""
    from goalkeeper.core.values import Reply, ToolCall

    changed = replace(GOAL, verify=("pytest -q -x",))
    caps = frozenset({"advise", "block", "ask"})
    call = ToolCall("s", "goal_approval", {})
    asked = guard.on_event(call, GoalState(), ctx_for(changed, capabilities=caps))
    (reply,) = [a for a in asked.actions if isinstance(a, Reply)]
    assert "+ verify: pytest -q -x" in reply.data["dialog"]["question"]  # type: ignore[index]
    state = asked.state or GoalState()
    assert state.asking == goal_digest(changed)
    answer = {"source": "choice_selected", "answer": "Accept the change"}
    approved = guard.on_event(
        ToolCall("s", "goal_approval", {"_outcome": answer}), state, ctx_for(changed)
    )
    assert ApproveGoal(goal_digest(changed)) in approved.actions
    no_ui = guard.on_event(call, GoalState(), ctx_for(changed))
    assert "goalkeeper goal approve" in str(no_ui.actions[0].text)  # type: ignore[union-attr]
    nothing = guard.on_event(call, GoalState(), ctx_for(GOAL, capabilities=caps))
    assert "nothing to approve" in str(nothing.actions[0].text)  # type: ignore[union-attr]


def test_recovery_twice_then_the_user_fits_in_the_default_round_limit() -> None:
    """Seed 001 §6 with the default 3 rounds: the goal's setting is the first stagnant
    iteration, so recovery prompts come with the 2nd and 3rd failures and the user is told at
    the 4th stop, where the round limit pauses."""
    state = GoalState()  # a fresh session: the counters start from the goal as it is
    seen: list[tuple[str, int]] = []
    for i in range(4):
        failing = Facts(verify=(VerifyRun("pytest -q", 1, f"FAILED tests/t.py::test_{i} - x"),))
        verdict = settle(replace(GOAL, attempts=i), state, failing)
        state = verdict.state or state
        for action in verdict.actions:
            if isinstance(action, Advise) and "No measurable progress" in action.text:
                seen.append(("recovery", i))
            if isinstance(action, Pause):
                seen.append(("pause", i))
            if isinstance(action, Notify) and "after two recovery prompts" in action.text:
                seen.append(("user", i))
    assert seen == [("recovery", 1), ("recovery", 2), ("pause", 3), ("user", 3)]


COARSE = replace(GOAL, route="idea-to-ship")


def settle_coarse(
    state: GoalState, view: WorkflowView | None, facts: Facts | None = None
) -> Verdict[GoalState]:
    ctx = replace(ctx_for(COARSE, facts), workflow=view)
    return guard.on_event(Settled("s", "done", activity=Activity(1)), state, ctx)


SHAPING_FAIL = Facts(verify=(VerifyRun("pytest -q", 1, "FAILED tests/t.py::test_a - x"),))


def test_a_coarse_goal_is_verified_at_every_stop_of_its_route() -> None:
    """Issue 23 (seed 001 §7: delegation, not abandonment): while the route shapes the work the
    goal's verify still runs at every stop; it was skipped, and the stop allowed in silence."""
    state = GoalState(goal_id="g-1", route_waited=True)
    for phase in ("shaping", "research", "to-spec", "to-tickets", "survey", "design-review"):
        verdict = settle_coarse(state, WorkflowView(phase, "g-1"))
        assert any(isinstance(a, Inspect) for a in verdict.actions), phase


def test_a_failing_verify_while_shaping_sends_back_once_per_phase_and_spends_no_round() -> None:
    """Seed001 audit D6 kept: a failure while the route shapes the work spends no round and
    records no failure; the agent gets the evidence once per phase, and a second stop in the
    same phase (an interview waiting on the user) stands, with the user told why."""
    state = GoalState(goal_id="g-1", route_waited=True)
    first = settle_coarse(state, WorkflowView("shaping", "g-1"), SHAPING_FAIL)
    (back,) = [a for a in first.actions if isinstance(a, Continue)]
    assert "FAILED tests/t.py::test_a" in back.text and "no repair round" in back.text
    assert not any(isinstance(a, WriteGoal | Pause) for a in first.actions)
    state = first.state or state
    again = settle_coarse(state, WorkflowView("shaping", "g-1"), SHAPING_FAIL)
    assert not any(isinstance(a, Continue | WriteGoal | Pause) for a in again.actions)
    (told,) = [a for a in again.actions if isinstance(a, Notify)]
    assert "shaping" in told.text and "`pytest -q` still fails" in told.text
    next_phase = settle_coarse(state, WorkflowView("research", "g-1"), SHAPING_FAIL)
    assert any(isinstance(a, Continue) for a in next_phase.actions)
    implementing = settle_coarse(state, WorkflowView("implement", "g-1"), SHAPING_FAIL)
    assert any(isinstance(a, WriteGoal) for a in implementing.actions)  # a round, as ever


def test_the_stop_that_starts_the_route_verifies_without_spending_a_round() -> None:
    """The route starts at the stop after the prompt that set the goal: that stop runs the
    verify too, but spends no round before the route had its chance. A route that never starts
    (not in the catalog) does not hold the rounds back."""
    first = settle_coarse(GoalState(goal_id="g-1"), None, SHAPING_FAIL)
    assert first.state is not None and first.state.route_waited
    assert any(isinstance(a, Continue) for a in first.actions)
    assert not any(isinstance(a, WriteGoal) for a in first.actions)
    second = settle_coarse(first.state, None, SHAPING_FAIL)
    assert any(isinstance(a, WriteGoal) for a in second.actions)


def test_the_shaping_phases_are_the_routes_phases_before_implement() -> None:
    """The phases in which a failing verify spends no round are those of the built-in coarse
    routes reachable from their entry before the work (`implement`, or `code-review` straight
    from an architecture survey): a catalog change that renames or reorders them breaks this
    test."""
    from pathlib import Path

    from goalkeeper.core.goals.goal import COARSE_ROUTE
    from goalkeeper.core.goals.size import ARCHITECTURE_ROUTE
    from goalkeeper.guards.goal_repair import SHAPING_PHASES
    from goalkeeper.store.catalog_files import load_catalog

    catalog = load_catalog(Path("/nonexistent"), None).catalog
    work_phases = ("implement", "code-review")
    before: set[str] = set()
    for route in (COARSE_ROUTE, ARCHITECTURE_ROUTE):
        entry = catalog.entry(route)
        assert entry is not None
        todo, seen = [entry.id], set()
        while todo:
            procedure = todo.pop()
            placement = catalog.placement(route, procedure)
            if procedure in seen or placement is None or placement.phase in work_phases:
                continue
            seen.add(procedure)
            before.add(placement.phase)
            todo.extend(catalog.allowed(route, procedure))
    assert before == SHAPING_PHASES


def test_needs_upgrade_moves_the_goal_onto_the_coarse_route() -> None:
    """`status: needs-upgrade` (seed 001 risks: the skill's signal) is read at the next stop:
    GOAL.md gets the route and is active again, the agent is told, nothing is verified."""
    verdict = settle(replace(GOAL, status="needs-upgrade"), GoalState(goal_id="g-1"), None)
    write = next(a for a in verdict.actions if isinstance(a, WriteGoal))
    assert write.update.fields == {"status": "active", "route": "idea-to-ship"}
    assert any(isinstance(a, Continue) and "idea-to-ship" in a.text for a in verdict.actions)
    assert not any(isinstance(a, Inspect | Close) for a in verdict.actions)


PI = frozenset({"continue", "notify", "ask", "advise"})


def test_a_detected_goal_is_confirmed_with_a_timed_default_where_the_host_can_ask() -> None:
    """Seed 001 decision 4: a goal read from a prompt is put to the user for 10 s, keeping it
    by default; an explicit /gk-goal says what it means, and a host that cannot ask is not
    asked."""
    prompt = UserPrompt("s", "my goal is that `pytest -q` passes")
    asked = guard.on_event(prompt, GoalState(), ctx_for(None, capabilities=PI))
    ask = next(a for a in asked.actions if isinstance(a, Ask))
    assert ask.key == "goal.confirm" and ask.default == "keep" and ask.timeout_s == 10.0
    explicit = UserPrompt("s", "/gk-goal `pytest -q` passes")
    assert not any(
        isinstance(a, Ask)
        for a in guard.on_event(explicit, GoalState(), ctx_for(None, capabilities=PI)).actions
    )
    assert not any(
        isinstance(a, Ask) for a in guard.on_event(prompt, GoalState(), ctx_for(None)).actions
    )
    dropped = guard.on_event(Choice("s", "goal.confirm", "drop"), GoalState(), ctx_for(GOAL))
    write = next(a for a in dropped.actions if isinstance(a, WriteGoal))
    assert write.update.archive
    kept = guard.on_event(Choice("s", "goal.confirm", "keep"), GoalState(), ctx_for(GOAL))
    assert not any(isinstance(a, WriteGoal) for a in kept.actions)


def test_a_stale_goal_at_session_start_is_asked_about_once() -> None:
    """An active goal last updated two days ago, met at a new session: "go on?" with going on
    as the 10 s default, once per session; not after a compaction, not for a fresh goal."""
    from goalkeeper.core.values import SessionStart

    old = replace(GOAL, updated="2023-11-12T22:13Z")  # two days before the test clock
    ctx = ctx_for(old, capabilities=PI)
    first = guard.on_event(SessionStart("s", "startup"), GoalState(), ctx)
    ask = next(a for a in first.actions if isinstance(a, Ask))
    assert ask.key == "goal.stale" and ask.default == "continue" and ask.timeout_s == 10.0
    assert any(isinstance(a, Advise) for a in first.actions)  # the anchors still come
    again = guard.on_event(SessionStart("s", "resume"), first.state or GoalState(), ctx)
    assert not any(isinstance(a, Ask) for a in again.actions)
    compacted = guard.on_event(SessionStart("s", "compact"), GoalState(), ctx)
    assert not any(isinstance(a, Ask) for a in compacted.actions)
    fresh = replace(GOAL, updated="2023-11-14T21:00Z")
    assert not any(
        isinstance(a, Ask)
        for a in guard.on_event(
            SessionStart("s", "startup"), GoalState(), ctx_for(fresh, capabilities=PI)
        ).actions
    )
    paused = guard.on_event(Choice("s", "goal.stale", "pause"), GoalState(), ctx)
    write = next(a for a in paused.actions if isinstance(a, WriteGoal))
    assert write.update.fields["status"] == "blocked"


def test_the_close_owed_after_a_review_round_is_not_said_over_another_goal() -> None:
    """A goal set meanwhile (``goalkeeper goal set`` in the user's terminal) is verified at the
    stop; the proven goal's close is dropped, not said over it."""
    owed = GoalState(goal_id="g-0", review_goal="g-0", review_close="goal proven: old")
    verdict = settle(GOAL, owed, None)
    assert not any(isinstance(a, Close) for a in verdict.actions), verdict.actions
    assert any(isinstance(a, Inspect) for a in verdict.actions), verdict.actions
    closed = guard.on_event(Settled("s", "ok", activity=Activity(1)), owed, ctx_for(None))
    assert [a.summary for a in closed.actions if isinstance(a, Close)] == ["goal proven: old"]


def test_a_criterion_dropped_from_goal_md_still_counts_while_held() -> None:
    """The verify passes, but the goal in force still has the criterion the agent dropped: not
    proven; the agent is sent back and the user reads the change."""
    dropped = replace(GOAL, criteria=CRITERIA[:1])
    verdict = settle(dropped, GoalState(goal_id="g-1"), passing())
    assert not any(isinstance(a, Close | WriteGoal) for a in verdict.actions)
    assert any(isinstance(a, Continue) and "waits for the user" in a.text for a in verdict.actions)


def test_the_goal_in_force_is_proven_by_its_own_verify_while_a_change_is_held() -> None:
    """verify: `true` in GOAL.md, every approved criterion met: the approved `pytest -q`
    passing proves the goal and the user hears the edit was not applied; a pass of the edited
    `true` alone proves nothing."""
    done = tuple(replace(c, state="done") for c in CRITERIA)
    weakened = replace(GOAL, verify=("true",), criteria=done)
    ask = settle(weakened, GoalState(goal_id="g-1"), None)
    assert ask.actions == (
        Inspect(verify=("pytest -q",), verify_timeout_s=120.0, tamper=True, hidden=True),
    )
    proven = settle(weakened, GoalState(goal_id="g-1"), passing())
    completed = [a for a in proven.actions if isinstance(a, WriteGoal)]
    assert completed and completed[0].update.fields["status"] == "complete", proven.actions
    assert any(isinstance(a, Notify) and "not applied" in a.text for a in proven.actions)
    only_true = Facts(verify=(VerifyRun("true", 0, "2 passed"),), tamper=TestReplay())
    cheated = settle(weakened, GoalState(goal_id="g-1"), only_true)
    assert not any(isinstance(a, Close) for a in cheated.actions)


def test_a_criterion_only_the_user_settles_holds_the_goal_in_force_too() -> None:
    """Issue 23's unchecked condition is part of the goal in force: ticked in a held GOAL.md
    with the approved verify passing, it still keeps the goal from being proven."""
    from goalkeeper.core.messages import render

    unchecked = render("en", "goal.criterion.unchecked", words="coverage is at least 80%")
    goal = replace(GOAL, criteria=(*CRITERIA, Criterion(unchecked, "open")))
    approved = promise_of(goal, goal_id="g-1", source="prompt", now=0.0)
    done = tuple(replace(c, state="done") for c in goal.criteria)
    weakened = replace(goal, verify=("true",), criteria=done)
    verdict = settle(weakened, GoalState(goal_id="g-1"), passing(), promise=approved)
    assert not any(isinstance(a, Close) for a in verdict.actions)


def test_a_stop_whose_verify_could_not_run_tells_the_user() -> None:
    """The engine could not run the verify (nothing ran): never a pass and no round, and the
    stop no longer stands in silence: the user is told which command did not run."""
    verdict = settle(GOAL, GoalState(goal_id="g-1"), Facts())
    assert not any(isinstance(a, Continue | Close | WriteGoal) for a in verdict.actions)
    (note,) = [a for a in verdict.actions if isinstance(a, Notify)]
    assert "`pytest -q` did not run" in note.text
