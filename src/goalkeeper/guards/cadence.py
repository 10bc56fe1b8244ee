"""The cadence guard (seed 000 §3, §5, §6): continue, close or pause when the agent settles.

It re-feeds the plan's anchors when a session starts and before each run, and at every true
settle it reads the reply's last ``[PDCA]`` marker and decides. Every branch is bounded: the
no-plan guidance is given once, stuck resets are capped by ``reset``, the context save-state
directive is given once per crossing, and the engine caps continuations in a row. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar

from goalkeeper.core.anchors import render_anchors
from goalkeeper.core.gates import CheckHistory, GateReport, GateResult, evaluate_gates
from goalkeeper.core.markers import Marker, parse_marker
from goalkeeper.core.messages import Say
from goalkeeper.core.plan import PlanDoc
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
from goalkeeper.guards.spec import Context, Verdict, load_state_value

MAX_ITEMS_NAMED = 12  # per gate: enough to act on, short enough to stay one message


@dataclass(frozen=True, slots=True)
class CadenceState:
    round: int = 0
    """Settles seen in this session."""
    last_phase: str | None = None
    last_do: int | None = None
    last_check: int | None = None
    check_had_tools: bool | None = None
    idle_rounds: int = 0
    """Settles in a row without a tool call."""
    resets: int = 0
    """Compact-and-re-plan resets since the last real user message."""
    tool_calls: int = 0
    """Tool calls counted from ToolCall events since the last settle."""
    guided: bool = False
    """The no-plan guidance was given in this session."""
    context_warned: bool = False
    """The save-state directive was given for the current crossing of compact_at."""
    notified_problem: str | None = None
    """The last plan problem the user was told about (told once per distinct problem)."""


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
            return Verdict(state=replace(state, idle_rounds=0, resets=0))
        if isinstance(event, BeforeAgentStart):
            return Verdict(_anchor_advice(ctx))
        if isinstance(event, ToolCall):
            return Verdict(state=replace(state, tool_calls=state.tool_calls + 1))
        return Verdict()


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
    if doc is None or doc.plan is None:
        return ()
    return (Advise(render_anchors(doc.plan, doc.path, ctx.say)),)


def decide_settle(ev: Settled, s: CadenceState, ctx: Context) -> Verdict[CadenceState]:
    """Seed 000 §3 and §6: one decision per true settle. Pure; every branch is bounded.

    A plan read with a caveat (invalid UTF-8) is used, and the user is told once."""
    verdict = _decide(ev, s, ctx)
    state = verdict.state or s
    doc = ctx.plan
    if doc is not None and doc.plan is not None and doc.note and state.notified_problem != doc.note:
        notice = Notify(ctx.say("plan.note", path=doc.path, note=doc.note), "warning")
        return Verdict((*verdict.actions, notice), replace(state, notified_problem=doc.note))
    return verdict


def _decide(ev: Settled, s: CadenceState, ctx: Context) -> Verdict[CadenceState]:
    cfg, say = ctx.config, ctx.say
    tools = _tool_calls(ev, s)
    marker = parse_marker(ev.last_text)
    s = _advance(s, marker, tools)
    record = Record("settle", {"phase": marker.phase if marker else None, "tools": tools})

    if ev.aborted:
        return Verdict((record, Pause(say("pause.aborted"))), s)
    if ev.error:
        if "schedule" in ctx.capabilities and _goal_active(ctx):
            return Verdict((record,), s)  # the goal guard retries it with back-off (seed 001)
        return Verdict((record, Pause(say("pause.error", error=ev.error))), s)

    doc = ctx.plan
    if doc is None or doc.plan is None:
        return _without_plan(doc, marker, s, ctx, record)

    report = None
    if marker is not None and marker.phase == "complete" and ctx.run_mode == "quick":
        return Verdict((record, Record("closed", {"mode": "quick"}), Close(say("close.quick"))), s)
    if marker is not None and marker.phase == "complete":
        history = CheckHistory(s.last_do, s.last_check, s.check_had_tools)
        report = evaluate_gates(doc.plan, history, require_tool=cfg.check_needs_tool)
        if report.passed:
            gates = ", ".join(r.gate for r in report.results)
            return Verdict((record, Record("closed", {}), Close(say("close.done", gates=gates))), s)

    size = ev.activity.session_bytes
    if size is not None and size > cfg.session_mb * 1024 * 1024:
        mb = f"{size / 1024 / 1024:.0f}"
        limit = f"{cfg.session_mb:g}"
        return Verdict((record, Pause(say("session.too_large", mb=mb, limit=limit))), s)

    anchors = render_anchors(doc.plan, doc.path, say)
    if s.idle_rounds >= cfg.stuck:
        if s.resets >= cfg.reset:
            return Verdict((record, Pause(say("stuck.pause", resets=s.resets))), s)
        rounds = s.idle_rounds
        s = replace(s, resets=s.resets + 1, idle_rounds=0)
        if "compact" in ctx.capabilities:
            text = say("stuck.compact", rounds=rounds)
            actions: tuple[Action, ...] = (Compact(say("compact.instructions")), Continue(text))
        else:
            actions = (Continue(say("stuck.save", rounds=rounds) + "\n\n" + anchors),)
        return Verdict((record, Record("stuck_reset", {"reset": s.resets}), *actions), s)

    if report is not None:
        refused = Record("refused", {"gates": [r.gate for r in report.failing]})
        return Verdict((record, refused, Continue(render_refusal(report, doc.path, say))), s)

    if marker is not None and marker.phase == "blocked":
        reason = marker.reason or say("blocked.no_reason")
        return Verdict(
            (record, Continue(say("blocked.decide", reason=reason) + "\n\n" + anchors)), s
        )

    prefix, compact, s = _context_pressure(ev, s, ctx)
    step = say(f"phase.{marker.phase}" if marker else "phase.none")
    body = "\n\n".join(part for part in (prefix, step, anchors) if part)
    return Verdict((record, *compact, Continue(body)), s)


def render_refusal(report: GateReport, path: str, say: Say) -> str:
    """Every failing gate in one message, each open item named, then the three ways out."""
    parts = [say("close.refused", count=len(report.failing))]
    for result in report.failing:
        parts.extend(_gate_lines(result, path, say))
    if any(r.gate in ("okr", "map") for r in report.failing):
        parts.append(say("gate.ways_out"))
    return "\n".join(parts)


def _gate_lines(result: GateResult, path: str, say: Say) -> list[str]:
    if result.gate == "check":
        return [say(f"gate.check.{result.open[0].problem}")]
    lines = [say(f"gate.{result.gate}", n=len(result.open), path=path)]
    for item in result.open[:MAX_ITEMS_NAMED]:
        lines.append(say(f"gate.item.{item.problem}", text=item.text))
    if len(result.open) > MAX_ITEMS_NAMED:
        lines.append(say("gate.item.more", n=len(result.open) - MAX_ITEMS_NAMED))
    return lines


def _without_plan(
    doc: PlanDoc | None, marker: Marker | None, s: CadenceState, ctx: Context, record: Record
) -> Verdict[CadenceState]:
    """No usable plan: guide at most once per session, tell the user once about a broken file,
    then stay silent. Never blocks on a broken plan."""
    actions: list[Action] = [record]
    if doc is not None and doc.problem and s.notified_problem != doc.problem:
        problem = doc.problem
        actions.append(
            Notify(ctx.say("plan.unreadable", path=doc.path, problem=problem), "warning")
        )
        return Verdict(tuple(actions), replace(s, notified_problem=problem))
    asked_to_guide = doc is None and ctx.config.no_plan == "guide" and not s.guided
    if asked_to_guide and (marker is None or marker.phase != "complete"):
        actions.append(Continue(ctx.say("guide.no_plan")))
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


def _advance(s: CadenceState, marker: Marker | None, tools: int | None) -> CadenceState:
    """Count the round and remember when do and check were last reported."""
    n = s.round + 1
    phase = marker.phase if marker else None
    idle = s.idle_rounds + 1 if tools == 0 else 0 if tools else s.idle_rounds
    s = replace(s, round=n, last_phase=phase, idle_rounds=idle, tool_calls=0)
    if phase == "do":
        s = replace(s, last_do=n)
    elif phase == "check":
        s = replace(s, last_check=n, check_had_tools=None if tools is None else tools > 0)
    return s
