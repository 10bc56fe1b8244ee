"""A subagent's "done" under the main agent's evidence rules (issue 22 item 6).

A subagent (Claude Code's and Codex's ``SubagentStop``) may stop only as the main agent may
mark a todo completed: a completion it made that goalkeeper refused and that is not fixed since,
a task it marked completed with the host's own todo tool, or a ``[PDCA] complete`` with no
verification that ran and passed in its own run, keeps it working, with every such item named
in one message. Bounded: the same items twice, or ``MAX_BLOCKS`` blocks of one subagent, let it
stop and tell the user what it left unproven; without an agent id to count by, the host's own
``stop_hook_active`` is the bound. A host that cannot refuse a subagent's stop
(``subagent_stop`` not declared) is never asked. The todos guard keeps the attribution (which
subagent made which refused call); this module decides. Pure.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from msgspec.structs import replace

from goalkeeper.core.values import Continue, Notify, Record, Settled, SubagentSettled, ToolCall
from goalkeeper.guards.spec import Context, Verdict

if TYPE_CHECKING:
    from goalkeeper.guards.todos import TodosState

MAX_BLOCKS = 3
"""Blocks of one subagent at most: with the same-items rule, a cheat costs ≤ 3 continuations
(issue 22 item 7)."""
MAX_AGENTS = 32
"""Subagents whose refused calls and blocks are remembered: the state every hook reads stays
small; the oldest is forgotten first (it stopped long ago)."""
NATIVE = 0
"""The task id recorded for a completion refused in the host's own todo tool (not goalkeeper's
task: it has none)."""


def attribute(verdict: Verdict[TodosState], ev: ToolCall) -> Verdict[TodosState]:
    """Remember which subagent made a refused completion: the tasks this call's refusal
    records name and keep for the stop notice, and a refused native completion (``NATIVE``,
    with the tool's name). The main agent's calls (no ``agent_id``) are not recorded here:
    its own stop tells the user of them."""
    after = verdict.state
    if not ev.agent_id or after is None:
        return verdict
    kept = {e[0] for e in after.refused}
    new: list[tuple[str, int, str]] = []
    for action in verdict.actions:
        if not isinstance(action, Record) or action.kind != "todo_refused":
            continue
        tid = action.data.get("id")
        if action.data.get("reason") == "native":
            new.append((ev.agent_id, NATIVE, ev.name))
        elif isinstance(tid, int) and tid in kept:
            new.append((ev.agent_id, tid, ""))
    if not new:
        return verdict
    rest = tuple(e for e in after.sub_refused if e not in new)
    return Verdict(verdict.actions, replace(after, sub_refused=_recent((*rest, *new))))


def decide(ev: SubagentSettled, s: TodosState, ctx: Context) -> Verdict[TodosState]:
    """Keep the subagent working while its done rests on a refused claim, within the bound;
    past it, let it stop and tell the user. Nothing to say: it stops freely."""
    if "subagent_stop" not in ctx.capabilities:
        return Verdict()
    items = _items(ev, s, ctx)
    s = _forget_native(s, ev.agent_id)
    if not items:
        return Verdict(state=_forget(s, ev.agent_id))
    say = ctx.say
    signature = hashlib.sha256("\n".join(items).encode("utf-8", "replace")).hexdigest()[:16]
    blocks, last = next(((n, sig) for a, n, sig in s.sub_blocks if a == ev.agent_id), (0, ""))
    data: dict[str, object] = {"agent": ev.agent_id, "type": ev.agent_type, "items": len(items)}
    bounded = (not ev.agent_id and ev.continued) or blocks >= MAX_BLOCKS or signature == last
    shown = "; ".join(items)
    if bounded:
        who = ev.agent_type or ev.agent_id or "?"
        notice = Notify(say("subagent.unproven", agent=who, items=shown), "warning")
        record = Record("subagent_released", {**data, "blocks": blocks})
        return Verdict((notice, record), _forget(s, ev.agent_id))
    from goalkeeper.guards.todos import todo_tool_name

    text = say("subagent.refused", items=shown, todo_tool=todo_tool_name(ctx))
    entry = (ev.agent_id, blocks + 1, signature)
    rest = tuple(e for e in s.sub_blocks if e[0] != ev.agent_id)
    s = replace(s, sub_blocks=_recent((*rest, entry)) if ev.agent_id else rest)
    return Verdict((Continue(text), Record("subagent_refused", {**data, "blocks": blocks + 1})), s)


def _items(ev: SubagentSettled, s: TodosState, ctx: Context) -> list[str]:
    """What this subagent's done rests on that goalkeeper refused, one phrase each."""
    say = ctx.say
    items: list[str] = []
    why_of = {tid: (why, detail) for tid, why, detail in s.refused}
    for agent, tid, tool in s.sub_refused:
        if agent != ev.agent_id:
            continue
        if tid == NATIVE:
            items.append(say("todo.stop.native", tool=tool))
            continue
        task = s.tree.get(tid)
        if task is None or task.status in ("completed", "deleted") or tid not in why_of:
            continue  # fixed since, or withdrawn
        why, detail = why_of[tid]
        because = say(f"todo.stop.why.{why}", detail=detail)
        items.append(say("todo.stop.refused", id=tid, why=because))
    complete = _unproven_complete(ev, ctx)
    if complete is not None:
        items.append(complete)
    return items


def _unproven_complete(ev: SubagentSettled, ctx: Context) -> str | None:
    """A ``[PDCA] complete`` in the subagent's answer, judged as the main agent's check round
    is (``round_checks``) on the subagent's own run: only a verification that ran and passed
    holds it up. A host that reported no run (no transcript) is not judged: the rule is off;
    so it is where the main agent's check needs no tool either (quick mode,
    ``check_needs_tool`` off)."""
    from goalkeeper.core.cadence.markers import fenced_complete, parse_marker
    from goalkeeper.guards.round_checks import judge_round

    marker = parse_marker(ev.last_text) or fenced_complete(ev.last_text)
    if marker is None or marker.phase != "complete":
        return None
    if ev.activity.runs is None and not ev.activity.unreadable:
        return None
    if ctx.run_mode == "quick" or not ctx.config.check_needs_tool:
        return None
    round_ = Settled(ev.session_id, ev.last_text, activity=ev.activity)
    evidence = judge_round(round_, ctx, tools=ev.activity.tool_calls, announced=None)
    if evidence.status == "passed":
        return None
    return ctx.say("subagent.complete", status=evidence.status)


def _forget_native(s: TodosState, agent: str) -> TodosState:
    """A native completion is named at one stop: the host's list is not goalkeeper's to track."""
    kept = tuple(e for e in s.sub_refused if not (e[0] == agent and e[1] == NATIVE))
    return replace(s, sub_refused=kept) if len(kept) != len(s.sub_refused) else s


def _forget(s: TodosState, agent: str) -> TodosState:
    """The subagent stops: what was kept for it goes (an agent id is never reused)."""
    refused = tuple(e for e in s.sub_refused if e[0] != agent)
    blocks = tuple(e for e in s.sub_blocks if e[0] != agent)
    if len(refused) == len(s.sub_refused) and len(blocks) == len(s.sub_blocks):
        return s
    return replace(s, sub_refused=refused, sub_blocks=blocks)


def _recent(entries: tuple[tuple[str, int, str], ...]) -> tuple[tuple[str, int, str], ...]:
    """The entries of the ``MAX_AGENTS`` subagents seen last."""
    agents = set(list(dict.fromkeys(e[0] for e in entries))[-MAX_AGENTS:])
    return tuple(e for e in entries if e[0] in agents)
