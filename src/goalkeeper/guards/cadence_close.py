"""The close at a settle (seed 000 §5, issue 11): whether a ``[PDCA] complete`` closes.

A complete closes only when every gate of the plan passes (``core.cadence.gates``) and the
tests kept at the session's first prompt still pass against the agent's code (``plan_tests``);
a close records what it rests on. When the gates refuse, the agent is told every open item in
one message; when the loop stops with a gate open, the user is told which one. The cadence
guard (``guards.cadence``) decides when to ask; this module says what the gates say. Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from goalkeeper.core.cadence.gates import (
    CheckHistory,
    GateReport,
    GateResult,
    RanCommand,
    evaluate_gates,
    parse_ran,
)
from goalkeeper.core.cadence.plan import Plan
from goalkeeper.core.messages import Say
from goalkeeper.core.proof.protected import session_key
from goalkeeper.core.values import Action, Close, Record, Settled
from goalkeeper.guards.plan_tests import check_close
from goalkeeper.guards.spec import Context, Verdict

if TYPE_CHECKING:
    from goalkeeper.guards.cadence import CadenceState

MAX_ITEMS_NAMED = 12  # per gate: enough to act on, short enough to stay one message


def judge_complete(
    ev: Settled,
    s: CadenceState,
    ctx: Context,
    plan: Plan,
    path: str,
    records: tuple[Action, ...],
) -> Verdict[CadenceState] | GateReport:
    """A ``[PDCA] complete`` on a plan that commits to something: the verdict when it closes
    (quick mode has no gates), is held to the kept tests or asks the engine about them first;
    else the report of the gates that refuse it, for the caller's patience rules."""
    say = ctx.say
    if ctx.run_mode == "quick":
        quick = (Record("closed", {"mode": "quick"}), Close(say("close.quick")))
        return Verdict((*records, *quick), s)
    report = evaluate_gates(plan, check_history(s), require_tool=ctx.config.check_needs_tool)
    if not report.passed:
        return report
    kept = check_close(session_key(ev.session_id), s.tests_held, path, ctx)
    if kept.ask is not None:
        return Verdict((kept.ask,), s)
    if kept.held:
        return Verdict((*records, *kept.held), replace(s, tests_held=kept.key))
    gates = ", ".join(r.gate for r in report.results)
    data = close_record(plan, path, s, report)
    if kept.record is not None:
        data["protected_tests"] = kept.record
    closed = (Record("closed", data), Close(say("close.done", gates=gates)))
    return Verdict((*records, *closed), s)


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


def check_history(s: CadenceState) -> CheckHistory:
    return CheckHistory(
        s.last_do,
        s.last_check,
        s.check_status,  # type: ignore[arg-type]
        s.last_change,
        s.check_ran,
    )


def not_done(s: CadenceState, ctx: Context) -> str | None:
    """The line "goalkeeper: not done: …", naming each open gate in a few words; None when no
    plan is there to judge, in quick mode (it has no gates), or when every gate passes."""
    doc = ctx.plan
    if doc is None or doc.plan is None or ctx.run_mode == "quick":
        return None
    report = evaluate_gates(doc.plan, check_history(s), require_tool=ctx.config.check_needs_tool)
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
        ran = ran_text(parse_ran(item.text), say)
        return [say(f"gate.check.{item.problem}", ran=ran, what=check_what)]
    lines = [say(f"gate.{result.gate}", n=len(result.open), path=path)]
    for item in result.open[:MAX_ITEMS_NAMED]:
        lines.append(say(f"gate.item.{item.problem}", text=item.text))
    if len(result.open) > MAX_ITEMS_NAMED:
        lines.append(say("gate.item.more", n=len(result.open) - MAX_ITEMS_NAMED))
    return lines


def failed_what(s: CadenceState) -> str:
    if s.check_headline:
        return s.check_headline
    failed = [r for r in parse_ran(s.check_ran) if r.verdict == "failed"]
    return failed[-1].command if failed else ""


def ran_text(ran: tuple[RanCommand, ...], say: Say) -> str:
    if not ran:
        return say("check.ran.nothing")
    return ", ".join(say(f"check.ran.{r.verdict}", command=r.command) for r in ran)
