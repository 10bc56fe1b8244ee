"""How long Claude Code waits for ``goalkeeper hook claude`` on a Stop event.

Claude Code starts the hook as a fresh process on every event, so the floor is Python's own
start-up. The budget: with the warm engine running, a Stop in a project with a 500-line plan and
a 20 MB transcript costs at most 2.5x ``python -c pass`` (same interpreter, same run, median).

Each measured Stop first gets a new round appended to the transcript (a tool call, its result,
a final text), sent with the same ``session_id`` and ``CLAUDE_PROJECT_DIR``, so the engine reads
a real new tail from its remembered offset, as in a live session.

Variants, interleaved in random order:
  baseline    python -c pass
  warm -m     python -m goalkeeper hook claude, engine already running
  warm script the ``goalkeeper`` console script, same engine (keyed by the virtualenv)
  in-process  GOALKEEPER_SERVER=off, bytecode compiled: the first event of a session
  no-pyc      in-process from a copy of goalkeeper without __pycache__ and with
              PYTHONDONTWRITEBYTECODE=1: every run compiles goalkeeper's modules again

Run: .venv/bin/python benchmarks/hook_latency.py [--reps 40] [--json]
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

BUDGET = 2.5  # warm Stop hook / python -c pass, medians
FINAL_TEXT = "Updated the runner and ran the tests.\n\n[PDCA] do"
SESSION = "bench-hook-latency"
# Keep every measured Stop on the same path (a continuation with the plan's anchors): without
# this the 41st continuation in a row turns into a pause and the rest measure a shorter path.
FIXED_PATH_ENV = {"GOALKEEPER_MAX_CONTINUATIONS": "1000000"}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=40, help="measured rounds (default 40)")
    parser.add_argument("--warmup", type=int, default=3, help="rounds thrown away (default 3)")
    parser.add_argument("--plan-lines", type=int, default=500)
    parser.add_argument("--transcript-mb", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=None, help="order of the interleaving")
    parser.add_argument(
        "--snapshot",
        action="store_true",
        help="measure a copy of src/goalkeeper taken at the start (immune to edits meanwhile)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args()


def make_case(
    argv: list[str],
    env: dict[str, str],
    project: Path,
    transcript: _bench.Transcript | None,
) -> Callable[[], float]:
    """A measured command; Stop variants append a new round to the transcript first."""

    def case() -> float:
        stdin = b""
        if transcript is not None:
            transcript.append_round(FINAL_TEXT)
            stdin = _bench.stop_payload(SESSION, transcript.path, project, FINAL_TEXT)
        elapsed, out = _bench.time_process(argv, stdin, env, project)
        if transcript is not None:
            _bench.check_stop_answer(out)
        return elapsed

    return case


def check_imported_from(py: str, env: dict[str, str], cwd: Path, folder: Path) -> None:
    """The no-bytecode variant must import the copy, not the checkout with its .pyc files."""
    probe = [py, "-c", "import goalkeeper; print(goalkeeper.__file__)"]
    _, out = _bench.time_process(probe, b"", env, cwd)
    if not out.decode().strip().startswith(str(folder)):
        raise _bench.BenchError(f"goalkeeper imported from {out.decode().strip()}, not {folder}")


def run(args: argparse.Namespace) -> dict[str, object]:
    py = _bench.PYTHON
    script = Path(py).parent / "goalkeeper"
    script_py = _bench.shebang_interpreter(script) or py
    notes: list[str] = []

    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gk-bench-")))
        source_env, root = _bench.prepare_sources(tmp / "snapshot" if args.snapshot else None)
        compiled = root / "goalkeeper"
        notes.append(f"goalkeeper's bytecode compiled first (python -m compileall -q {compiled})")
        project = tmp / "project"
        project.mkdir()
        _bench.write_plan(project, args.plan_lines)
        transcript = _bench.Transcript(tmp / f"{SESSION}.jsonl", SESSION, project)
        size = transcript.fill(int(args.transcript_mb * 1024 * 1024))

        env = _bench.clean_env(project, **source_env, **FIXED_PATH_ENV)
        off_env = {**env, "GOALKEEPER_SERVER": "off"}
        nopyc = _bench.copy_sources(tmp / "nopyc", root)
        nopyc_env = {**off_env, "PYTHONPATH": str(nopyc), "PYTHONDONTWRITEBYTECODE": "1"}
        check_imported_from(py, nopyc_env, project, nopyc)

        # SessionStart remembers where the transcript ends: later Stops read only new rounds.
        start = _bench.session_start_payload(SESSION, transcript.path, project)
        _bench.time_process([py, "-m", "goalkeeper", "hook", "claude"], start, off_env, project)

        # One engine serves both: it is keyed by the virtualenv (sys.prefix), and the console
        # script's interpreter (its shebang) lives in the same virtualenv.
        stack.enter_context(_bench.warm_engine(py, project, tmp / "engine.log", env))

        hook = ["hook", "claude"]
        cases = {
            "baseline: python -c pass": make_case([py, "-c", "pass"], env, project, None),
            "warm: python -m goalkeeper": make_case(
                [py, "-m", "goalkeeper", *hook], env, project, transcript
            ),
            "warm: goalkeeper script": make_case([str(script), *hook], env, project, transcript),
            "in-process (SERVER=off)": make_case(
                [py, "-m", "goalkeeper", *hook], off_env, project, transcript
            ),
            "in-process, no bytecode": make_case(
                [py, "-m", "goalkeeper", *hook], nopyc_env, project, transcript
            ),
        }
        samples = _bench.interleave(cases, args.reps, args.warmup, args.seed)
        for interpreter in {py, script_py}:
            _bench.check_no_fallback(interpreter, project)
        engine = engine_work(project, transcript, env, args.reps)

    if args.snapshot:
        notes.append("measured a snapshot of src/goalkeeper copied at the start (--snapshot)")
    return report(samples, engine, size, args, notes)


def engine_work(
    project: Path, transcript: _bench.Transcript, env: dict[str, str], reps: int
) -> list[float]:
    """The engine's own share of a warm Stop: ``answer_in_process`` called in this process
    with modules imported and the plan cached, as the engine runs it for each request. The
    rest of a warm figure is Python's start-up, the client's imports and the socket round trip.
    """
    from goalkeeper.hosts.transport.dispatch import answer_in_process

    forwarded = {k: v for k, v in env.items() if k.startswith(_bench.FORWARDED_PREFIXES)}
    samples: list[float] = []
    for i in range(reps + 3):
        transcript.append_round(FINAL_TEXT)
        payload = _bench.stop_payload(SESSION, transcript.path, project, FINAL_TEXT)
        started = time.perf_counter()
        answer = answer_in_process("claude", payload, forwarded, str(project))
        elapsed = time.perf_counter() - started
        _bench.check_stop_answer(answer)
        if i >= 3:
            samples.append(elapsed)
    return samples


def report(
    samples: dict[str, list[float]],
    engine: list[float],
    size: int,
    args: argparse.Namespace,
    notes: list[str],
) -> dict[str, object]:
    base = _bench.stats(samples["baseline: python -c pass"])
    rows = _bench.ratio_rows(samples, "baseline: python -c pass")
    warm = ("warm: python -m goalkeeper", "warm: goalkeeper script")
    budgets = _bench.ratio_budgets(rows, dict.fromkeys(warm, BUDGET))
    work = _bench.stats(engine)
    warm = _bench.stats(samples["warm: python -m goalkeeper"])
    breakdown = {
        "python start-up (baseline)": round(base.median * 1000, 3),
        "engine work per Stop (answer_in_process, warm, in this process)": round(
            work.median * 1000, 3
        ),
        "rest: client imports, socket round trip, exit": round(
            (warm.median - base.median - work.median) * 1000, 3
        ),
    }
    return {
        "benchmark": "hook_latency",
        "machine": _bench.machine(),
        "setup": {
            "plan_lines": args.plan_lines,
            "transcript_bytes": size,
            "reps": args.reps,
            "warmup": args.warmup,
            "env": FIXED_PATH_ENV,
            "snapshot": args.snapshot,
        },
        "results_ms": rows,
        "warm_breakdown_ms": breakdown,
        "engine_work_ms": work.to_dict(),
        "budgets": budgets,
        "notes": notes,
    }


def print_report(data: dict[str, object]) -> None:
    m = data["machine"]
    setup = data["setup"]
    assert isinstance(m, dict) and isinstance(setup, dict)
    print(_bench.headline("Stop hook latency", m))
    print(
        f"plan {setup['plan_lines']} lines, transcript {setup['transcript_bytes'] / 2**20:.1f} MB,"
        f" {setup['reps']} interleaved rounds (+{setup['warmup']} warm-up)\n"
    )
    _bench.print_ratio_table(data)
    print("\nwhere a warm Stop's time goes (medians, ms)")
    breakdown = data["warm_breakdown_ms"]
    assert isinstance(breakdown, dict)
    _bench.print_table(["part", "ms"], [[k, v] for k, v in breakdown.items()])
    print()
    _bench.print_ratio_budgets(data)


def main() -> int:
    return _bench.main(parse_args, run, print_report)


if __name__ == "__main__":
    sys.exit(main())
