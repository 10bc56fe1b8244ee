"""The workflow guard's texts (catalog spec §9): the step a procedure arrives in, the state
contract under it, phase titles, and the small helpers the guard, its tool handlers and the
``/workflow`` command share.

Every word the model reads comes from the message catalog (``ctx.say``); this module only picks
the keys and fills the fields. No catalog import at module level: hooks import the guards on
every event, and most events never touch a workflow.
"""

from __future__ import annotations

import uuid
from typing import Any, TypeVar

from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.values import Block, Problem
from goalkeeper.guards.spec import Context, Verdict

GATEWAY = "workflow"
ACTIVE = "workflow_active"
ASK = "workflow_ask"
TOOLS = (GATEWAY, ACTIVE, ASK)

S = TypeVar("S")


def step_text(record: Any, content: str, action: str, ctx: Context, *, request: str | None) -> str:
    """§9.1: the procedure (or the already-delivered sentence) and the state contract."""
    say = ctx.say
    return say(
        "workflow.step",
        route=record.route,
        phase=record.phase,
        work_item=record.work_item,
        body=framed(content, ctx) or say("workflow.already_delivered"),
        request=say("workflow.request", request=request) if request else "",
        contract=contract(record, action, ctx),
    )


_SOURCE_ID = lazy_re(r'(?m)^<procedure-source id="([^"]+)" source="procedure/')


def framed(content: str, ctx: Context) -> str:
    """The rendered procedure blocks with goalkeeper's framing around them, kept out of the
    texts themselves: the procedure files are the upstream methods byte for byte (their digests
    in PROVENANCE.json prove it), so how to read them through goalkeeper's tools comes first,
    and a procedure's goalkeeper duties (``workflow.note.<id>``, e.g. the orchestration
    contract of implement and code-review) follow its blocks. Empty content stays empty."""
    if not content:
        return content
    say = ctx.say
    head = say("workflow.methods", active=tool_name(ctx, ACTIVE), ask=tool_name(ctx, ASK))
    notes = []
    for ident in dict.fromkeys(_SOURCE_ID.findall(content)):
        key = f"workflow.note.{ident}"
        note = str(say(key))
        if note != key:  # most procedures carry no goalkeeper duty of their own
            notes.append(note)
    return "\n\n".join((str(head), content, *notes))


def contract(record: Any, action: str, ctx: Context) -> str:
    say = ctx.say
    source = procedures_of(ctx)
    allowed = source.catalog.allowed(record.route, record.procedure) if source else ()
    return say(
        "workflow.contract",
        work_item=record.work_item,
        route=record.route,
        procedure=record.procedure,
        action=action,
        allowed=", ".join(allowed) or say("workflow.none"),
        available=listed(available_now(record, ctx), say),
    )


def available_now(record: Any, ctx: Context) -> tuple[str, ...]:
    """What the contract offers to load next. Resolved without rendering, so a context near the
    size cap still lists what is left (a too-big load is refused with its size, seed003 D3)."""
    from goalkeeper.core.workflows.resolver import ResolveError, context_available

    source = procedures_of(ctx)
    if source is None:
        return ()
    try:
        return context_available(source.catalog, record.procedure, record.loaded_references)
    except ResolveError:
        return ()


def phase_title(phase: str, say: Any) -> str:
    """§12: the catalog's phase title, else the id in words."""
    key = f"workflow.phase.{phase}"
    title = str(say(key))
    return title if title != key else phase.replace("-", " ").title()


def work_item_id(session_id: str, now: float, n: int) -> str:
    """A UUID (version 4 form) derived from the session, the time and a counter: unique per
    work item and reproducible from the events, so a replay gives the same ids."""
    import hashlib

    digest = hashlib.sha256(f"{session_id}\0{now!r}\0{n}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def procedures_of(ctx: Context) -> Any:
    loader = ctx.procedures
    return loader() if loader is not None else None


def tool_name(ctx: Context, name: str) -> str:
    return ctx.tool_names.get(name, name)


def refuse(ctx: Context, tool: str, problem: Problem, s: S) -> Verdict[S]:
    """A call that does not fit the tool; like any workflow call, it re-arms the stop nudge."""
    text = ctx.say(
        "workflow.error.bad_call", tool=tool_name(ctx, tool), problem=problem.render(ctx.say)
    )
    return Verdict((Block(text),), s)


def listed(ids: tuple[str, ...], say: Any) -> str:
    return ", ".join(ids) or str(say("workflow.none"))


def text_of(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def standalone_text(
    catalog: Any, capability: str, read: Any, ctx: Context, request: str = ""
) -> str:
    """What the model reads to run a standalone capability (its resolved bundle), for the
    gateway tool and the ``/workflow <capability>`` command alike."""
    from goalkeeper.core.workflows.resolver import bundle

    say = ctx.say
    got = bundle(catalog, capability, read)
    return str(
        say(
            "workflow.standalone",
            capability=capability,
            available=listed(got.available, say),
            body=framed(got.content, ctx),
            request=say("workflow.request", request=request) if request else "",
        )
    )
