"""Completing the root of a big todo tree (issue 23): what the tree rule costs when every task
below the root is done, so the whole subtree must be looked at.

A parent completes only when no task below it is open (``core.todos.integrity``). Before issue
23 the rule asked each task below for its children: one SQLite query and one JSON decode per
task, ~0.15-0.3 s at 10,000 tasks (440 ms once, under load). The store now answers it with one
recursive query on the parent index and decodes only the open tasks it names.

Measured: a ``todo`` update that completes task 1 (with valid evidence) inside the MCP server
path (``call_todo``, one open store), alternating with an update that sets it back to
in_progress (not timed), for three shapes of the same size: ``tree`` (every task has 10
children), ``flat`` (all tasks are the root's children), ``chain`` (each task is the previous
one's only child: depth = size). Every task below the root is completed.

Run: .venv/bin/python benchmarks/todo_root.py [--tasks 10000] [--reps 15] [--json]
Before/after: run it with ``PYTHONPATH=<other checkout>/src`` to measure other sources.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import _bench

SESSION = "bench-root"
EVIDENCE = {"kind": "runnable", "evidence": [{"type": "cmd", "cmd": "pytest -q", "exit": 0}]}
SHAPES = ("tree", "flat", "chain")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=15, help="timed completions per shape")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args()


def parent_of(i: int, shape: str) -> int | None:
    if i == 1:
        return None
    return {"tree": (i - 2) // 10 + 1, "flat": 1, "chain": i - 1}[shape]


def build(project: Path, tasks: int, shape: str) -> None:
    from goalkeeper.core.todos.tree import Task, TodoTree
    from goalkeeper.store.db import Store
    from goalkeeper.store.todo_tasks import store_tree

    built = []
    for i in range(1, tasks + 1):
        parent = parent_of(i, shape)
        metadata = {} if parent is None else {"parentId": parent, "evidence": EVIDENCE}
        status = "in_progress" if parent is None else "completed"
        subject = f"task {i}: make part {i} of the report render its totals"
        built.append(Task(i, subject, status, metadata=metadata, created_at=1.0, updated_at=1.0))  # type: ignore[arg-type]
    store = Store(project)
    try:
        with store.transaction() as conn:
            store_tree(conn, SESSION, TodoTree(built, tasks + 1))
    finally:
        store.close()


def measure(tmp: Path, tasks: int, shape: str, reps: int) -> list[float]:
    from goalkeeper.hosts.mcp.server import call_todo
    from goalkeeper.store.db import Store

    project = tmp / shape
    project.mkdir()
    state = str(tmp / "state")  # the store lives here, not in the user's state folder
    env = _bench.clean_env(project, GOALKEEPER_SESSION=SESSION, XDG_STATE_HOME=state)
    os.environ.update({k: v for k, v in env.items() if k.startswith(("XDG_", "GOALKEEPER_"))})
    build(project, tasks, shape)
    store = Store(project)
    done = {"action": "update", "id": 1, "status": "completed", "session": SESSION}
    back = {"action": "update", "id": 1, "status": "in_progress", "session": SESSION}
    samples = []
    try:
        for i in range(reps + 2):  # two warm-up rounds: imports, the first connection
            started = time.perf_counter()
            text, error = call_todo(
                project, {**done, "metadata": {"evidence": EVIDENCE}}, env, store
            )
            elapsed = time.perf_counter() - started
            if error:
                raise _bench.BenchError(f"completing the root was refused: {text[:300]}")
            if i >= 2:
                samples.append(elapsed)
            call_todo(project, back, env, store)
    finally:
        store.close()
    return samples


def main() -> int:
    args = parse_args()
    _bench.install_signal_cleanup()
    rows = {}
    with tempfile.TemporaryDirectory(prefix="gk-bench-root-") as tmp:
        for shape in SHAPES:
            rows[shape] = _bench.stats(measure(Path(tmp), args.tasks, shape, args.reps)).to_dict()
    result = {
        "machine": _bench.machine(),
        "git": _bench.git_state(),
        "tasks": args.tasks,
        "rows": rows,
    }
    if args.json:
        _bench.print_json(result)
        return 0
    print(_bench.headline(f"completing the root of a {args.tasks}-task tree", result["machine"]))
    table = [(shape, f"{r['median']:.2f}", f"{r['p90']:.2f}") for shape, r in rows.items()]
    _bench.print_table(["shape", "median ms", "p90 ms"], table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
