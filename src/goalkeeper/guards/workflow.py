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

import hashlib
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

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
    Reply,
    SessionStart,
    Settled,
    ToolCall,
    UserPrompt,
)
from goalkeeper.guards.spec import Context, Verdict, load_state_value

if TYPE_CHECKING:
    from goalkeeper.core.workflows.machine import WorkflowRecord

GATEWAY = "workflow"
ACTIVE = "workflow_active"
ASK = "workflow_ask"
TOOLS = (GATEWAY, ACTIVE, ASK)
_ACTIVE_FIELDS = {
    "transition": ("target",),
    "load": ("reference",),
    "complete": (),
    "cancel": ("reason",),
}


@dataclass(frozen=True, slots=True)
class WorkflowState:
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


class WorkflowGuard:
    name: ClassVar[str] = "workflow"

    def initial_state(self) -> WorkflowState:
        return WorkflowState()

    def load_state(self, raw: Mapping[str, Any]) -> WorkflowState:
        """The simple fields the generic way; the record and the delivered ids by hand (a
        damaged value is dropped: a record that does not read as one is no workflow)."""
        state = load_state_value(WorkflowState, raw)
        active = raw.get("active")
        delivered = raw.get("delivered")
        return replace(
            state,
            active=dict(active) if isinstance(active, dict) else None,
            delivered=tuple(d for d in delivered if isinstance(d, str))
            if isinstance(delivered, list | tuple)
            else (),
        )

    def dump_state(self, state: WorkflowState) -> dict[str, Any]:
        return asdict(state)

    def on_event(self, event: Event, state: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
        if isinstance(event, ToolCall) and event.name in TOOLS:
            s = replace(state, nudged=False)
            if event.name == GATEWAY:
                return on_gateway(event, s, ctx)
            if event.name == ACTIVE:
                return on_active(event, s, ctx)
            return on_ask(event, s, ctx)
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


# ---------------------------------------------------------------------------------------------
# The gateway tool
# ---------------------------------------------------------------------------------------------


def on_gateway(ev: ToolCall, s: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
    from goalkeeper.core.workflows.machine import WorkflowError
    from goalkeeper.core.workflows.resolver import ResolveError, accessible_reference, bundle

    say = ctx.say
    source = _procedures(ctx)
    if source is None:
        return _refuse(ctx, GATEWAY, "the workflow catalog is not available", s)
    catalog, read = source.catalog, source.read
    mode = ev.input.get("mode")
    try:
        if mode == "workflow":
            return _start(ev, s, ctx)
        if mode == "capability":
            cap = _text(ev.input.get("capability"))
            found = catalog.find(cap)
            if found is None or not found.standalone or found.invocation != "model":
                problem = Problem.of("workflow.error.capability", capability=cap)
                return Verdict((Block(problem.render(say)),), s)
            got = bundle(catalog, found.id, read)
            text = say(
                "workflow.standalone",
                capability=found.id,
                available=_listed(got.available, say),
                body=got.content,
                request="",
            )
            data = {"mode": "capability", "capability": found.id}
            return Verdict((Reply(data, text),), s)  # no record: a capability has no state
        if mode == "reference":
            cap, ref = _text(ev.input.get("capability")), _text(ev.input.get("reference"))
            found = catalog.find(cap)
            if found is None or not found.standalone:
                problem = Problem.of("workflow.error.not_standalone", capability=cap)
                return Verdict((Block(problem.render(say)),), s)
            got = accessible_reference(catalog, found.id, (), ref, read)
            text = say(
                "workflow.standalone_reference",
                capability=found.id,
                reference=got.root,
                available=_listed(got.available, say),
                body=got.content,
            )
            data = {"mode": "reference", "capability": found.id, "reference": got.root}
            return Verdict((Reply(data, text),), s)
    except WorkflowError as exc:
        return Verdict((Block(exc.problem.render(say)),), s)
    except (ResolveError, OSError) as exc:
        return Verdict((Block(str(exc)),), s)
    return _refuse(ctx, GATEWAY, "mode must be one of workflow, capability, reference", s)


def _start(ev: ToolCall, s: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
    from goalkeeper.core.workflows.machine import start
    from goalkeeper.core.workflows.resolver import delta

    say, source = ctx.say, _procedures(ctx)
    assert source is not None
    if s.active is not None:
        problem = Problem.of("workflow.error.already_active", work_item=s.active["workItemId"])
        return Verdict((Block(problem.render(say)),), s)
    route = _text(ev.input.get("route"))
    n = s.started + 1
    record, _ = start(source.catalog, route, work_item_id(ev.session_id, ctx.now, n), source.read)
    content, delivered = delta(source.catalog, record.procedure, (), (), source.read)
    text = step_text(record, content, say("workflow.action.started"), ctx, request=None)
    data = record.to_json()
    actions = (
        Reply({"mode": "workflow", **data}, text),
        Record("workflow", data),
        Notify(say("workflow.notice.started", title=phase_title(record.phase, say))),
    )
    return Verdict(actions, replace(s, active=data, delivered=delivered, started=n))


# ---------------------------------------------------------------------------------------------
# The active-workflow tool
# ---------------------------------------------------------------------------------------------


def on_active(ev: ToolCall, s: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
    from goalkeeper.core.workflows.machine import (
        WorkflowError,
        finish,
        load_reference,
        record_from_json,
        transition,
    )
    from goalkeeper.core.workflows.resolver import delta

    say = ctx.say
    record = record_from_json(s.active) if s.active else None
    if record is None or not record.active:
        return Verdict((Block(say("workflow.error.no_active")),), s)
    action = ev.input.get("action")
    problem = _check_fields(ev.input, action)
    if problem:
        return _refuse(ctx, ACTIVE, problem, s)
    source = _procedures(ctx)
    if source is None:
        return _refuse(ctx, ACTIVE, "the workflow catalog is not available", s)
    catalog, read = source.catalog, source.read
    try:
        if action == "transition":
            new, _ = transition(catalog, record, _text(ev.input.get("target")), read)
            content, delivered = delta(catalog, new.procedure, (), s.delivered, read)
            verb = say("workflow.action.transitioned", procedure=new.procedure)
            text = step_text(new, content, verb, ctx, request=None)
            title = phase_title(new.phase, say)
            data = new.to_json()
            details: dict[str, object] = {"action": "transition", "subject": title, "state": data}
            actions: tuple[Action, ...] = (
                Reply(details, text),
                Record("workflow", data),
                Notify(say("workflow.notice.event", title=title)),
            )
            return Verdict(actions, replace(s, active=data, delivered=delivered))
        if action == "load":
            ref = _text(ev.input.get("reference"))
            new, got = load_reference(catalog, record, ref, read)
            content, delivered = delta(
                catalog, new.procedure, new.loaded_references, s.delivered, read
            )
            verb = say("workflow.action.loaded", reference=got.root)
            text = say(
                "workflow.reference",
                work_item=new.work_item,
                reference=got.root,
                body=content or say("workflow.already_delivered"),
                contract=_contract(new, verb, ctx),
            )
            data = new.to_json()
            details = {"action": "load", "subject": f"loaded {got.root}", "state": data}
            actions = (
                Reply(details, text),
                Record("workflow", data),
                Notify(say("workflow.notice.loaded", reference=got.root)),
            )
            return Verdict(actions, replace(s, active=data, delivered=delivered))
    except WorkflowError as exc:
        return Verdict((Block(exc.problem.render(say)),), s)
    if action == "complete":
        return _finish(finish(record, "completed"), s, ctx)
    return _finish(finish(record, "cancelled", _text(ev.input.get("reason"))), s, ctx)


def _finish(terminal: Any, s: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
    say = ctx.say
    title = phase_title(terminal.phase, say)
    data = terminal.to_json()
    details: dict[str, object] = {
        "action": "complete" if terminal.status == "completed" else "cancel",
        "subject": f"{title} {terminal.status}",
        "state": data,
    }
    text = say(f"workflow.done.{terminal.status}", work_item=terminal.work_item)
    actions = (
        Reply(details, text),
        Record("workflow", data),
        Notify(say(f"workflow.notice.{terminal.status}", title=title)),
    )
    return Verdict(actions, replace(s, active=None))


def _check_fields(data: Mapping[str, Any], action: object) -> str | None:
    """The active tool's four strict shapes: exactly the fields of the action, all present."""
    if not isinstance(action, str) or action not in _ACTIVE_FIELDS:
        return "action must be one of transition, load, complete, cancel"
    wanted = _ACTIVE_FIELDS[action]
    extra = sorted(k for k in data if k not in ("action", *wanted, "session"))
    if extra:
        return f"unexpected field(s) for {action}: {', '.join(extra)}"
    missing = [k for k in wanted if not _text(data.get(k))]
    if missing:
        return f"{missing[0]} is required for {action}"
    return None


# ---------------------------------------------------------------------------------------------
# The ask tool
# ---------------------------------------------------------------------------------------------


def on_ask(ev: ToolCall, s: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
    """A structured question for the user (catalog spec §8.3). Where the host can show a
    dialog (Pi's boxes, an MCP client's elicitation form) the reply describes it and the host
    reports the outcome back through the same tool (``_outcome``, set by the host only);
    elsewhere the decision stays pending. A pending decision never takes the recommendation
    and never authorizes progress."""
    say = ctx.say
    if s.active is None:
        return Verdict((Block(say("workflow.error.no_active")),), s)
    outcome = ev.input.get("_outcome")
    if isinstance(outcome, Mapping):
        return Verdict((_ask_result(outcome, ctx),), s)
    question = _text(ev.input.get("question"))
    options = ev.input.get("options")
    if not question or not isinstance(options, list) or not options:
        return _refuse(ctx, ASK, "question and options (2-4 suggestions) are required", s)
    if "ask" not in ctx.capabilities:
        data = {"pending": True, "source": "no_ui"}
        return Verdict((Reply(data, say("workflow.ask.pending.no_ui")),), s)
    choices = [str(o) for o in options]
    custom = str(say("workflow.ask.custom"))
    if ev.input.get("allow_custom", True) is not False and custom not in choices:
        choices.append(custom)
    recommended = _text(ev.input.get("recommended"))
    seconds = ev.input.get("timeout_seconds")
    timeout_ms: int | None = None
    if recommended:  # only a recommendation may be adopted when nobody answers
        ok = isinstance(seconds, int | float) and not isinstance(seconds, bool) and seconds > 0
        timeout_ms = int(seconds * 1000) if ok else 60_000  # type: ignore[operator]
    dialog = {
        "title": _text(ev.input.get("title")) or _dialog_title(s, ctx),
        "question": question,
        "choices": choices,
        "custom": custom,
        "placeholder": str(say("workflow.ask.placeholder")),
        "recommended": recommended or None,
        "timeoutMs": timeout_ms,
    }
    return Verdict((Reply({"dialog": dialog}),), s)


def _ask_result(outcome: Mapping[str, Any], ctx: Context) -> Action:
    say = ctx.say
    source = str(outcome.get("source") or "cancelled")
    answer = _text(outcome.get("answer"))
    if source == "choice_selected" and answer:
        data: dict[str, object] = {"answer": answer, "is_custom": False, "source": source}
        return Reply(data, say("workflow.ask.selected", answer=answer))
    if source == "timeout_recommended" and answer:
        data = {"answer": answer, "is_custom": False, "timed_out": True, "pending": False,
                "source": source}  # fmt: skip
        return Reply(data, say("workflow.ask.timeout_default", answer=answer))
    if source == "custom_input" and answer:
        data = {"answer": answer, "is_custom": True, "source": source}
        return Reply(data, say("workflow.ask.custom_answer", answer=answer))
    if source == "custom_input_cancelled":
        return Reply(
            {"pending": True, "source": source}, say("workflow.ask.pending.custom_cancelled")
        )
    if source == "no_ui":
        return Reply({"pending": True, "source": source}, say("workflow.ask.pending.no_ui"))
    data = {"pending": True, "timed_out": False, "source": "cancelled"}
    return Reply(data, say("workflow.ask.pending.cancelled"))


def _dialog_title(s: WorkflowState, ctx: Context) -> str:
    """``<Route Title> · <Phase Title>`` of the active workflow."""
    record = s.active or {}
    source = _procedures(ctx)
    route = str(record.get("route", ""))
    routes = source.catalog.routes() if source is not None else ()
    title = next((r.title for r in routes if r.route == route), route)
    return f"{title} · {phase_title(str(record.get('phase', '')), ctx.say)}"


# ---------------------------------------------------------------------------------------------
# Session start, guidance, the stop
# ---------------------------------------------------------------------------------------------


def on_session_start(s: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
    """§7.3: an active record is validated against the catalog; valid, its context is delivered
    again in full (a new context window); invalid, it is cancelled with the reason."""
    from goalkeeper.core.workflows.machine import context, finish, record_from_json, restore_problem

    record = record_from_json(s.active) if s.active else None
    if record is None or not record.active:
        return Verdict(state=replace(s, active=None, delivered=())) if s.active else Verdict()
    source = _procedures(ctx)
    if source is None:
        return Verdict()
    say = ctx.say
    problem = restore_problem(source.catalog, record, source.read)
    if problem is not None:
        terminal = finish(record, "cancelled", f"Restore validation failed: {problem}")
        valid = ", ".join(p.id for p in source.catalog.definitions(record.route)) or "none"
        warning = say("workflow.restore.failed", error=problem, route=record.route, valid=valid)
        actions = (Record("workflow", terminal.to_json()), Notify(warning, "warning"))
        return Verdict(actions, replace(s, active=None, delivered=()))
    full = context(source.catalog, record, source.read)
    text = step_text(record, full.content, say("workflow.action.restored"), ctx, request=None)
    return Verdict((Advise(text),), replace(s, delivered=full.loaded))


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
    source = _procedures(ctx)
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
    step = Advise(step_text(record, content, action, ctx, request=None))
    return Verdict((step, *guide), replace(s, delivered=delivered))


def goal_route(
    session_id: str, s: WorkflowState, ctx: Context, *, stop: bool = False
) -> Verdict[WorkflowState] | None:
    """A goal that names a route (a coarse goal: idea-to-ship) is worked through it: the route
    starts with the goal as the task, once per goal and session, at the agent's next run or,
    where the goal was set in the prompt that started this run (Claude Code reads GOAL.md only
    after that prompt's hook), at its next stop, as a continuation."""
    from goalkeeper.core.workflows.machine import WorkflowError, start

    doc = ctx.goal
    goal = doc.goal if doc is not None else None
    source = _procedures(ctx)
    if goal is None or goal.status != "active" or not goal.route or source is None:
        return None
    if goal.goal_id == s.goal_id or goal.route not in {r.route for r in source.catalog.routes()}:
        return None
    say, n = ctx.say, s.started + 1
    try:
        record, _ = start(
            source.catalog, goal.route, work_item_id(session_id, ctx.now, n), source.read
        )
        step = deliver_step(
            record,
            replace(s, started=n, goal_id=goal.goal_id),
            ctx,
            say("workflow.action.started"),
            goal.objective,
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

    source = _procedures(ctx)
    assert source is not None
    data = record.to_json()
    if "advise" not in ctx.capabilities:  # e.g. the CLI: the agent gets it at its next run
        return Verdict((Record("workflow", data),), replace(s, active=data))
    content, delivered = delta(source.catalog, record.procedure, (), s.delivered, source.read)
    text = step_text(record, content, action, ctx, request=request or None)
    return Verdict(
        (Advise(text), Record("workflow", data)), replace(s, active=data, delivered=delivered)
    )


def active_guidance(s: WorkflowState, ctx: Context) -> tuple[Action, ...]:
    """§10.2, compact (≤ 120 words): the active work item, its legal moves, when to finish."""
    if s.active is None:
        return ()
    from goalkeeper.core.workflows.machine import record_from_json

    record = record_from_json(s.active)
    source = _procedures(ctx)
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
        active=_tool(ctx, ACTIVE),
        ask=_tool(ctx, ASK),
        allowed=", ".join(allowed) or say("workflow.none"),
        available=_listed(_available(record, ctx), say),
    )
    return (Advise(text),)


def routing_guidance(ctx: Context) -> tuple[Action, ...]:
    """§10.3: the routes and model-reachable capabilities, never the whole catalog."""
    source = _procedures(ctx)
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
        gateway=_tool(ctx, GATEWAY),
        routes=routes,
        capabilities=capabilities,
    )
    return (Advise(text, static=True),)


def on_settled(ev: Settled, s: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
    if ev.aborted or ev.error:
        return Verdict()
    if s.active is None:
        return goal_route(ev.session_id, s, ctx, stop=True) or Verdict()
    if s.nudged:
        return Verdict()
    record = s.active
    text = ctx.say(
        "workflow.settle.active",
        work_item=record.get("workItemId"),
        route=record.get("route"),
        phase=record.get("phase"),
        procedure=record.get("procedure"),
        active=_tool(ctx, ACTIVE),
    )
    return Verdict((Continue(text),), replace(s, nudged=True))


# ---------------------------------------------------------------------------------------------
# Texts
# ---------------------------------------------------------------------------------------------


def step_text(record: Any, content: str, action: str, ctx: Context, *, request: str | None) -> str:
    """§9.1: the procedure (or the already-delivered sentence) and the state contract."""
    say = ctx.say
    return say(
        "workflow.step",
        route=record.route,
        phase=record.phase,
        work_item=record.work_item,
        body=content or say("workflow.already_delivered"),
        request=say("workflow.request", request=request) if request else "",
        contract=_contract(record, action, ctx),
    )


def _contract(record: Any, action: str, ctx: Context) -> str:
    say = ctx.say
    source = _procedures(ctx)
    allowed = source.catalog.allowed(record.route, record.procedure) if source else ()
    return say(
        "workflow.contract",
        work_item=record.work_item,
        route=record.route,
        procedure=record.procedure,
        action=action,
        allowed=", ".join(allowed) or say("workflow.none"),
        available=_listed(_available(record, ctx), say),
    )


def _available(record: Any, ctx: Context) -> tuple[str, ...]:
    from goalkeeper.core.workflows.machine import WorkflowError, context

    source = _procedures(ctx)
    if source is None:
        return ()
    try:
        return context(source.catalog, record, source.read).available
    except WorkflowError:
        return ()


def phase_title(phase: str, say: Any) -> str:
    """§12: the catalog's phase title, else the id in words."""
    key = f"workflow.phase.{phase}"
    title = str(say(key))
    return title if title != key else phase.replace("-", " ").title()


def work_item_id(session_id: str, now: float, n: int) -> str:
    """A UUID (version 4 form) derived from the session, the time and a counter: unique per
    work item and reproducible from the events, so a replay gives the same ids."""
    digest = hashlib.sha256(f"{session_id}\0{now!r}\0{n}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def _procedures(ctx: Context) -> Any:
    loader = ctx.procedures
    return loader() if loader is not None else None


def _tool(ctx: Context, name: str) -> str:
    return ctx.tool_names.get(name, name)


def _refuse(ctx: Context, tool: str, problem: str, s: WorkflowState) -> Verdict[WorkflowState]:
    """A call that does not fit the tool; like any workflow call, it re-arms the stop nudge."""
    text = ctx.say("workflow.error.bad_call", tool=_tool(ctx, tool), problem=problem)
    return Verdict((Block(text),), s)


def _listed(ids: tuple[str, ...], say: Any) -> str:
    return ", ".join(ids) or str(say("workflow.none"))


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""
