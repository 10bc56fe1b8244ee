"""Seed 002's verification duty, at the points issue 22 names: a fresh reviewer, asked once.

goalkeeper checks what it can run (the verify, the tests, the evidence), never what the change
*means*: a proof can pass on a special-cased input or a change beside the point. So when a goal
is proven, or a todo gated by tests completes, the agent gets one continuation asking it to have
a fresh reviewer check the change against the goal: a subagent where the host has them (its
context holds no account of the work to agree with), else the agent itself with fresh eyes.

Asked once per goal and per todo (the callers record it in their stored state), never at or past
the continuation cap (the extra round would turn into a pause), never where the host cannot
continue, and never when the user turned it off (``review = "off"``). It never changes a verdict:
a proven goal stays proven. Pure.
"""

from __future__ import annotations

from goalkeeper.core.values import Continue
from goalkeeper.guards.spec import Context


def may_ask_review(ctx: Context) -> bool:
    """Whether a review round may be asked now: on, the host can continue, below the cap."""
    return (
        ctx.config.review == "on"
        and "continue" in ctx.capabilities
        and ctx.continuations < ctx.config.max_continuations
    )


def goal_review(objective: str, criteria: tuple[str, ...], commands: str, ctx: Context) -> Continue:
    """The one continuation after a goal's proof: the goal restated, so the reviewer judges the
    change against what the user asked, not against the agent's account of it."""
    say = ctx.say
    items = "\n".join(f"- {c}" for c in criteria) or say("review.no_criteria")
    text = say(
        "review.goal",
        objective=objective,
        criteria=items,
        commands=commands,
        how=_how(ctx),
    )
    return Continue(text)


def todo_review(ids: tuple[int, ...], ctx: Context) -> Continue:
    """The one continuation after test-gated todos complete (seed 002 ⑥, raised to a must)."""
    joined = ", ".join(f"#{i}" for i in ids)
    return Continue(ctx.say("review.todos", ids=joined, how=_how(ctx)))


def _how(ctx: Context) -> str:
    """Who reviews: a subagent where the host has them, else the agent with fresh eyes."""
    return ctx.say("review.how.subagent" if "subagents" in ctx.capabilities else "review.how.self")
