"""Does a long session make the Stop hook slower? It must not.

The Stop hook reads tool activity from the transcript's **new tail** only (a byte offset per
session in ``.goalkeeper/state.db``), so a 200 MB transcript should cost what a 1 MB one costs.
Budget: the warm Stop hook (``python -m goalkeeper hook claude``, engine running) on a 200 MB
transcript takes at most 1.2x its time on a 1 MB one (ratio of medians, interleaved).

Then ``read_tail`` alone, in this process, shows where the cost would be: from a known offset
(what every Stop after the first does), without one (goalkeeper installed mid-session: at most
``transcript_tail_kb`` of the end), and over the whole file (what an offset avoids).

Run: .venv/bin/python benchmarks/transcript_scaling.py [--reps 40] [--json]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import _bench

BUDGET = 1.2  # warm Stop on 200 MB / warm Stop on 1 MB, medians
SIZES_MB = (1, 20, 200)
FINAL_TEXT = "Updated the runner and ran the tests.\n\n[PDCA] do"
TAIL_BYTES = 1024 * 1024  # goalkeeper's default transcript_tail_kb, in bytes
# Same decision path for every size: the default session_mb (50) would answer the 200 MB case
# with a cheaper "session too large" pause, and the 41st continuation in a row with a cap pause.
FIXED_PATH_ENV = {"GOALKEEPER_SESSION_MB": "100000", "GOALKEEPER_MAX_CONTINUATIONS": "1000000"}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=40, help="measured rounds (default 40)")
    parser.add_argument("--warmup", type=int, default=3, help="rounds thrown away (default 3)")
    parser.add_argument("--tail-reps", type=int, default=200, help="read_tail calls per size")
    parser.add_argument("--no-full-scan", action="store_true", help="skip the whole-file read")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--snapshot",
        action="store_true",
        help="measure a copy of src/goalkeeper taken at the start (immune to edits meanwhile)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args()


def stop_case(
    py: str, env: dict[str, str], project: Path, transcript: _bench.Transcript
) -> Callable[[], float]:
    """A warm Stop on one transcript, after appending a new round to it."""

    def case() -> float:
        transcript.append_round(FINAL_TEXT)
        stdin = _bench.stop_payload(transcript.session_id, transcript.path, project, FINAL_TEXT)
        elapsed, out = _bench.time_process(
            [py, "-m", "goalkeeper", "hook", "claude"], stdin, env, project
        )
        _bench.check_stop_answer(out)
        return elapsed

    return case


def baseline_case(py: str, env: dict[str, str], project: Path) -> Callable[[], float]:
    def case() -> float:
        return _bench.time_process([py, "-c", "pass"], b"", env, project)[0]

    return case


def measure_hooks(
    args: argparse.Namespace, tmp: Path, stack: ExitStack
) -> tuple[dict[str, list[float]], dict[int, _bench.Transcript]]:
    py = _bench.PYTHON
    project = tmp / "project"
    project.mkdir()
    _bench.write_plan(project, 500)
    source_env, _ = _bench.prepare_sources(tmp / "snapshot" if args.snapshot else None)
    env = _bench.clean_env(project, **source_env, **FIXED_PATH_ENV)
    transcripts: dict[int, _bench.Transcript] = {}
    for mb in SIZES_MB:
        t = _bench.Transcript(tmp / f"t{mb}.jsonl", f"bench-{mb}mb", project, seed=mb)
        t.fill(mb * 1024 * 1024)
        start = _bench.session_start_payload(t.session_id, t.path, project)
        off = {**env, "GOALKEEPER_SERVER": "off"}  # unmeasured; remembers where the file ends
        _bench.time_process([py, "-m", "goalkeeper", "hook", "claude"], start, off, project)
        transcripts[mb] = t

    stack.enter_context(_bench.warm_engine(py, project, tmp / "engine.log", env))
    cases = {"baseline: python -c pass": baseline_case(py, env, project)}
    for mb, t in transcripts.items():
        cases[f"warm Stop, {mb} MB"] = stop_case(py, env, project, t)
    samples = _bench.interleave(cases, args.reps, args.warmup, args.seed)
    _bench.check_no_fallback(py, project)
    return samples, transcripts


def measure_read_tail(
    args: argparse.Namespace, transcripts: dict[int, _bench.Transcript]
) -> dict[str, dict[str, float | int]]:
    """``read_tail`` in this process, in microseconds: offset known, unknown, whole file."""
    from goalkeeper.hosts.claude.transcript import read_tail

    def timed(path: str, offset: int | None, max_bytes: int) -> float:
        started = time.perf_counter()
        tail = read_tail(path, offset, max_bytes)
        elapsed = time.perf_counter() - started
        if tail is None:
            raise _bench.BenchError(f"read_tail could not read {path}")
        return elapsed

    cases: dict[str, Callable[[], float]] = {}
    full: dict[str, Callable[[], float]] = {}
    for mb, t in transcripts.items():
        before = t.path.stat().st_size
        t.append_round(FINAL_TEXT)  # the new tail a Stop would read
        path, size = str(t.path), t.path.stat().st_size

        def known(path: str = path, before: int = before) -> float:
            return timed(path, before, TAIL_BYTES)

        def unknown(path: str = path) -> float:
            return timed(path, None, TAIL_BYTES)

        def whole(path: str = path, size: int = size) -> float:
            return timed(path, 0, size + 1)

        cases[f"{mb} MB, offset known"] = known
        cases[f"{mb} MB, no offset (last 1 MB)"] = unknown
        full[f"{mb} MB, whole file"] = whole
    samples = _bench.interleave(cases, args.tail_reps, 5, args.seed, progress=False)
    if not args.no_full_scan:
        samples.update(_bench.interleave(full, 3, 0, args.seed, progress=False))
    return {name: _bench.stats(values).to_dict(scale=1e6) for name, values in samples.items()}


def run(args: argparse.Namespace) -> dict[str, object]:
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gk-bench-")))
        samples, transcripts = measure_hooks(args, tmp, stack)
        tails = measure_read_tail(args, transcripts)
        sizes = {mb: t.path.stat().st_size for mb, t in transcripts.items()}

    base = _bench.stats(samples["baseline: python -c pass"])
    small = _bench.stats(samples[f"warm Stop, {SIZES_MB[0]} MB"])
    rows: dict[str, dict[str, object]] = {}
    for name, values in samples.items():
        s = _bench.stats(values)
        rows[name] = {
            **s.to_dict(),
            "x_baseline": round(s.median / base.median, 3),
            "x_1mb": round(s.median / small.median, 3),
        }
    ratio = float(rows[f"warm Stop, {SIZES_MB[-1]} MB"]["x_1mb"])  # type: ignore[arg-type]
    return {
        "benchmark": "transcript_scaling",
        "machine": _bench.machine(),
        "setup": {
            "plan_lines": 500,
            "transcript_bytes": sizes,
            "reps": args.reps,
            "warmup": args.warmup,
            "env": FIXED_PATH_ENV,
            "snapshot": args.snapshot,
        },
        "results_ms": rows,
        "read_tail_us": tails,
        "budgets": {"200 MB / 1 MB": {"budget": BUDGET, "ratio": ratio, "pass": ratio <= BUDGET}},
    }


def print_report(data: dict[str, object]) -> None:
    m, setup = data["machine"], data["setup"]
    assert isinstance(m, dict) and isinstance(setup, dict)
    print(_bench.headline("transcript scaling", m))
    print(
        f"warm Stop hook, 500-line plan, {setup['reps']} interleaved rounds "
        f"(+{setup['warmup']} warm-up); env {setup['env']}"
        + ("; snapshot of src/goalkeeper (--snapshot)" if setup["snapshot"] else "")
        + "\n"
    )
    rows = data["results_ms"]
    assert isinstance(rows, dict)
    _bench.print_table(
        ["variant", "median ms", "p90 ms", "min ms", "x baseline", "x 1 MB"],
        [
            [name, r["median"], r["p90"], r["min"], r["x_baseline"], r["x_1mb"]]
            for name, r in rows.items()
        ],
    )
    print("\nread_tail in process (microseconds)")
    tails = data["read_tail_us"]
    assert isinstance(tails, dict)
    _bench.print_table(
        ["case", "median us", "p90 us", "min us", "n"],
        [[name, t["median"], t["p90"], t["min"], t["n"]] for name, t in tails.items()],
    )
    print()
    budgets = data["budgets"]
    assert isinstance(budgets, dict)
    for name, b in budgets.items():
        print(f"{_bench.verdict(b['pass'])}  warm Stop {name}: {b['ratio']:.2f}x <= {b['budget']}x")


def main() -> int:
    return _bench.main(parse_args, run, print_report)


if __name__ == "__main__":
    sys.exit(main())
