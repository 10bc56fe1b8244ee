"""The cadence guard (seed 000 §3, §5, §6), driven with plain events and values."""

from __future__ import annotations

from msgspec.structs import replace

from goalkeeper.config import Config
from goalkeeper.core.values import (
    Activity,
    Advise,
    BeforeAgentStart,
    Close,
    Compact,
    Continue,
    Facts,
    Inspect,
    Notify,
    Pause,
    Record,
    SessionStart,
    Settled,
    ToolCall,
    ToolRun,
    UserPrompt,
)
from goalkeeper.guards.cadence import CadenceGuard, CadenceState
from goalkeeper.guards.cadence_rules import REFUSAL_BOUND
from goalkeeper.guards.spec import Context, Verdict
from goalkeeper.testing import ALL_CAPABILITIES, context, plan_doc

PLAN = """# Export
## SWOT
S: tests exist
W: no JSON yet
O: click has it
T: scripts parse text
## Objective
Scripts read the report as JSON. More later.
## Key Results
- [ ] KR1: commands with --json 0 → 3, current 1
## User Story Map
- Slice 1
  - [ ] user runs report --json
"""
DONE_PLAN = PLAN.replace("- [ ]", "- [x]").replace("current 1", "current 3")
guard = CadenceGuard()


def settle(
    state: CadenceState, text: str, plan: str | None = PLAN, tools: int | None = 1, **kw: object
) -> Verdict[CadenceState]:
    """One settle. A close the gates let through asks the engine about the session's kept
    tests (``Inspect``); it is answered as the engine answers when none were kept (these
    sessions had no user prompt): empty facts, and the guard decides again."""
    ctx: Context = kw.pop("ctx", None) or context(plan)  # type: ignore[assignment]
    activity = kw.pop("activity", None) or Activity(tool_calls=tools)
    event = Settled("s", text, activity=activity, **kw)  # type: ignore[arg-type]
    verdict = guard.on_event(event, state, ctx)
    if ctx.facts is None and any(isinstance(a, Inspect) for a in verdict.actions):
        return guard.on_event(event, state, replace(ctx, facts=Facts()))
    return verdict


def kinds(verdict: Verdict[CadenceState]) -> list[str]:
    return [type(a).__name__ for a in verdict.actions if not isinstance(a, Record)]


def text_of(verdict: Verdict[CadenceState]) -> str:
    return "\n".join(a.text for a in verdict.actions if isinstance(a, Continue))


def pause_of(verdict: Verdict[CadenceState]) -> str:
    return "\n".join(a.reason for a in verdict.actions if isinstance(a, Pause))


def truth_of(verdict: Verdict[CadenceState]) -> str:
    """The last line of the stop's reason: what the user is told is not done."""
    return pause_of(verdict).splitlines()[-1]


def shell(command: str, outcome: str = "passed", tail: str | None = None) -> Activity:
    """A round that ran one shell command, as a host that reports its runs gives it (a passing
    one printed pytest's summary, unless ``tail`` says otherwise)."""
    if tail is None:
        tail = "1 passed in 0.01s" if outcome == "passed" else ""
    run = ToolRun("shell", "Bash", command, outcome=outcome, tail=tail)  # type: ignore[arg-type]
    return Activity(tool_calls=1, runs=(run,))


def edit(path: str) -> Activity:
    return Activity(tool_calls=1, runs=(ToolRun("edit", "Edit", path=path),))


def run(
    texts: list[str], plan: str | None = PLAN, tools: int = 1
) -> tuple[CadenceState, list[Verdict[CadenceState]]]:
    state, verdicts = CadenceState(), []
    for text in texts:
        verdict = settle(state, text, plan, tools)
        verdicts.append(verdict)
        state = verdict.state or state
    return state, verdicts


def test_do_then_check_then_complete_closes() -> None:
    """do → check → complete with every KR and leaf done closes the task."""
    _, verdicts = run(["[PDCA] do", "[PDCA] check", "[PDCA] complete"], plan=DONE_PLAN)
    assert kinds(verdicts[-1]) == ["Close"]


def test_a_close_records_the_check_it_rests_on_and_what_was_cancelled() -> None:
    """Item 7: the journal keeps the passing check's commands and verdicts, the counts of the
    plan's commitments, and each cancellation with its reason."""
    plan = DONE_PLAN.replace(
        "- [x] user runs report --json",
        "- [x] user runs report --json\n"
        "  - [-] user pipes it to jq (cancelled: jq is not installed on CI)",
    )
    state = CadenceState()
    for text, activity in (
        ("[PDCA] do", edit("src/report.py")),
        ("[PDCA] check", shell("pytest -q", tail="3 passed in 0.1s")),
        ("[PDCA] complete", Activity(tool_calls=0)),
    ):
        verdict = settle(state, text, plan, activity=activity)
        state = verdict.state or state
    assert kinds(verdict) == ["Close"]
    (closed,) = [a for a in verdict.actions if isinstance(a, Record) and a.kind == "closed"]
    assert closed.data["gates"] == ["check", "okr", "map"]
    assert closed.data["check"] == {
        "status": "passed",
        "round": 2,
        "ran": [{"command": "pytest -q", "verdict": "passed"}],
    }
    assert closed.data["key_results"] == {"done": 1, "total": 1}
    assert closed.data["leaves"] == {"done": 1, "total": 2}
    assert closed.data["cancelled"] == [
        {
            "kind": "leaf",
            "text": "user pipes it to jq (cancelled: jq is not installed on CI)",
            "reason": "jq is not installed on CI",
        }
    ]


def test_each_phase_is_continued_with_the_next_step_and_the_anchors() -> None:
    """After do the model is asked to check, after check to act, and the anchors ride along."""
    _, verdicts = run(["[PDCA] plan", "[PDCA] do", "[PDCA] check", "[PDCA] act"])
    texts = [text_of(v) for v in verdicts]
    assert texts[0].startswith("Plan recorded.")
    assert texts[1].startswith("Change made.")
    assert texts[2].startswith("Evidence in hand.")
    assert texts[3].startswith("Loop closed.")
    for text in texts:
        assert "Objective: Scripts read the report as JSON." in text
        assert "KR1: commands with --json 0 → 3, current 1" in text
        assert "Slice 1 › user runs report --json" in text
        assert "S: tests exist" in text


def test_complete_without_check_is_refused() -> None:
    """complete right after do is refused by the check gate even with a finished plan."""
    _, verdicts = run(["[PDCA] do", "[PDCA] complete"], plan=DONE_PLAN)
    assert kinds(verdicts[-1]) == ["Continue"]
    assert "Check gate: no [PDCA] check was reported" in text_of(verdicts[-1])


def test_a_do_after_the_check_needs_a_new_check() -> None:
    """do → check → do → complete is refused: the last change was never checked."""
    _, verdicts = run(["[PDCA] do", "[PDCA] check", "[PDCA] do", "[PDCA] complete"], DONE_PLAN)
    assert "Check gate: there was a [PDCA] do after the last check" in text_of(verdicts[-1])


def test_refusal_names_every_failing_gate_in_one_message() -> None:
    """An early complete names the check gate, the open KR and the open leaf together."""
    _, verdicts = run(["[PDCA] complete"])
    assert kinds(verdicts[-1]) == ["Continue"]
    text = text_of(verdicts[-1])
    assert text.startswith("Not closed yet: 3 gate(s) still open.")
    assert "Check gate: no [PDCA] check was reported" in text
    assert "OKR gate: 1 key result(s) not closed in plan/topic.md" in text
    assert "- [ ] KR1: commands with --json 0 → 3, current 1" in text
    assert "Map gate: 1 story-map leaf(s) not closed" in text
    assert "- [ ] user runs report --json" in text
    assert "Cut it: `- [-] … (cancelled: <reason>)`" in text
    refused = [a for a in verdicts[-1].actions if isinstance(a, Record) and a.kind == "refused"]
    assert refused[0].data == {"gates": ["check", "okr", "map"]}


def test_check_without_a_tool_call_does_not_open_the_check_gate() -> None:
    """A [PDCA] check round that ran no tool is not evidence."""
    state, _ = run(["[PDCA] do"])
    state = (settle(state, "[PDCA] check", DONE_PLAN, tools=0).state) or state
    verdict = settle(state, "[PDCA] complete", DONE_PLAN, tools=0)
    assert "ran no tool" in text_of(verdict)


def test_check_counts_when_the_host_cannot_measure_tools() -> None:
    """Unknown tool activity does not hold the check gate closed."""
    state = CadenceState()
    for text in ("[PDCA] do", "[PDCA] check"):
        state = settle(state, text, DONE_PLAN, tools=None).state or state
    assert kinds(settle(state, "[PDCA] complete", DONE_PLAN, tools=None)) == ["Close"]


def test_check_needs_tool_can_be_switched_off() -> None:
    """With check_needs_tool = false a check round without tools counts."""
    ctx = context(DONE_PLAN, config=Config(check_needs_tool=False))
    state = CadenceState()
    for text in ("[PDCA] do", "[PDCA] check"):
        state = settle(state, text, tools=0, ctx=ctx).state or state
    assert kinds(settle(state, "[PDCA] complete", tools=0, ctx=ctx)) == ["Close"]


def test_aborted_and_error_pause() -> None:
    """A user abort or a run error pauses instead of continuing, and says it is not done."""
    assert kinds(settle(CadenceState(), "[PDCA] do", aborted=True)) == ["Pause"]
    verdict = settle(CadenceState(), "", error="overloaded")
    assert kinds(verdict) == ["Pause"]
    assert "overloaded" in pause_of(verdict)
    assert "not done: the check gate is open" in truth_of(verdict)
    no_plan = settle(CadenceState(), "[PDCA] do", plan=None, aborted=True)
    assert pause_of(no_plan) == "goalkeeper paused: the run was aborted. Send a message to resume."


def test_no_plan_guides_once_then_stays_silent() -> None:
    """Without a plan the model is guided at most once per session."""
    first = settle(CadenceState(), "done", plan=None)
    assert kinds(first) == ["Continue"]
    assert text_of(first).startswith("Good progress. If this task needs more than one step")
    second = settle(first.state or CadenceState(), "done", plan=None)
    assert kinds(second) == []


def test_no_plan_guidance_can_be_silenced() -> None:
    """no_plan = silent never continues a session without a plan."""
    ctx = context(None, config=Config(no_plan="silent"))
    assert kinds(settle(CadenceState(), "done", ctx=ctx)) == []


def test_unusable_plan_is_reported_to_the_user_once_and_never_blocks() -> None:
    """A binary or oversized plan file notifies the user once; the agent may stop."""
    doc = replace(plan_doc(PLAN), plan=None, problem="it is a binary file, not Markdown text")
    first = settle(CadenceState(), "[PDCA] do", ctx=context(doc))
    assert kinds(first) == ["Notify"]
    second = settle(first.state or CadenceState(), "[PDCA] do", ctx=context(doc))
    assert kinds(second) == []


def test_blocked_asks_for_a_reversible_decision_written_into_the_plan() -> None:
    """blocked does not hand the question back: pick a reversible default and record it."""
    verdict = settle(CadenceState(), "[PDCA] blocked: which database?")
    assert kinds(verdict) == ["Continue"]
    text = text_of(verdict)
    assert "Blocked: which database?." in text
    assert "reversible" in text and "record the decision" in text


def test_stuck_rounds_reset_then_pause() -> None:
    """stuck rounds without a tool call ask for a re-plan, at most `reset` times, then pause."""
    config = Config(stuck=2, reset=1)
    ctx = context(PLAN, config=config)
    state = CadenceState()
    outcomes = []
    for _ in range(4):
        verdict = settle(state, "thinking… [PDCA] plan", tools=0, ctx=ctx)
        outcomes.append(kinds(verdict))
        state = verdict.state or state
    assert outcomes[0] == ["Continue"]
    assert outcomes[1] == ["Continue"]  # the reset
    assert "2 rounds without a tool call" in text_of(
        settle(CadenceState(idle_rounds=1), "x", tools=0, ctx=ctx)
    )
    assert outcomes[2] == ["Continue"]
    assert outcomes[3] == ["Pause"]


def test_stuck_reset_compacts_where_the_host_can() -> None:
    """A host that can compact gets a Compact before the re-plan message."""
    ctx = context(PLAN, config=Config(stuck=1), capabilities=ALL_CAPABILITIES)
    verdict = settle(CadenceState(), "hmm", tools=0, ctx=ctx)
    assert kinds(verdict) == ["Compact", "Continue"]


def test_a_tool_call_ends_a_stuck_streak() -> None:
    """Idle rounds count only in a row."""
    state = settle(CadenceState(), "x", tools=0).state or CadenceState()
    state = settle(state, "x", tools=2).state or state
    assert state.idle_rounds == 0


def test_user_prompt_clears_stuck_counters() -> None:
    """A real user message is an intervention: stuck counters start over. Keeping the
    session's tests is not the cadence guard's (``guards.kept_tests``)."""
    verdict = guard.on_event(
        UserPrompt("s", "try X"), CadenceState(idle_rounds=2, resets=2), context(PLAN)
    )
    assert verdict.state == CadenceState(request="try X") and verdict.actions == ()


def test_a_close_the_gates_pass_asks_for_the_sessions_kept_tests() -> None:
    """The close is held to the tests kept at the session's first prompt: the engine is asked
    to replay them under the session's key, whichever guard kept them."""
    state = CadenceState()
    for text in ("[PDCA] do", "[PDCA] check"):
        state = settle(state, text, DONE_PLAN).state or state
    event = Settled("s", "[PDCA] complete", activity=Activity(tool_calls=0))
    verdict = guard.on_event(event, state, context(DONE_PLAN))
    assert verdict.actions == (Inspect(protect="session:s", replay_tests=True),)


def test_tool_call_events_count_when_the_host_reports_them() -> None:
    """Hosts with per-tool events need not measure tools at settle."""
    state = guard.on_event(ToolCall("s", "Bash"), CadenceState(), context(PLAN)).state
    assert state is not None and state.tool_calls == 1
    after = settle(state, "[PDCA] do", tools=None).state
    assert after is not None and after.idle_rounds == 0 and after.tool_calls == 0


def test_context_above_compact_at_asks_once_to_save_state() -> None:
    """Where the host cannot compact, the model saves state to the plan first, once per crossing."""
    high = Activity(tool_calls=1, context_tokens=170_000)
    first = settle(CadenceState(), "[PDCA] do", activity=high)
    assert text_of(first).startswith("Context is 85% full")
    second = settle(first.state or CadenceState(), "[PDCA] check", activity=high)
    assert "Context is" not in text_of(second)
    low = settle(second.state or CadenceState(), "[PDCA] act", activity=Activity(1, 10_000))
    assert low.state is not None and not low.state.context_warned


def test_context_above_compact_at_compacts_where_the_host_can() -> None:
    """A host with compaction gets a Compact action instead of the save-state request."""
    ctx = context(PLAN, capabilities=ALL_CAPABILITIES)
    verdict = settle(CadenceState(), "[PDCA] do", activity=Activity(1, 190_000), ctx=ctx)
    assert kinds(verdict) == ["Compact", "Continue"]


def test_the_hosts_own_context_window_decides_when_it_reports_one() -> None:
    """Pi reports the model's window (128k): 105k tokens is 82% there, though only 52% of the
    configured 200k; without a reported window the configured one counts."""
    ctx = context(PLAN, capabilities=ALL_CAPABILITIES)
    reported = Activity(1, 105_000, context_window=128_000)
    assert kinds(settle(CadenceState(), "[PDCA] do", activity=reported, ctx=ctx)) == [
        "Compact",
        "Continue",
    ]
    configured = Activity(1, 105_000)
    assert kinds(settle(CadenceState(), "[PDCA] do", activity=configured, ctx=ctx)) == ["Continue"]


def test_large_session_pauses_and_suggests_a_new_one() -> None:
    """A transcript above session_mb pauses with the way forward."""
    verdict = settle(CadenceState(), "[PDCA] do", activity=Activity(1, None, 60 * 1024 * 1024))
    assert kinds(verdict) == ["Pause"]
    assert "60 MB, over the 50 MB limit" in pause_of(verdict)
    just_over = Activity(1, None, 52_429_057)  # 50.00004 MB: rounding must not hide it
    assert "50.00 MB, over the 50 MB limit" in pause_of(
        settle(CadenceState(), "x", activity=just_over)
    )


def test_the_objective_is_its_first_sentence_whatever_its_abbreviations() -> None:
    """ "Ship JSON (e.g. for nightly) today." is one sentence in every anchor (seed000 D9)."""
    from goalkeeper.core.cadence.plan import parse_objective

    assert parse_objective(["Ship JSON (e.g. for nightly) today. More later."]) == (
        "Ship JSON (e.g. for nightly) today."
    )
    assert parse_objective(["Use e.g. jq to read it. Then more."]) == "Use e.g. jq to read it."
    assert parse_objective(["Version 2.0 ships. Then"]) == "Version 2.0 ships."


def test_complete_with_passing_gates_closes_even_in_a_large_session() -> None:
    """Closing is never held back by the session-size pause."""
    state, _ = run(["[PDCA] do", "[PDCA] check"], plan=DONE_PLAN)
    verdict = settle(state, "[PDCA] complete", DONE_PLAN, activity=Activity(1, None, 99 * 2**20))
    assert kinds(verdict) == ["Close"]


def test_no_marker_reminds_the_protocol() -> None:
    """A reply without a phase line is continued with a reminder to report one."""
    verdict = settle(CadenceState(), "I changed the file.")
    assert text_of(verdict).startswith("Keep going. Your last reply had no phase line")


def test_session_start_gives_static_guidance_then_anchors() -> None:
    """The static guidance comes first and never changes; the anchors follow."""
    verdict = guard.on_event(SessionStart("s", "startup"), CadenceState(), context(PLAN))
    advice = [a.text for a in verdict.actions if isinstance(a, Advise)]
    assert advice[0] == context(None).say("guidance.static")
    assert advice[1].startswith("Plan anchors (from plan/topic.md):")


def test_before_agent_start_re_feeds_anchors_only_with_a_plan() -> None:
    """Anchors are re-fed before each run; without a plan there is nothing to say."""
    with_plan = guard.on_event(BeforeAgentStart("s"), CadenceState(), context(PLAN))
    assert kinds(with_plan) == ["Advise"]
    assert kinds(guard.on_event(BeforeAgentStart("s"), CadenceState(), context(None))) == []


def test_chinese_plan_gets_chinese_messages() -> None:
    """Messages follow the session language."""
    verdict = settle(CadenceState(), "[PDCA] do", ctx=context(PLAN, lang="zh"))
    assert text_of(verdict).startswith("改动已完成。")


def test_state_round_trips_and_tolerates_damage() -> None:
    """Stored state is restored; bad values fall back to defaults instead of crashing."""
    state = CadenceState(
        round=3, last_phase="do", last_do=3, check_status="none", check_ran="passed\tpytest"
    )
    assert guard.load_state(guard.dump_state(state)) == state
    damaged = guard.load_state({"round": "three", "last_do": True, "unknown": 1, "guided": 1})
    assert damaged == CadenceState()


def test_notify_is_only_for_broken_plans() -> None:
    """A healthy plan never produces user notifications at settle."""
    _, verdicts = run(["[PDCA] plan", "[PDCA] do"])
    assert not any(
        isinstance(a, Notify | Pause | Close | Compact) for v in verdicts for a in v.actions
    )


def test_a_plan_read_with_a_caveat_is_used_and_the_user_told_once() -> None:
    """Invalid UTF-8 in the plan: the plan still drives the decision; one notice for the user."""
    doc = replace(plan_doc(PLAN), note="invalid UTF-8 at byte 7; read with replacement characters")
    first = settle(CadenceState(), "[PDCA] do", ctx=context(doc))
    assert kinds(first) == ["Continue", "Notify"]
    second = settle(first.state or CadenceState(), "[PDCA] check", ctx=context(doc))
    assert kinds(second) == ["Continue"]


# ---------------------------------------------------------------------------------------------
# A check is a verification that ran
# ---------------------------------------------------------------------------------------------


def drive(
    steps: list[tuple[str, Activity]], plan: str | None = PLAN, ctx: object = None
) -> tuple[CadenceState, list[Verdict[CadenceState]]]:
    """Settle once per (reply, activity), carrying the state along."""
    state, verdicts = CadenceState(), []
    for text, activity in steps:
        verdict = settle(state, text, plan, activity=activity, ctx=ctx)
        verdicts.append(verdict)
        state = verdict.state or state
    return state, verdicts


def test_a_check_that_only_echoed_is_sent_back_and_does_not_open_the_gate() -> None:
    """`echo '2 passed'` then [PDCA] check: the model is told no verification ran (naming the
    command), and the complete after it is refused by the check gate."""
    steps = [
        ("[PDCA] do", edit("src/report.py")),
        ("2 passed.\n[PDCA] check", shell("echo '2 passed'")),
        ("[PDCA] complete", Activity(tool_calls=0, runs=())),
    ]
    _, verdicts = drive(steps, plan=DONE_PLAN)
    told = text_of(verdicts[1])
    assert told.startswith("That [PDCA] check ran no verification: `echo '2 passed'` (not a")
    assert not told.startswith("Evidence in hand")
    refusal = text_of(verdicts[2])
    assert "Check gate: the last [PDCA] check ran no verification" in refusal
    assert "`echo '2 passed'` (not a test run)" in refusal


def test_a_real_test_run_in_the_check_round_counts() -> None:
    """A pytest run that finished in the check round is a check: complete closes."""
    steps = [
        ("[PDCA] do", edit("src/report.py")),
        ("[PDCA] check", shell("python -m pytest -q", tail="3 passed in 0.1s")),
        ("[PDCA] complete", Activity(tool_calls=0, runs=())),
    ]
    _, verdicts = drive(steps, plan=DONE_PLAN)
    assert text_of(verdicts[1]).startswith("Evidence in hand.")
    assert kinds(verdicts[2]) == ["Close"]


def test_a_failing_check_is_a_check_but_not_a_proof() -> None:
    """A failing test run counts as the check (the message says it failed and what to do);
    [PDCA] complete after it is refused until a check passes."""
    failing = shell("pytest -q", "failed", "FAILED tests/test_r.py::test_json - KeyError\n1 failed")
    steps = [
        ("[PDCA] do", edit("src/report.py")),
        ("[PDCA] check", failing),
        ("[PDCA] complete", Activity(tool_calls=0, runs=())),
    ]
    state, verdicts = drive(steps, plan=DONE_PLAN)
    told = text_of(verdicts[1])
    assert told.startswith("The check ran and failed: FAILED tests/test_r.py::test_json")
    assert "Check gate: the last check's verification failed (FAILED tests/test_r.py" in (
        text_of(verdicts[2])
    )
    assert state.forged == 0  # a failing run is no forgery
    again = settle(state, "[PDCA] check", DONE_PLAN, activity=shell("pytest -q"))
    done = settle(again.state or state, "[PDCA] complete", DONE_PLAN, tools=0)
    assert kinds(done) == ["Close"]


def test_a_change_after_the_check_needs_a_new_check() -> None:
    """Test, then edit code, then complete: refused, the change was never tested; ticking the
    plan after the check is bookkeeping and does not count as a change."""
    after_check = [
        ("[PDCA] check", shell("pytest")),
        ("[PDCA] act", edit("src/report.py")),
        ("[PDCA] complete", Activity(tool_calls=0, runs=())),
    ]
    _, verdicts = drive(after_check, plan=DONE_PLAN)
    assert "Check gate: project files changed after the last check" in text_of(verdicts[-1])
    ticked = [
        ("[PDCA] check", shell("pytest")),
        ("[PDCA] act", edit("plan/topic.md")),
        ("[PDCA] complete", edit("plan/topic.md")),
    ]
    _, verdicts = drive(ticked, plan=DONE_PLAN)
    assert kinds(verdicts[-1]) == ["Close"]


def test_an_edit_after_the_test_run_in_the_check_round_is_not_checked() -> None:
    """Within one check round, pytest then an edit: the round is stale, and says which file."""
    stale = Activity(
        tool_calls=2,
        runs=(
            ToolRun("shell", "Bash", "pytest", tail="2 passed in 0.1s"),
            ToolRun("edit", "Edit", path="src/report.py"),
        ),
    )
    verdict = settle(CadenceState(), "[PDCA] check", DONE_PLAN, activity=stale)
    assert "but src/report.py changed after that run" in text_of(verdict)


def test_an_unannounced_command_in_the_record_does_not_count() -> None:
    """Once the host announces shell commands (ToolCall), a pytest line in the transcript that
    no ToolCall announced was written by someone, not run: no check."""
    ctx = context(DONE_PLAN)
    state = guard.on_event(ToolCall("s", "Bash", {"command": "ls"}), CadenceState(), ctx).state
    assert state is not None and state.announces
    verdict = settle(state, "[PDCA] check", DONE_PLAN, activity=shell("pytest -q"), ctx=ctx)
    assert "`pytest -q` (goalkeeper never saw it start)" in text_of(verdict)
    state = guard.on_event(ToolCall("s", "Bash", {"command": "pytest -q"}), state, ctx).state
    assert state is not None
    verdict = settle(state, "[PDCA] check", DONE_PLAN, activity=shell("pytest -q"), ctx=ctx)
    assert text_of(verdict).startswith("Evidence in hand.")


def test_the_users_commands_and_the_plans_named_commands_are_verifications() -> None:
    """evidence_commands / the goal's approved verify / a KR's backticked command (named when
    the user last spoke) count."""
    ctx = context(DONE_PLAN, config=Config(evidence_commands=("make lint",)))
    verdict = settle(CadenceState(), "[PDCA] check", activity=shell("make lint"), ctx=ctx)
    assert text_of(verdict).startswith("Evidence in hand.")
    named = DONE_PLAN.replace("current 1", "current 1, `./scripts/smoke.sh` exits 0")
    spoke = CadenceState(named="./scripts/smoke.sh")
    verdict = settle(spoke, "[PDCA] check", named, activity=shell("./scripts/smoke.sh"))
    assert text_of(verdict).startswith("Evidence in hand.")


def test_an_unreadable_record_does_not_count() -> None:
    """A host that could not read what ran (a deleted transcript): the check does not count."""
    verdict = settle(CadenceState(), "[PDCA] check", DONE_PLAN, activity=Activity(unreadable=True))
    assert text_of(verdict).startswith("goalkeeper could not read which commands")


def test_check_needs_tool_off_keeps_the_old_behaviour() -> None:
    """check_needs_tool = false: an echo check counts, and no forgery is counted."""
    ctx = context(DONE_PLAN, config=Config(check_needs_tool=False))
    steps = [("[PDCA] check", shell("echo ok")), ("[PDCA] complete", Activity(0, runs=()))]
    state, verdicts = drive(steps, ctx=ctx)
    assert text_of(verdicts[0]).startswith("Evidence in hand.")
    assert kinds(verdicts[1]) == ["Close"] and state.forged == 0


# ---------------------------------------------------------------------------------------------
# Honest exits
# ---------------------------------------------------------------------------------------------


def test_forging_checks_pauses_within_three_refusals() -> None:
    """check(echo) → complete → check(echo): the third forgery pauses, tells the user it is not
    done, and why; it never takes 40 continuations."""
    steps = [
        ("[PDCA] check", shell("echo '2 passed'")),
        ("[PDCA] complete", shell("echo done")),
        ("[PDCA] check", shell("echo '2 passed'")),
    ]
    _, verdicts = drive(steps, plan=DONE_PLAN)
    assert [kinds(v) for v in verdicts] == [["Continue"], ["Continue"], ["Pause"]]
    assert "3 times a [PDCA] check or complete came without a verification" in pause_of(
        verdicts[-1]
    )
    assert "A new prompt resumes and restarts the count." in pause_of(verdicts[-1])
    truth = truth_of(verdicts[-1])
    assert truth == "goalkeeper: not done: the check gate is open (the last check ran no test)."


def test_the_same_blocker_pauses_at_the_bound_however_many_tools_ran() -> None:
    """[PDCA] blocked with the same reason (normalised): continued twice (the second time told
    it is about to be handed over), paused the third time, even with tool calls each round."""
    reasons = ["Need the API key.", "need the api key!", "need the API key"]
    steps = [(f"[PDCA] blocked: {r}", edit("plan/topic.md")) for r in reasons]
    _, verdicts = drive(steps)
    assert [kinds(v) for v in verdicts] == [["Continue"], ["Continue"], ["Pause"]]
    assert "You have reported this blocker 2 times; at 3 goalkeeper pauses" in text_of(verdicts[1])
    assert "the same blocker 3 times (need the API key)" in pause_of(verdicts[2])
    assert "not done: the check gate is open" in truth_of(verdicts[2])
    assert "the OKR gate is open (1 key result(s) not closed)" in truth_of(verdicts[2])


def test_blocked_rounds_without_progress_pause_even_with_new_reasons() -> None:
    """Different reasons each round, the blocker written into the plan each time (a tool call),
    nothing closed on the plan: the third blocked round pauses."""
    steps = [(f"[PDCA] blocked: reason {c}", edit("plan/topic.md")) for c in "abc"]
    _, verdicts = drive(steps)
    assert kinds(verdicts[-1]) == ["Pause"]
    assert "3 blocked rounds without progress" in pause_of(verdicts[-1])


def test_progress_on_the_plan_restarts_the_blocked_count() -> None:
    """A KR ticked between blocked rounds is progress: no pause at the third; a KR added and
    ticked later is not progress on what was open."""
    two = PLAN + "- [ ] KR2: exports 0 → 1\n"
    state = CadenceState()
    ticked = two.replace("- [ ] KR1", "- [x] KR1").replace("current 1", "current 3")
    for text, plan in (("a", two), ("b", two), ("c", ticked)):
        verdict = settle(state, f"[PDCA] blocked: {text}", plan)
        state = verdict.state or state
    assert kinds(verdict) == ["Continue"]
    padded = PLAN.replace("## User Story Map", "- [x] KR9: added 0 → 1\n## User Story Map")
    state = CadenceState()
    for text, plan in (("a", PLAN), ("b", PLAN), ("c", padded)):
        verdict = settle(state, f"[PDCA] blocked: {text}", plan)
        state = verdict.state or state
    assert kinds(verdict) == ["Pause"]


def test_the_same_refused_complete_pauses_at_the_bound() -> None:
    """[PDCA] complete refused twice in a row for the same open items pauses, the user told
    (issue 22 §7: one continuation, not two)."""
    state = CadenceState(last_check=1, check_status="passed")
    outcomes = []
    for _ in range(REFUSAL_BOUND):
        verdict = settle(state, "[PDCA] complete")
        outcomes.append(kinds(verdict))
        state = verdict.state or state
    assert outcomes == [["Continue"], ["Pause"]]
    assert "refused 2 times for the same open gates" in pause_of(verdict)


def test_a_user_prompt_restarts_every_count() -> None:
    """After a real user message, the honest-exit counts and the continuation count are 0."""
    busy = CadenceState(forged=2, refusals=2, blocked_same=2, blocked_rounds=2, continued=30)
    state = guard.on_event(UserPrompt("s", "go on"), busy, context(PLAN)).state
    assert state is not None
    assert (state.forged, state.refusals, state.blocked_same, state.blocked_rounds) == (0,) * 4
    assert state.continued == 0


def test_the_continuation_cap_pauses_with_the_truth() -> None:
    """At max_continuations the loop pauses itself, records the cap, and tells the user which
    gate is open; a new prompt restarts the count."""
    ctx = context(PLAN, config=Config(max_continuations=2))
    _, verdicts = drive([("[PDCA] do", edit("src/a.py"))] * 3, ctx=ctx)
    assert [kinds(v) for v in verdicts] == [["Continue"], ["Continue"], ["Pause"]]
    assert "paused after 2 automatic continuations in a row" in pause_of(verdicts[-1])
    assert "it restarts the count" in pause_of(verdicts[-1])
    assert any(a.kind == "capped" for a in verdicts[-1].actions if isinstance(a, Record))
    assert truth_of(verdicts[-1]).startswith(
        "goalkeeper: not done: the check gate is open (no [PDCA] check was reported)"
    )


def test_a_stop_with_every_gate_passing_says_nothing_more() -> None:
    """No 'not done' line when the gates pass (the user was not lied to)."""
    state, _ = drive([("[PDCA] check", shell("pytest"))], plan=DONE_PLAN)
    verdict = settle(state, "[PDCA] act", DONE_PLAN, aborted=True)
    assert "not done" not in pause_of(verdict)


def test_the_truth_at_a_stop_speaks_chinese_for_a_chinese_session() -> None:
    """The not-done line follows the session language."""
    verdict = settle(CadenceState(), "[PDCA] do", ctx=context(PLAN, lang="zh"), aborted=True)
    assert truth_of(verdict).startswith("goalkeeper：尚未完成：Check 门未通过")


def test_quick_mode_asks_for_no_verification_and_tells_no_gate() -> None:
    """Quick mode has no gates: an echo check is not sent back, nothing is counted as forged,
    and a stop does not list open gates."""
    ctx = replace(context(PLAN), run_mode="quick")
    verdict = settle(CadenceState(), "[PDCA] check", activity=shell("echo ok"), ctx=ctx)
    assert text_of(verdict).startswith("Evidence in hand.")
    assert verdict.state is not None and verdict.state.forged == 0
    stopped = settle(CadenceState(), "[PDCA] do", ctx=ctx, aborted=True)
    assert "not done" not in pause_of(stopped)


def test_a_command_the_plan_named_counts_only_if_it_was_there_when_the_user_spoke() -> None:
    """A key result may name its own verification (`./scripts/e2e.sh`), but one the agent adds
    afterwards cannot vouch for its check: `python calc.py` prints and passes, checks nothing."""
    named = DONE_PLAN.replace("current 3", "current 3, `./scripts/e2e.sh` exits 0")
    state = guard.on_event(UserPrompt("s", "go"), CadenceState(), context(named)).state
    assert state is not None and state.named == "./scripts/e2e.sh"
    verdict = settle(state, "[PDCA] check", named, activity=shell("./scripts/e2e.sh"))
    assert verdict.state is not None and verdict.state.check_status == "passed"

    later = DONE_PLAN.replace("current 3", "current 3, `python calc.py` prints 5")
    fresh = guard.on_event(UserPrompt("s", "go"), CadenceState(), context(DONE_PLAN)).state
    assert fresh is not None and fresh.named == ""
    verdict = settle(fresh, "[PDCA] check", later, activity=shell("python calc.py"))
    assert verdict.state is not None and verdict.state.check_status == "none"


def test_a_plan_with_no_commitments_is_no_plan() -> None:
    """Only headings (seed000 D8): guided once like no plan, naming the file; a complete then
    closes nothing; no bare anchors header is sent before a run."""
    ctx = context(plan_doc("# T\n## SWOT\n## Objective\n## Key Results\n## User Story Map\n"))
    first = guard.on_event(Settled("s", "[PDCA] check", activity=Activity(1)), CadenceState(), ctx)
    (cont,) = [a for a in first.actions if isinstance(a, Continue)]
    assert "plan/topic.md has no key results and no story-map leaves" in cont.text
    again = guard.on_event(Settled("s", "[PDCA] complete", activity=Activity(1)), first.state, ctx)
    assert not any(isinstance(a, Close | Continue) for a in again.actions)
    assert guard.on_event(BeforeAgentStart("s"), CadenceState(), ctx).actions == ()


def test_an_unreadable_transcript_is_told_once() -> None:
    """The host could not read what ran (a missing transcript) and nothing else counted the
    tools: the user hears once that the stuck rule is off (seed000 D6)."""
    ctx = context(PLAN)
    blind = Activity(unreadable=True)
    first = guard.on_event(Settled("s", "[PDCA] plan", activity=blind), CadenceState(), ctx)
    notes = [a.text for a in first.actions if isinstance(a, Notify)]
    assert any("cannot count the agent's tool calls" in n for n in notes), notes
    again = guard.on_event(Settled("s", "[PDCA] plan", activity=blind), first.state, ctx)
    assert not any("cannot count" in a.text for a in again.actions if isinstance(a, Notify))
    counted = replace(CadenceState(), tool_calls=2)  # PreToolUse counted them: nothing to say
    seen = guard.on_event(Settled("s", "[PDCA] do", activity=blind), counted, ctx)
    assert not any("cannot count" in a.text for a in seen.actions if isinstance(a, Notify))


def test_a_key_result_ticked_short_of_its_target_is_not_closed() -> None:
    """`- [x] KR1 … 0 → 3, current 1`: the tick says done, its own figure says not; the OKR
    gate names it, and the refusal says why (issue 12, KR figures)."""
    short = PLAN.replace("- [ ]", "- [x]")
    state = settle(CadenceState(), "[PDCA] check", short).state
    verdict = settle(state or CadenceState(), "[PDCA] complete", short)
    (cont,) = [a for a in verdict.actions if isinstance(a, Continue)]
    assert "OKR gate: 1 key result(s) not closed" in cont.text
    assert "current 1 (ticked, but its current figure has not reached the target)" in cont.text
