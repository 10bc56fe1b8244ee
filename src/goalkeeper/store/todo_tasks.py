"""The todo tree's rows: one per task, so an event reads and writes only the tasks it touches.

A session's tree used to live inside the todos guard's JSON in the session row, and every hook
event decoded and re-encoded all of it (issue 12: a warm Stop at 10,000 tasks cost 15× Python's
start-up, a ``todo`` update 174 ms). Here each task is a row keyed by (session, id), with the
columns the tree's questions need indexed: open or not, gated or not, the parent. A second
table keeps per session the next id and the counts by state, so a Stop learns "7 open, 2 of
them gated" from one row. ``TaskTable`` is the ``TaskSource`` the guard's ``TodoTree`` reads
on demand, inside the event's transaction; ``save`` writes the tasks the event changed, and
nothing when it changed none.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

from msgspec.structs import replace

from goalkeeper.core.todos.tree import STATUSES, Task, TodoTree, task_from_json
from goalkeeper.store.sessions import json_object

_COUNTS = (*STATUSES, "gated_open")


class TaskTable:
    """The stored tasks of one session, read lazily and cached for the event."""

    def __init__(self, conn: sqlite3.Connection, session_id: str) -> None:
        self.conn = conn
        self.session_id = session_id
        self._tasks: dict[int, Task | None] = {}
        self._summary: tuple[int, dict[str, int]] | None = None

    # -- TaskSource ---------------------------------------------------------------------------
    def task(self, task_id: int) -> Task | None:
        if task_id not in self._tasks:
            row = self.conn.execute(
                "SELECT task FROM todo_tasks WHERE session_id = ? AND id = ?",
                (self.session_id, task_id),
            ).fetchone()
            self._tasks[task_id] = _decoded(row[0]) if row else None
        return self._tasks[task_id]

    # Each query names its index: with no statistics SQLite's planner walks the primary key
    # in id order and filters, which reads the whole tree when the rows asked for are rare.
    def children(self, parent_id: int) -> tuple[Task, ...]:
        return self._select("todo_tasks_parent", "parent_id = ? ORDER BY id", (parent_id,))

    def open_below(self, task_id: int) -> tuple[Task, ...]:
        """One recursive query walks the subtree on the parent index and decodes only the
        answer (before: a query and a decode per task below, ~0.3 s at 10,000 tasks). The walk
        never re-enters ``task_id``: each task has one parent, so a cycle reachable from it
        runs through it, and this is what ends one."""
        rows = self.conn.execute(_OPEN_BELOW, {"s": self.session_id, "root": task_id}).fetchall()
        found = []
        for found_id, raw in rows:
            task = self._tasks.get(found_id) or _decoded(raw)
            self._tasks[found_id] = task
            if task is not None:
                found.append(task)
        return tuple(found)

    def open_tasks(self, after: int, limit: int, *, gated: bool = False) -> tuple[Task, ...]:
        index = "todo_tasks_gated" if gated else "todo_tasks_open"
        where = "open = 1 AND gated = 1" if gated else "open = 1"
        return self._select(index, f"{where} AND id > ? ORDER BY id LIMIT ?", (after, limit))

    def counts(self) -> Mapping[str, int]:
        return dict(self._read_summary()[1])

    def next_id(self) -> int:
        return self._read_summary()[0]

    def all_tasks(self) -> tuple[Task, ...]:
        return self._select("", "1 ORDER BY id", ())

    # -- the engine's side --------------------------------------------------------------------
    def attach(self, state: Any) -> Any:
        """A guard state holding a ``TodoTree`` (``tree``), with the tree read from here."""
        tree = getattr(state, "tree", None)
        if isinstance(tree, TodoTree) and tree.source is not self:
            return replace(state, tree=tree.stored_in(self))
        return state

    def save(self, states: Iterable[Any]) -> None:
        """Write what the event changed in a tree read from here; nothing if it changed
        nothing (a Stop, a Bash call, a ``list``)."""
        for state in states:
            tree = getattr(state, "tree", None)
            if isinstance(tree, TodoTree) and tree.source is self and tree.changed:
                self._write(tree)

    def _write(self, tree: TodoTree) -> None:
        counts = tree.counts()
        self.conn.executemany(
            "INSERT OR REPLACE INTO todo_tasks (session_id, id, status, open, gated, parent_id,"
            " task) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [row_of(self.session_id, t) for t in tree.changed.values()],
        )
        self.conn.execute(
            "INSERT OR REPLACE INTO todo_trees (session_id, next_id, counts) VALUES (?, ?, ?)",
            (self.session_id, tree.next_id, json.dumps(counts)),
        )
        self._tasks.update(tree.changed)
        self._summary = (tree.next_id, counts)

    def _select(self, index: str, where: str, args: tuple[object, ...]) -> tuple[Task, ...]:
        hint = f" INDEXED BY {index}" if index else ""
        rows = self.conn.execute(
            f"SELECT id, task FROM todo_tasks{hint} WHERE session_id = ? AND {where}",
            (self.session_id, *args),
        ).fetchall()
        found = []
        for task_id, raw in rows:
            task = self._tasks.get(task_id) or _decoded(raw)
            self._tasks[task_id] = task
            if task is not None:
                found.append(task)
        return tuple(found)

    def _read_summary(self) -> tuple[int, dict[str, int]]:
        if self._summary is None:
            row = self.conn.execute(
                "SELECT next_id, counts FROM todo_trees WHERE session_id = ?", (self.session_id,)
            ).fetchone()
            counts = dict.fromkeys(_COUNTS, 0)
            next_id = 1
            if row is not None:
                next_id = int(row[0])
                stored = json_object(row[1])
                counts.update({k: int(v) for k, v in stored.items() if k in counts})
            self._summary = (next_id, counts)
        return self._summary


_OPEN_BELOW = """
WITH RECURSIVE below(id, depth, open) AS (
    SELECT id, 1, open FROM todo_tasks INDEXED BY todo_tasks_parent
    WHERE session_id = :s AND parent_id = :root AND id != :root
    UNION ALL
    SELECT t.id, b.depth + 1, t.open FROM below AS b
    JOIN todo_tasks AS t INDEXED BY todo_tasks_parent
        ON t.session_id = :s AND t.parent_id = b.id
    WHERE b.open = 0 AND t.id != :root
)
SELECT t.id, t.task FROM below AS b
JOIN todo_tasks AS t ON t.session_id = :s AND t.id = b.id
WHERE b.open = 1 AND b.depth = (SELECT MIN(depth) FROM below WHERE open = 1)
ORDER BY t.id
"""
"""The open tasks nearest below ``:root``: the subtree by depth on the parent index, then the
rows of the open ones at the smallest depth that has any. The walk does not go below an open
task: what lies there is deeper than that task, so never the nearest."""


def row_of(session_id: str, task: Task) -> tuple[object, ...]:
    """A task as its row: the indexed columns, and the task itself as JSON."""
    return (
        session_id,
        task.id,
        task.status,
        int(task.open),
        int(task.gated),
        task.parent_id,
        json.dumps(task.stored_json(), ensure_ascii=False),
    )


def store_tree(conn: sqlite3.Connection, session_id: str, tree: TodoTree) -> None:
    """Write a whole tree (a migration's, a test's) for ``session_id``."""
    conn.executemany(
        "INSERT OR REPLACE INTO todo_tasks (session_id, id, status, open, gated, parent_id, task)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [row_of(session_id, t) for t in tree.tasks],
    )
    conn.execute(
        "INSERT OR REPLACE INTO todo_trees (session_id, next_id, counts) VALUES (?, ?, ?)",
        (session_id, tree.next_id, json.dumps(tree.counts())),
    )


def _decoded(raw: object) -> Task | None:
    return task_from_json(json_object(raw)) if isinstance(raw, str) else None
