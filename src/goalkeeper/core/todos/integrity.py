"""Tree integrity after the create (seed 002: 树完整性; issue 23): a move keeps the tree a tree,
and a parent completes only when no task below it is open.

The spec checks a parent reference at create and a parent's direct children at completion; the
closure over the whole subtree holds only if nothing changes afterwards. Two things do: an
update may move a task (``metadata.parentId``), and a completed task may be reopened. A move to a
task that does not exist detached the work from its parent, a move under one of the task's own
descendants cut the subtree off into a cycle, and a reopened grandchild under a completed child
left its grandparent free to complete — each a parent completing with open work. So a move is
checked like a create plus "not into its own subtree", and a completion looks below completed
and deleted children too. Pure; never raises.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from goalkeeper.core.todos.tree import Task, Tasks, as_tree, is_number, js_str, validate_parent_ref
from goalkeeper.core.values import Problem


def validate_move(tasks: Tasks, task_id: object, parent_id: object) -> Problem | None:
    """A task moved under ``parent_id``: the parent must exist (as at create) and must be
    neither the task nor one of its descendants. ``None`` moves the task to the root. The walk
    goes up from the new parent, so it costs the new parent's depth, and it ends on a cycle
    stored before moves were checked instead of looping."""
    problem = validate_parent_ref(tasks, parent_id)
    if problem is not None or parent_id is None or not is_number(task_id):
        return problem
    tree = as_tree(tasks)
    node, seen = tree.get(parent_id), set[int]()
    while node is not None and node.id not in seen:
        if node.id == task_id:
            return Problem.of("todo.parent_cycle", id=js_str(task_id), parent=js_str(parent_id))
        seen.add(node.id)
        node = tree.get(node.parent_id) if node.parent_id is not None else None
    return None


def open_descendants(tasks: Tasks, task_id: int) -> tuple[Task, ...]:
    """The open tasks nearest below ``task_id``: its open children if it has any (what the
    spec names), else those of the first level below that has some, looking through completed
    and deleted tasks alike (a tombstone does not close the work hung under it). The tree's
    source answers it at once (the store in one query, ``TaskTable.open_below``): completing
    the root of a 10,000-task tree used to ask each task below for its children."""
    return as_tree(tasks).open_below(task_id)


def nearest_open_below(children: Callable[[int], Iterable[Task]], task_id: int) -> tuple[Task, ...]:
    """The open tasks nearest below ``task_id``, by id: its open children if it has any, else
    those of the first level below that has some, looking through completed and deleted tasks
    alike (seed 002 tree integrity). Each task is visited once, so a stored cycle ends; a
    subtree with nothing open is read once, whole, through ``children``."""
    seen, level = {task_id}, [task_id]
    while level:
        below: list[Task] = []
        for parent in level:
            for child in children(parent):
                if child.id not in seen:
                    seen.add(child.id)
                    below.append(child)
        found = tuple(sorted((t for t in below if t.open), key=lambda t: t.id))
        if found:
            return found
        level = [t.id for t in below]
    return ()


def by_parent(tasks: Iterable[Task]) -> Callable[[int], Iterable[Task]]:
    """``children`` over tasks in memory, indexed once: a walk asking every task's children
    of a scan per task would be quadratic."""
    index: dict[int, list[Task]] = {}
    for t in tasks:
        if t.parent_id is not None:
            index.setdefault(t.parent_id, []).append(t)
    return lambda parent_id: index.get(parent_id, ())
