"""What a todo call answers the model: bounded whatever the tree's size (issue 12).

The spec's result (``todo-obligations-spec.md`` §3) carries the whole tree, ``tasks``, in every
reply. That is right for the trees the spec's tests build and wrong for a long session: 620 KB
at 5,000 tasks, past Claude Code's MCP output limit from about 800. So ``tasks`` is the whole
tree only while the tree is small (``FULL_TASKS`` tasks and ``FULL_BYTES`` of JSON); beyond
that a ``summary`` replaces it: the counts by state, the next ``SUMMARY_OPEN`` open tasks
(subjects cut to ``SUBJECT_CHARS``) and how many more are open. ``task``, what the call is
about, is always there in full. Reading the summary costs a few indexed rows, never the tree.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from goalkeeper.core.todos.tool import TodoCall
    from goalkeeper.core.todos.tree import Task, TodoTree

FULL_TASKS = 40
FULL_BYTES = 6 * 1024
SUMMARY_OPEN = 10
SUBJECT_CHARS = 120


def result(tree: TodoTree, call: TodoCall, task: Task | None = None) -> dict[str, Any]:
    """``{"action", "params", "tasks" | "summary", "nextId"}``, plus ``task`` when given."""
    params = {k: v for k, v in call.raw.items() if k != "session"}
    data: dict[str, Any] = {"action": call.action, "params": params}
    counts = tree.counts()
    tasks = _full_list(tree, counts)
    if tasks is not None:
        data["tasks"] = tasks
    else:
        data["summary"] = summary(tree, counts)
    data["nextId"] = tree.next_id
    if task is not None:
        data["task"] = task.to_json()
    return data


def summary(tree: TodoTree, counts: dict[str, int] | None = None) -> dict[str, Any]:
    """The counts by state, the next open tasks by id, and how many more are open."""
    counts = counts if counts is not None else tree.counts()
    opened = counts["pending"] + counts["in_progress"]
    shown = tree.open_tasks(SUMMARY_OPEN)
    return {
        "counts": {k: v for k, v in counts.items() if k != "gated_open"},
        "open": [_brief(t) for t in shown],
        "moreOpen": max(0, opened - len(shown)),
    }


def _full_list(tree: TodoTree, counts: dict[str, int]) -> list[dict[str, Any]] | None:
    total = sum(v for k, v in counts.items() if k != "gated_open")
    if total > FULL_TASKS:
        return None
    tasks = [t.to_json() for t in tree.tasks]
    size = len(json.dumps(tasks, ensure_ascii=False))
    return tasks if size <= FULL_BYTES else None


def _brief(task: Task) -> dict[str, Any]:
    subject = task.subject
    if len(subject) > SUBJECT_CHARS:
        subject = subject[: SUBJECT_CHARS - 1] + "…"
    data: dict[str, Any] = {"id": task.id, "status": task.status, "subject": subject}
    if task.parent_id is not None:
        data["parentId"] = task.parent_id
    return data
