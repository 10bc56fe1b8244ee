"""Workflow routes (seed 003; catalog spec §7–§10): the gateway and active-workflow tools, the
per-turn guidance, restore on session start, and the duty to finish or cancel.

The tools are goalkeeper's own (like ``todo``): ``workflow`` starts a route, runs a standalone
capability or loads a reference it discloses; ``workflow_active`` moves the active work item —
only along the catalog's legal edges — loads a disclosed reference, completes or cancels it;
``workflow_ask`` puts a structured question to the user. Each state change is a new record: kept
in this guard's session state (restored on the next session start, validated against the
catalog) and journaled. A stop with a workflow still active is sent back once, so work items are
finished or cancelled explicitly rather than left stale.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from msgspec import Struct
from msgspec.structs import replace

from goalkeeper.core.values import (
    Action,
    Advise,
    BeforeAgentStart,
    Block,
    Continue,
    Event,
    Notify,
    Problem,
    Record,
    SessionStart,
    Settled,
    ToolCall,
    UserPrompt,
)
from goalkeeper.guards.spec import Context, Verdict, dump_state_value, load_state_value
from goalkeeper.guards.workflow_text import (
    ACTIVE,
    ASK,
    GATEWAY,
    TOOLS,
    available_now,
    listed,
    phase_title,
    procedures_of,
    step_text,
    tool_name,
    work_item_id,
)

if TYPE_CHECKING:
    from goalkeeper.core.workflows.machine import WorkflowRecord

__all__ = ["ACTIVE", "ASK", "GATEWAY", "TOOLS", "WorkflowGuard", "WorkflowState"]


class WorkflowState(Struct, frozen=True):
    active: dict[str, Any] | None = None
    """The active work item's record (catalog spec §7.1), or None."""
    delivered: tuple[str, ...] = ()
    """Procedures whose text this session already received (delta delivery, §6.5)."""
    nudged: bool = False
    """Sent back once at a stop since the last workflow call or user message."""
    started: int = 0
    """Work items started in this session (part of the next work item's id)."""
    goal_id: str | None = None
    """The goal whose route this session already started (a coarse goal's delegation)."""
    pending: tuple[str, ...] = ()
    """Parts of delivered procedure texts that did not fit the host's cap, in order: the
    gateway's ``read`` mode hands out the next one (``workflow_text.delivered``)."""


class WorkflowGuard:
    name: ClassVar[str] = "workflow"

    def initial_state(self) -> WorkflowState:
        return WorkflowState()

    def load_state(self, raw: Mapping[str, Any]) -> WorkflowState:
        """The simple fields the generic way; the record and the delivered ids by hand (a
        damaged value is dropped: a record that does not read as one is no workflow)."""
        state = load_state_value(WorkflowState, raw)
        active = raw.get("active")
        return replace(
            state,
            active=dict(active) if isinstance(active, dict) else None,
            delivered=_strings(raw.get("delivered")),
            pending=_strings(raw.get("pending")),
        )

    def dump_state(self, state: WorkflowState) -> dict[str, Any]:
        return dump_state_value(state)

    def on_event(self, event: Event, state: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
        if isinstance(event, ToolCall) and event.name in TOOLS:
            return on_tool(event, replace(state, nudged=False), ctx)
        if isinstance(event, SessionStart):
            restored = on_session_start(state, ctx)
            routing = routing_guidance(ctx)  # static: once per context window, cache-safe
            return Verdict((*routing, *restored.actions), restored.state)
        if isinstance(event, BeforeAgentStart):
            return on_before_agent_start(event, state, ctx)
        if isinstance(event, UserPrompt):
            s = replace(state, nudged=False)
            if "/workflow" in event.text[:40]:
                from goalkeeper.guards.workflow_command import is_command, on_command

                if is_command(event.text):
                    return on_command(event, s, ctx)
            return Verdict(state=s) if state.nudged else Verdict()
        if isinstance(event, Settled):
            return on_settled(event, state, ctx)
        return Verdict()


def _strings(value: object) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list | tuple) else ()


RESTORE = "_restore"
"""Set by a host (never the model: hosts drop it from the model's arguments) on the first
workflow call of a connection that has no session-start hook, e.g. a plain MCP client: that
call is a context boundary, so the active record is validated and its context delivered again
in full, as at a session start (catalog spec §7.3, seed003 D4)."""


def on_tool(ev: ToolCall, s: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
    from goalkeeper.guards.workflow_tools import on_active, on_ask, on_gateway

    handler = on_gateway if ev.name == GATEWAY else on_active if ev.name == ACTIVE else on_ask
    fresh = ev.input.get(RESTORE) is True
    if RESTORE in ev.input:
        ev = replace(ev, input={k: v for k, v in ev.input.items() if k != RESTORE})
    if not fresh or s.active is None:
        return handler(ev, s, ctx)
    boundary = on_session_start(s, ctx)
    after = boundary.state or s
    verdict = handler(ev, after, ctx)
    delivers = any(isinstance(a, Advise) for a in boundary.actions)
    if delivers and any(isinstance(a, Block) for a in verdict.actions):
        # A refused call shows only its refusal: the context was not delivered, so it is not
        # counted as delivered; the host asks again with the next call.
        return handler(ev, s, ctx)
    return Verdict((*boundary.actions, *verdict.actions), verdict.state or after)


# ---------------------------------------------------------------------------------------------
# Session start, guidance, the stop
# ---------------------------------------------------------------------------------------------


def on_session_start(s: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
    """§7.3: an active record is validated against the catalog; valid, its context is delivered
    again in full (a new context window); invalid, it is cancelled with the reason. A valid
    record whose whole context no longer fits the cap keeps its workflow: the procedure is
    delivered without the loaded references, and the model is told why (seed003 D3)."""
    from goalkeeper.core.workflows.machine import (
        WorkflowError,
        context,
        record_from_json,
        restore_issue,
    )

    record = record_from_json(s.active) if s.active else None
    if record is None or not record.active:
        return (
            Verdict(state=replace(s, active=None, delivered=(), pending=()))
            if s.active
            else Verdict()
        )
    source = procedures_of(ctx)
    if source is None:
        return Verdict()
    say = ctx.say
    issue = restore_issue(source.catalog, record)
    if issue is not None:
        return _restore_failed(record, issue, s, ctx)
    restored = say("workflow.action.restored")
    try:
        full = context(source.catalog, record, source.read)
        text, rest = step_text(record, full.content, restored, ctx, request=None, lead=False)
        return Verdict((Advise(text),), replace(s, delivered=full.loaded, pending=rest))
    except WorkflowError as exc:
        if not record.loaded_references:
            return _restore_failed(record, exc.problem, s, ctx)
        problem = exc.problem
    bare = replace(record, loaded_references=())
    try:
        full = context(source.catalog, bare, source.read)
    except WorkflowError as again:
        return _restore_failed(record, again.problem, s, ctx)
    note = say(
        "workflow.restore.trimmed",
        references=", ".join(record.loaded_references),
        error=problem.render(say),
        procedure=record.procedure,
    )
    text, rest = step_text(bare, full.content, restored, ctx, request=None, lead=False)
    data = bare.to_json()
    actions = (Advise(text + "\n\n" + note), Record("workflow", data))
    return Verdict(actions, replace(s, active=data, delivered=full.loaded, pending=rest))


def _restore_failed(
    record: WorkflowRecord, issue: Problem, s: WorkflowState, ctx: Context
) -> Verdict[WorkflowState]:
    """The record is cancelled with the reason (kept in English, like every record), and the
    user and the model are told in the session's language which procedures are valid."""
    from goalkeeper.core.messages import render
    from goalkeeper.core.workflows.machine import finish

    source = procedures_of(ctx)
    say = ctx.say
    english = issue.render(lambda key, **f: render("en", key, **f))
    terminal = finish(record, "cancelled", f"Restore validation failed: Error: {english}")
    valid = ", ".join(p.id for p in source.catalog.definitions(record.route)) or say(
        "workflow.none"
    )
    error = issue.render(say).rstrip(".。")  # the template ends the sentence (D3 note)
    warning = say("workflow.restore.failed", error=error, route=record.route, valid=valid)
    actions = (Record("workflow", terminal.to_json()), Notify(warning, "warning"))
    return Verdict(actions, replace(s, active=None, delivered=(), pending=()))


def on_before_agent_start(
    ev: BeforeAgentStart, s: WorkflowState, ctx: Context
) -> Verdict[WorkflowState]:
    """The compact guidance each run; first, the procedure itself when it has not reached the
    agent yet (the user moved the workflow from outside the conversation, e.g. the CLI)."""
    from goalkeeper.core.workflows.machine import WorkflowError, context, record_from_json

    if s.active is None:
        delegated = goal_route(ev.session_id, s, ctx)
        if delegated is not None:
            return delegated
    guide = active_guidance(s, ctx)
    record = record_from_json(s.active) if s.active else None
    source = procedures_of(ctx)
    if record is None or source is None or record.procedure in s.delivered:
        return Verdict(guide)
    from goalkeeper.core.workflows.resolver import delta

    try:
        context(source.catalog, record, source.read)  # still deliverable?
        content, delivered = delta(
            source.catalog, record.procedure, record.loaded_references, s.delivered, source.read
        )
    except (WorkflowError, ValueError, OSError):
        return Verdict(guide)
    action = ctx.say("workflow.action.transitioned", procedure=record.procedure)
    text, rest = step_text(record, content, action, ctx, request=None)
    state = replace(s, delivered=delivered, pending=(*s.pending, *rest))
    return Verdict((Advise(text), *active_guidance(state, ctx)), state)


def goal_route(
    session_id: str, s: WorkflowState, ctx: Context, *, stop: bool = False
) -> Verdict[WorkflowState] | None:
    """A goal that names a route (a coarse goal: architecture when it changes the code's
    structure, else idea-to-ship; ``core.goals.size.route_for``) is worked through it: the route
    starts with the goal as the task, once per goal and session, at the agent's next run or,
    where the goal was set in the prompt that started this run (Claude Code reads GOAL.md only
    after that prompt's hook), at its next stop, as a continuation."""
    from goalkeeper.core.goals.goal import COARSE_ROUTE
    from goalkeeper.core.goals.size import ARCHITECTURE_ROUTE
    from goalkeeper.core.workflows.machine import WorkflowError, start

    doc = ctx.goal
    goal = doc.goal if doc is not None else None
    source = procedures_of(ctx)
    if goal is None or goal.status != "active" or not goal.route or source is None:
        return None
    if goal.goal_id == s.goal_id or goal.route not in {r.route for r in source.catalog.routes()}:
        return None
    say, n = ctx.say, s.started + 1
    request = goal.objective
    if goal.route == COARSE_ROUTE and ARCHITECTURE_ROUTE in {
        r.route for r in source.catalog.routes()
    }:
        # the router reads words and misses structural goals it has not seen: the agent,
        # which reads the code, may move the goal; its verify runs on either route
        request += say(
            "workflow.goal.route_fit",
            active=tool_name(ctx, ACTIVE),
            gateway=tool_name(ctx, GATEWAY),
            route=ARCHITECTURE_ROUTE,
        )
    try:
        record, _ = start(
            source.catalog, goal.route, work_item_id(session_id, ctx.now, n), source.read
        )
        step = deliver_step(
            record,
            replace(s, started=n, goal_id=goal.goal_id),
            ctx,
            say("workflow.action.started"),
            request,
        )
    except (WorkflowError, ValueError, OSError):
        return None
    actions = tuple(Continue(a.text) if stop and isinstance(a, Advise) else a for a in step.actions)
    notice = Notify(say("workflow.notice.started", title=phase_title(record.phase, say)))
    return Verdict((*actions, notice), step.state)


def deliver_step(
    record: WorkflowRecord, s: WorkflowState, ctx: Context, action: str, request: str | None
) -> Verdict[WorkflowState]:
    """The step for the agent's next words (the user's prompt, a run's start): what it
    delivers counts as delivered. A host that cannot advise only records the step; the agent
    gets it at its next run (``on_before_agent_start``)."""
    from goalkeeper.core.workflows.resolver import delta

    source = procedures_of(ctx)
    assert source is not None
    data = record.to_json()
    if "advise" not in ctx.capabilities:  # e.g. the CLI: the agent gets it at its next run
        return Verdict((Record("workflow", data),), replace(s, active=data))
    content, delivered = delta(source.catalog, record.procedure, (), s.delivered, source.read)
    text, rest = step_text(record, content, action, ctx, request=request or None)
    state = replace(s, active=data, delivered=delivered, pending=(*s.pending, *rest))
    return Verdict((Advise(text), Record("workflow", data)), state)


def active_guidance(s: WorkflowState, ctx: Context) -> tuple[Action, ...]:
    """§10.2, compact (≤ 120 words): the active work item, its legal moves, when to finish."""
    if s.active is None:
        return ()
    from goalkeeper.core.workflows.machine import record_from_json

    record = record_from_json(s.active)
    source = procedures_of(ctx)
    if record is None or source is None:
        return ()
    say = ctx.say
    allowed = source.catalog.allowed(record.route, record.procedure)
    text = say(
        "workflow.guidance.active",
        route=record.route,
        phase=record.phase,
        work_item=record.work_item,
        procedure=record.procedure,
        active=tool_name(ctx, ACTIVE),
        ask=tool_name(ctx, ASK),
        allowed=", ".join(allowed) or say("workflow.none"),
        available=listed(available_now(record, ctx), say),
    )
    if s.pending:
        gateway = tool_name(ctx, GATEWAY)
        text += " " + say("workflow.guidance.pending", n=len(s.pending), gateway=gateway)
    return (Advise(text),)


def routing_guidance(ctx: Context) -> tuple[Action, ...]:
    """§10.3: the routes and model-reachable capabilities, never the whole catalog."""
    source = procedures_of(ctx)
    if source is None:
        return ()
    say, catalog = ctx.say, source.catalog
    routes = "\n".join(
        say("workflow.guidance.line", id=r.route, description=r.description)
        for r in catalog.routes()
    )
    capabilities = "\n".join(
        say("workflow.guidance.line", id=p.id, description=p.description or p.id)
        for p in catalog.model_standalone()
    )
    text = say(
        "workflow.guidance.inactive",
        gateway=tool_name(ctx, GATEWAY),
        routes=routes,
        capabilities=capabilities,
    )
    return (Advise(text, static=True),)


def on_settled(ev: Settled, s: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
    if ev.aborted or ev.error:
        return Verdict()
    if s.active is None:
        return goal_route(ev.session_id, s, ctx, stop=True) or Verdict()
    record = s.active
    if s.nudged:
        return Verdict(allowed_stop(record, ctx))
    text = ctx.say(
        "workflow.settle.active",
        work_item=record.get("workItemId"),
        route=record.get("route"),
        phase=record.get("phase"),
        procedure=record.get("procedure"),
        active=tool_name(ctx, ACTIVE),
    )
    return Verdict((Continue(text),), replace(s, nudged=True))


def allowed_stop(record: Mapping[str, Any], ctx: Context) -> tuple[Action, ...]:
    """A stop the workflow no longer holds (the agent was sent back once already) is allowed,
    never in silence: the user is told why it stands. With an active goal there is nothing to
    say here: the goal guard verifies the goal at this stop and says what it decided."""
    from goalkeeper.guards.goal_state import active_goal

    if active_goal(ctx) is not None:
        return ()
    text = ctx.say(
        "workflow.settle.allowed",
        work_item=record.get("workItemId"),
        route=record.get("route"),
        phase=record.get("phase"),
    )
    return (Notify(text),)
