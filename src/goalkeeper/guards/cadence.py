"""The cadence guard (seed 000 §3, §5, §6): continue, close or pause when the agent settles.

It re-feeds the plan's anchors when a session starts and before each run, and at every true
settle it reads the reply's last ``[PDCA]`` marker and decides. A ``[PDCA] check`` counts only
when a verification ran and finished in its round (``core.gates.evaluate_round``). Every branch
is bounded: the no-plan guidance is given once, stuck resets are capped by ``reset``, the
context save-state directive is given once per crossing, continuations in a row are capped by
``max_continuations``, and the honest exits pause after ``HONEST_BOUND`` repeats however many
tools the agent called: the same blocker, blocked rounds without progress on the plan, a check
that ran no verification, the same refused complete. Whenever the agent is let stop while a
gate is open, the user is told in one line that it is not done and why. Pure.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar

from goalkeeper.core.cadence.anchors import render_anchors
from goalkeeper.core.cadence.gates import (
    COUNTED,
    CheckHistory,
    GateReport,
    GateResult,
    RanCommand,
    RoundEvidence,
    evaluate_gates,
    kr_commands,
    open_commitments,
    parse_ran,
    render_ran,
)
from goalkeeper.core.cadence.markers import Marker, normalize_reason, parse_marker
from goalkeeper.core.cadence.plan import Plan, PlanDoc, has_commitments
from goalkeeper.core.messages import Say
from goalkeeper.core.proof.protected import session_key
from goalkeeper.core.values import (
    Action,
    Advise,
    BeforeAgentStart,
    Close,
    Compact,
    Continue,
    Event,
    Notify,
    Pause,
    Record,
    SessionStart,
    Settled,
    ToolCall,
    UserPrompt,
)
from goalkeeper.guards.plan_tests import check_close
from goalkeeper.guards.round_checks import announce, judge_round
from goalkeeper.guards.spec import Context, Verdict, load_state_value

MAX_ITEMS_NAMED = 12  # per gate: enough to act on, short enough to stay one message
HONEST_BOUND = 3
"""The same blocker, blocked rounds without progress, checks without a verification, the same
refused complete: the third time pauses (Codex pauses on the third identical blocker)."""
"""Besides the plan folder, where the loop keeps its records (GOAL.md, mode runs): writing
there is bookkeeping, not a change a check must cover."""


@dataclass(frozen=True, slots=True)
class CadenceState:
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
        return asdict(state)

    def on_event(self, event: Event, state: CadenceState, ctx: Context) -> Verdict[CadenceState]:
        if isinstance(event, Settled):
            return decide_settle(event, state, ctx)
        if isinstance(event, SessionStart):
            return _on_session_start(event, state, ctx)
        if isinstance(event, UserPrompt):
            plan = ctx.plan.plan if ctx.plan is not None else None
            named = "\n".join(c for c in kr_commands(plan) if "\n" not in c)
            return Verdict(state=replace(_fresh_start(state), named=named))
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
    cfg, say = ctx.config, ctx.say
    tools = _tool_calls(ev, s)
    marker = parse_marker(ev.last_text)
    evidence = _evidence(ev, s, ctx, tools)
    s = _advance(s, marker, tools, evidence)
    phase = marker.phase if marker else None
    records: tuple[Action, ...] = (Record("settle", {"phase": phase, "tools": tools}),)
    if phase == "check":
        ran = [{"command": r.command[:200], "verdict": r.verdict} for r in evidence.ran[-5:]]
        records += (Record("check", {"status": evidence.status, "ran": ran}),)

    if ev.aborted:
        return _stop(records, say("pause.aborted"), s, ctx)
    if ev.error:
        if "schedule" in ctx.capabilities and _goal_active(ctx):
            return Verdict(records, s)  # the goal guard retries it with back-off (seed 001)
        return _stop(records, say("pause.error", error=ev.error), s, ctx)

    doc = ctx.plan
    if doc is None or doc.plan is None or not has_commitments(doc.plan):
        return _without_plan(doc, marker, s, ctx, records)
    plan = doc.plan

    report = None
    if phase == "complete" and ctx.run_mode == "quick":
        quick = (Record("closed", {"mode": "quick"}), Close(say("close.quick")))
        return Verdict((*records, *quick), s)
    if phase == "complete":
        report = evaluate_gates(plan, _history(s), require_tool=cfg.check_needs_tool)
        if report.passed:
            kept = check_close(session_key(ev.session_id), s.tests_held, doc.path, ctx)
            if kept.ask is not None:
                return Verdict((kept.ask,), s)
            if kept.held:
                return Verdict((*records, *kept.held), replace(s, tests_held=kept.key))
            gates = ", ".join(r.gate for r in report.results)
            data = close_record(plan, doc.path, s, report)
            if kept.record is not None:
                data["protected_tests"] = kept.record
            closed = (Record("closed", data), Close(say("close.done", gates=gates)))
            return Verdict((*records, *closed), s)

    size = ev.activity.session_bytes
    if size is not None and size > cfg.session_mb * 1024 * 1024:
        value = size / 1024 / 1024
        mb = f"{value:.0f}" if value - cfg.session_mb >= 1 else f"{value:.2f}"  # 50.00 > 50
        limit = f"{cfg.session_mb:g}"
        return _stop(records, say("session.too_large", mb=mb, limit=limit), s, ctx)

    require = cfg.check_needs_tool and ctx.run_mode != "quick"  # quick mode has no gates
    s = _count_honesty(s, marker, report, evidence, plan, require)
    honest = _honest_exit(s, marker, say)
    if honest is not None:
        kind, text = honest
        return _stop((*records, Record("honest_exit", {"kind": kind})), text, s, ctx)

    anchors = render_anchors(plan, doc.path, say)
    if s.idle_rounds >= cfg.stuck:
        if s.resets >= cfg.reset:
            return _stop(records, say("stuck.pause", resets=s.resets), s, ctx)
        rounds = s.idle_rounds
        s = replace(s, resets=s.resets + 1, idle_rounds=0)
        if "compact" in ctx.capabilities:
            text = say("stuck.compact", rounds=rounds)
            actions: tuple[Action, ...] = (Compact(say("compact.instructions")), Continue(text))
        else:
            actions = (Continue(say("stuck.save", rounds=rounds) + "\n\n" + anchors),)
        reset = Record("stuck_reset", {"reset": s.resets})
        return _continue((*records, reset), actions, s, ctx)

    if report is not None:
        refused = Record("refused", {"gates": [r.gate for r in report.failing]})
        text = render_refusal(report, doc.path, say, check_what=_failed_what(s))
        return _continue((*records, refused), (Continue(text),), s, ctx)

    if phase == "blocked":
        reason = marker.reason if marker and marker.reason else say("blocked.no_reason")
        text = say("blocked.decide", reason=reason)
        if s.blocked_same >= 2:
            text += " " + say("blocked.again", n=s.blocked_same, bound=HONEST_BOUND)
        return _continue(records, (Continue(text + "\n\n" + anchors),), s, ctx)

    prefix, compact, s = _context_pressure(ev, s, ctx)
    step = _next_step(phase, evidence, require, say)
    body = "\n\n".join(part for part in (prefix, step, anchors) if part)
    return _continue(records, (*compact, Continue(body)), s, ctx)


FORGED = frozenset({"none", "idle", "unreadable", "unknown", "narrowed"})
"""Check rounds that prove nothing: three in a row (with the completes refused for them) pause
the loop (``honest_exit`` ``forged_check``)."""


UNVERIFIED = frozenset(
    {"check_not_verified", "check_without_evidence", "check_unreadable", "check_unknown"}
    | {"check_narrowed"}
)
"""Check-gate problems of a check that proved nothing (as opposed to one that failed)."""


def _next_step(phase: str | None, evidence: RoundEvidence, require: bool, say: Say) -> str:
    """The next PDCA step; after a check whose round proves nothing, the check again, saying
    which commands ran and why none counts."""
    if phase != "check" or not require:
        return say(f"phase.{phase}" if phase else "phase.none")
    status = evidence.status
    if status in ("none", "unknown", "narrowed"):
        return say(f"check.{status}", ran=_ran_text(evidence.ran, say))
    if status in ("idle", "unreadable"):
        return say(f"check.{status}")
    if status == "stale":
        return say("check.stale", ran=_ran_text(evidence.ran, say), path=evidence.changed)
    if status == "failed":
        failed = [r for r in evidence.ran if r.verdict == "failed"]
        what = evidence.headline or (failed[-1].command if failed else "")
        return say("check.failed", what=what)
    return say("phase.check")


def _stop(
    records: tuple[Action, ...], reason: str, s: CadenceState, ctx: Context
) -> Verdict[CadenceState]:
    """Let the agent stop and say why; when a gate is still open, the stop's last line tells
    the user that the work is not done and which gate holds it (the truth at a stop)."""
    truth = _not_done(s, ctx)
    return Verdict((*records, Pause(f"{reason}\n{truth}" if truth else reason)), s)


def _continue(
    records: tuple[Action, ...], actions: tuple[Action, ...], s: CadenceState, ctx: Context
) -> Verdict[CadenceState]:
    """Continue, unless this would pass ``max_continuations`` in a row: then pause with the
    truth (the engine holds the same cap for every guard's continuations)."""
    cap = ctx.config.max_continuations
    if s.continued >= cap:
        capped = Record("capped", {"continuations": s.continued})
        return _stop((*records, capped), ctx.say("pause.cap", n=cap), s, ctx)
    return Verdict((*records, *actions), replace(s, continued=s.continued + 1))


def _not_done(s: CadenceState, ctx: Context) -> str | None:
    """The line "goalkeeper: not done: …", naming each open gate in a few words; None when no
    plan is there to judge, in quick mode (it has no gates), or when every gate passes."""
    doc = ctx.plan
    if doc is None or doc.plan is None or ctx.run_mode == "quick":
        return None
    report = evaluate_gates(doc.plan, _history(s), require_tool=ctx.config.check_needs_tool)
    if report.passed:
        return None
    say = ctx.say
    parts = []
    for result in report.failing:
        if result.gate == "check":
            parts.append(say(f"stop.gate.check.{result.open[0].problem}"))
        else:
            parts.append(say(f"stop.gate.{result.gate}", n=len(result.open)))
    return say("stop.not_done", gates=say("stop.separator").join(parts))


def _history(s: CadenceState) -> CheckHistory:
    return CheckHistory(
        s.last_do,
        s.last_check,
        s.check_status,  # type: ignore[arg-type]
        s.last_change,
        s.check_ran,
    )


def _evidence(ev: Settled, s: CadenceState, ctx: Context, tools: int | None) -> RoundEvidence:
    """What this round's tool calls prove, judged against the commands that count."""
    announced = s.announced if s.announces else None
    return judge_round(ev, ctx, tools=tools, announced=announced, named=s.named.splitlines())


def _count_honesty(
    s: CadenceState,
    marker: Marker | None,
    report: GateReport | None,
    evidence: RoundEvidence,
    plan: Plan,
    require: bool,
) -> CadenceState:
    """Update the counts behind the honest exits (each restarts at a real user message)."""
    phase = marker.phase if marker else None
    if phase == "check" and require:
        forged = evidence.status in FORGED
        verified = evidence.status in COUNTED or evidence.status == "stale"
        s = replace(s, forged=s.forged + 1 if forged else 0 if verified else s.forged)
    if report is not None:
        check = report.get("check")
        if (
            require
            and check is not None
            and not check.passed
            and check.open[0].problem in UNVERIFIED
        ):
            s = replace(s, forged=s.forged + 1)
        signature = _refusal_signature(report)
        same = s.refusals + 1 if signature == s.refusal else 1
        s = replace(s, refusal=signature, refusals=same)
    if phase == "blocked":
        s = _count_blocked(s, marker.reason if marker else None, plan)
    return s


def _honest_exit(s: CadenceState, marker: Marker | None, say: Say) -> tuple[str, str] | None:
    """(kind, the pause's text) when the loop has shown it cannot go on by itself."""
    reason = marker.reason if marker and marker.reason else say("blocked.no_reason")
    phase = marker.phase if marker else None
    if phase == "blocked" and s.blocked_same >= HONEST_BOUND:
        return "blocked_same", say("blocked.pause_same", n=s.blocked_same, reason=reason)
    if phase == "blocked" and s.blocked_rounds >= HONEST_BOUND:
        return "blocked_stalled", say("blocked.pause_stalled", n=s.blocked_rounds, reason=reason)
    if s.forged >= HONEST_BOUND:
        ran = _ran_text(parse_ran(s.check_ran), say)
        return "forged_check", say("check.pause_forged", n=s.forged, ran=ran)
    if phase == "complete" and s.refusals >= HONEST_BOUND:
        return "same_refusal", say("refusal.pause", n=s.refusals)
    return None


def _count_blocked(s: CadenceState, reason: str | None, plan: Plan) -> CadenceState:
    """The same reason counts up; so do blocked rounds until one of the commitments open at
    the first of them is closed, rewritten or removed (a commitment added and ticked later is
    not progress on what was open, so this count is bounded by what the plan held)."""
    norm = normalize_reason(reason)
    same = s.blocked_same + 1 if s.blocked_same and norm == s.blocked_reason else 1
    now = {_short(text) for text in open_commitments(plan)}
    if not s.blocked_rounds:
        snapshot = " ".join(sorted(now))
        return replace(
            s,
            blocked_reason=norm,
            blocked_same=same,
            blocked_rounds=1,
            blocked_open=snapshot,
            blocked_resolved=0,
        )
    resolved = len(set(s.blocked_open.split()) - now)
    if resolved > s.blocked_resolved:
        return replace(
            s, blocked_reason=norm, blocked_same=same, blocked_rounds=1, blocked_resolved=resolved
        )
    return replace(s, blocked_reason=norm, blocked_same=same, blocked_rounds=s.blocked_rounds + 1)


def _refusal_signature(report: GateReport) -> str:
    """Which gates failed and on what: the same signature is the same refusal (the check gate
    by its problem only: other commands that prove nothing are the same refusal)."""
    parts = []
    for result in report.failing:
        for item in result.open:
            text = "" if result.gate == "check" else item.text
            parts.append(f"{result.gate}:{item.problem}:{text}")
    return _short("\n".join(parts))


def _short(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _ran_text(ran: tuple[RanCommand, ...], say: Say) -> str:
    if not ran:
        return say("check.ran.nothing")
    return ", ".join(say(f"check.ran.{r.verdict}", command=r.command) for r in ran)


def _failed_what(s: CadenceState) -> str:
    if s.check_headline:
        return s.check_headline
    failed = [r for r in parse_ran(s.check_ran) if r.verdict == "failed"]
    return failed[-1].command if failed else ""


def render_refusal(report: GateReport, path: str, say: Say, *, check_what: str = "") -> str:
    """Every failing gate in one message, each open item named, then the three ways out.
    ``check_what``: what failed in the last check (its failing line or command)."""
    parts = [say("close.refused", count=len(report.failing))]
    for result in report.failing:
        parts.extend(_gate_lines(result, path, say, check_what))
    if any(r.gate in ("okr", "map") for r in report.failing):
        parts.append(say("gate.ways_out"))
    return "\n".join(parts)


def _gate_lines(result: GateResult, path: str, say: Say, check_what: str = "") -> list[str]:
    if result.gate == "check":
        item = result.open[0]
        ran = _ran_text(parse_ran(item.text), say)
        return [say(f"gate.check.{item.problem}", ran=ran, what=check_what)]
    lines = [say(f"gate.{result.gate}", n=len(result.open), path=path)]
    for item in result.open[:MAX_ITEMS_NAMED]:
        lines.append(say(f"gate.item.{item.problem}", text=item.text))
    if len(result.open) > MAX_ITEMS_NAMED:
        lines.append(say("gate.item.more", n=len(result.open) - MAX_ITEMS_NAMED))
    return lines


def _without_plan(
    doc: PlanDoc | None,
    marker: Marker | None,
    s: CadenceState,
    ctx: Context,
    records: tuple[Action, ...],
) -> Verdict[CadenceState]:
    """No usable plan: guide at most once per session, tell the user once about a broken file,
    then stay silent. Never blocks on a broken plan. A plan with no key result and no leaf is
    no plan (seed000 D8): nothing in it can hold a close, so none is made on it."""
    actions: list[Action] = [*records]
    if doc is not None and doc.problem and s.notified_problem != doc.problem:
        problem = doc.problem
        actions.append(
            Notify(ctx.say("plan.unreadable", path=doc.path, problem=problem), "warning")
        )
        return Verdict(tuple(actions), replace(s, notified_problem=problem))
    empty = doc is not None and doc.plan is not None  # read, but it commits to nothing
    asked_to_guide = (doc is None or empty) and ctx.config.no_plan == "guide" and not s.guided
    if asked_to_guide and (marker is None or marker.phase != "complete"):
        text = ctx.say("guide.empty_plan", path=doc.path) if empty and doc else None
        actions.append(Continue(text or ctx.say("guide.no_plan")))
        return Verdict(tuple(actions), replace(s, guided=True))
    return Verdict(tuple(actions), s)


def _context_pressure(
    ev: Settled, s: CadenceState, ctx: Context
) -> tuple[str, tuple[Action, ...], CadenceState]:
    """Above ``compact_at``: compact where the host can, else ask once to save state first."""
    ratio = ev.activity.context_ratio(ctx.config.context_window)
    if ratio is None:
        return "", (), s
    if ratio < ctx.config.compact_at:
        return "", (), replace(s, context_warned=False) if s.context_warned else s
    if s.context_warned:
        return "", (), s  # once per crossing: compaction that no longer helps is not retried
    s = replace(s, context_warned=True)
    if "compact" in ctx.capabilities:
        return "", (Compact(ctx.say("compact.instructions")),), s
    return ctx.say("context.save_state", percent=round(ratio * 100)), (), s


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


def close_record(
    plan: Plan, path: str | None, s: CadenceState, report: GateReport
) -> dict[str, Any]:
    """Issue 11 item 7: what a close rests on, for a later report. The gates that passed, the
    last check (its verdict and the commands that ran in its round, as goalkeeper read them),
    the plan's path and counts, and every cancelled commitment with its reason."""
    cancelled = [
        {"kind": "kr", "text": kr.text[:200], "reason": (kr.reason or "")[:200]}
        for kr in plan.key_results
        if kr.state == "cancelled"
    ]
    cancelled += [
        {"kind": "leaf", "text": leaf.text[:200], "reason": (leaf.reason or "")[:200]}
        for leaf in plan.leaves
        if leaf.state == "cancelled"
    ]
    ran = [{"command": r.command, "verdict": r.verdict} for r in parse_ran(s.check_ran)]
    return {
        "gates": [r.gate for r in report.results],
        "check": {"status": s.check_status, "round": s.last_check, "ran": ran},
        "plan": path,
        "key_results": {
            "done": sum(kr.state == "done" for kr in plan.key_results),
            "total": len(plan.key_results),
        },
        "leaves": {
            "done": sum(leaf.state == "done" for leaf in plan.leaves),
            "total": len(plan.leaves),
        },
        "cancelled": cancelled,
    }
