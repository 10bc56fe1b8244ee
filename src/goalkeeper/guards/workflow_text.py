"""The workflow guard's texts (catalog spec §9): the step a procedure arrives in, the state
contract under it, phase titles, and the small helpers the guard, its tool handlers and the
``/workflow`` command share.

Every word the model reads comes from the message catalog (``ctx.say``); this module only picks
the keys and fills the fields. No catalog import at module level: hooks import the guards on
every event, and most events never touch a workflow.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.values import Block, Problem
from goalkeeper.guards.spec import Context, Verdict

GATEWAY = "workflow"
ACTIVE = "workflow_active"
ASK = "workflow_ask"
TOOLS = (GATEWAY, ACTIVE, ASK)

S = TypeVar("S")


RESERVE = 2_500
"""Bytes of the host's cap (``ctx.max_text``) left to what else the same answer carries: the
active workflow's per-turn guidance (~850) and other guards' advice merged into the same
message, so the whole answer stays under the cap, not only the workflow's part of it."""


def step_text(
    record: Any,
    content: str,
    action: str,
    ctx: Context,
    *,
    request: str | None,
    lead: bool = True,
) -> tuple[str, tuple[str, ...]]:
    """§9.1: the procedure (or the already-delivered sentence) and the state contract, and the
    parts of the procedure that did not fit the host's cap (``read`` delivers them). ``lead``:
    see ``delivered``."""
    say = ctx.say

    def fill(body: str) -> str:
        return str(
            say(
                "workflow.step",
                route=record.route,
                phase=record.phase,
                work_item=record.work_item,
                body=body,
                request=say("workflow.request", request=request) if request else "",
                contract=contract(record, action, ctx),
            )
        )

    return delivered(fill, content, ctx, say("workflow.already_delivered"), lead=lead)


def delivered(
    fill: Callable[[str], str],
    content: str,
    ctx: Context,
    empty: str = "",
    *,
    lead: bool = True,
) -> tuple[str, tuple[str, ...]]:
    """``fill(body)`` with the rendered procedure blocks framed as the body, and the parts left
    for ``read`` (none when it all fits). The frame — the route, the user's request, the reading
    note, the state contract — always arrives whole in the first message; the method texts fill
    what room the host's cap leaves, whole blocks first, and the rest follows in parts that each
    fit (``core.workflows.pages``), byte for byte, never shortened. Empty content: ``empty``.

    ``lead=False``: when the whole does not fit, the first message carries no method text at
    all. A restore at a session start uses it: every guard's static guidance (~3.5 KB) shares
    that answer, and the model acts only at the next prompt, after reading the parts."""
    from goalkeeper.core.workflows.pages import paginate, pieces, size

    if not content:
        return fill(empty), ()
    say = ctx.say
    head = str(say("workflow.methods", active=tool_name(ctx, ACTIVE), ask=tool_name(ctx, ASK)))
    items = (*pieces(content), *notes(content, ctx))
    whole = fill("\n\n".join((head, *items)))
    cap = ctx.max_text
    if cap is None or size(whole) <= cap - RESERVE:
        return whole, ()
    budget, gateway = cap - RESERVE, tool_name(ctx, GATEWAY)
    ids = ", ".join(dict.fromkeys(_SOURCE_ID.findall(content)))
    probe = say("workflow.more", n=999, ids=ids, gateway=gateway)
    frame = size(fill(f"{head}\n\n\n\n{probe}"))
    part_frame = size(say("workflow.part", k=999, n=999, body="")) + size(
        say("workflow.read.more", n=999, gateway=gateway) + "\n\n"
    )
    first, rest = paginate(items, budget - frame if lead else 0, budget - part_frame)
    n = len(rest) + 1
    parts = tuple(str(say("workflow.part", k=k, n=n, body=p)) for k, p in enumerate(rest, 2))
    later = ", ".join(dict.fromkeys(_SOURCE_ID.findall("\n".join(rest))))
    more = str(say("workflow.more", n=len(rest), ids=later, gateway=gateway))
    return fill("\n\n".join(x for x in (head, first, more) if x)), parts


_SOURCE_ID = lazy_re(r'(?m)^<procedure-source id="([^"]+)" source="procedure/')


def notes(content: str, ctx: Context) -> tuple[str, ...]:
    """A procedure's goalkeeper duties (``workflow.note.<id>``, e.g. the orchestration contract
    of implement and code-review), kept out of the texts themselves: the procedure files are
    the upstream methods byte for byte (their digests in PROVENANCE.json prove it), so these
    follow the blocks delivered in ``content``."""
    found = []
    for ident in dict.fromkeys(_SOURCE_ID.findall(content)):
        key = f"workflow.note.{ident}"
        note = str(ctx.say(key))
        if note != key:  # most procedures carry no goalkeeper duty of their own
            found.append(note)
    return tuple(found)


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
) -> tuple[str, tuple[str, ...]]:
    """What the model reads to run a standalone capability (its resolved bundle), for the
    gateway tool and the ``/workflow <capability>`` command alike, and the parts left for
    ``read`` when it does not fit the host's cap."""
    from goalkeeper.core.workflows.resolver import bundle

    say = ctx.say
    got = bundle(catalog, capability, read)

    def fill(body: str) -> str:
        return str(
            say(
                "workflow.standalone",
                capability=capability,
                available=listed(got.available, say),
                body=body,
                request=say("workflow.request", request=request) if request else "",
            )
        )

    return delivered(fill, got.content, ctx)
