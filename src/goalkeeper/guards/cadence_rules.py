"""The loop's patience at a settle (seed 000 §3, §6): when to go on, and when to stop.

Every branch is bounded. Stuck resets (rounds without a tool call) are capped by ``reset``; the
context save-state directive is given once per crossing of ``compact_at``; continuations in a
row are capped by ``max_continuations``; the honest exits pause after ``HONEST_BOUND`` repeats
however many tools the agent called: the same blocker, blocked rounds without progress on the
plan, a check that ran no verification; the same refused complete after ``REFUSAL_BOUND``.
Whenever the agent is let stop while a gate is open, the user is told in one line that it is
not done and why (``cadence_close.not_done``). The continuation's words (the next PDCA step,
the no-plan guidance) are chosen here too. Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec.structs import replace

from goalkeeper.core.cadence.gates import (
    COUNTED,
    GateReport,
    RoundEvidence,
    open_commitments,
    parse_ran,
)
from goalkeeper.core.cadence.markers import Marker, normalize_reason
from goalkeeper.core.cadence.plan import Plan, PlanDoc
from goalkeeper.core.messages import Say
from goalkeeper.core.values import (
    Action,
    ClearContext,
    Compact,
    Continue,
    Notify,
    Pause,
    Record,
    Settled,
)
from goalkeeper.guards.cadence_close import not_done, ran_text
from goalkeeper.guards.spec import Context, Verdict

if TYPE_CHECKING:
    from goalkeeper.guards.cadence import CadenceState

HONEST_BOUND = 3
REFUSAL_BOUND = 2
"""The same ``[PDCA] complete`` refused for the same open gates twice in a row pauses (issue 22
§7): the agent was told what is open and claimed the same again, so a third round is a paid turn
that changes nothing; the user is told instead."""
"""The same blocker, blocked rounds without progress, checks without a verification, the same
refused complete: the third time pauses (Codex pauses on the third identical blocker)."""


FORGED = frozenset({"none", "idle", "unreadable", "unknown", "narrowed"})
"""Check rounds that prove nothing: three in a row (with the completes refused for them) pause
the loop (``honest_exit`` ``forged_check``)."""


UNVERIFIED = frozenset(
    {"check_not_verified", "check_without_evidence", "check_unreadable", "check_unknown"}
    | {"check_narrowed"}
)
"""Check-gate problems of a check that proved nothing (as opposed to one that failed)."""


def too_large(ev: Settled, ctx: Context) -> str | None:
    """The pause's text when the session's transcript has grown past ``session_mb``."""
    size, limit_mb = ev.activity.session_bytes, ctx.config.session_mb
    if size is None or size <= limit_mb * 1024 * 1024:
        return None
    value = size / 1024 / 1024
    mb = f"{value:.0f}" if value - limit_mb >= 1 else f"{value:.2f}"  # 50.00 > 50
    return ctx.say("session.too_large", mb=mb, limit=f"{limit_mb:g}")


def stuck_reset(
    records: tuple[Action, ...], s: CadenceState, ctx: Context, anchors: str
) -> Verdict[CadenceState] | None:
    """``stuck`` rounds in a row without a tool call: re-plan from a smaller step, at most
    ``reset`` times, then pause. None when the agent is not stuck.

    By what the host can do, in this order: clear the context (the continuation starts fresh
    and carries the stuck note, the goal's and the plan's anchors: all the model has then); else
    compact and re-plan; else ask the agent to save its state into the plan and re-plan. A clear
    is preferred to a compaction because the rounds of talk without action are the problem: a
    compaction's summary, written by the model, carries them on, while after a clear the model
    reads only what goalkeeper renders from GOAL.md and the plan on disk. Only this rule, on
    goalkeeper's own count of tool calls, asks for a clear; nothing the agent writes does."""
    cfg, say = ctx.config, ctx.say
    if s.idle_rounds < cfg.stuck:
        return None
    if s.resets >= cfg.reset:
        return stop(records, say("stuck.pause", resets=s.resets), s, ctx)
    rounds = s.idle_rounds
    s = replace(s, resets=s.resets + 1, idle_rounds=0)
    actions: tuple[Action, ...]
    if "clear_context" in ctx.capabilities:
        actions = (
            ClearContext(),
            Continue(fresh_start(say("stuck.clear", rounds=rounds), anchors, ctx, s.request)),
        )
    elif "compact" in ctx.capabilities:
        text = say("stuck.compact", rounds=rounds)
        actions = (Compact(say("compact.instructions")), Continue(text))
    else:
        actions = (Continue(say("stuck.save", rounds=rounds) + "\n\n" + anchors),)
    reset = Record("stuck_reset", {"reset": s.resets})
    return continue_capped((*records, reset), actions, s, ctx)


def fresh_start(note: str, anchors: str, ctx: Context, request: str = "") -> str:
    """A continuation into a cleared context: the note, the user's last message (the chat that
    held it is gone), then what goalkeeper anchors (the goal as it is re-fed before each run,
    the plan's anchors), each rendered from the files."""
    from goalkeeper.guards.goal import goal_anchor

    goal = goal_anchor(ctx)
    quoted = "\n".join("> " + line for line in request.splitlines())
    asked = ctx.say("stuck.clear.request", request=quoted) if request else ""
    return "\n\n".join(p for p in (note, asked, goal.text if goal else "", anchors) if p)


def blocked_text(marker: Marker | None, s: CadenceState, say: Say) -> str:
    """What a blocked round is answered with: decide, and how often it was said already."""
    reason = marker.reason if marker and marker.reason else say("blocked.no_reason")
    text = say("blocked.decide", reason=reason)
    if s.blocked_same >= 2:
        text += " " + say("blocked.again", n=s.blocked_same, bound=HONEST_BOUND)
    return text


def stop(
    records: tuple[Action, ...], reason: str, s: CadenceState, ctx: Context
) -> Verdict[CadenceState]:
    """Let the agent stop and say why; when a gate is still open, the stop's last line tells
    the user that the work is not done and which gate holds it (the truth at a stop)."""
    truth = not_done(s, ctx)
    return Verdict((*records, Pause(f"{reason}\n{truth}" if truth else reason)), s)


def continue_capped(
    records: tuple[Action, ...], actions: tuple[Action, ...], s: CadenceState, ctx: Context
) -> Verdict[CadenceState]:
    """Continue, unless this would pass ``max_continuations`` in a row: then pause with the
    truth (the engine holds the same cap for every guard's continuations)."""
    cap = ctx.config.max_continuations
    if s.continued >= cap:
        capped = Record("capped", {"continuations": s.continued})
        return stop((*records, capped), ctx.say("pause.cap", n=cap), s, ctx)
    return Verdict((*records, *actions), replace(s, continued=s.continued + 1))


def next_step(phase: str | None, evidence: RoundEvidence, require: bool, say: Say) -> str:
    """The next PDCA step; after a check whose round proves nothing, the check again, saying
    which commands ran and why none counts."""
    if phase != "check" or not require:
        return say(f"phase.{phase}" if phase else "phase.none")
    status = evidence.status
    if status in ("none", "unknown", "narrowed"):
        return say(f"check.{status}", ran=ran_text(evidence.ran, say))
    if status in ("idle", "unreadable"):
        return say(f"check.{status}")
    if status == "stale":
        return say("check.stale", ran=ran_text(evidence.ran, say), path=evidence.changed)
    if status == "failed":
        failed = [r for r in evidence.ran if r.verdict == "failed"]
        what = evidence.headline or (failed[-1].command if failed else "")
        return say("check.failed", what=what)
    return say("phase.check")


def count_honesty(
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


def honest_exit(s: CadenceState, marker: Marker | None, say: Say) -> tuple[str, str] | None:
    """(kind, the pause's text) when the loop has shown it cannot go on by itself."""
    reason = marker.reason if marker and marker.reason else say("blocked.no_reason")
    phase = marker.phase if marker else None
    if phase == "blocked" and s.blocked_same >= HONEST_BOUND:
        return "blocked_same", say("blocked.pause_same", n=s.blocked_same, reason=reason)
    if phase == "blocked" and s.blocked_rounds >= HONEST_BOUND:
        return "blocked_stalled", say("blocked.pause_stalled", n=s.blocked_rounds, reason=reason)
    if s.forged >= HONEST_BOUND:
        ran = ran_text(parse_ran(s.check_ran), say)
        return "forged_check", say("check.pause_forged", n=s.forged, ran=ran)
    if phase == "complete" and s.refusals >= REFUSAL_BOUND:
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
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def without_plan(
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


def context_pressure(
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
