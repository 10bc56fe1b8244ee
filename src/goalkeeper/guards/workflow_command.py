"""The ``/workflow`` command (catalog spec §11): the user's own control of workflows.

One command; its first word selects and the rest is the user's task: ``status``,
``transition <target>``, ``complete``, ``cancel [reason]`` (or ``end``), a route id (start it), a
standalone capability id (run it), or free text (route it: the agent is asked to pick the
workflow or capability that fits, and an active workflow is cancelled as superseded). What the
agent should read goes with the prompt (``Advise``); what the user should read is a notice. The
user's task reaches the agent but never a record.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from msgspec.structs import replace

from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.values import Action, Advise, Notify, Problem, Record, UserPrompt
from goalkeeper.guards.spec import Context, Verdict
from goalkeeper.guards.workflow import WorkflowState, deliver_step
from goalkeeper.guards.workflow_text import (
    GATEWAY,
    phase_title,
    procedures_of,
    standalone_text,
    tool_name,
    work_item_id,
)

if TYPE_CHECKING:
    from goalkeeper.core.workflows.machine import WorkflowRecord

_COMMAND = lazy_re(r"\A\s*/workflow(?:\s+(?P<rest>.*))?\Z", re.DOTALL | re.IGNORECASE)


def is_command(text: str) -> bool:
    return _COMMAND.match(text) is not None


def on_command(ev: UserPrompt, s: WorkflowState, ctx: Context) -> Verdict[WorkflowState]:
    from goalkeeper.core.workflows.machine import (
        WorkflowError,
        finish,
        record_from_json,
        start,
        transition,
    )
    from goalkeeper.core.workflows.resolver import ResolveError

    match = _COMMAND.match(ev.text)
    source = procedures_of(ctx)
    if match is None or source is None:
        return Verdict()
    say = ctx.say
    rest = (match.group("rest") or "").strip()
    word, _, tail = rest.partition(" ") if " " in rest else (rest, "", "")
    word, tail = word.strip(), tail.strip()
    key = word.lower()
    record = record_from_json(s.active) if s.active else None
    catalog, read = source.catalog, source.read
    try:
        if not rest:
            return Verdict((Notify(say("workflow.command.usage")),), s)
        if key == "status" and not tail:
            return Verdict((Notify(_status(record, ctx)),), s)
        if key in ("complete", "cancel", "end") and (key != "complete" or not tail):
            if record is None:
                return Verdict((Notify(say("workflow.error.no_active"), "warning"),), s)
            if key == "complete":
                terminal = finish(record, "completed")
            else:
                reason = tail or say(f"workflow.command.{key}_reason")
                terminal = finish(record, "cancelled", reason)
            note = say(f"workflow.command.{terminal.status}", work_item=terminal.work_item)
            actions: tuple[Action, ...] = (Record("workflow", terminal.to_json()), Notify(note))
            return Verdict(actions, replace(s, active=None))
        if key == "transition":
            if record is None:
                return Verdict((Notify(say("workflow.error.no_active"), "warning"),), s)
            if not tail:
                return Verdict((Notify(say("workflow.command.name_target"), "warning"),), s)
            new, _ = transition(catalog, record, tail, read)
            moved = deliver_step(
                new, s, ctx, say("workflow.action.transitioned", procedure=new.procedure), None
            )
            notice = Notify(say("workflow.notice.event", title=phase_title(new.phase, say)))
            return Verdict((*moved.actions, notice), moved.state)
        if key in {r.route for r in catalog.routes()}:
            if record is not None:
                problem = Problem.of("workflow.error.already_active", work_item=record.work_item)
                return Verdict((Notify(problem.render(say), "warning"),), s)
            n = s.started + 1
            new, _ = start(catalog, key, work_item_id(ev.session_id, ctx.now, n), read)
            verdict = deliver_step(
                new, replace(s, started=n), ctx, say("workflow.action.started"), tail
            )
            notice = Notify(say("workflow.notice.started", title=phase_title(new.phase, say)))
            return Verdict((*verdict.actions, notice), verdict.state)
        found = catalog.find(word)
        if found is not None and found.standalone:
            text, rest = standalone_text(catalog, found.id, read, ctx, tail)
            return Verdict((Advise(text),), replace(s, pending=(*s.pending, *rest)))
    except WorkflowError as exc:
        return Verdict((Notify(exc.problem.render(say), "warning"),), s)
    except ResolveError as exc:
        return Verdict((Notify(exc.problem.render(say), "warning"),), s)
    except (ValueError, OSError) as exc:
        return Verdict((Notify(str(exc), "warning"),), s)
    return _route(rest, record, s, ctx)


def _route(
    rest: str, record: WorkflowRecord | None, s: WorkflowState, ctx: Context
) -> Verdict[WorkflowState]:
    """Free text: the agent routes it; an active workflow is superseded (cancelled)."""
    from goalkeeper.core.workflows.machine import finish

    say = ctx.say
    actions: list[Action] = []
    cancelled = ""
    if record is not None:
        terminal = finish(record, "cancelled", say("workflow.cancel.superseded"))
        actions.append(Record("workflow", terminal.to_json()))
        cancelled = say("workflow.routing.cancelled")
        s = replace(s, active=None)
    actions.append(
        Advise(
            say(
                "workflow.routing.request",
                request=rest,
                cancelled=cancelled,
                gateway=tool_name(ctx, GATEWAY),
            )
        )
    )
    return Verdict(tuple(actions), s)


def _status(record: WorkflowRecord | None, ctx: Context) -> str:
    say = ctx.say
    if record is None:
        return str(say("workflow.status.inactive"))
    source = procedures_of(ctx)
    routes = source.catalog.routes() if source is not None else ()
    title = next((r.title for r in routes if r.route == record.route), record.route)
    return str(
        say(
            "workflow.status.active",
            route_title=title,
            phase_title=phase_title(record.phase, say),
            work_item=record.work_item,
        )
    )
