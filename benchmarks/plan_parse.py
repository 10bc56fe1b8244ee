"""How long goalkeeper takes to read a plan, inside the process that handles an event.

Budgets: ``parse_plan(text)`` on a 5,000-line plan takes at most 20 ms (median), and a re-read
through ``load_plan(project, "plan")`` while the file is unchanged (the mtime/size cache: what
the warm engine does on every event) at most 1 ms. A 500-line plan, the size real plans have,
and a cold ``load_plan`` (file touched, so read and parsed again) are shown for reference.

The absolute budgets depend on the machine, so a fixed pure-Python workload (``calibration``)
is timed in the same interleaved run and every figure is also given as a ratio to it: compare
those ratios between machines, not the milliseconds.

Run: .venv/bin/python benchmarks/plan_parse.py [--reps 60] [--json]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import _bench

from goalkeeper.core.cadence.plan import parse_plan
from goalkeeper.store.documents import load_plan

PARSE_BUDGET_MS = 20.0
CACHED_BUDGET_MS = 1.0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=60, help="measured rounds (default 60)")
    parser.add_argument("--warmup", type=int, default=3, help="rounds thrown away (default 3)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--profile", action="store_true", help="also print where parse_plan spends its time"
    )
    return parser.parse_args()


def calibration() -> float:
    """A fixed mix of what a parser does (string splitting, slicing, dict and tuple work), to
    tell a slow machine from a slow parser."""
    started = time.perf_counter()
    counts: dict[str, int] = {}
    for i in range(20_000):
        word = ("alpha beta gamma delta " * 2).split()[i % 8]
        counts[word[: 1 + i % 4]] = counts.get(word[: 1 + i % 4], 0) + 1
    return time.perf_counter() - started


def timed_parse(text: str) -> Callable[[], float]:
    def case() -> float:
        started = time.perf_counter()
        parse_plan(text)
        return time.perf_counter() - started

    return case


def timed_load(project: Path, touch: Path | None = None) -> Callable[[], float]:
    """``load_plan`` as the engine calls it; with ``touch``, the file's mtime moves first
    (untimed), so the call re-reads and re-parses it."""
    bump = [0]

    def case() -> float:
        if touch is not None:
            bump[0] += 1
            st = touch.stat()
            os.utime(touch, ns=(st.st_atime_ns, st.st_mtime_ns + 1000 * bump[0]))
        started = time.perf_counter()
        doc = load_plan(project, "plan")
        elapsed = time.perf_counter() - started
        if doc is None or doc.plan is None:
            raise _bench.BenchError(f"load_plan found no usable plan in {project}")
        return elapsed

    return case


def timed_gates(text: str) -> Callable[[], float]:
    """The plan's closing gates (OKR and map) as a Stop evaluates them: linear in the leaves
    (deduplicating the open leaves was quadratic before issue 12: 18 ms at 440 open leaves)."""
    from goalkeeper.core.cadence.gates import evaluate_plan_gates

    plan = parse_plan(text)

    def case() -> float:
        started = time.perf_counter()
        evaluate_plan_gates(plan)
        return time.perf_counter() - started

    return case


def run(args: argparse.Namespace) -> dict[str, object]:
    text500, text5000 = _bench.make_plan(500), _bench.make_plan(5000)
    with tempfile.TemporaryDirectory(prefix="gk-bench-") as tmp:
        cached, cold = Path(tmp) / "cached", Path(tmp) / "cold"
        _bench.write_plan(cached, 5000)
        cold_path = _bench.write_plan(cold, 5000)
        load_plan(cached, "plan")  # fills the cache the timed calls hit
        cases = {
            "calibration": calibration,
            "parse_plan, 500 lines": timed_parse(text500),
            "parse_plan, 5000 lines": timed_parse(text5000),
            "load_plan cached, 5000 lines": timed_load(cached),
            "load_plan cold, 5000 lines": timed_load(cold, touch=cold_path),
            "plan gates, 5000 lines": timed_gates(text5000),
            "plan gates, 2000 open leaves": timed_gates(
                "## Objective\nShip.\n## User Story Map\n"
                + "".join(f"- [ ] leaf {i}\n" for i in range(2000))
            ),
        }
        samples = _bench.interleave(cases, args.reps, args.warmup, args.seed)
    plan = parse_plan(text5000)
    calib = _bench.stats(samples["calibration"]).median
    rows = {
        name: {
            **_bench.stats(values).to_dict(),
            "x_calibration": round(_bench.stats(values).median / calib, 3),
        }
        for name, values in samples.items()
    }
    parse_ms = float(rows["parse_plan, 5000 lines"]["median"])
    cached_ms = float(rows["load_plan cached, 5000 lines"]["median"])
    return {
        "benchmark": "plan_parse",
        "machine": _bench.machine(),
        "setup": {
            "reps": args.reps,
            "warmup": args.warmup,
            "plan_5000": {
                "bytes": len(text5000.encode()),
                "key_results": len(plan.key_results),
                "leaves": len(plan.leaves),
            },
        },
        "results_ms": rows,
        "budgets": {
            "parse_plan 5000 lines": {
                "budget_ms": PARSE_BUDGET_MS,
                "median_ms": parse_ms,
                "pass": parse_ms <= PARSE_BUDGET_MS,
            },
            "load_plan cached": {
                "budget_ms": CACHED_BUDGET_MS,
                "median_ms": cached_ms,
                "pass": cached_ms <= CACHED_BUDGET_MS,
            },
        },
    }


def print_report(data: dict[str, object]) -> None:
    m, setup = data["machine"], data["setup"]
    assert isinstance(m, dict) and isinstance(setup, dict)
    p = setup["plan_5000"]
    print(_bench.headline("plan parsing", m))
    print(
        f"5000-line plan: {p['bytes'] / 1024:.0f} KB, {p['key_results']} key results, "
        f"{p['leaves']} map leaves; {setup['reps']} interleaved rounds (+{setup['warmup']})\n"
    )
    rows = data["results_ms"]
    assert isinstance(rows, dict)
    _bench.print_table(
        ["case", "median ms", "p90 ms", "min ms", "x calibration"],
        [[name, r["median"], r["p90"], r["min"], r["x_calibration"]] for name, r in rows.items()],
    )
    print()
    budgets = data["budgets"]
    assert isinstance(budgets, dict)
    for name, b in budgets.items():
        print(
            f"{_bench.verdict(b['pass'])}  {name}: {b['median_ms']:.3f} ms <= {b['budget_ms']} ms"
        )


def print_profile(lines: int = 5000, top: int = 12) -> None:
    """cProfile of ``parse_plan`` on the big plan, by own time: which helper to look at first
    when the budget fails (profiling inflates every figure; read the shares, not the ms)."""
    import cProfile
    import pstats

    text = _bench.make_plan(lines)
    parse_plan(text)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(10):
        parse_plan(text)
    profiler.disable()
    print(f"\nparse_plan, {lines} lines, 10 calls under cProfile (sorted by own time):")
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(top)


def main() -> int:
    args = parse_args()
    _bench.install_signal_cleanup()
    data = run(args)
    if args.json:
        _bench.print_json(data)
    else:
        print_report(data)
    if args.profile and not args.json:
        print_profile()
    return 0


if __name__ == "__main__":
    sys.exit(main())
