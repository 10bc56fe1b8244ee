"""Refused todo work (spec §7.1, audit D4): the block storm and the user's notice at a stop.

A refusal repeated for the same task and reason is escalated: from the second in a row the
agent is told so and shown the way out. A refused completion not fixed since, and a gated todo
deleted open, are kept so that the user reads at the next stop, in one line, which todos are
not done and why, with the open gated ones. Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec.structs import replace

from goalkeeper.core.todos.evidence import gate_names, parse_gate
from goalkeeper.core.todos.tree import Task
from goalkeeper.core.values import Block, Notify, Record
from goalkeeper.guards.spec import Context, Verdict

if TYPE_CHECKING:
    from goalkeeper.guards.todos import TodosState

STOP_ITEMS = 3  # todos named in the notice at a stop; the rest are counted


def escalate(
    s: TodosState,
    task_id: object,
    key: str,
    reason: str,
    ctx: Context,
    why: tuple[str, str] | None = None,
) -> Verdict[TodosState]:
    """Spec §7.1: from the second refusal in a row of the same task for the same reason, say
    so and show the way out. ``why``: a refused completion, kept for the notice at a stop."""
    if not isinstance(task_id, int | float) or isinstance(task_id, bool):
        return Verdict((Block(reason),), s)
    tid = int(task_id)
    previous = next((e for e in s.storm if e[0] == tid), None)
    count = previous[2] + 1 if previous and previous[1] == key else 1
    storm = (*(e for e in s.storm if e[0] != tid), (tid, key, count))
    text = ctx.say("todo.storm", n=count) + reason if count >= 2 else reason
    record = Record("todo_refused", {"id": tid, "reason": key, "count": count})
    refused = s.refused
    if why is not None and s.tree.get(tid) is not None:
        refused = (*(e for e in s.refused if e[0] != tid), (tid, *why))
    return Verdict((Block(text), record), replace(s, storm=storm, refused=refused))


def abandoned(s: TodosState, task: Task) -> TodosState:
    """Deleting an open gated task is allowed (the seed's tombstone), but the duty it drops is
    told to the user at the next stop, as a refused completion would be."""
    gate = parse_gate(task.metadata.get("gate"))
    if task.status == "completed" or not (gate.test or gate.audit):
        return s
    if any(e[0] == task.id for e in s.refused):
        return s  # the refusal it had says more
    return replace(s, refused=(*s.refused, (task.id, "abandoned", gate_names(gate))))


def stop_notice(s: TodosState, ctx: Context) -> tuple[Notify | None, TodosState]:
    """The one line the user reads at a stop: each task whose last completion was refused and
    is not fixed (a deleted one once more, then it is forgotten), and each open gated task.
    The gated ones are read from the tree's index: the first few, and how many there are."""
    say = ctx.say
    items: list[str] = []
    kept: list[tuple[int, str, str]] = []
    named: set[int] = set()
    named_gated = 0
    for entry in s.refused:
        task_id, why, detail = entry
        task = s.tree.get(task_id)
        if task is None or task.status == "completed":
            continue
        because = say(f"todo.stop.why.{why}", detail=detail)
        if task.status == "deleted":
            items.append(say("todo.stop.deleted", id=task_id, why=because))
        else:
            items.append(say("todo.stop.refused", id=task_id, why=because))
            kept.append(entry)
            named_gated += task.gated
        named.add(task_id)
    wanted = max(0, STOP_ITEMS - len(items))  # only the first few items are named
    gated = [t for t in s.tree.open_tasks(wanted + len(named), gated=True) if t.id not in named]
    for task in gated[:wanted]:
        gate = parse_gate(task.metadata.get("gate"))
        items.append(say("todo.stop.open_gated", id=task.id, gate=gate_names(gate)))
    total = len(items) + max(0, s.tree.counts()["gated_open"] - named_gated - len(gated[:wanted]))
    s = replace(s, refused=tuple(kept)) if len(kept) != len(s.refused) else s
    if s.native_refused:  # told once: the host's list is not goalkeeper's to track
        items.append(say("todo.stop.native", tool=s.native_refused))
        total += 1
        s = replace(s, native_refused="")
    if not items:
        return None, s
    shown = "; ".join(items[:STOP_ITEMS])
    if total > STOP_ITEMS:
        shown += say("todo.stop.more", n=total - STOP_ITEMS)
    return Notify(say("todo.stop.notice", items=shown), "warning"), s


def acceptance_notice(s: TodosState, ctx: Context) -> tuple[Notify | None, TodosState]:
    """Seed 002: a completion goalkeeper could not check (an ``effect`` declaration, a review
    it cannot read) is not refused but left to the user. Each is named once, at the first stop
    after it, with how to accept it; ``report`` keeps showing it until accepted."""
    if not s.to_accept:
        return None, s
    say = ctx.say
    items = []
    for task_id in s.to_accept:
        task = s.tree.get(task_id)
        if task is not None and task.status == "completed":
            items.append(say("todo.accept.item", id=task_id, subject=task.subject))
    s = replace(s, to_accept=())
    if not items:
        return None, s
    shown = "; ".join(items[:STOP_ITEMS])
    if len(items) > STOP_ITEMS:
        shown += say("todo.stop.more", n=len(items) - STOP_ITEMS)
    return Notify(say("todo.accept.notice", items=shown), "warning"), s


def storm_cleared(s: TodosState, task_id: object) -> tuple[tuple[int, str, int], ...]:
    return tuple(e for e in s.storm if e[0] != task_id)
