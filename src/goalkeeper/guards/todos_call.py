"""The ``todo`` tool call (seed 002 §7): the hard gates, then the call on the todo tree.

Beyond the seed, declared gates are duties (audit D2–D5): a gate cannot be dropped or weakened
once declared; a test gate is met only by goalkeeper's own re-run of an approved test command
that executed a test (its runner's summary says so), never by a claim it could not check;
``effect`` cannot complete a gated todo; a file claim is judged against the content the file
had when the todo was created (a snapshot taken then, ``todos_baselines``; git's HEAD and mtime
where there is none), so ``touch`` is no edit and a path outside the project is never
verified. Every completion is journalled with what was verified and how (``todo_completed``);
a refusal is escalated and kept for the notice at a stop (``todos_refusals``). Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from goalkeeper.core.proof.protected import session_key
from goalkeeper.core.todos.evidence import (
    PROJECT_FOLDER,
    Baseline,
    Gate,
    evidence_claims,
    gate_weakened,
    normalize_evidence,
    parse_gate,
    validate_gate,
    validate_gate_kind,
)
from goalkeeper.core.todos.integrity import validate_move
from goalkeeper.core.todos.tool import TodoCall, apply_todo, parse_todo_call
from goalkeeper.core.todos.tree import (
    can_complete_tree,
    is_number,
    open_dependencies,
    validate_parent_ref,
)
from goalkeeper.core.values import Action, Block, Facts, Inspect, Problem, Record, Reply, ToolCall
from goalkeeper.guards.spec import Context, Verdict
from goalkeeper.guards.todo_claims import Judgement, completion_record, judge_claims
from goalkeeper.guards.todos_baselines import (
    baseline_for,
    baseline_moved,
    baseline_of,
    with_baseline,
)
from goalkeeper.guards.todos_refusals import abandoned, escalate, storm_cleared

if TYPE_CHECKING:
    from goalkeeper.guards.todos import TodosState

OWN_KEY = "verification"
"""The metadata key goalkeeper writes what it checked into: never the agent's to set."""


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
        moved = _move_refused(call, s, ctx)
        if moved is not None:
            return moved
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
                storm=storm_cleared(s, call.id),
                pending_verify=_added(s.pending_verify, int(call.id)),
                to_review=_added(s.to_review, int(call.id)),
                refused=tuple(e for e in s.refused if e[0] != call.id),
            )
            tid = int(call.id)
            waits = tuple(i for i in s.to_accept if i != tid)
            waits += (tid,) if completion.get("awaiting_acceptance") else ()
            s = replace(s, to_accept=waits)
    elif call.action == "update" and is_number(call.id):
        s = replace(s, storm=storm_cleared(s, call.id))
        task = s.tree.get(call.id)
        if call.status == "in_progress" and task and open_dependencies(tree, task):
            s = replace(s, pending_parallel=_added(s.pending_parallel, task.id))
        if call.status == "deleted" and task is not None:
            s = abandoned(s, task)
    before = s.tree.get(call.id) if call.action == "update" else None
    applied = apply_todo(s.tree, call, ctx.now)
    if isinstance(applied, Problem):
        return Verdict((Block(applied.render(say)),), s)
    task_id = applied.result.get("task", {}).get("id")
    s = replace(s, tree=applied.tree)
    if baseline is not None and is_number(task_id):
        s = with_baseline(s, int(task_id), baseline)
    elif before is not None:
        s = baseline_moved(s, before, s.tree.get(before.id))
    record = Record("todo", {"action": call.action, "id": task_id})
    actions: list[Action] = [Reply(applied.result), record]
    if completion is not None:
        actions.append(Record("todo_completed", completion))
    return Verdict(tuple(actions), s)


def _move_refused(call: TodoCall, s: TodosState, ctx: Context) -> Verdict[TodosState] | None:
    """Seed 002 tree integrity on an update that moves a task (``metadata.parentId``): to a
    task that exists, outside its own subtree (``core.todos.integrity``); refused as a whole,
    nothing changed. Restating the parent it has is no move."""
    if call.metadata is None or "parentId" not in call.metadata:
        return None
    task = s.tree.get(call.id)
    if task is None:
        return None  # the call itself answers that the task does not exist
    new, old = call.metadata["parentId"], task.metadata.get("parentId")
    if (new is None and old is None) or (is_number(new) and is_number(old) and new == old):
        return None
    problem = validate_move(s.tree, task.id, new)
    if problem is None:
        return None
    return Verdict((Block(ctx.say("todo.block.move", err=problem.render(ctx.say))),), s)


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
    return escalate(s, call.id, "gate_kept", problem.render(ctx.say), ctx, why)


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
        return escalate(s, call.id, "tree", text, ctx, ("tree", ""))
    normalized = normalize_evidence(call.evidence if call.has_evidence else None)
    if normalized.problem or normalized.evidence is None:
        err = normalized.problem.render(say) if normalized.problem else ""
        text = say("todo.block.evidence", err=err, guide=say("evidence.guide"))
        return escalate(s, call.id, "evidence", text, ctx, ("evidence", ""))
    evidence = normalized.evidence
    task = tree.get(call.id)
    own = (task,) if task is not None else ()  # the gate rules read the one task
    problem = validate_gate(own, call.id, evidence)
    if problem:
        text = say("todo.block.gate", err=problem.render(say))
        return escalate(s, call.id, "gate", text, ctx, ("gate", ""))
    mode = ctx.config.evidence_check
    problem = validate_gate_kind(own, call.id, evidence) if mode != "off" else None
    if problem:
        return escalate(s, call.id, "effect", problem.render(say), ctx, ("effect", ""))
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
                baseline=baseline_for(s, task),
                test_gate=rerun,
            )
            if judged.refusal:
                return escalate(s, call.id, "checked", judged.refusal, ctx, judged.why)
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


def _added(ids: tuple[int, ...], task_id: int) -> tuple[int, ...]:
    return ids if task_id in ids else (*ids, task_id)
