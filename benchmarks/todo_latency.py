"""What goalkeeper's todo obligations cost an agent.

Budgets:
- a ``todo`` update through the MCP server, warm: median ≤ 5 ms inside the server (the work
  ``goalkeeper mcp`` does per call once its modules are loaded: config, one SQLite
  transaction with the session's tree, the gates, the journal);
- a PreToolUse hook on a native todo call (``TodoWrite``), as a fresh process with the warm
  engine running: median ≤ 2.5× ``python -c pass`` in the same run;
- the same for a ``Bash`` call that writes a file (``install`` registers the hook for Bash so
  normal mode's question gate can read the command line; no mode is on here, the common case,
  and the call is allowed): every Bash call of a Claude Code session pays this, so it is held
  to the same 2.5×.

The tree holds 60 tasks (a realistic long session); each measured update toggles one task
between ``pending`` and ``in_progress``, so every sample writes. A full MCP round trip through
the official SDK client over stdio is shown for reference.

Run: .venv/bin/python benchmarks/todo_latency.py [--reps 40] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import _bench

MCP_BUDGET_MS = 5.0
HOOK_BUDGET = 2.5
TASKS = 60
SESSION = "bench-todo"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=40, help="measured rounds (default 40)")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args()


def in_server_update(project: Path, env: dict[str, str]) -> Callable[[], float]:
    """``call_todo`` as the MCP server runs it for each call: modules loaded, caches warm, its
    one database connection open."""
    from goalkeeper.hosts.mcp.server import call_todo
    from goalkeeper.store.db import Store

    store = Store(project)
    counter = {"n": 0}

    def case() -> float:
        counter["n"] += 1
        status = "in_progress" if counter["n"] % 2 else "pending"
        args = {"action": "update", "id": 1 + counter["n"] % TASKS, "status": status}
        started = time.perf_counter()
        text, error = call_todo(project, {**args, "session": SESSION}, env, store)
        elapsed = time.perf_counter() - started
        if error:
            raise _bench.BenchError(f"todo update refused: {text[:300]}")
        return elapsed

    return case


def native_hook(py: str, project: Path, env: dict[str, str]) -> Callable[[], float]:
    payload = json.dumps(
        {
            "session_id": SESSION,
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "TodoWrite",
            "tool_input": {
                "todos": [{"content": "a", "status": "completed", "activeForm": "doing a"}]
            },
        }
    ).encode()

    def case() -> float:
        elapsed, out = _bench.time_process(
            [py, "-m", "goalkeeper", "hook", "claude"], payload, env, project
        )
        answer = json.loads(out)
        if answer.get("hookSpecificOutput", {}).get("permissionDecision") != "deny":
            raise _bench.BenchError(f"native completion was not denied: {out[:300]!r}")
        return elapsed

    return case


def bash_hook(py: str, project: Path, env: dict[str, str]) -> Callable[[], float]:
    payload = json.dumps(
        {
            "session_id": SESSION,
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -q > report.txt 2>&1"},
        }
    ).encode()

    def case() -> float:
        elapsed, out = _bench.time_process(
            [py, "-m", "goalkeeper", "hook", "claude"], payload, env, project
        )
        if b"deny" in out:
            raise _bench.BenchError(f"a Bash call without a mode was refused: {out[:300]!r}")
        return elapsed

    return case


def baseline(py: str, project: Path, env: dict[str, str]) -> Callable[[], float]:
    def case() -> float:
        return _bench.time_process([py, "-c", "pass"], b"", env, project)[0]

    return case


def mcp_round_trips(project: Path, env: dict[str, str], reps: int) -> list[float]:
    """Calls through the official client against a real ``goalkeeper mcp`` process."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    samples: list[float] = []

    async def main() -> None:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "goalkeeper", "-C", str(project), "mcp"], env=env
        )
        async with stdio_client(params) as streams, ClientSession(streams[0], streams[1]) as s:
            await s.initialize()
            for i in range(reps + 3):
                status = "in_progress" if i % 2 else "pending"
                args = {
                    "action": "update",
                    "id": 1 + i % TASKS,
                    "status": status,
                    "session": SESSION,
                }
                started = time.perf_counter()
                result = await s.call_tool("todo", args)
                if result.is_error:
                    raise _bench.BenchError(str(result.content)[:300])
                if i >= 3:
                    samples.append(time.perf_counter() - started)

    anyio.run(main)
    return samples


def main() -> int:
    args = parse_args()
    _bench.install_signal_cleanup()
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="goalkeeper-bench-todo-") as tmp_name:
        project = Path(tmp_name) / "project"
        project.mkdir()
        env = _bench.clean_env(project, GOALKEEPER_SESSION=SESSION)
        from goalkeeper.hosts.mcp.server import call_todo

        for i in range(TASKS):
            call_todo(
                project, {"action": "create", "subject": f"task {i}", "session": SESSION}, env
            )
        with _bench.warm_engine(py, project, Path(tmp_name) / "engine.log", env):
            cases = {
                "baseline: python -c pass": baseline(py, project, env),
                "PreToolUse TodoWrite (warm engine)": native_hook(py, project, env),
                "PreToolUse Bash (warm engine)": bash_hook(py, project, env),
                "todo update inside the MCP server": in_server_update(project, env),
            }
            samples = _bench.interleave(cases, args.reps, args.warmup, args.seed)
            _bench.check_no_fallback(py, project)
        trips = mcp_round_trips(project, env, args.reps)
    base = _bench.stats(samples["baseline: python -c pass"])
    hook = _bench.stats(samples["PreToolUse TodoWrite (warm engine)"])
    bash = _bench.stats(samples["PreToolUse Bash (warm engine)"])
    inside = _bench.stats(samples["todo update inside the MCP server"])
    trip = _bench.stats(trips)
    result = {
        "machine": _bench.machine(),
        "git": _bench.git_state(),
        "tasks": TASKS,
        "rows": {
            "baseline: python -c pass": base.to_dict(),
            "PreToolUse TodoWrite (warm engine)": {
                **hook.to_dict(),
                "ratio": round(hook.median / base.median, 3),
            },
            "PreToolUse Bash (warm engine)": {
                **bash.to_dict(),
                "ratio": round(bash.median / base.median, 3),
            },
            "todo update inside the MCP server": inside.to_dict(),
            "todo update, MCP client round trip": trip.to_dict(),
        },
        "budgets": {
            "mcp update inside the server": {
                "budget_ms": MCP_BUDGET_MS,
                "median_ms": round(inside.median * 1000, 3),
                "pass": inside.median * 1000 <= MCP_BUDGET_MS,
            },
            "native PreToolUse hook": {
                "budget": HOOK_BUDGET,
                "ratio": round(hook.median / base.median, 3),
                "pass": hook.median / base.median <= HOOK_BUDGET,
            },
            "Bash PreToolUse hook": {
                "budget": HOOK_BUDGET,
                "ratio": round(bash.median / base.median, 3),
                "pass": bash.median / base.median <= HOOK_BUDGET,
            },
        },
    }
    if args.json:
        _bench.print_json(result)
        return 0
    print(_bench.headline("todo latency", result["machine"]))  # type: ignore[arg-type]
    rows = [
        (name, f"{row['median']:.2f}", f"{row['p90']:.2f}", row.get("ratio", ""))
        for name, row in result["rows"].items()  # type: ignore[union-attr]
    ]
    _bench.print_table(["case", "median ms", "p90 ms", "x baseline"], rows)
    for name, budget in result["budgets"].items():  # type: ignore[union-attr]
        print(f"{_bench.verdict(budget['pass'])}  {name}: {budget}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
