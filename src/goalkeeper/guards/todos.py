"""The todos guard (seed 002, pi-todone v0.6.0): goalkeeper's own ``todo`` tool and its gates.

On a ``todo`` tool call it applies the hard gates (tree integrity, evidence format, declared
gates, and, beyond the seed, the evidence goalkeeper can check itself), then performs the call
on the session's todo tree and replies with the result. A refusal repeats for the same task and
reason are escalated (block storm). Native todo tools may not mark anything completed. The
advice layer (①–⑦) lives in ``todo_advice.py``, the judging of claims in ``todo_claims.py``.
Pure: the tree is part of this guard's state, a value that reads the session's stored tasks
on demand (``store/todo_tasks.py`` keeps them as rows and writes only the changed ones).

Beyond the seed, declared gates are duties (audit D2–D5): a gate cannot be dropped or weakened
once declared; a test gate is met only by goalkeeper's own re-run of an approved test command
that executed a test (its runner's summary says so), never by a claim it could not check;
``effect`` cannot complete a gated todo; a file claim is judged against the content the file
had when the todo was created (a snapshot taken then; git's HEAD and mtime where there is
none), so ``touch`` is no edit and a path outside the project is never verified. Every
completion is journalled with what was verified and how (``todo_completed``), and a stop with a
refused completion not fixed, or a gated todo open, tells the user in one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar

from goalkeeper.core.proof.protected import session_key
from goalkeeper.core.todos.evidence import (
    PROJECT_FOLDER,
    Baseline,
    Gate,
    evidence_claims,
    gate_names,
    gate_weakened,
    make_baseline,
    normalize_evidence,
    parse_gate,
    validate_gate,
    validate_gate_kind,
)
from goalkeeper.core.todos.tool import TodoCall, apply_todo, parse_todo_call
from goalkeeper.core.todos.tree import (
    Task,
    TodoTree,
    can_complete_tree,
    is_number,
    open_dependencies,
    validate_parent_ref,
)
from goalkeeper.core.tools import SHELL_TOOLS
from goalkeeper.core.values import (
    Action,
    Advise,
    BeforeAgentStart,
    Block,
    Event,
    Facts,
    Inspect,
    Notify,
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
from goalkeeper.guards.todo_claims import Judgement, completion_record, judge_claims

TODO_TOOL = "todo"
NATIVE_TODO_TOOLS = ("TodoWrite", "TaskUpdate")
LONG_WAIT_MS = 60_000  # hard-coded in pi-todone
SUBAGENT_TOOLS = ("subagent", "Task", "Agent")
STOP_ITEMS = 3  # todos named in the notice at a stop; the rest are counted
MAX_BASELINES = 8  # distinct snapshots kept for open tasks (a batch of todos shares one)


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
    baselines: tuple[tuple[str, Baseline], ...] = ()
    """Snapshots of the project's files taken when open tasks were created, by ident; tasks
    created while nothing changed share one. Each task names its own (``Task.baseline``)."""
    baseline_refs: tuple[tuple[str, int], ...] = ()
    """How many open tasks use each baseline: one no open task uses is dropped, so the state
    every hook reads stays as small as the open work (without reading the tree to know)."""
    refused: tuple[tuple[int, str, str], ...] = ()
    """Tasks whose last completion was refused and is not fixed yet: (id, why, detail), for the
    user's notice at a stop."""
    native_refused: str = ""
    """The host's own todo tool whose completion was refused since the last stop (``TodoWrite``):
    its items are not goalkeeper's tasks, but the user hears of the refusal all the same."""


_STRUCTURED = ("tree", "storm", "baselines", "baseline_refs", "refused")
_SCALARS = [f.name for f in fields(TodosState) if f.name not in _STRUCTURED]
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
            baselines=_load_baselines(raw.get("baselines")),
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
        block = Block(ctx.say("todo.native_refused", tool=ev.name, guide=guide))
        record = Record("todo_refused", {"tool": ev.name, "reason": "native"})
        return Verdict((block, record), replace(s, native_refused=ev.name))
    return Verdict(state=s)


def on_todo_call(ev: ToolCall, s: TodosState, ctx: Context) -> Verdict[TodosState]:
    """The hard-gate pipeline (spec §7), then the call itself."""
    say = ctx.say
    parsed = parse_todo_call(ev.input)
    if isinstance(parsed, Problem):
        return Verdict((Block(parsed.render(say)),), s)
    call = parsed
    tree = s.tree
    baseline: Baseline | None = None
    completion: dict[str, Any] | None = None
    if call.metadata is not None and OWN_KEY in call.metadata:
        return Verdict((Block(say("todo.gate.own_key", key=OWN_KEY)),), s)
    if call.action == "create":
        s = replace(s, unit_created_todo=True)
        parent = (call.metadata or {}).get("parentId")
        problem = validate_parent_ref(tree, parent)
        if problem:
            return Verdict((Block(say("todo.block.parent", err=problem.render(say))),), s)
        if ctx.config.evidence_check != "off":
            if ctx.facts is None:  # what the files hold now is what a later claim is judged by
                return Verdict((Inspect(files=(PROJECT_FOLDER,)),), s)
            baseline = baseline_of(ctx.facts)
    elif call.action == "update":
        kept = _gate_kept(call, s, ctx)
        if kept is not None:
            return kept
    if call.action == "update" and call.status == "completed":
        gated = _completion_gates(call, s, ctx, session_key(ev.session_id))
        if isinstance(gated, Verdict):
            return gated
        call, completion = gated
        if isinstance(call.id, int | float) and not isinstance(call.id, bool):
            s = replace(
                s,
                storm=_storm_cleared(s, call.id),
                pending_verify=_added(s.pending_verify, int(call.id)),
                refused=tuple(e for e in s.refused if e[0] != call.id),
            )
    elif call.action == "update" and is_number(call.id):
        s = replace(s, storm=_storm_cleared(s, call.id))
        task = s.tree.get(call.id)
        if call.status == "in_progress" and task and open_dependencies(tree, task):
            s = replace(s, pending_parallel=_added(s.pending_parallel, task.id))
        if call.status == "deleted" and task is not None:
            s = _abandoned(s, task)
    before = s.tree.get(call.id) if call.action == "update" else None
    applied = apply_todo(s.tree, call, ctx.now)
    if isinstance(applied, Problem):
        return Verdict((Block(applied.render(say)),), s)
    task_id = applied.result.get("task", {}).get("id")
    s = replace(s, tree=applied.tree)
    if baseline is not None and is_number(task_id):
        s = _with_baseline(s, int(task_id), baseline)
    elif before is not None:
        s = _baseline_moved(s, before, s.tree.get(before.id))
    record = Record("todo", {"action": call.action, "id": task_id})
    actions: list[Action] = [Reply(applied.result), record]
    if completion is not None:
        actions.append(Record("todo_completed", completion))
    return Verdict(tuple(actions), s)


def _abandoned(s: TodosState, task: Task) -> TodosState:
    """Deleting an open gated task is allowed (the seed's tombstone), but the duty it drops is
    told to the user at the next stop, as a refused completion would be."""
    gate = parse_gate(task.metadata.get("gate"))
    if task.status == "completed" or not (gate.test or gate.audit):
        return s
    if any(e[0] == task.id for e in s.refused):
        return s  # the refusal it had says more
    return replace(s, refused=(*s.refused, (task.id, "abandoned", gate_names(gate))))


OWN_KEY = "verification"
"""The metadata key goalkeeper writes what it checked into: never the agent's to set."""


def _gate_kept(call: TodoCall, s: TodosState, ctx: Context) -> Verdict[TodosState] | None:
    """Audit D4: an update may add duties to a declared gate, never drop one."""
    if call.metadata is None or "gate" not in call.metadata:
        return None
    task = s.tree.get(call.id)
    if task is None:
        return None
    problem = gate_weakened(call.id, task.metadata.get("gate"), call.metadata["gate"])
    if problem is None:
        return None
    why = ("gate_kept", "") if call.status == "completed" else None
    return _escalate(s, call.id, "gate_kept", problem.render(ctx.say), ctx, why)


def _completion_gates(
    call: TodoCall, s: TodosState, ctx: Context, kept: str
) -> tuple[TodoCall, dict[str, Any]] | Verdict[TodosState]:
    """Tree, evidence format, declared gate, then checked evidence. A refusal is a Verdict; a
    pass is the call with its normalized evidence (and what goalkeeper checked) written back
    into ``metadata``, and the completion record's data. ``kept``: where the session's tests
    were kept at the user's first prompt (``KeepTests``), which a test gate's re-run is held
    to (the engine finds nothing there when no prompt kept them)."""
    say = ctx.say
    tree = s.tree
    problem = can_complete_tree(tree, call.id, sep=say("todo.children_sep"))
    if problem:
        text = say("todo.block.tree", err=problem.render(say))
        return _escalate(s, call.id, "tree", text, ctx, ("tree", ""))
    normalized = normalize_evidence(call.evidence if call.has_evidence else None)
    if normalized.problem or normalized.evidence is None:
        err = normalized.problem.render(say) if normalized.problem else ""
        text = say("todo.block.evidence", err=err, guide=say("evidence.guide"))
        return _escalate(s, call.id, "evidence", text, ctx, ("evidence", ""))
    evidence = normalized.evidence
    task = tree.get(call.id)
    own = (task,) if task is not None else ()  # the gate rules read the one task
    problem = validate_gate(own, call.id, evidence)
    if problem:
        text = say("todo.block.gate", err=problem.render(say))
        return _escalate(s, call.id, "gate", text, ctx, ("gate", ""))
    mode = ctx.config.evidence_check
    problem = validate_gate_kind(own, call.id, evidence) if mode != "off" else None
    if problem:
        return _escalate(s, call.id, "effect", problem.render(say), ctx, ("effect", ""))
    gate = parse_gate(task.metadata.get("gate")) if task is not None else Gate()
    files, commands = evidence_claims(evidence)  # cmd entries whatever the kind (audit D3)
    rerun = mode == "rerun" and gate.test
    judged = Judgement()
    if mode != "off" and task is not None:
        wanted = commands if rerun else ()
        if (files or wanted) and ctx.facts is None:
            protect = kept if rerun else ""
            paths, cmds = tuple(f.path for f in files), tuple(c.cmd for c in wanted)
            return Verdict((Inspect(paths, cmds, protect=protect),))
        if files or wanted:
            judged = judge_claims(
                task,
                files,
                wanted,
                ctx.facts or Facts(),
                ctx,
                baseline=_baseline_for(s, task),
                test_gate=rerun,
            )
            if judged.refusal:
                return _escalate(s, call.id, "checked", judged.refusal, ctx, judged.why)
    notes = list(judged.notes)
    unverified: list[dict[str, Any]] = []
    if not rerun:
        reason = say("todo.gate.rerun_mode", mode=mode) if gate.test else None
        for c in commands:
            why = reason or say("todo.gate.rerun_ungated")
            unverified.append({"what": "cmd", "cmd": c.cmd, "why": why})
            if reason:  # evidence_check below rerun: the gated claim stands, said unverified
                notes.append({"cmd": c.cmd, "status": "unverified", "reason": reason})
    metadata = {**(call.metadata or {}), "evidence": evidence}
    if notes:
        metadata[OWN_KEY] = notes
    record = completion_record(task, call.id, evidence, gate, mode, judged, unverified, ctx)
    return replace(call, metadata=metadata), record


def baseline_of(facts: Facts) -> Baseline | None:
    """The snapshot in the facts of the project folder, as a baseline; None without one."""
    folder = next((f for f in facts.files if f.path == PROJECT_FOLDER and f.kind == "folder"), None)
    if folder is None or not (folder.entries or folder.complete):
        return None
    return make_baseline(folder.entries, folder.skipped, folder.complete)


def _with_baseline(s: TodosState, task_id: int, baseline: Baseline) -> TodosState:
    """Remember the new task's baseline; a task created with the files as an earlier one had
    them shares its baseline. Past ``MAX_BASELINES`` the oldest is dropped, and its tasks'
    claims fall back to git and mtime: the state every hook reads stays bounded."""
    ident = baseline.ident
    shared = any(i == ident for i, _ in s.baselines)
    known = s.baselines if shared else (*s.baselines, (ident, baseline))[-MAX_BASELINES:]
    kept = {i for i, _ in known}
    refs = {i: n for i, n in s.baseline_refs if i in kept}
    refs[ident] = refs.get(ident, 0) + 1
    task = s.tree.get(task_id)
    tree = s.tree.with_task(replace(task, baseline=ident)) if task is not None else s.tree
    return replace(s, tree=tree, baselines=known, baseline_refs=tuple(refs.items()))


def _baseline_moved(s: TodosState, before: Task, after: Task | None) -> TodosState:
    """A task that closes (completed, deleted) stops using its baseline, one that reopens
    uses it again while it is kept; a baseline no open task uses is dropped."""
    if after is None or not before.baseline or before.open == after.open:
        return s
    refs = dict(s.baseline_refs)
    if before.baseline not in refs and not after.open:
        return s
    if after.open and not any(i == before.baseline for i, _ in s.baselines):
        return s  # dropped meanwhile: the reopened task falls back to git and mtime
    refs[before.baseline] = refs.get(before.baseline, 0) + (1 if after.open else -1)
    used = {i: n for i, n in refs.items() if n > 0}
    kept = tuple(e for e in s.baselines if e[0] in used)
    return replace(s, baselines=kept, baseline_refs=tuple(used.items()))


def _baseline_for(s: TodosState, task: Task) -> Baseline | None:
    if not task.baseline:
        return None
    return next((b for i, b in s.baselines if i == task.baseline), None)


def on_turn_end(s: TodosState, ctx: Context) -> Verdict[TodosState]:
    """Advice inside a run (Pi's steer), at most one per round."""
    if s.last_injected_round == s.current_round:
        return Verdict(state=s)
    advice, s = advise(s, ctx, "now")
    return Verdict((advice,) if advice else (), s)


def on_settled(ev: Settled, s: TodosState, ctx: Context) -> Verdict[TodosState]:
    """⑦ first; if it did not speak, the ordinary advice as a follow-up. Whatever is decided
    for the agent, a stop with a refused completion not fixed or an open gated todo tells the
    user so (advice windows and backoff do not apply to it)."""
    notice, s = stop_notice(s, ctx)
    told: tuple[Action, ...] = (notice,) if notice is not None else ()
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
    if push is not None:
        record = Record("todo_ultimatum", {"open": s.tree.open_count})
        return Verdict((push, record, *told), s)
    if delivered:
        return Verdict(told, s)  # the ultimatum's words were said already: counts as delivered
    if s.last_injected_round == s.current_round:
        return Verdict(told, s)
    advice, s = advise(s, ctx, "next_turn")
    return Verdict((advice, *told) if advice else told, s)


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


def _escalate(
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


def _load_baselines(raw: object) -> tuple[tuple[str, Baseline], ...]:
    """Stored baselines; an entry that cannot be read is dropped (its tasks fall back to git)."""
    found: list[tuple[str, Baseline]] = []
    for e in raw if isinstance(raw, list) else []:
        if (
            isinstance(e, list)
            and len(e) == 4
            and isinstance(e[0], str)
            and isinstance(e[1], str)
            and isinstance(e[2], list)
            and isinstance(e[3], bool)
        ):
            skipped = tuple(str(x) for x in e[2] if isinstance(x, str))
            found.append((e[0], Baseline(e[1], skipped, e[3])))
    return tuple(found)


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
