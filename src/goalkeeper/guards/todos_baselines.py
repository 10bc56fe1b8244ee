"""The snapshots a todo's file claims are judged against (audit D5): baselines.

When a todo is created, the project's files are snapshotted (``Inspect`` of the project
folder), so a later claim that a file was edited is judged against the content it had then,
not against git's HEAD or an mtime that ``touch`` moves. Tasks created while nothing changed
share one snapshot; each open task names its own (``Task.baseline``), a baseline no open task
uses is dropped, and at most ``MAX_BASELINES`` are kept: the state every hook reads stays as
small as the open work. Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec.structs import replace

from goalkeeper.core.todos.evidence import PROJECT_FOLDER, Baseline, make_baseline
from goalkeeper.core.todos.tree import Task
from goalkeeper.core.values import Facts

if TYPE_CHECKING:
    from goalkeeper.guards.todos import TodosState

MAX_BASELINES = 8  # distinct snapshots kept for open tasks (a batch of todos shares one)


def baseline_of(facts: Facts) -> Baseline | None:
    """The snapshot in the facts of the project folder, as a baseline; None without one."""
    folder = next((f for f in facts.files if f.path == PROJECT_FOLDER and f.kind == "folder"), None)
    if folder is None or not (folder.entries or folder.complete):
        return None
    return make_baseline(folder.entries, folder.skipped, folder.complete)


def with_baseline(s: TodosState, task_id: int, baseline: Baseline) -> TodosState:
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


def baseline_moved(s: TodosState, before: Task, after: Task | None) -> TodosState:
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


def baseline_for(s: TodosState, task: Task) -> Baseline | None:
    if not task.baseline:
        return None
    return next((b for i, b in s.baselines if i == task.baseline), None)


def load_baselines(raw: object) -> tuple[tuple[str, Baseline], ...]:
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
