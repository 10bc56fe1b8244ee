"""The cadence guard (seed 000 §3, §5, §6): continue, close or pause when the agent settles.

It re-feeds the plan's anchors when a session starts and before each run, and at every true
settle it reads the reply's last ``[PDCA]`` marker and decides. A ``[PDCA] check`` counts only
when a verification ran and finished in its round (``core.gates.evaluate_round``). The guard
keeps the session's state and makes the one decision per settle; whether a complete closes is
``cadence_close``'s, the bounded patience of the loop (stuck resets, honest exits, the
continuation cap, context pressure) and the continuation's words ``cadence_rules``'. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from msgspec import Struct
from msgspec.structs import replace

from goalkeeper.core.cadence.anchors import render_anchors
from goalkeeper.core.cadence.markers import Marker, fenced_complete, parse_marker
from goalkeeper.core.cadence.plan import has_commitments
from goalkeeper.core.values import (
    Action,
    Advise,
    BeforeAgentStart,
    Continue,
    Event,
    Notify,
    Record,
    SessionStart,
    Settled,
    ToolCall,
    UserPrompt,
)
from goalkeeper.guards.spec import Context, Verdict, dump_state_value, load_state_value

if TYPE_CHECKING:
    from goalkeeper.core.cadence.gates import RoundEvidence


REQUEST_CHARS = 2000
"""How much of the user's last message the state keeps (every event re-saves the state)."""


class CadenceState(Struct, frozen=True):
    round: int = 0
    """Settles seen in this session."""
    last_phase: str | None = None
    last_do: int | None = None
    last_check: int | None = None
    check_status: str | None = None
    """What the last check's round proves (``core.gates.CheckStatus``)."""
    check_ran: str = ""
    """The shell commands of the last check's round (``core.gates.render_ran``)."""
    check_headline: str = ""
    """The failing line of the last check, when its verification failed."""
    last_change: int | None = None
    """The last round that changed a project file with no verification after the change."""
    idle_rounds: int = 0
    """Settles in a row without a tool call."""
    resets: int = 0
    """Compact-and-re-plan resets since the last real user message."""
    tool_calls: int = 0
    """Tool calls counted from ToolCall events since the last settle."""
    announced: str = ""
    """Digests of the shell commands announced by ToolCall events since the last settle."""
    announces: bool = False
    """The host announces shell commands before they run: from then on a command in the
    record that was never announced does not count as a check."""
    guided: bool = False
    """The no-plan guidance was given in this session."""
    context_warned: bool = False
    """The save-state directive was given for the current crossing of compact_at."""
    notified_problem: str | None = None
    """The last plan problem the user was told about (told once per distinct problem)."""
    continued: int = 0
    """Continuations asked for since the last real user message (``max_continuations``)."""
    forged: int = 0
    """Check rounds without a verification that ran, and completes refused for that, since
    the last check that ran one (or the last real user message)."""
    refusal: str = ""
    """The signature of the last refused complete: its failing gates and open items."""
    refusals: int = 0
    """Refused completes with that signature since a different one (or a real user message):
    the same false claim of done, made again."""
    blocked_reason: str = ""
    """The last blocked reason, normalised (``core.markers.normalize_reason``)."""
    blocked_same: int = 0
    """Blocked rounds with that reason since the last real user message."""
    blocked_rounds: int = 0
    """Blocked rounds since the plan last made progress (or the last real user message)."""
    blocked_open: str = ""
    """Digests of the commitments that were open when that count began."""
    blocked_resolved: int = 0
    """How many of those have been closed, rewritten or removed since: progress is more."""
    unmeasured_told: bool = False
    """The user was told that this session's tool calls cannot be counted (seed000 D6)."""
    tests_held: str = ""
    """The change of the kept tests the last close was held for (said once, then a pause)."""
    request: str = ""
    """The user's last message (its first ``REQUEST_CHARS`` characters): a re-plan into a
    cleared context repeats it, since the chat that held it is gone."""
    named: str = ""
    """The commands the plan's key results named when the user last spoke (one per line,
    ``core.gates.kr_commands``): only those count as a check besides the test runners and the
    user's own commands, so a key result the agent adds later cannot vouch for its check."""


class CadenceGuard:
    name: ClassVar[str] = "cadence"

    def initial_state(self) -> CadenceState:
        return CadenceState()

    def load_state(self, raw: Mapping[str, Any]) -> CadenceState:
        return load_state_value(CadenceState, raw)

    def dump_state(self, state: CadenceState) -> dict[str, Any]:
        return dump_state_value(state)

    def on_event(self, event: Event, state: CadenceState, ctx: Context) -> Verdict[CadenceState]:
        if isinstance(event, Settled):
            return decide_settle(event, state, ctx)
        if isinstance(event, SessionStart):
            return _on_session_start(event, state, ctx)
        if isinstance(event, UserPrompt):
            from goalkeeper.core.cadence.gates import kr_commands

            plan = ctx.plan.plan if ctx.plan is not None else None
            named = "\n".join(c for c in kr_commands(plan) if "\n" not in c)
            request = event.text.strip()[:REQUEST_CHARS]
            fresh = _fresh_start(state) if event.verified else state  # a forged one resets none
            return Verdict(state=replace(fresh, named=named, request=request))
        if isinstance(event, BeforeAgentStart):
            return Verdict(_anchor_advice(ctx))
        if isinstance(event, ToolCall):
            return Verdict(state=_announce(state, event))
        return Verdict()


def _fresh_start(s: CadenceState) -> CadenceState:
    """A real user message is an intervention: every count of the loop's patience restarts."""
    return replace(
        s,
        idle_rounds=0,
        resets=0,
        continued=0,
        forged=0,
        refusal="",
        refusals=0,
        blocked_reason="",
        blocked_same=0,
        blocked_rounds=0,
        blocked_open="",
        blocked_resolved=0,
    )


def _announce(s: CadenceState, event: ToolCall) -> CadenceState:
    """Count the call; remember a shell command's digest (its ``command`` input)."""
    from goalkeeper.guards.round_checks import announce

    s = replace(s, tool_calls=s.tool_calls + 1)
    announced = announce(s.announced, event.input.get("command"))
    return s if announced is None else replace(s, announced=announced, announces=True)


def _on_session_start(
    event: SessionStart, state: CadenceState, ctx: Context
) -> Verdict[CadenceState]:
    """Static guidance first (cache-safe), then the anchors; after compaction, re-feed both."""
    actions: list[Action] = [Advise(ctx.say("guidance.static"), static=True)]
    actions.extend(_anchor_advice(ctx))
    new_state = replace(state, context_warned=False) if event.source == "compact" else state
    return Verdict(tuple(actions), new_state)


def _anchor_advice(ctx: Context) -> tuple[Action, ...]:
    doc = ctx.plan
    if doc is None or doc.plan is None or not has_commitments(doc.plan):
        return ()  # an empty plan anchors nothing: no bare header every turn
    return (Advise(render_anchors(doc.plan, doc.path, ctx.say)),)


def decide_settle(ev: Settled, s: CadenceState, ctx: Context) -> Verdict[CadenceState]:
    """Seed 000 §3 and §6: one decision per true settle. Pure; every branch is bounded.

    A plan read with a caveat (invalid UTF-8) is used, and the user is told once."""
    verdict = _decide(ev, s, ctx)
    state = verdict.state or s
    if ev.activity.unreadable and _tool_calls(ev, s) is None and not state.unmeasured_told:
        notice = Notify(ctx.say("stuck.unmeasured"), "warning")  # once: the stuck rule is off
        verdict = Verdict((*verdict.actions, notice), replace(state, unmeasured_told=True))
        state = verdict.state or state
    doc = ctx.plan
    if doc is not None and doc.plan is not None and doc.note and state.notified_problem != doc.note:
        notice = Notify(ctx.say("plan.note", path=doc.path, note=doc.note), "warning")
        return Verdict((*verdict.actions, notice), replace(state, notified_problem=doc.note))
    return verdict


def _decide(ev: Settled, s: CadenceState, ctx: Context) -> Verdict[CadenceState]:
    # The settle's rules are imported when a settle comes, not by a session's first event.
    from goalkeeper.guards.cadence_close import failed_what, judge_complete, render_refusal
    from goalkeeper.guards.cadence_rules import (
        blocked_text,
        context_pressure,
        continue_capped,
        count_honesty,
        honest_exit,
        next_step,
        stop,
        stuck_reset,
        too_large,
        without_plan,
    )

    cfg, say = ctx.config, ctx.say
    tools = _tool_calls(ev, s)
    marker = parse_marker(ev.last_text) or fenced_complete(ev.last_text)
    evidence = _evidence(ev, s, ctx, tools)
    s = _advance(s, marker, tools, evidence)
    phase = marker.phase if marker else None
    records: tuple[Action, ...] = (Record("settle", {"phase": phase, "tools": tools}),)
    if phase == "check":
        ran = [{"command": r.command[:200], "verdict": r.verdict} for r in evidence.ran[-5:]]
        records += (Record("check", {"status": evidence.status, "ran": ran}),)

    if ev.aborted:
        return stop(records, say("pause.aborted"), s, ctx)
    if ev.error:
        if "schedule" in ctx.capabilities and _goal_active(ctx):
            return Verdict(records, s)  # the goal guard retries it with back-off (seed 001)
        return stop(records, say("pause.error", error=ev.error), s, ctx)

    doc = ctx.plan
    if doc is None or doc.plan is None or not has_commitments(doc.plan):
        return without_plan(doc, marker, s, ctx, records)
    plan = doc.plan

    report = None
    if phase == "complete":
        judged = judge_complete(ev, s, ctx, plan, doc.path, records)
        if isinstance(judged, Verdict):
            return judged
        report = judged  # refused: said below, unless the loop stops first

    big = too_large(ev, ctx)
    if big is not None:
        return stop(records, big, s, ctx)

    require = cfg.check_needs_tool and ctx.run_mode != "quick"  # quick mode has no gates
    s = count_honesty(s, marker, report, evidence, plan, require)
    honest = honest_exit(s, marker, say)
    if honest is not None:
        kind, text = honest
        return stop((*records, Record("honest_exit", {"kind": kind})), text, s, ctx)

    anchors = render_anchors(plan, doc.path, say)
    stuck = stuck_reset(records, s, ctx, anchors)
    if stuck is not None:
        return stuck

    if report is not None:
        refused = Record("refused", {"gates": [r.gate for r in report.failing]})
        text = render_refusal(report, doc.path, say, check_what=failed_what(s))
        return continue_capped((*records, refused), (Continue(text),), s, ctx)

    if phase == "blocked":
        text = blocked_text(marker, s, say)
        return continue_capped(records, (Continue(text + "\n\n" + anchors),), s, ctx)

    prefix, compact, s = context_pressure(ev, s, ctx)
    step = next_step(phase, evidence, require, say)
    body = "\n\n".join(part for part in (prefix, step, anchors) if part)
    return continue_capped(records, (*compact, Continue(body)), s, ctx)


def _evidence(ev: Settled, s: CadenceState, ctx: Context, tools: int | None) -> RoundEvidence:
    """What this round's tool calls prove, judged against the commands that count."""
    from goalkeeper.guards.round_checks import judge_round

    announced = s.announced if s.announces else None
    return judge_round(ev, ctx, tools=tools, announced=announced, named=s.named.splitlines())


def _goal_active(ctx: Context) -> bool:
    doc = ctx.goal
    return doc is not None and doc.goal is not None and doc.goal.status == "active"


def _tool_calls(ev: Settled, s: CadenceState) -> int | None:
    measured = ev.activity.tool_calls
    if measured is not None:
        return max(measured, s.tool_calls)
    return s.tool_calls if s.tool_calls else None


def _advance(
    s: CadenceState, marker: Marker | None, tools: int | None, evidence: RoundEvidence
) -> CadenceState:
    """Count the round; remember when do and check were last reported, what the check's round
    proves, and the last round that changed a project file after its last verification."""
    from goalkeeper.core.cadence.gates import render_ran

    n = s.round + 1
    phase = marker.phase if marker else None
    idle = s.idle_rounds + 1 if tools == 0 else 0 if tools else s.idle_rounds
    s = replace(s, round=n, last_phase=phase, idle_rounds=idle, tool_calls=0, announced="")
    if evidence.changed is not None:
        s = replace(s, last_change=n)
    if phase == "do":
        s = replace(s, last_do=n)
    elif phase == "check":
        s = replace(
            s,
            last_check=n,
            check_status=evidence.status,
            check_ran=render_ran(evidence.ran),
            check_headline=evidence.headline,
        )
    return s
