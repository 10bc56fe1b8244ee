"""Todo trees that scale (issue 12): what a 10,000-task tree costs, and what creating one costs.

Budgets (medians, measured here, never asserted in tests):
- a ``todo`` update inside the MCP server (modules loaded, its one connection open) at 10,000
  tasks: ≤ 5 ms;
- a warm Stop (fresh ``python -m goalkeeper hook claude`` process, warm engine) in a session
  holding 10,000 tasks: ≤ 2.5× ``python -c pass`` in the same run;
- every todo reply (create, update, get, list) at 10,000 tasks: ≤ 8 KB.

Also shown: creating 5,000 todos one call at a time through the engine (the audit measured
434 s, quadratic), with the median call of the first and the last 500 (flat when the per-call
cost does not depend on the tree), the PreToolUse ``Bash`` hook in the same session, the
engine's own work per Stop, and the size of the session row every event reads.

The 10,000-task tree is written straight into the store (creating it through the engine is
what the create-5,000 figure measures): 1,000 parents with 9 children each, 60 % completed,
35 % pending, 5 % in progress, every 50th task test-gated.

Run: .venv/bin/python benchmarks/todo_scale.py [--reps 25] [--create 5000] [--snapshot] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import _bench

UPDATE_BUDGET_MS = 5.0
STOP_BUDGET = 2.5
REPLY_BUDGET = 8 * 1024
TASKS = 10_000
SESSION = "bench-scale"
FINAL_TEXT = "Done for now."


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=25, help="measured rounds (default 25)")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--tasks", type=int, default=TASKS)
    parser.add_argument("--create", type=int, default=5000, help="todos created one by one")
    parser.add_argument("--snapshot", action="store_true", help="measure a copy of the sources")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args()


def build_tree(project: Path, tasks: int) -> list[int]:
    """Write the tree into the store; the ids of its pending tasks (updates toggle those)."""
    from goalkeeper.core.todos.tree import Task, TodoTree
    from goalkeeper.store.db import Store
    from goalkeeper.store.todo_tasks import store_tree

    built = []
    for i in range(1, tasks + 1):
        parent = None if i % 10 == 1 else i - (i - 1) % 10
        share = i * 7 % 20  # spread the states over ids, even in a small tree
        status = "completed" if share < 12 else ("pending" if share < 19 else "in_progress")
        metadata: dict[str, object] = {"parentId": parent} if parent else {}
        if i % 50 == 0:
            metadata["gate"] = {"test": True}
        if status == "completed":
            metadata["evidence"] = {"kind": "runnable", "evidence": [{"type": "cmd", "cmd": "x"}]}
        subject = f"task {i}: make part {i} of the report render its totals"
        built.append(Task(i, subject, status, metadata=metadata, created_at=1.0, updated_at=1.0))  # type: ignore[arg-type]
    store = Store(project)
    try:
        with store.transaction() as conn:
            store_tree(conn, SESSION, TodoTree(built, tasks + 1))
    finally:
        store.close()
    return [t.id for t in built if t.status == "pending" and not t.metadata.get("gate")]


def create_many(project: Path, env: dict[str, str], n: int) -> dict[str, float]:
    """``n`` creates through the engine in one fresh session, as the MCP server runs them."""
    from goalkeeper.hosts.mcp.server import call_todo
    from goalkeeper.store.db import Store

    store = Store(project)
    times: list[float] = []
    try:
        started = time.perf_counter()
        for i in range(n):
            args = {"action": "create", "subject": f"item {i}", "session": "bench-create"}
            t0 = time.perf_counter()
            text, error = call_todo(project, args, env, store)
            times.append(time.perf_counter() - t0)
            if error:
                raise _bench.BenchError(f"create refused: {text[:300]}")
        total = time.perf_counter() - started
    finally:
        store.close()
    window = min(500, max(1, n // 4))
    return {
        "created": n,
        "total_s": round(total, 3),
        "first_calls_median_ms": round(statistics.median(times[:window]) * 1000, 3),
        "last_calls_median_ms": round(statistics.median(times[-window:]) * 1000, 3),
        "window": window,
    }


def in_server_update(project: Path, env: dict[str, str], ids: list[int]) -> Callable[[], float]:
    from goalkeeper.hosts.mcp.server import call_todo
    from goalkeeper.store.db import Store

    store = Store(project)
    counter = {"n": 0}

    def case() -> float:
        counter["n"] += 1
        status = "in_progress" if counter["n"] % 2 else "pending"
        task = ids[(counter["n"] // 2) % len(ids)]
        args = {"action": "update", "id": task, "status": status, "session": SESSION}
        started = time.perf_counter()
        text, error = call_todo(project, args, env, store)
        elapsed = time.perf_counter() - started
        if error:
            raise _bench.BenchError(f"todo update refused: {text[:300]}")
        return elapsed

    return case


def reply_sizes(project: Path, env: dict[str, str], task: int) -> dict[str, int]:
    from goalkeeper.hosts.mcp.server import call_todo

    calls = {
        "create": {"action": "create", "subject": "one more"},
        "update": {"action": "update", "id": task, "status": "in_progress"},
        "get": {"action": "get", "id": task},
        "list": {"action": "list"},
    }
    sizes = {}
    for name, args in calls.items():
        text, error = call_todo(project, {**args, "session": SESSION}, env)
        if error:
            raise _bench.BenchError(f"{name} refused: {text[:300]}")
        sizes[name] = len(text.encode())
    return sizes


def hook_case(
    argv: list[str], env: dict[str, str], project: Path, payload: Callable[[], bytes]
) -> Callable[[], float]:
    def case() -> float:
        elapsed, out = _bench.time_process(argv, payload(), env, project)
        answer = json.loads(out or b"{}")
        if "internal error" in json.dumps(answer, ensure_ascii=False):
            raise _bench.BenchError(f"the hook failed open: {out[:300]!r}")
        return elapsed

    return case


def engine_work(
    project: Path, env: dict[str, str], stop: Callable[[], bytes], reps: int
) -> list[float]:
    from goalkeeper.hosts.transport.dispatch import answer_in_process

    forwarded = {k: v for k, v in env.items() if k.startswith(_bench.FORWARDED_PREFIXES)}
    samples = []
    for i in range(reps + 3):
        payload = stop()
        started = time.perf_counter()
        answer_in_process("claude", payload, forwarded, str(project))
        if i >= 3:
            samples.append(time.perf_counter() - started)
    return samples


def session_row_bytes(project: Path) -> int:
    from goalkeeper.store.db import Store

    store = Store(project)
    try:
        row = (
            store.connection()
            .execute(
                "SELECT length(guards) + length(host_state) FROM sessions WHERE session_id = ?",
                (SESSION,),
            )
            .fetchone()
        )
    finally:
        store.close()
    return int(row[0]) if row else 0


def main() -> int:
    args = parse_args()
    _bench.install_signal_cleanup()
    py = _bench.PYTHON
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gk-bench-scale-")))
        source_env, _ = _bench.prepare_sources(tmp / "snapshot" if args.snapshot else None)
        project = tmp / "project"
        project.mkdir()
        env = _bench.clean_env(project, **source_env, GOALKEEPER_SESSION=SESSION)
        created = create_many(project, env, args.create) if args.create else {}
        pending = build_tree(project, args.tasks)
        transcript = _bench.Transcript(tmp / f"{SESSION}.jsonl", SESSION, project)
        transcript.fill(1024 * 1024)
        start = _bench.session_start_payload(SESSION, transcript.path, project)
        hook = [py, "-m", "goalkeeper", "hook", "claude"]
        _bench.time_process(hook, start, {**env, "GOALKEEPER_SERVER": "off"}, project)
        sizes = reply_sizes(project, env, pending[0])

        def stop() -> bytes:
            transcript.append_round(FINAL_TEXT)
            return _bench.stop_payload(SESSION, transcript.path, project, FINAL_TEXT)

        bash = json.dumps(
            {
                "session_id": SESSION,
                "cwd": str(project),
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "ls"},
            }
        ).encode()
        stack.enter_context(_bench.warm_engine(py, project, tmp / "engine.log", env))
        cases = {
            "baseline: python -c pass": hook_case([py, "-c", "pass"], env, project, lambda: b""),
            "warm Stop": hook_case(hook, env, project, stop),
            "PreToolUse Bash (warm engine)": hook_case(hook, env, project, lambda: bash),
            "todo update inside the MCP server": in_server_update(project, env, pending),
        }
        samples = _bench.interleave(cases, args.reps, args.warmup, args.seed)
        _bench.check_no_fallback(py, project)
        work = _bench.stats(engine_work(project, env, stop, args.reps))
        row_bytes = session_row_bytes(project)
    base = _bench.stats(samples["baseline: python -c pass"])
    rows: dict[str, dict[str, object]] = {}
    for name, values in samples.items():
        s = _bench.stats(values)
        rows[name] = {**s.to_dict(), "ratio": round(s.median / base.median, 3)}
    rows["engine work per Stop (in this process)"] = work.to_dict()
    update_ms = float(rows["todo update inside the MCP server"]["median"])  # type: ignore[arg-type]
    stop_ratio = float(rows["warm Stop"]["ratio"])  # type: ignore[arg-type]
    result = {
        "machine": _bench.machine(),
        "git": _bench.git_state(),
        "tasks": args.tasks,
        "create": created,
        "reply_bytes": sizes,
        "session_row_bytes": row_bytes,
        "rows": rows,
        "budgets": {
            "todo update inside the MCP server": {
                "budget_ms": UPDATE_BUDGET_MS,
                "median_ms": update_ms,
                "pass": update_ms <= UPDATE_BUDGET_MS,
            },
            "warm Stop": {"budget": STOP_BUDGET, "ratio": stop_ratio, "pass": stop_ratio <= 2.5},
            "largest reply": {
                "budget_bytes": REPLY_BUDGET,
                "bytes": max(sizes.values()),
                "pass": max(sizes.values()) <= REPLY_BUDGET,
            },
        },
    }
    if args.json:
        _bench.print_json(result)
        return 0
    print(_bench.headline(f"todo trees at {args.tasks} tasks", result["machine"]))  # type: ignore[arg-type]
    table = [
        (name, f"{row['median']:.2f}", f"{row['p90']:.2f}", row.get("ratio", ""))
        for name, row in rows.items()
    ]
    _bench.print_table(["case", "median ms", "p90 ms", "x baseline"], table)
    print(f"replies (bytes): {sizes}; session row: {row_bytes} bytes")
    if created:
        print(f"create {created['created']}: {created}")
    for name, budget in result["budgets"].items():  # type: ignore[union-attr]
        print(f"{_bench.verdict(budget['pass'])}  {name}: {budget}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
