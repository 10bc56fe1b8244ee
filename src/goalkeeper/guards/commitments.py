"""The commitments guard (issue 11, item 3): a close that drops most of the plan's commitments
waits for the user.

At the start of each cycle (the user's message, or the plan first seen in the session) it keeps
what the plan promises: its objective and its open key results and leaves
(``core.commitments``). At a ``[PDCA] complete`` it compares: the objective rewritten, or most
(or all) of those commitments cancelled or deleted, pauses the loop with the change named, and
the close waits until the user accepts the plan as it is now (``goalkeeper plan accept``; on Pi
a dialog, keeping the plan open by default). A cancellation whose reason says nothing sends the
agent back for a real one. One cancellation with a concrete reason closes as before. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from msgspec import Struct
from msgspec.structs import replace

from goalkeeper.core.cadence.commitments import (
    Commitments,
    MaterialChange,
    commitments_digest,
    commitments_of,
    judge_commitments,
    vague_cancellations,
)
from goalkeeper.core.cadence.markers import parse_marker
from goalkeeper.core.values import (
    AcceptPlan,
    Action,
    Ask,
    BeforeAgentStart,
    Choice,
    Continue,
    Event,
    Pause,
    Record,
    SessionStart,
    Settled,
    UserPrompt,
)
from goalkeeper.guards.spec import Context, Verdict, dump_state_value, load_state_value

ACCEPT_KEY = "plan.accept"
ACCEPT_TIMEOUT_S = 60.0  # nobody answering keeps the plan's commitments open
MAX_NAMED = 12


class CommitmentsState(Struct, frozen=True):
    objective: str | None = None
    items: str = ""
    """The cycle's open commitments, one per line (``core.commitments.item_key``)."""
    taken: bool = False
    """A baseline was taken in this cycle."""
    held: str | None = None
    """The plan digest whose material change was last held (asked about once)."""


class CommitmentsGuard:
    name: ClassVar[str] = "commitments"

    def initial_state(self) -> CommitmentsState:
        return CommitmentsState()

    def load_state(self, raw: Mapping[str, Any]) -> CommitmentsState:
        return load_state_value(CommitmentsState, raw)

    def dump_state(self, state: CommitmentsState) -> dict[str, Any]:
        return dump_state_value(state)

    def on_event(
        self, event: Event, state: CommitmentsState, ctx: Context
    ) -> Verdict[CommitmentsState]:
        if isinstance(event, UserPrompt):  # a new cycle: what the plan promises now
            return Verdict(state=_baseline(ctx, CommitmentsState()))
        if isinstance(event, SessionStart | BeforeAgentStart):
            return Verdict(state=state if state.taken else _baseline(ctx, state))
        if isinstance(event, Choice) and event.key == ACCEPT_KEY:
            return on_choice(event, state, ctx)
        if isinstance(event, Settled) and not event.aborted and not event.error:
            return on_settled(event, state if state.taken else _baseline(ctx, state), ctx)
        return Verdict()


def on_settled(ev: Settled, s: CommitmentsState, ctx: Context) -> Verdict[CommitmentsState]:
    marker = parse_marker(ev.last_text)
    doc = ctx.plan
    if marker is None or marker.phase != "complete" or doc is None or doc.plan is None:
        return Verdict(state=s)
    say = ctx.say
    vague = vague_cancellations(doc.plan)
    if vague:
        items = "\n".join(f"- {item}" for item in vague[:MAX_NAMED])
        text = say("proof.plan.vague", path=doc.path, items=items)
        return Verdict((Continue(text), Record("plan_vague_reason", {"n": len(vague)})), s)
    baseline = Commitments(s.objective, tuple(i for i in s.items.split("\n") if i))
    change = judge_commitments(baseline, doc.plan)
    digest = commitments_digest(doc.plan)
    if change is None or digest in ctx.accepted_plans:
        return Verdict(state=s)
    return Verdict(_held(change, doc.path, ctx), replace(s, held=digest))


def on_choice(ev: Choice, s: CommitmentsState, ctx: Context) -> Verdict[CommitmentsState]:
    record = Record("plan_acceptance", {"answer": ev.answer})
    if ev.answer == "accept" and s.held:
        return Verdict((AcceptPlan(s.held), record), s)
    return Verdict((record,), s)


def _held(change: MaterialChange, path: str, ctx: Context) -> tuple[Action, ...]:
    say = ctx.say
    lines = [say("proof.plan.objective")] if change.objective_changed else []
    lines += [f"- {item}" for item in change.dropped[:MAX_NAMED]]
    what = "\n".join(lines)
    text = say(
        "proof.plan.held_user", path=path, what=what, n=len(change.dropped), total=change.total
    )
    record = Record(
        "plan_held",
        {
            "dropped": len(change.dropped),
            "total": change.total,
            "objective": change.objective_changed,
        },
    )
    actions: list[Action] = [Pause(text), record]
    if "ask" in ctx.capabilities:
        options = (("accept", say("proof.plan.ask.accept")), ("keep", say("proof.plan.ask.keep")))
        actions.append(
            Ask(
                ACCEPT_KEY,
                say("proof.plan.ask.title", what=what),
                options,
                "keep",
                ACCEPT_TIMEOUT_S,
            )
        )
    return tuple(actions)


def _baseline(ctx: Context, s: CommitmentsState) -> CommitmentsState:
    doc = ctx.plan
    if doc is None or doc.plan is None:
        return s
    taken = commitments_of(doc.plan)
    return replace(s, objective=taken.objective, items="\n".join(taken.open_items), taken=True)
