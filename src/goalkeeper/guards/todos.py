"""The todos guard (seed 002, pi-todone v0.6.0): goalkeeper's own ``todo`` tool and its gates.

On a ``todo`` tool call it applies the hard gates (tree integrity, evidence format, declared
gates, and, beyond the seed, the evidence goalkeeper can check itself: claimed file changes and
the re-run of a test-gated command), then performs the call on the session's todo tree and
replies with the result. A refusal repeats for the same task and reason are escalated
(block storm). Native todo tools may not mark anything completed. The advice layer (①–⑦) lives
in ``todo_advice.py``. Pure; the tree is this guard's state, stored per session.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar

from goalkeeper.core.evidence import (
    CommandClaim,
    FileClaim,
    evidence_claims,
    normalize_evidence,
    parse_gate,
    validate_gate,
)
from goalkeeper.core.todos import (
    Task,
    TodoCall,
    TodoTree,
    apply_todo,
    can_complete_tree,
    is_number,
    js_str,
    open_dependencies,
    parse_todo_call,
    validate_parent_ref,
)
from goalkeeper.core.tools import SHELL_TOOLS
from goalkeeper.core.values import (
    Advise,
    BeforeAgentStart,
    Block,
    Event,
    Facts,
    Inspect,
    Problem,
    Record,
    Reply,
    SessionStart,
    Settled,
    ToolCall,
    TurnEnd,
    UserPrompt,
)
from goalkeeper.guards.spec import Context, Verdict, load_state_value
from goalkeeper.guards.todo_advice import advise, ultimatum

TODO_TOOL = "todo"
NATIVE_TODO_TOOLS = ("TodoWrite", "TaskUpdate")
LONG_WAIT_MS = 60_000  # hard-coded in pi-todone
SUBAGENT_TOOLS = ("subagent", "Task", "Agent")
CHANGE_SLACK_S = 2.0  # file mtime vs task creation: clock and timestamp granularity


@dataclass(frozen=True, slots=True)
class TodosState:
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
    unit_tool_events: int = 0
    unit_tools_measured: int = 0
    unit_todo_calls: int = 0
    unit_created_todo: bool = False
    unit_long_wait: bool = False


_SCALARS = [f.name for f in fields(TodosState) if f.name not in ("tree", "storm")]
_ID_LISTS = ("pending_verify", "pending_parallel")


class TodosGuard:
    name: ClassVar[str] = "todos"

    def initial_state(self) -> TodosState:
        return TodosState()

    def load_state(self, raw: Mapping[str, Any]) -> TodosState:
        scalars = {k: v for k, v in raw.items() if k in _SCALARS and k not in _ID_LISTS}
        state = load_state_value(TodosState, scalars)
        verify, parallel = (_ids(raw.get(k)) for k in _ID_LISTS)
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
        )

    def dump_state(self, state: TodosState) -> dict[str, Any]:
        # not dataclasses.asdict: it deep-copies the whole tree only to have it replaced
        data: dict[str, Any] = {name: getattr(state, name) for name in _SCALARS}
        data.update(
            tree=state.tree.to_json(),
            storm=[list(e) for e in state.storm],
            pending_verify=list(state.pending_verify),
            pending_parallel=list(state.pending_parallel),
        )
        return data

    def on_event(self, event: Event, state: TodosState, ctx: Context) -> Verdict[TodosState]:
        if ctx.config.todos == "off":
            if isinstance(event, ToolCall) and event.name == TODO_TOOL:
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
            return Verdict((Advise(ctx.say("todo.guideline"), static=True),))
        return Verdict()


def on_tool_call(ev: ToolCall, s: TodosState, ctx: Context) -> Verdict[TodosState]:
    s = _count_tool(s, ev)
    if ev.name == TODO_TOOL:
        return on_todo_call(ev, s, ctx)
    if ev.name in NATIVE_TODO_TOOLS and _native_completion(ev):
        guide = ctx.say("evidence.guide")
        return Verdict((Block(ctx.say("todo.native_refused", tool=ev.name, guide=guide)),), s)
    return Verdict(state=s)


def on_todo_call(ev: ToolCall, s: TodosState, ctx: Context) -> Verdict[TodosState]:
    """The hard-gate pipeline (spec §7), then the call itself."""
    say = ctx.say
    parsed = parse_todo_call(ev.input)
    if isinstance(parsed, Problem):
        return Verdict((Block(parsed.render(say)),), s)
    call = parsed
    tasks = s.tree.tasks
    if call.action == "create":
        s = replace(s, unit_created_todo=True)
        parent = (call.metadata or {}).get("parentId")
        problem = validate_parent_ref(tasks, parent)
        if problem:
            return Verdict((Block(say("todo.block.parent", err=problem.render(say))),), s)
    elif call.action == "update" and call.status == "completed":
        gated = _completion_gates(call, s, ctx)
        if isinstance(gated, Verdict):
            return gated
        call = gated
        if isinstance(call.id, int | float) and not isinstance(call.id, bool):
            s = replace(
                s,
                storm=_storm_cleared(s, call.id),
                pending_verify=_added(s.pending_verify, int(call.id)),
            )
    elif call.action == "update" and is_number(call.id):
        s = replace(s, storm=_storm_cleared(s, call.id))
        task = s.tree.get(call.id)
        if call.status == "in_progress" and task and open_dependencies(tasks, task):
            s = replace(s, pending_parallel=_added(s.pending_parallel, task.id))
    applied = apply_todo(s.tree, call, ctx.now)
    if isinstance(applied, Problem):
        return Verdict((Block(applied.render(say)),), s)
    record = Record("todo", {"action": call.action, "id": applied.result.get("task", {}).get("id")})
    return Verdict((Reply(applied.result), record), replace(s, tree=applied.tree))


def _completion_gates(
    call: TodoCall, s: TodosState, ctx: Context
) -> TodoCall | Verdict[TodosState]:
    """Tree, evidence format, declared gate, then checked evidence. A refusal is a Verdict; a
    pass is the call with its normalized evidence written back into ``metadata``."""
    say = ctx.say
    tasks = s.tree.tasks
    problem = can_complete_tree(tasks, call.id, sep=say("todo.children_sep"))
    if problem:
        return _escalate(s, call.id, "tree", say("todo.block.tree", err=problem.render(say)), ctx)
    normalized = normalize_evidence(call.evidence if call.has_evidence else None)
    if normalized.problem or normalized.evidence is None:
        err = normalized.problem.render(say) if normalized.problem else ""
        text = say("todo.block.evidence", err=err, guide=say("evidence.guide"))
        return _escalate(s, call.id, "evidence", text, ctx)
    evidence = normalized.evidence
    problem = validate_gate(tasks, call.id, evidence)
    if problem:
        return _escalate(s, call.id, "gate", say("todo.block.gate", err=problem.render(say)), ctx)
    verification: list[dict[str, Any]] = []
    task = s.tree.get(call.id)
    if ctx.config.evidence_check != "off" and task is not None:
        files, commands = evidence_claims(evidence)
        rerun = ctx.config.evidence_check == "rerun" and parse_gate(task.metadata.get("gate")).test
        wanted = commands if rerun else ()
        if (files or wanted) and ctx.facts is None:
            ask = Inspect(tuple(f.path for f in files), tuple(c.cmd for c in wanted))
            return Verdict((ask,))
        if ctx.facts is not None:
            refusal, verification = judge_claims(task, files, wanted, ctx.facts, ctx)
            if refusal:
                return _escalate(s, call.id, "checked", refusal, ctx)
    metadata = {**(call.metadata or {}), "evidence": evidence}
    if verification:
        metadata["verification"] = verification
    return replace(call, metadata=metadata)


def judge_claims(
    task: Task,
    files: tuple[FileClaim, ...],
    commands: tuple[CommandClaim, ...],
    facts: Facts,
    ctx: Context,
) -> tuple[str | None, list[dict[str, Any]]]:
    """Compare what the evidence claims with what goalkeeper saw. A false claim is refused with
    what was seen; a command goalkeeper may not run stays a claim, marked unverified."""
    notes: list[dict[str, Any]] = []
    refusal = _judge_files(task, files, facts, ctx, notes)
    if refusal is None:
        refusal = _judge_commands(commands, facts, ctx, notes)
    return refusal, notes


def _judge_files(
    task: Task,
    claims: tuple[FileClaim, ...],
    facts: Facts,
    ctx: Context,
    notes: list[dict[str, Any]],
) -> str | None:
    say = ctx.say
    seen = {f.path: f for f in facts.files}
    for claim in claims:
        fact = seen.get(claim.path)
        if fact is None:
            continue
        op = claim.op if claim.op in ("write", "edit", "delete") else "edit"
        if op == "delete":
            if fact.exists:
                return say("todo.checked.file_exists", path=claim.path)
        elif not fact.exists:
            return say("todo.checked.file_missing", path=claim.path, op=say(f"todo.op.{op}"))
        elif not ((fact.mtime or 0) >= task.created_at - CHANGE_SLACK_S or fact.git_changed):
            why = (
                "todo.checked.seen_git" if fact.git_changed is False else "todo.checked.seen_mtime"
            )
            return say(
                "todo.checked.file_unchanged",
                path=claim.path,
                op=say(f"todo.op.{op}"),
                id=task.id,
                seen=say(why),
            )
        notes.append({"file": claim.path, "status": "verified"})
    return None


def _judge_commands(
    claims: tuple[CommandClaim, ...], facts: Facts, ctx: Context, notes: list[dict[str, Any]]
) -> str | None:
    say = ctx.say
    ran = {c.cmd: c for c in facts.commands}
    for claim in claims:
        fact = ran.get(claim.cmd)
        if fact is None:
            continue
        if not fact.allowed:
            reason = say(f"trust.rerun.{fact.refusal or 'not_approved'}", detail=fact.detail or "-")
            notes.append({"cmd": claim.cmd, "status": "unverified", "reason": reason})
            continue
        claimed = 0 if claim.exit is None else claim.exit
        if fact.timed_out or fact.exit_code != claimed:
            return say(
                "todo.checked.cmd_mismatch",
                cmd=claim.cmd,
                claimed=js_str(claimed),
                real=say("todo.timeout")
                if fact.timed_out
                else say("todo.checked.exited", code=js_str(fact.exit_code)),
                tail=fact.output_tail[-1500:],
            )
        notes.append({"cmd": claim.cmd, "status": "verified", "exit": fact.exit_code})
    return None


def on_turn_end(s: TodosState, ctx: Context) -> Verdict[TodosState]:
    """Advice inside a run (Pi's steer), at most one per round."""
    if s.last_injected_round == s.current_round:
        return Verdict(state=s)
    advice, s = advise(s, ctx, "now")
    return Verdict((advice,) if advice else (), s)


def on_settled(ev: Settled, s: TodosState, ctx: Context) -> Verdict[TodosState]:
    """⑦ first; if it did not speak, the ordinary advice as a follow-up."""
    if s.last_settled_round == s.current_round:
        s = replace(s, current_round=s.current_round + 1)  # a continuation ran without a prompt
    s = replace(s, last_settled_round=s.current_round)
    if ev.activity.tool_calls:
        s = replace(s, unit_tools_measured=s.unit_tools_measured + ev.activity.tool_calls)
    if ev.activity.long_wait:
        s = replace(s, unit_long_wait=True)
    if ev.aborted or ev.error:
        return Verdict(state=s)
    push, delivered, s = ultimatum(s, ctx)
    if push is not None:
        return Verdict((push, Record("todo_ultimatum", {"open": len(s.tree.incomplete)})), s)
    if delivered:
        return Verdict(state=s)  # the ultimatum's words were said already: counts as delivered
    if s.last_injected_round == s.current_round:
        return Verdict(state=s)
    advice, s = advise(s, ctx, "next_turn")
    return Verdict((advice,) if advice else (), s)


def _escalate(
    s: TodosState, task_id: object, key: str, reason: str, ctx: Context
) -> Verdict[TodosState]:
    """Spec §7.1: from the second refusal in a row of the same task for the same reason, say
    so and show the way out."""
    if not isinstance(task_id, int | float) or isinstance(task_id, bool):
        return Verdict((Block(reason),), s)
    tid = int(task_id)
    previous = next((e for e in s.storm if e[0] == tid), None)
    count = previous[2] + 1 if previous and previous[1] == key else 1
    storm = (*(e for e in s.storm if e[0] != tid), (tid, key, count))
    text = ctx.say("todo.storm", n=count) + reason if count >= 2 else reason
    record = Record("todo_refused", {"id": tid, "reason": key, "count": count})
    return Verdict((Block(text), record), replace(s, storm=storm))


def _ids(value: object) -> tuple[int, ...]:
    return tuple(int(i) for i in value if is_number(i)) if isinstance(value, list) else ()


def _storm_cleared(s: TodosState, task_id: object) -> tuple[tuple[int, str, int], ...]:
    return tuple(e for e in s.storm if e[0] != task_id)


def _added(ids: tuple[int, ...], task_id: int) -> tuple[int, ...]:
    return ids if task_id in ids else (*ids, task_id)


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
