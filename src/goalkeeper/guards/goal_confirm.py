"""Timed confirmations of a goal (seed 001 decision 4): the user can intervene but does not have
to. Where the host can ask and wait (Pi's ``ctx.ui.select``), goalkeeper asks

- when it **detected** a goal in a prompt (not an explicit ``/gk-goal``): keep it as the goal
  goalkeeper verifies, or drop it (detection reads words, and a wrong goal costs rounds);
- when a session starts with an active goal last touched long ago (**stale state**): go on
  with it, or pause it;

and, for a paused goal, what next (``goal_repair.ask_paused``). Each question has a safe
default that holds after ``CONFIRM_TIMEOUT_S``: keeping what is, which loses nothing. A host
that cannot ask gets the same facts as text (the goal's anchors, the recorded-goal notice).
Pure: the answers are ``Choice`` events, acted on through ``WriteGoal``.
"""

from __future__ import annotations

from datetime import datetime

from msgspec.structs import replace

from goalkeeper.core.goals.goal import Goal, GoalUpdate
from goalkeeper.core.values import Action, Ask, Choice, Notify, Record, SessionStart, WriteGoal
from goalkeeper.guards.goal_state import GoalState, active_goal, stamp, trusted_goal_of
from goalkeeper.guards.spec import Context, Verdict

CONFIRM_TIMEOUT_S = 10.0
"""Seed 001 decision 4: ``ctx.ui.select({ timeout: 10000 })``; the default then holds."""
STALE_AFTER_S = 12 * 3600.0
"""An active goal not updated for this long, met at a session's start, is asked about."""
CONFIRM_KEY = "goal.confirm"
STALE_KEY = "goal.stale"


def confirm_detected(objective: str, source: str, ctx: Context) -> tuple[Action, ...]:
    """The question after a goal was detected in a prompt (none for an explicit command, which
    says what it means, or on a host that cannot ask)."""
    if source == "command" or "ask" not in ctx.capabilities:
        return ()
    say = ctx.say
    options = (("keep", say("goal.confirm.keep")), ("drop", say("goal.confirm.drop")))
    title = say("goal.confirm.title", objective=objective)
    return (Ask(CONFIRM_KEY, title, options, "keep", CONFIRM_TIMEOUT_S),)


def stale_at_start(ev: SessionStart, s: GoalState, ctx: Context) -> Verdict[GoalState] | None:
    """At a session's start (not a compaction), once per session: an active goal whose GOAL.md
    was last updated more than ``STALE_AFTER_S`` ago is asked about."""
    if ev.source not in ("startup", "resume") or "ask" not in ctx.capabilities or s.stale_asked:
        return None
    goal = active_goal(ctx)
    age = _age_s(goal, ctx.now) if goal is not None else None
    if goal is None or age is None or age < STALE_AFTER_S:
        return None
    say = ctx.say
    options = (("continue", say("goal.stale.continue")), ("pause", say("goal.stale.pause")))
    title = say("goal.stale.title", objective=goal.objective, hours=int(age // 3600))
    ask = Ask(STALE_KEY, title, options, "continue", CONFIRM_TIMEOUT_S)
    return Verdict((ask,), replace(s, stale_asked=True))


def on_confirm_choice(ev: Choice, s: GoalState, ctx: Context) -> Verdict[GoalState]:
    """The user's answer: "drop" archives the detected goal (its promise is cleared), "pause"
    pauses a stale one; the defaults change nothing."""
    goal = trusted_goal_of(ctx)
    if goal is None or goal.status not in ("active", "needs-upgrade"):
        return Verdict()
    say, now = ctx.say, stamp(ctx.now)
    record = Record("goal_choice", {"key": ev.key, "answer": ev.answer})
    if ev.key == CONFIRM_KEY and ev.answer == "drop":
        update = GoalUpdate({}, (say("goal.log.cleared", time=now),), archive=True)
        said = Notify(say("goal.confirm.dropped", objective=goal.objective))
        return Verdict((WriteGoal(update), said, record), s)
    if ev.key == STALE_KEY and ev.answer == "pause":
        fields = {"status": "blocked", "blocked_reason": "paused by the user"}
        update = GoalUpdate(fields, (say("goal.log.paused_user", time=now),))
        said = Notify(say("goal.stale.paused", objective=goal.objective))
        return Verdict((WriteGoal(update), said, record), s)
    return Verdict((record,), s)


def _age_s(goal: Goal, now: float) -> float | None:
    """Seconds since GOAL.md's ``updated`` stamp (None when it does not read as one)."""
    try:
        updated = datetime.fromisoformat((goal.updated or "").replace("Z", "+00:00"))
    except ValueError:
        return None
    if updated.tzinfo is None:
        return None
    return now - updated.timestamp()
