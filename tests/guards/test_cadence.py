"""The cadence guard (seed 000 §3, §5, §6), driven with plain events and values."""

from __future__ import annotations

from dataclasses import replace

from goalkeeper.config import Config
from goalkeeper.core.values import (
    Activity,
    Advise,
    BeforeAgentStart,
    Close,
    Compact,
    Continue,
    Notify,
    Pause,
    Record,
    SessionStart,
    Settled,
    ToolCall,
    UserPrompt,
)
from goalkeeper.guards.cadence import CadenceGuard, CadenceState
from goalkeeper.guards.spec import Verdict
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
DONE_PLAN = PLAN.replace("- [ ]", "- [x]")
guard = CadenceGuard()


def settle(
    state: CadenceState, text: str, plan: str | None = PLAN, tools: int | None = 1, **kw: object
) -> Verdict[CadenceState]:
    ctx = kw.pop("ctx", None) or context(plan)
    activity = kw.pop("activity", None) or Activity(tool_calls=tools)
    event = Settled("s", text, activity=activity, **kw)  # type: ignore[arg-type]
    return guard.on_event(event, state, ctx)  # type: ignore[arg-type]


def kinds(verdict: Verdict[CadenceState]) -> list[str]:
    return [type(a).__name__ for a in verdict.actions if not isinstance(a, Record)]


def text_of(verdict: Verdict[CadenceState]) -> str:
    return "\n".join(a.text for a in verdict.actions if isinstance(a, Continue))


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
    """A user abort or a run error pauses instead of continuing."""
    assert kinds(settle(CadenceState(), "[PDCA] do", aborted=True)) == ["Pause"]
    verdict = settle(CadenceState(), "", error="overloaded")
    assert kinds(verdict) == ["Pause"]
    assert "overloaded" in verdict.actions[-1].reason  # type: ignore[union-attr]


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
    """A real user message is an intervention: stuck counters start over."""
    verdict = guard.on_event(
        UserPrompt("s", "try X"), CadenceState(idle_rounds=2, resets=2), context(PLAN)
    )
    assert verdict.state == CadenceState()


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
    assert "60 MB (limit 50 MB)" in verdict.actions[-1].reason  # type: ignore[union-attr]


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
    state = CadenceState(round=3, last_phase="do", last_do=3, check_had_tools=False)
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
