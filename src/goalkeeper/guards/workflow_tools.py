"""The three workflow tools' handlers (catalog spec §8): the gateway (``workflow``: start a
route, run a standalone capability, load what it discloses), ``workflow_active`` (move, load,
complete, cancel — only along the catalog's legal edges) and ``workflow_ask`` (a structured
question for the user). The guard (``guards/workflow.py``) dispatches to them; each returns the
reply, the record to journal and the new state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from goalkeeper.core.values import Action, Block, Notify, Problem, Record, Reply, ToolCall
from goalkeeper.guards.spec import Context, Verdict
from goalkeeper.guards.workflow_text import (
    ACTIVE,
    ASK,
    GATEWAY,
    contract,
    delivered,
    listed,
    phase_title,
    procedures_of,
    refuse,
    standalone_text,
    step_text,
    text_of,
    tool_name,
    work_item_id,
)

if TYPE_CHECKING:
    from goalkeeper.core.goals.goal import Goal
    from goalkeeper.guards.workflow import WorkflowState

_ACTIVE_FIELDS = {
    "transition": ("target",),
    "load": ("reference",),
    "complete": (),
    "cancel": ("reason",),
}

# ---------------------------------------------------------------------------------------------
# The gateway tool
# ---------------------------------------------------------------------------------------------


def on_gateway(ev: ToolCall, s: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
    from goalkeeper.core.workflows.machine import WorkflowError
    from goalkeeper.core.workflows.resolver import ResolveError, accessible_reference

    say = ctx.say
    source = procedures_of(ctx)
    if source is None:
        return refuse(ctx, GATEWAY, Problem.of("workflow.call.no_catalog"), s)
    catalog, read = source.catalog, source.read
    mode = ev.input.get("mode")
    if mode == "read":
        return _read(s, ctx)
    try:
        if mode == "workflow":
            return _start(ev, s, ctx)
        if mode == "capability":
            cap = text_of(ev.input.get("capability"))
            found = catalog.find(cap)
            if found is None or not found.standalone or found.invocation != "model":
                problem = Problem.of("workflow.error.capability", capability=cap)
                return Verdict((Block(problem.render(say)),), s)
            text, rest = standalone_text(catalog, found.id, read, ctx)
            data = {"mode": "capability", "capability": found.id}
            # no record: a capability has no state, only the parts still to read
            return Verdict((Reply(data, text),), replace(s, pending=(*s.pending, *rest)))
        if mode == "reference":
            cap, ref = text_of(ev.input.get("capability")), text_of(ev.input.get("reference"))
            found = catalog.find(cap)
            if found is None or not found.standalone:
                problem = Problem.of("workflow.error.not_standalone", capability=cap)
                return Verdict((Block(problem.render(say)),), s)
            got = accessible_reference(catalog, found.id, (), ref, read)
            text, rest = delivered(
                lambda body: str(
                    say(
                        "workflow.standalone_reference",
                        capability=found.id,
                        reference=got.root,
                        available=listed(got.available, say),
                        body=body,
                    )
                ),
                got.content,
                ctx,
            )
            data = {"mode": "reference", "capability": found.id, "reference": got.root}
            return Verdict((Reply(data, text),), replace(s, pending=(*s.pending, *rest)))
    except WorkflowError as exc:
        return Verdict((Block(exc.problem.render(say)),), s)
    except ResolveError as exc:
        return Verdict((Block(exc.problem.render(say)),), s)
    except OSError as exc:
        problem = Problem.of("workflow.error.resolve", problem=str(exc))
        return Verdict((Block(problem.render(say)),), s)
    return refuse(ctx, GATEWAY, Problem.of("workflow.call.mode"), s)


def _start(ev: ToolCall, s: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
    from goalkeeper.core.workflows.machine import start
    from goalkeeper.core.workflows.resolver import delta

    say, source = ctx.say, procedures_of(ctx)
    assert source is not None
    if s.active is not None:
        problem = Problem.of("workflow.error.already_active", work_item=s.active["workItemId"])
        return Verdict((Block(problem.render(say)),), s)
    route = text_of(ev.input.get("route"))
    n = s.started + 1
    record, _ = start(source.catalog, route, work_item_id(ev.session_id, ctx.now, n), source.read)
    content, ids = delta(source.catalog, record.procedure, (), (), source.read)
    text, rest = step_text(record, content, say("workflow.action.started"), ctx, request=None)
    data = record.to_json()
    actions = (
        Reply({"mode": "workflow", **data}, text),
        Record("workflow", data),
        Notify(say("workflow.notice.started", title=phase_title(record.phase, say))),
    )
    state = replace(s, active=data, delivered=ids, started=n, pending=(*s.pending, *rest))
    return Verdict(actions, state)


def _read(s: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
    """The next part of procedure texts that did not fit an earlier message (oldest first),
    with how many are left; with none waiting, says so."""
    say = ctx.say
    if not s.pending:
        return Verdict(
            (Reply({"mode": "read", "part": False, "left": 0}, say("workflow.read.none")),), s
        )
    part, left = s.pending[0], s.pending[1:]
    gateway = tool_name(ctx, GATEWAY)
    tail = (
        say("workflow.read.more", n=len(left), gateway=gateway)
        if left
        else say("workflow.read.last")
    )
    data = {"mode": "read", "part": True, "left": len(left)}
    return Verdict((Reply(data, f"{part}\n\n{tail}"),), replace(s, pending=left))


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
        return refuse(ctx, ACTIVE, problem, s)
    source = procedures_of(ctx)
    if source is None:
        return refuse(ctx, ACTIVE, Problem.of("workflow.call.no_catalog"), s)
    catalog, read = source.catalog, source.read
    try:
        if action == "transition":
            new, _ = transition(catalog, record, text_of(ev.input.get("target")), read)
            content, ids = delta(catalog, new.procedure, (), s.delivered, read)
            verb = say("workflow.action.transitioned", procedure=new.procedure)
            text, rest = step_text(new, content, verb, ctx, request=None)
            title = phase_title(new.phase, say)
            data = new.to_json()
            details: dict[str, object] = {"action": "transition", "subject": title, "state": data}
            actions: tuple[Action, ...] = (
                Reply(details, text),
                Record("workflow", data),
                Notify(say("workflow.notice.event", title=title)),
            )
            state = replace(s, active=data, delivered=ids, pending=(*s.pending, *rest))
            return Verdict(actions, state)
        if action == "load":
            ref = text_of(ev.input.get("reference"))
            new, got = load_reference(catalog, record, ref, read)
            content, ids = delta(catalog, new.procedure, new.loaded_references, s.delivered, read)
            verb = say("workflow.action.loaded", reference=got.root)
            text, rest = delivered(
                lambda body: str(
                    say(
                        "workflow.reference",
                        work_item=new.work_item,
                        reference=got.root,
                        body=body,
                        contract=contract(new, verb, ctx),
                    )
                ),
                content,
                ctx,
                say("workflow.already_delivered"),
            )
            data = new.to_json()
            details = {"action": "load", "subject": f"loaded {got.root}", "state": data}
            actions = (
                Reply(details, text),
                Record("workflow", data),
                Notify(say("workflow.notice.loaded", reference=got.root)),
            )
            state = replace(s, active=data, delivered=ids, pending=(*s.pending, *rest))
            return Verdict(actions, state)
    except WorkflowError as exc:
        return Verdict((Block(exc.problem.render(say)),), s)
    if action == "complete":
        return _finish(finish(record, "completed"), s, ctx)
    return _finish(finish(record, "cancelled", text_of(ev.input.get("reason"))), s, ctx)


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
    notices: list[Action] = [Notify(say(f"workflow.notice.{terminal.status}", title=title))]
    goal = _goal_of(s, ctx)
    if goal is not None:  # the route ends, the goal does not: its proof is still to come
        verify = ", ".join(f"`{c}`" for c in goal.verify) or say("goal.anchors.none")
        text += "\n\n" + say("workflow.done.goal", objective=goal.objective, verify=verify)
        notices.append(Notify(say("workflow.notice.goal_open", verify=verify)))
    actions: tuple[Action, ...] = (Reply(details, text), Record("workflow", data), *notices)
    return Verdict(actions, replace(s, active=None))


def _goal_of(s: WorkflowState, ctx: Context) -> Goal | None:
    """The active goal this session's workflow was started for (seed 001 §7), else None."""
    from goalkeeper.guards.goal_state import active_goal

    goal = active_goal(ctx)
    return goal if goal is not None and s.goal_id and goal.goal_id == s.goal_id else None


def _check_fields(data: Mapping[str, Any], action: object) -> Problem | None:
    """The active tool's four strict shapes: exactly the fields of the action, all present."""
    if not isinstance(action, str) or action not in _ACTIVE_FIELDS:
        return Problem.of("workflow.call.action")
    wanted = _ACTIVE_FIELDS[action]
    extra = sorted(k for k in data if k not in ("action", *wanted, "session"))
    if extra:
        return Problem.of("workflow.call.extra", action=action, fields=", ".join(extra))
    missing = [k for k in wanted if not text_of(data.get(k))]
    if missing:
        return Problem.of("workflow.call.missing", field=missing[0], action=action)
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
    question = text_of(ev.input.get("question"))
    options = ev.input.get("options")
    if not question or not isinstance(options, list) or not options:
        return refuse(ctx, ASK, Problem.of("workflow.call.ask"), s)
    if "ask" not in ctx.capabilities:
        data = {"pending": True, "source": "no_ui"}
        return Verdict((Reply(data, say("workflow.ask.pending.no_ui")),), s)
    choices = [str(o) for o in options]
    custom = str(say("workflow.ask.custom"))
    if ev.input.get("allow_custom", True) is not False and custom not in choices:
        choices.append(custom)
    recommended = text_of(ev.input.get("recommended"))
    seconds = ev.input.get("timeout_seconds")
    timeout_ms: int | None = None
    if recommended:  # only a recommendation may be adopted when nobody answers
        ok = isinstance(seconds, int | float) and not isinstance(seconds, bool) and seconds > 0
        timeout_ms = int(seconds * 1000) if ok else 60_000  # type: ignore[operator]
    dialog = {
        "title": text_of(ev.input.get("title")) or _dialog_title(s, ctx),
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
    answer = text_of(outcome.get("answer"))
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
    source = procedures_of(ctx)
    route = str(record.get("route", ""))
    routes = source.catalog.routes() if source is not None else ()
    title = next((r.title for r in routes if r.route == route), route)
    return f"{title} · {phase_title(str(record.get('phase', '')), ctx.say)}"
