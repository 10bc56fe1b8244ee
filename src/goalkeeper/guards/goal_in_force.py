"""The goal in force while GOAL.md differs from what the user approved (issue 22 §1, seed 001).

A change the user has not accepted is held (``goal_held``), but it never stops the goal in force
from being verified: at a stop goalkeeper runs the *approved* verify commands against the approved
criteria, and honest work proves the goal whatever GOAL.md now says. Criteria the agent only
*added* are stricter, so they are recorded with the reason it logged and join the goal in force
without the user (``core.goals.promise.added_criteria``); a new verify command is never an
addition. Pure: the engine records additions and runs the verification.
"""

from __future__ import annotations

from goalkeeper.core.goals.goal import GoalDoc
from goalkeeper.core.goals.promise import (
    Held,
    added_criteria,
    change_reason,
    goal_digest,
    goal_in_force,
)
from goalkeeper.core.values import Action, AddCriteria, Inspect, Notify, Record
from goalkeeper.guards.goal_repair import complete_goal, proven_criteria, unchecked_criteria
from goalkeeper.guards.goal_state import GoalState, goal_path
from goalkeeper.guards.spec import Context, Verdict

HELD_IN_FORCE = ("changed", "replaced")
"""Held GOAL.mds under which the user's open goal is still verified at a stop: the approved goal
edited, or rewritten into another goal (a new objective, so another id). A missing GOAL.md has
no file to read the criteria's ticks from; an unapproved one has no goal of the user's."""


def verify_in_force(
    held: Held, doc: GoalDoc | None, s: GoalState, ctx: Context
) -> Verdict[GoalState] | None:
    """Issue 22 §1: while GOAL.md holds a change the user has not accepted, the goal in force
    (``goal_in_force``: the approved objective, verify and criteria, never the edited ones)
    is still verified at a stop, as it would be without the edit. Honest work proves it: an
    edit is moot (the user is told it was not applied), a replacement stays in GOAL.md for the
    user to approve (the proof closes only the user's goal); anything short of a proof
    (a failure, changed tests, an open criterion of the goal in force) leaves the held change
    to ``held_at_stop``: an Inspect, a closing verdict, or None."""
    promise = ctx.promise
    if held.kind not in HELD_IN_FORCE or promise is None or doc is None or doc.goal is None:
        return None
    goal = goal_in_force(doc.goal, promise)
    if goal.status not in ("active", "needs-upgrade") or not goal.verify:
        return None  # a paused goal waits for the user; none to run: nothing to prove
    facts = ctx.facts
    if facts is None:
        inspect = Inspect(
            verify=goal.verify, verify_timeout_s=goal.timeout_s, tamper=True, hidden=True
        )
        return Verdict((inspect,))
    passed = {run.command for run in facts.verify if run.passed}
    if not set(goal.verify) <= passed or not all(run.passed for run in facts.verify):
        return None  # every approved command passed, and only those count
    for check in (facts.tamper, facts.hidden):
        if check is not None and not check.passed:
            return None
    proven = proven_criteria(goal)
    if unchecked_criteria(goal) or any(c.text not in proven for c in goal.open_criteria):
        return None  # an open criterion, or one only the user settles (issue 23): not proven
    if held.kind == "replaced":  # another goal, not an edit of this one: it stays, unapproved
        text = ctx.say(
            "trust.goal.replaced_waits_user", path=doc.path, objective=doc.goal.objective
        )
    else:
        text = ctx.say("trust.goal.held_moot_user", path=doc.path)
    moot = Notify(text, "warning")
    record = Record("goal_held_moot", {"kind": held.kind, "digest": held.digest[:16]})
    kept = held.kind == "replaced"
    return complete_goal(facts, goal, s, ctx, proven, (moot, record), archived=not kept)


def record_additions(ctx: Context) -> tuple[Action, ...]:
    """Criteria GOAL.md adds to the approved goal, not yet recorded: recorded (the engine adds
    them to the promise, so the proof must meet them and removing one later is a change the
    user is shown), journaled with the agent's reason, and the user told. () otherwise."""
    doc, promise = ctx.goal, ctx.promise
    if doc is None or doc.goal is None or doc.problem or promise is None:
        return ()
    goal = doc.goal
    digest = goal_digest(goal)
    if digest == promise.digest:
        return ()
    added = added_criteria(goal, promise)
    if not added:
        return ()
    reason = change_reason(goal)
    items = "\n".join(f"  + {text}" for text in added)
    shown = reason or ctx.say("trust.goal.added_no_reason")
    note = ctx.say("trust.goal.added_user", path=goal_path(ctx), items=items, reason=shown)
    record = Record("goal_criteria_added", {"criteria": list(added), "reason": reason})
    return (AddCriteria(promise.goal_id, added, digest), Notify(note), record)
