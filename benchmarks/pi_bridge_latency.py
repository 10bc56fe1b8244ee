"""One event round trip through goalkeeper's Pi bridge, warm.

Budget: median ≤ 2 ms, p99 ≤ 10 ms. Measured the way the extension does it: one long-lived
``python -m goalkeeper bridge pi`` process on pipes, a JSON line written, the reply line read.
Cases, interleaved:

- ``tool_call`` of an ordinary tool (``bash``): the awaited event Pi sends most often; the
  engine runs every guard in one SQLite transaction and answers "no change";
- ``turn_end``, sent fire-and-forget by the extension, timed here until the bridge answers a
  ``tool_call`` sent right after it (so it includes that round trip: the cost of one
  notification plus one decision);
- baseline: the same JSON line echoed by a minimal Python process on the same kind of pipes
  (the floor the operating system and the interpreter's I/O set on this machine).

Run: .venv/bin/python benchmarks/pi_bridge_latency.py [--reps 400] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import _bench

MEDIAN_BUDGET_MS = 2.0
P99_BUDGET_MS = 10.0
SESSION = "bench-pi"
ECHO = (
    "import sys\n"
    "out = sys.stdout.buffer\n"
    "for line in sys.stdin.buffer:\n"
    "    out.write(line)\n"
    "    out.flush()\n"
)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=400, help="measured rounds (default 400)")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args()


class Pipe:
    """A child process spoken to in JSON lines."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=cwd
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin: IO[bytes] = self.proc.stdin
        self.stdout: IO[bytes] = self.proc.stdout
        self.next_id = 1

    def send(self, kind: str, wants_reply: bool = True, **fields: object) -> int:
        ident = self.next_id
        self.next_id += 1
        message = {"v": 1, "kind": kind, "id": ident, "wants_reply": wants_reply, **fields}
        self.stdin.write(json.dumps(message).encode() + b"\n")
        self.stdin.flush()
        return ident

    def reply(self, ident: int) -> dict[str, object]:
        while True:
            line = self.stdout.readline()
            if not line:
                raise _bench.BenchError("the bridge closed its output")
            message = json.loads(line)
            if message.get("kind") == "reply" and message.get("id") == ident:
                return dict(message)

    def close(self) -> None:
        self.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def ctx() -> dict[str, object]:
    return {"sessionId": SESSION, "hasUI": False, "idle": False}


def bridge_cases(pipe: Pipe) -> dict[str, Callable[[], float]]:
    tool_call = {"toolName": "bash", "toolCallId": "c1", "input": {"command": "ls"}}

    def tool_case() -> float:
        started = time.perf_counter()
        pipe.reply(pipe.send("event", name="tool_call", event=tool_call, ctx=ctx()))
        return time.perf_counter() - started

    def turn_case() -> float:
        started = time.perf_counter()
        pipe.send("event", wants_reply=False, name="turn_end", event={"turnIndex": 1}, ctx=ctx())
        pipe.reply(pipe.send("event", name="tool_call", event=tool_call, ctx=ctx()))
        return time.perf_counter() - started

    return {"tool_call (bash)": tool_case, "turn_end + tool_call": turn_case}


def echo_case(pipe: Pipe) -> Callable[[], float]:
    line = json.dumps({"v": 1, "kind": "event", "id": 1, "name": "tool_call"}).encode() + b"\n"

    def case() -> float:
        started = time.perf_counter()
        pipe.stdin.write(line)
        pipe.stdin.flush()
        pipe.stdout.readline()
        return time.perf_counter() - started

    return case


def main() -> int:
    args = parse_args()
    _bench.install_signal_cleanup()
    with tempfile.TemporaryDirectory(prefix="goalkeeper-bench-pi-") as tmp_name:
        project = Path(tmp_name) / "project"
        project.mkdir()
        _bench.write_plan(project, 200)
        env = {
            **_bench.clean_env(project),
            "PI_CODING_AGENT_DIR": str(Path(tmp_name) / "agent"),
            "GOALKEEPER_MAX_CONTINUATIONS": "1000000",
        }
        python = sys.executable
        argv = [python, "-m", "goalkeeper", "-C", str(project), "bridge", "pi"]
        bridge = Pipe(argv, env, project)
        echo = Pipe([python, "-c", ECHO], env, project)
        try:
            bridge.reply(bridge.send("hello", pi={"protocol": 1}, ctx=ctx()))
            bridge.send("event", wants_reply=False, name="session_start",
                        event={"reason": "startup"}, ctx=ctx())  # fmt: skip
            bridge.reply(bridge.send("event", name="before_agent_start",
                                     event={"prompt": "go"}, ctx=ctx()))  # fmt: skip
            cases = {**bridge_cases(bridge), "baseline: echo": echo_case(echo)}
            samples = _bench.interleave(cases, args.reps, args.warmup, args.seed)
        finally:
            bridge.close()
            echo.close()
    stats = {name: _bench.stats(values) for name, values in samples.items()}
    p99 = {name: _bench.percentile(values, 99) for name, values in samples.items()}
    main_case = "tool_call (bash)"
    median_ms = stats[main_case].median * 1000
    p99_ms = p99[main_case] * 1000
    ok = median_ms <= MEDIAN_BUDGET_MS and p99_ms <= P99_BUDGET_MS
    result = {
        "machine": _bench.machine(),
        "git": _bench.git_state(),
        "rows": {
            name: {**s.to_dict(), "p99": round(p99[name] * 1000, 3)} for name, s in stats.items()
        },
        "budget": {
            "median_ms": MEDIAN_BUDGET_MS,
            "p99_ms": P99_BUDGET_MS,
            "measured_median_ms": round(median_ms, 3),
            "measured_p99_ms": round(p99_ms, 3),
            "pass": ok,
        },
    }
    if args.json:
        _bench.print_json(result)
        return 0
    print(_bench.headline("pi bridge round trip", result["machine"]))  # type: ignore[arg-type]
    rows = [
        (name, f"{s.median * 1000:.3f}", f"{s.p90 * 1000:.3f}", f"{p99[name] * 1000:.3f}")
        for name, s in stats.items()
    ]
    _bench.print_table(["case", "median ms", "p90 ms", "p99 ms"], rows)
    print(
        f"{_bench.verdict(ok)}  tool_call round trip: median {median_ms:.2f} ms <= "
        f"{MEDIAN_BUDGET_MS} ms, p99 {p99_ms:.2f} ms <= {P99_BUDGET_MS} ms"
    )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.exit(main())
