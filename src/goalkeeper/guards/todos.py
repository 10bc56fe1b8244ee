"""The todos guard (seed 002, pi-todone v0.6.0): goalkeeper's own ``todo`` tool and its gates.

On a ``todo`` tool call it applies the hard gates (tree integrity, evidence format, declared
gates, and, beyond the seed, the evidence goalkeeper can check itself), then performs the call
on the session's todo tree and replies with the result (``todos_call``). A refusal repeats for
the same task and reason are escalated (block storm), and a stop with a refused completion not
fixed, or a gated todo open, tells the user in one line (``todos_refusals``). Native todo tools
may not mark anything completed. The advice layer (①–⑦) lives in ``todo_advice.py``, the
judging of claims in ``todo_claims.py``, the snapshots claims are judged against in
``todos_baselines.py``. This module keeps the guard's state and routes the events. Pure: the
tree is part of this guard's state, a value that reads the session's stored tasks on demand
(``store/todo_tasks.py`` keeps them as rows and writes only the changed ones).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from msgspec import Struct, field
from msgspec.structs import replace

from goalkeeper.core.todos.evidence import Baseline
from goalkeeper.core.todos.tree import TodoTree, is_number
from goalkeeper.core.tools import SHELL_TOOLS, TODO_TOOL
from goalkeeper.core.values import (
    Action,
    Advise,
    BeforeAgentStart,
    Block,
    Event,
    Notify,
    Record,
    SessionStart,
    Settled,
    SubagentSettled,
    ToolCall,
    TurnEnd,
    UserPrompt,
)
from goalkeeper.guards.spec import Context, Verdict, load_state_value
from goalkeeper.guards.todos_baselines import load_baselines

NATIVE_TODO_TOOLS = ("TodoWrite", "TaskUpdate", "write_todos")  # write_todos: Gemini CLI
LONG_WAIT_MS = 60_000  # hard-coded in pi-todone
SUBAGENT_TOOLS = ("subagent", "Task", "Agent")


class TodosState(Struct, frozen=True):
    tree: TodoTree = field(default_factory=TodoTree)
    storm: tuple[tuple[int, str, int], ...] = ()
    """Per task: the reason key of its consecutive refusals and how many there were."""
    current_round: int = 0
    last_injected_round: int = -1
    last_stall_round: int = -1
    last_settled_round: int = -1
    last_injection_text: str = ""
    last_injection_at: float = 0.0
    injection_streak: int = 0
    last_incomplete_count: int = -1
    stagnant_rounds: int = 0
    stalled_notified: bool = False
    pending_verify: tuple[int, ...] = ()
    pending_parallel: tuple[int, ...] = ()
    settled_forced: bool = False
    settled_forced_count: int = -1
    settled_forced_at: float = 0.0
    last_user_at: float = 0.0
    quiet_told_at: float = -1.0
    """The user message (its time) whose stop, held by the quiet window, the user was told of."""
    unit_tool_events: int = 0
    unit_tools_measured: int = 0
    unit_todo_calls: int = 0
    unit_created_todo: bool = False
    unit_long_wait: bool = False
    baselines: tuple[tuple[str, Baseline], ...] = ()
    """Snapshots of the project's files taken when open tasks were created, by ident; tasks
    created while nothing changed share one. Each task names its own (``Task.baseline``)."""
    baseline_refs: tuple[tuple[str, int], ...] = ()
    """How many open tasks use each baseline: one no open task uses is dropped, so the state
    every hook reads stays as small as the open work (without reading the tree to know)."""
    refused: tuple[tuple[int, str, str], ...] = ()
    """Tasks whose last completion was refused and is not fixed yet: (id, why, detail), for the
    user's notice at a stop."""
    to_accept: tuple[int, ...] = ()
    """Completed tasks awaiting the user's acceptance not told yet: named once, at the next
    stop (``todos_refusals.acceptance_notice``)."""
    to_review: tuple[int, ...] = ()
    """Tasks completed since the last stop: those gated by tests get the review round there."""
    reviewed: tuple[int, ...] = ()
    """Tasks a fresh reviewer was asked for (``guards.review``): never asked again."""
    native_refused: str = ""
    """The host's own todo tool whose completion was refused since the last stop (``TodoWrite``):
    its items are not goalkeeper's tasks, but the user hears of the refusal all the same."""
    sub_refused: tuple[tuple[str, int, str], ...] = ()
    """Completions a subagent made that were refused: (agent id, task id or 0 for the host's
    own todo tool, that tool's name), judged at its stop (``subagent_stop``)."""
    sub_blocks: tuple[tuple[str, int, str], ...] = ()
    """Per subagent: how often its stop was refused, and the digest of what was named last."""


_STRUCTURED = (
    "tree",
    "storm",
    "baselines",
    "baseline_refs",
    "refused",
    "sub_refused",
    "sub_blocks",
)

_SCALARS = [name for name in TodosState.__struct_fields__ if name not in _STRUCTURED]

_ID_LISTS = ("pending_verify", "pending_parallel", "to_accept", "to_review", "reviewed")


class TodosGuard:
    name: ClassVar[str] = "todos"

    def initial_state(self) -> TodosState:
        return TodosState()

    def load_state(self, raw: Mapping[str, Any]) -> TodosState:
        scalars = {k: v for k, v in raw.items() if k in _SCALARS and k not in _ID_LISTS}
        state = load_state_value(TodosState, scalars)
        verify, parallel, to_accept, to_review, reviewed = (_ids(raw.get(k)) for k in _ID_LISTS)
        storm = tuple(
            (int(e[0]), str(e[1]), int(e[2]))
            for e in raw.get("storm") or []
            if isinstance(e, list) and len(e) == 3 and is_number(e[0]) and is_number(e[2])
        )
        return replace(
            state,
            tree=TodoTree.from_json(raw.get("tree")),
            storm=storm,
            pending_verify=verify,
            pending_parallel=parallel,
            to_accept=to_accept,
            to_review=to_review,
            reviewed=reviewed,
            baselines=load_baselines(raw.get("baselines")),
            baseline_refs=tuple(
                (e[0], int(e[1]))
                for e in raw.get("baseline_refs") or []
                if isinstance(e, list) and len(e) == 2 and isinstance(e[0], str) and is_number(e[1])
            ),
            refused=tuple(
                (int(e[0]), e[1], e[2])
                for e in raw.get("refused") or []
                if isinstance(e, list)
                and len(e) == 3
                and is_number(e[0])
                and isinstance(e[1], str)
                and isinstance(e[2], str)
            ),
            sub_refused=_agent_entries(raw.get("sub_refused")),
            sub_blocks=_agent_entries(raw.get("sub_blocks")),
        )

    def dump_state(self, state: TodosState) -> dict[str, Any]:
        """The guard's bookkeeping. A tree backed by the store is not in it: the store keeps
        its tasks as rows and writes only the changed ones (``store.todo_tasks``); a tree in
        memory (a test's, or one not stored yet) is written whole."""
        data: dict[str, Any] = {name: getattr(state, name) for name in _SCALARS}
        if not state.tree.stored:
            data["tree"] = state.tree.to_json()
        data.update(
            storm=[list(e) for e in state.storm],
            pending_verify=list(state.pending_verify),
            pending_parallel=list(state.pending_parallel),
            baselines=[
                [ident, b.packed, list(b.skipped), b.complete] for ident, b in state.baselines
            ],
            baseline_refs=[list(e) for e in state.baseline_refs],
            refused=[list(e) for e in state.refused],
            sub_refused=[list(e) for e in state.sub_refused],
            sub_blocks=[list(e) for e in state.sub_blocks],
        )
        return data

    def on_event(self, event: Event, state: TodosState, ctx: Context) -> Verdict[TodosState]:
        if isinstance(event, SubagentSettled):
            from goalkeeper.guards.subagent_stop import decide

            return decide(event, state, ctx)
        if ctx.config.todos == "off":
            if isinstance(event, ToolCall) and event.name == TODO_TOOL:
                from goalkeeper.guards.todos_call import on_todo_call

                return on_todo_call(event, state, ctx)  # the tool still works, ungated advice off
            return Verdict()
        if isinstance(event, ToolCall):
            return on_tool_call(event, state, ctx)
        if isinstance(event, Settled):
            return on_settled(event, state, ctx)
        if isinstance(event, UserPrompt):
            return Verdict(state=_new_unit(replace(state, last_user_at=ctx.now)))
        if isinstance(event, BeforeAgentStart):
            return Verdict(state=replace(state, current_round=state.current_round + 1))
        if isinstance(event, TurnEnd):
            return on_turn_end(state, ctx)
        if isinstance(event, SessionStart):
            text = ctx.say("todo.guideline", todo_tool=todo_tool_name(ctx))  # static per host
            return Verdict((Advise(text, static=True),))
        return Verdict()


def on_tool_call(ev: ToolCall, s: TodosState, ctx: Context) -> Verdict[TodosState]:
    verdict = _on_tool_call(ev, s, ctx)
    if ev.agent_id:  # a subagent's call: its refusals are judged again at its stop
        from goalkeeper.guards.subagent_stop import attribute

        return attribute(verdict, ev)
    return verdict


def _on_tool_call(ev: ToolCall, s: TodosState, ctx: Context) -> Verdict[TodosState]:
    s = _count_tool(s, ev)
    if ev.name == TODO_TOOL:
        from goalkeeper.guards.todos_call import on_todo_call

        return on_todo_call(ev, s, ctx)
    if ev.name in NATIVE_TODO_TOOLS and _native_completion(ev):
        guide = ctx.say("evidence.guide")
        text = ctx.say(
            "todo.native_refused", tool=ev.name, guide=guide, todo_tool=todo_tool_name(ctx)
        )
        block = Block(text)
        record = Record("todo_refused", {"tool": ev.name, "reason": "native"})
        return Verdict((block, record), replace(s, native_refused=ev.name))
    return Verdict(state=s)


def on_turn_end(s: TodosState, ctx: Context) -> Verdict[TodosState]:
    """Advice inside a run (Pi's steer), at most one per round."""
    from goalkeeper.guards.todo_advice import advise

    if s.last_injected_round == s.current_round:
        return Verdict(state=s)
    advice, s = advise(s, ctx, "now")
    return Verdict((advice,) if advice else (), s)


def on_settled(ev: Settled, s: TodosState, ctx: Context) -> Verdict[TodosState]:
    """⑦ first; if it did not speak, the ordinary advice as a follow-up. Whatever is decided
    for the agent, a stop with a refused completion not fixed or an open gated todo tells the
    user so (advice windows and backoff do not apply to it), and so does a stop with open todos
    whose ⑦ the quiet window held: open work is released after one push or a word to the user."""
    from goalkeeper.guards.todo_advice import advise, ultimatum
    from goalkeeper.guards.todos_refusals import acceptance_notice, stop_notice

    notice, s = stop_notice(s, ctx)
    accept, s = acceptance_notice(s, ctx)
    told: tuple[Action, ...] = tuple(n for n in (notice, accept) if n is not None)
    if s.last_settled_round == s.current_round:
        s = replace(s, current_round=s.current_round + 1)  # a continuation ran without a prompt
    s = replace(s, last_settled_round=s.current_round)
    if ev.activity.tool_calls:
        s = replace(s, unit_tools_measured=s.unit_tools_measured + ev.activity.tool_calls)
    if ev.activity.long_wait:
        s = replace(s, unit_long_wait=True)
    if ev.aborted or ev.error:
        return Verdict(told, s)
    push, delivered, s = ultimatum(s, ctx)
    review, s = _review_gated(s, ctx)  # rides with the ultimatum: one continuation
    if isinstance(push, Notify):  # ⑦ held by the quiet window: the user hears of the open todos
        told = told or (push,)  # unless this stop's notice names what is open already
    elif push is not None:
        record = Record("todo_ultimatum", {"open": s.tree.open_count})
        return Verdict((push, record, *review, *told), s)
    if review:
        return Verdict((*review, *told), s)
    if delivered:
        return Verdict(told, s)  # the ultimatum's words were said already: counts as delivered
    if s.last_injected_round == s.current_round:
        return Verdict(told, s)
    advice, s = advise(s, ctx, "next_turn")
    return Verdict((advice, *told) if advice else told, s)


def _review_gated(s: TodosState, ctx: Context) -> tuple[tuple[Action, ...], TodosState]:
    """Issue 22 §5, seed 002 ⑥: the tasks gated by tests completed since the last stop get one
    round for a fresh reviewer, once per task; not asked (and not kept) when it may not be."""
    if not s.to_review:
        return (), s
    from goalkeeper.core.todos.evidence import parse_gate
    from goalkeeper.guards.review import may_ask_review, todo_review

    ids = tuple(
        i
        for i in s.to_review
        if i not in s.reviewed
        and (t := s.tree.get(i)) is not None
        and t.status == "completed"
        and (gate := parse_gate(t.metadata.get("gate"))) is not None
        and gate.test
    )
    s = replace(s, to_review=())
    if not ids or not may_ask_review(ctx):
        return (), s
    asked = Record("review_asked", {"todos": list(ids)})
    verify = tuple(i for i in s.pending_verify if i not in ids)  # said here, and more
    s = replace(s, reviewed=s.reviewed + ids, pending_verify=verify)
    return (todo_review(ids, ctx), asked), s


def _agent_entries(value: object) -> tuple[tuple[str, int, str], ...]:
    """Stored (agent id, number, text) entries; anything damaged is dropped."""
    return (
        tuple(
            (e[0], int(e[1]), e[2])
            for e in value
            if isinstance(e, list)
            and len(e) == 3
            and isinstance(e[0], str)
            and is_number(e[1])
            and isinstance(e[2], str)
        )
        if isinstance(value, list)
        else ()
    )


def _ids(value: object) -> tuple[int, ...]:
    return tuple(int(i) for i in value if is_number(i)) if isinstance(value, list) else ()


def _new_unit(s: TodosState) -> TodosState:
    return replace(
        s,
        unit_tool_events=0,
        unit_tools_measured=0,
        unit_todo_calls=0,
        unit_created_todo=False,
        unit_long_wait=False,
    )


def _count_tool(s: TodosState, ev: ToolCall) -> TodosState:
    """Unit statistics (spec §8.2) from tool-call events."""
    long_wait = ev.name in SUBAGENT_TOOLS or (
        ev.name in SHELL_TOOLS
        and (
            (is_number(ev.input.get("timeout")) and float(ev.input["timeout"]) >= LONG_WAIT_MS)  # type: ignore[arg-type]
            or ev.input.get("run_in_background") is True
        )
    )
    return replace(
        s,
        unit_tool_events=s.unit_tool_events + 1,
        unit_todo_calls=s.unit_todo_calls + (ev.name == TODO_TOOL),
        unit_long_wait=s.unit_long_wait or long_wait,
    )


def _native_completion(ev: ToolCall) -> bool:
    if ev.name == "TaskUpdate":
        return ev.input.get("status") == "completed"
    todos = ev.input.get("todos")
    return isinstance(todos, list) and any(
        isinstance(t, Mapping) and t.get("status") == "completed" for t in todos
    )


def todo_tool_name(ctx: Context) -> str:
    """The todo tool as the host names it (Claude Code: ``mcp__goalkeeper__todo``, or the
    plugin's ``mcp__plugin_goalkeeper_goalkeeper__todo``; Pi: ``todo``)."""
    return ctx.tool_names.get(TODO_TOOL, TODO_TOOL)
