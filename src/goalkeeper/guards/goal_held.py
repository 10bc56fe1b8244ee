"""A goal GOAL.md holds but the user did not approve: what the goal guard says and asks.

``core.promise.judge_goal`` decides *whether* GOAL.md is held; this module turns a ``Held`` into
actions: at a stop the user reads what changed (once per change) and, where the host can ask
(Pi), chooses between accepting the change and keeping their goal, with keeping as the timed
default; before each run the agent is told the goal is held and what the user approved. A
held change runs nothing, while the goal in force is still verified at a stop (``goal_in_force``).
Pure: the approval itself is an ``ApproveGoal`` the engine carries out.
"""

from __future__ import annotations

from collections.abc import Mapping

from goalkeeper.core.goals.promise import Held, Promise, promise_lines
from goalkeeper.core.values import (
    Action,
    Advise,
    ApproveGoal,
    Ask,
    Choice,
    Continue,
    Notify,
    Pause,
    Record,
    Reply,
    ToolCall,
)
from goalkeeper.guards.goal_confirm import CONFIRM_TIMEOUT_S
from goalkeeper.guards.spec import Context

APPROVE_KEY = "goal.approve"
MAX_DIFF_LINES = 24


def held_at_stop(held: Held, path: str, ctx: Context) -> tuple[Action, ...]:
    """What a stop with a held goal answers (the caller says it once per change). A changed
    or replaced goal pauses: the promise is the user's to settle. An unapproved or missing one
    is a notice: the agent's own work goes on, unverified."""
    say = ctx.say
    diff = _diff_text(held)
    objective = ctx.promise.objective if ctx.promise is not None else ""
    text = say(f"trust.goal.{held.kind}_user", path=path, diff=diff, objective=objective)
    record = Record("goal_held", {"kind": held.kind, "digest": held.digest[:16]})
    ask: tuple[Action, ...] = ()
    if held.digest and "ask" in ctx.capabilities and held.kind != "missing":
        options = (
            ("approve", say("trust.goal.ask.approve")),
            ("keep", say("trust.goal.ask.keep")),
        )
        title = say("trust.goal.ask.title", diff=diff)
        ask = (Ask(APPROVE_KEY, title, options, "keep", CONFIRM_TIMEOUT_S),)  # keeping is safe
    if held.kind in ("changed", "replaced") and ask:
        return (Pause(text), record, *ask)  # the user is asked now; keeping sends the agent back
    if held.kind in ("changed", "replaced") and ctx.promise is not None:
        # Issue 22 §1: the user reads the diff once, and the agent is not let go with the work
        # undone: it hears that its change waits and what the goal in force still asks.
        back = say("trust.goal.held_work_model", path=path, approved=approved_text(ctx.promise))
        return (Notify(text, "warning"), Continue(back), record)
    return (Notify(text, "warning"), record, *ask)


def held_again_at_stop(held: Held, path: str, ctx: Context) -> tuple[Action, ...]:
    """The agent stopped again on the same held change it was sent back with: the same refused
    claim twice, so the loop pauses for the user (issue 22 §7: a cheat costs one continuation,
    not a round per stop). The diff is not repeated: the user read it at the first stop."""
    if held.kind not in ("changed", "replaced") or "ask" in ctx.capabilities:
        return ()
    record = Record("goal_held_again", {"kind": held.kind, "digest": held.digest[:16]})
    return (Pause(ctx.say("trust.goal.held_again_user", path=path)), record)


def held_anchor(held: Held, path: str, ctx: Context) -> Advise:
    """Before a run: the agent hears that the goal is held and what the user approved."""
    if held.kind == "unapproved" or ctx.promise is None:
        return Advise(ctx.say("trust.goal.unapproved_model", path=path))
    return Advise(ctx.say("trust.goal.held_model", path=path, approved=approved_text(ctx.promise)))


def on_approve_choice(
    ev: Choice, digest: str | None, path: str, ctx: Context
) -> tuple[Action, ...]:
    """The user's answer to the approval question (``digest``: the change they were shown)."""
    record = Record("goal_approval", {"answer": ev.answer})
    if ev.answer == "approve" and digest:
        return (ApproveGoal(digest), record)
    if ctx.promise is None:
        return (record,)
    text = ctx.say("trust.goal.kept_model", path=path, approved=approved_text(ctx.promise))
    return (Continue(text), record)


def on_approval_call(
    ev: ToolCall, held: Held | None, asked: str | None, path: str, ctx: Context
) -> tuple[tuple[Action, ...], str | None]:
    """The agent's ``goal_approval`` call: the actions, and the digest the user is being asked
    about (kept in the guard's state until the host reports the answer). Only the host puts
    ``_outcome`` in the call (the MCP server and the Pi extension drop the model's own)."""
    say = ctx.say
    outcome = ev.input.get("_outcome")
    if isinstance(outcome, Mapping):
        record = Record("goal_approval", {"answer": str(outcome.get("answer")), "via": "tool"})
        picked = outcome.get("source") == "choice_selected" and outcome.get("answer")
        if asked and picked == say("trust.goal.ask.approve"):
            text = say("trust.goal.tool.approved", path=path)
            return (ApproveGoal(asked), Reply({"approved": True}, text), record), None
        if ctx.promise is None:
            return (Reply({"approved": False}, say("trust.goal.tool.no_ui")), record), None
        text = say("trust.goal.tool.kept", path=path, approved=approved_text(ctx.promise))
        return (Reply({"approved": False}, text), record), None
    if held is None or not held.digest:
        return (Reply({"held": False}, say("trust.goal.tool.nothing", path=path)),), None
    if "ask" not in ctx.capabilities:
        return (Reply({"held": True, "source": "no_ui"}, say("trust.goal.tool.no_ui")),), None
    dialog = {
        "title": say("trust.goal.ask.title", diff="").strip(),
        "question": say("trust.goal.tool.question", diff=_diff_text(held)),
        "choices": [say("trust.goal.ask.approve"), say("trust.goal.ask.keep")],
        "recommended": None,  # nobody answering never approves anything
        "timeoutMs": None,
    }
    return (Reply({"dialog": dialog}),), held.digest


def approved_text(promise: Promise) -> str:
    return "\n".join(
        f"- {line}" for line in promise_lines(promise.objective, promise.verify, promise.criteria)
    )


def _diff_text(held: Held) -> str:
    lines = list(held.diff[:MAX_DIFF_LINES])
    if len(held.diff) > MAX_DIFF_LINES:
        lines.append(f"  … {len(held.diff) - MAX_DIFF_LINES} more")
    return "\n".join(f"  {line}" for line in lines)
