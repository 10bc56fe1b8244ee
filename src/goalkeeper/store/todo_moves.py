"""Migration 006's data step: the todo trees kept in session rows move to their own rows.

Kept apart from ``migrations.py`` (schema only) because it reads the old JSON shape: the
todos guard's ``tree`` (``{"tasks": [...], "nextId": n}``) and ``task_baselines`` (pairs of
task id and baseline ident). What cannot be read is dropped, as the guard itself would.
"""

from __future__ import annotations

import json
import sqlite3

from msgspec.structs import replace

from goalkeeper.core.todos.tree import TodoTree, is_number
from goalkeeper.store.sessions import json_object
from goalkeeper.store.todo_tasks import store_tree


def move_session_trees(conn: sqlite3.Connection) -> int:
    """Move every session's tree; the number of sessions that had one."""
    moved = 0
    rows = conn.execute("SELECT session_id, guards FROM sessions").fetchall()
    for session_id, raw in rows:
        guards = json_object(raw)
        todos = guards.get("todos")
        if not isinstance(todos, dict) or "tree" not in todos:
            continue
        tree = TodoTree.from_json(todos.pop("tree"))
        idents = {
            int(e[0]): e[1]
            for e in todos.pop("task_baselines", None) or []
            if isinstance(e, list) and len(e) == 2 and is_number(e[0]) and isinstance(e[1], str)
        }
        tasks = [replace(t, baseline=idents.get(t.id, t.baseline)) for t in tree.tasks]
        refs: dict[str, int] = {}
        for task in tasks:
            if task.open and task.baseline:
                refs[task.baseline] = refs.get(task.baseline, 0) + 1
        todos["baseline_refs"] = [list(e) for e in refs.items()]
        store_tree(conn, session_id, TodoTree(tasks, tree.next_id))
        conn.execute(
            "UPDATE sessions SET guards = ? WHERE session_id = ?",
            (json.dumps(guards, ensure_ascii=False), session_id),
        )
        moved += 1
    return moved
