"""The todo advice layer (seed 002; ``todo-obligations-spec.md`` §8): ①–⑥ and the ⑦ ultimatum.

Advice is a message, never part of a system prompt. At most one per round, with exponential
backoff, a quiet window after a real user message, same-text dedupe, and a stall notice that is
terminal until progress or the user speaks. ⑦ is the only advice that starts a run: once per
"open count + no user input" state, so the agent is pushed back at most once. Pure: functions of
the guard's state, the time and the config.

Two deliberate deviations from pi-todone: when ④ (wait gap) has nothing to list, the pipeline
falls through to ⑤/⑥ instead of going silent for the rest of the unit, so a long wait can never
swallow the verification duty; and the quiet window holds ⑦ only after a message the agent
merely answered (it did no work since), and such a held stop is told to the user (issue 23).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import TYPE_CHECKING

from msgspec.structs import replace

from goalkeeper.core.todos.evidence import parse_gate
from goalkeeper.core.todos.tree import Task, TodoTree, open_dependencies, prune_alive
from goalkeeper.core.values import Advise, AdviseWhen, Continue, Notify
from goalkeeper.guards.spec import Context
from goalkeeper.guards.todos_refusals import STOP_ITEMS

if TYPE_CHECKING:
    from goalkeeper.guards.todos import TodosState

COOLDOWN_MAX_S = 600.0  # hard-coded in pi-todone (COOLDOWN_MAX_MS)
LIST_PARALLEL = 3
LIST_WAIT = 3
LIST_PROOF = 5
SCAN_FREE = 500


def advise(s: TodosState, ctx: Context, when: AdviseWhen) -> tuple[Advise | None, TodosState]:
    """Spec §8.3: prune, count stalls, apply backoff and quiet window, pick the first matching
    injector ①…⑥, and commit it (§8.5)."""
    cfg = ctx.config
    tree = s.tree
    has_tasks = tree.live_count > 0
    open_count = tree.open_count
    s = replace(
        s,
        pending_parallel=prune_alive(tree, s.pending_parallel, "in_progress"),
        pending_verify=prune_alive(tree, s.pending_verify, "completed"),
    )
    s = _count_stall(s, has_tasks, open_count)
    cooldown = min(COOLDOWN_MAX_S, cfg.todo_cooldown_base_ms / 1000 * 2**s.injection_streak)
    if ctx.now - s.last_injection_at < cooldown:
        return None, s
    if ctx.now - s.last_user_at < cfg.todo_quiet_after_ms / 1000:
        return None, s
    if s.last_user_at > s.last_injection_at:
        s = replace(s, stalled_notified=False)
    if s.stalled_notified and open_count == s.last_incomplete_count:
        return None, s
    say = ctx.say

    if s.stagnant_rounds >= cfg.todo_stall_threshold and not s.stalled_notified:
        text = say("todo.advice.stall", n=s.stagnant_rounds)
        advice, s = _inject(s, text, ctx.now, when)
        return advice, replace(s, stalled_notified=True, injection_streak=0)
    tools = max(s.unit_tool_events, s.unit_tools_measured)
    if (
        tools >= cfg.todo_create_threshold
        and not s.unit_created_todo
        and s.unit_todo_calls == 0
        and not has_tasks
    ):
        return _inject(s, say("todo.advice.create", n=tools), ctx.now, when)
    if s.pending_parallel:
        live = [
            t
            for i in s.pending_parallel
            if (t := tree.get(i)) is not None
            and t.status == "in_progress"
            and open_dependencies(tree, t)
        ]
        if not live:
            return None, replace(s, pending_parallel=())  # nothing left to confirm this time
        lines = "\n".join(
            say(
                "todo.advice.parallel_line",
                id=t.id,
                subject=t.subject,
                deps=say("todo.children_sep").join(f"#{d}" for d in open_dependencies(tree, t)),
            )
            for t in live[:LIST_PARALLEL]
        )
        advice, s = _inject(s, say("todo.advice.parallel", lines=lines), ctx.now, when)
        return advice, replace(s, pending_parallel=())
    if s.unit_long_wait:
        free = list(islice(_free(tree), LIST_WAIT))
        if free:
            lines = _lines(free)
            return _inject(s, say("todo.advice.wait", lines=lines), ctx.now, when)
    if open_count:
        text = say("todo.advice.proof", n=open_count, lines=_lines(tree.open_tasks(LIST_PROOF)))
        return _inject(s, text, ctx.now, when)
    if s.pending_verify:
        live_ids = [i for i in s.pending_verify if (t := tree.get(i)) and t.status == "completed"]
        if not live_ids:
            return None, replace(s, pending_verify=())
        advice, s = _inject(s, _verify_text(s, live_ids, ctx), ctx.now, when)
        return advice, replace(s, pending_verify=())
    return None, s


def ultimatum(s: TodosState, ctx: Context) -> tuple[Continue | Notify | None, bool, TodosState]:
    """Spec §8.6: at the final settle with open todos, push back once: explain the blocker or
    finish. Ignores the per-round guard and backoff; honours dedupe.

    The quiet window holds it only for an agent that did no work since the user's message (it
    answered them): seed 002 ⑦ releases a stop after one ultimatum, not before any, and a run
    under two minutes long is the common case, which the spec's window let end in silence
    (issue 23). A stop so held tells the user instead, once per message.

    Returns the continuation (or the user's notice, or None), whether the ultimatum counts as
    delivered (sent, or the same words said already), and the new state."""
    open_count = s.tree.open_count
    if not open_count:
        return None, False, s
    if open_count != s.settled_forced_count or s.last_user_at > s.settled_forced_at:
        s = replace(s, settled_forced=False)
    if s.settled_forced:
        return None, False, s
    worked = max(s.unit_tool_events, s.unit_tools_measured) > 0
    if ctx.now - s.last_user_at < ctx.config.todo_quiet_after_ms / 1000 and not worked:
        if s.quiet_told_at == s.last_user_at:
            return None, False, s
        return _quiet_notice(s, ctx, open_count), False, replace(s, quiet_told_at=s.last_user_at)
    text = ctx.say(
        "todo.advice.ultimatum", n=open_count, lines=_lines(s.tree.open_tasks(LIST_PROOF))
    )
    forced = replace(
        s, settled_forced=True, settled_forced_count=open_count, settled_forced_at=ctx.now
    )
    if text == s.last_injection_text:
        return None, True, forced  # the same words were already said: counts as delivered
    return Continue(text), True, _committed(forced, text, ctx.now)


def _quiet_notice(s: TodosState, ctx: Context, open_count: int) -> Notify:
    say = ctx.say
    shown = s.tree.open_tasks(STOP_ITEMS)
    items = "; ".join(f"#{t.id} {t.subject}" for t in shown)
    if open_count > len(shown):
        items += say("todo.stop.more", n=open_count - len(shown))
    return Notify(say("todo.advice.quiet_stop", n=open_count, items=items), "warning")


def _verify_text(s: TodosState, ids: list[int], ctx: Context) -> str:
    gated = [
        i
        for i in ids
        if (t := s.tree.get(i)) is not None
        and (g := parse_gate(t.metadata.get("gate"))) is not None
        and (g.test or g.audit)
    ]
    joined = ", ".join(str(i) for i in ids)
    if not gated:
        return ctx.say("todo.advice.verify", ids=joined)
    others = ctx.say("todo.advice.verify_others") if len(gated) < len(ids) else ""
    gated_ids = ", ".join(str(i) for i in gated)
    return ctx.say("todo.advice.verify_gated", ids=joined, gated=gated_ids, others=others)


def _count_stall(s: TodosState, has_tasks: bool, open_count: int) -> TodosState:
    """Once per round: an unchanged open count is one more stagnant round; any change (or a
    finished tree) resets, and lifts the terminal stall notice."""
    if has_tasks and open_count > 0 and s.last_stall_round != s.current_round:
        if open_count == s.last_incomplete_count:
            return replace(
                s, last_stall_round=s.current_round, stagnant_rounds=s.stagnant_rounds + 1
            )
        return replace(
            s,
            last_stall_round=s.current_round,
            stagnant_rounds=0,
            last_incomplete_count=open_count,
            stalled_notified=False,
        )
    if open_count == 0:
        return replace(s, stagnant_rounds=0, last_incomplete_count=0, stalled_notified=False)
    return s


def _inject(
    s: TodosState, text: str, now: float, when: AdviseWhen
) -> tuple[Advise | None, TodosState]:
    """Spec §8.5: the same text again counts as delivered and changes nothing."""
    if text == s.last_injection_text:
        return None, s
    return Advise(text, when), _committed(s, text, now)


def _committed(s: TodosState, text: str, now: float) -> TodosState:
    return replace(
        s,
        last_injected_round=s.current_round,
        last_injection_text=text,
        last_injection_at=now,
        injection_streak=s.injection_streak + 1,
    )


def _free(tree: TodoTree) -> Iterator[Task]:
    """Open tasks with no open prerequisite, by id. At most ``SCAN_FREE`` open tasks are
    looked at, so a huge tree of waiting tasks costs a bounded read, not the whole tree."""
    for task in islice(tree.iter_open(), SCAN_FREE):
        if not open_dependencies(tree, task):
            yield task


def _lines(tasks: tuple[Task, ...] | list[Task]) -> str:
    return "\n".join(f"#{t.id} {t.subject}" for t in tasks)
