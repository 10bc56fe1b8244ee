"""What the goal guard keeps between events, and how it reads the goal from its context.

The goal a guard may act on is GOAL.md's goal *as the user approved it* (``core.goals.promise``):
a GOAL.md that differs from the promise is held, and its limits and counters are never looser
than the recorded ones. Every part of the goal guard (prompts, stops, choices) asks the same
three questions here, so they cannot answer differently. Pure.
"""

from __future__ import annotations

from datetime import UTC, datetime

from msgspec import Struct

from goalkeeper.core.goals.goal import Goal
from goalkeeper.core.goals.promise import Held, judge_goal, trusted_goal
from goalkeeper.guards.spec import Context


class GoalState(Struct, frozen=True):
    goal_id: str | None = None
    """The goal these counters belong to; another goal starts them over."""
    last_passing: int = -1
    stagnant: int = 0
    log_seen: int = 0
    recoveries: int = 0
    told_user: bool = False
    flagged_hash: str | None = None
    """``no-verify`` once the user was told the goal has no verify command."""
    held_key: str | None = None
    """The held change (kind and GOAL.md's digest) the user was last told about: said once."""
    held_paused: str | None = None
    """The held change the loop paused on after the agent stopped on it again: paused once."""
    asking: str | None = None
    """The GOAL.md digest the user is being asked to approve through ``goal_approval``."""
    tests_held: str | None = None
    """The change of the protected tests last held (``goal_tests.tests_key``): said once, then
    the loop pauses for the user."""
    context_warned: bool = False
    notified_problem: str | None = None
    retry_after: float = 0.0
    """When the backoff of the last counted API error ends: an error before it is the same
    outage, not another retry (ten errors in a few seconds must not spend the ≈ 37 min budget)."""
    route_waited: bool = False
    """A coarse goal's first stop was left to its route to start (the workflow guard starts it
    at that stop): no repair round is spent before the route had its chance."""
    shaping_told: str | None = None
    """The route's phase in which the agent was last sent back with a failing verify while the
    route shapes the work (``goal_repair._failed_while_shaping``): once per phase."""
    stale_asked: bool = False
    """The user was asked about a stale goal in this session (``goal_confirm``): once."""
    passed_logged: int = -1
    """The Progress Log's length just after goalkeeper logged a pass: while it stays so, the
    next pass is not logged again (one line per change, not one per Stop)."""
    review_goal: str | None = None
    """The goal a fresh reviewer was asked for at its proof (``guards.review``): never again."""
    review_close: str = ""
    """The proven goal's close, owed at the stop after the review round (the round took its
    place); said once, dropped when the user speaks first."""
    retry_error: str | None = None
    """The API error the last turn ended on (Claude Code's StopFailure, whose answer nobody
    reads): the next prompt, the user's or ``goalkeeper run``'s retry, tells the agent to
    resume from its last completed step (seed 001 §5)."""
    resumed: str | None = None
    """The goal the user's prompt just resumed (its id): the run that prompt starts is told it
    is resumed, not the paused anchor GOAL.md still shows until the answer is written."""


def held_goal(ctx: Context) -> Held | None:
    doc = ctx.goal
    if doc is not None and doc.problem:
        return None  # reported as a problem of the file
    return judge_goal(doc.goal if doc is not None else None, ctx.promise)


def trusted_goal_of(ctx: Context) -> Goal | None:
    """GOAL.md's goal as goalkeeper may act on it: approved, with no limit above the approved
    one and no counter below the recorded one (None without an approved promise)."""
    doc = ctx.goal
    if doc is None or doc.goal is None or ctx.promise is None:
        return None
    if judge_goal(doc.goal, ctx.promise) is not None:
        return None
    return trusted_goal(doc.goal, ctx.promise)


def active_goal(ctx: Context) -> Goal | None:
    goal = trusted_goal_of(ctx)
    return goal if goal is not None and goal.status in ("active", "needs-upgrade") else None


def goal_path(ctx: Context) -> str:
    return ctx.goal.path if ctx.goal else ".agents/goal/GOAL.md"


def stamp(now: float) -> str:
    return datetime.fromtimestamp(now, tz=UTC).strftime("%Y-%m-%dT%H:%MZ")


def paused_goal(ctx: Context) -> Goal | None:
    """The approved goal goalkeeper paused (still open: it waits for the user), else None."""
    goal = trusted_goal_of(ctx)
    promise = ctx.promise
    if goal is None or promise is None or not promise.open or goal.status != "blocked":
        return None
    return goal
