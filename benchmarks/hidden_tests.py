"""What hidden acceptance tests cost per Stop (issue 22, item 5; budget: +10 ms beyond the
verify run).

When a goal with hidden tests passes its verify, the proof runs the verify a second time in a
scratch copy of the work tree with the user's hidden tests laid over it
(``engine.hidden.run_hidden``). The second run is the user's own check and costs what the
verify costs; what goalkeeper adds is the copy, the overlay and the clean-up:

    hidden = median(run_hidden with the verify) − median(the verify alone)

Measured in process, interleaved, with the cheapest verify there is (``python -c pass``,
through the runner goalkeeper uses), on two projects: the benchmarks' synthetic one (20 test
files, 50 sources) and a real one, the honesty benchmark's pinned inflection 0.5.1 snapshot,
each with one hidden test file. Goalkeeper's state folder is a temporary one.

Run: .venv/bin/python benchmarks/hidden_tests.py [--reps 50] [--json]
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

VERIFY = (f"{sys.executable} -c pass",)
HIDDEN = "def test_hidden():\n    pass\n"
BUDGET_MS = 10.0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args()


def synthetic(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    for i in range(20):
        (root / "tests" / f"test_m{i}.py").write_text(f"def test_{i}():\n    pass\n", "utf-8")
    (root / "src").mkdir()
    for i in range(50):
        (root / "src" / f"m{i}.py").write_text(f"X = {i}\n", "utf-8")
    return root


def inflection(root: Path) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks.honesty.scenarios_real import upstream

    for path, content in upstream().items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(content, "utf-8")
    return root


def timed(fn: Callable[[], object]) -> Callable[[], float]:
    def case() -> float:
        started = time.perf_counter()
        fn()
        return time.perf_counter() - started

    return case


def main() -> int:
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="goalkeeper-bench-hidden-") as tmp_name:
        tmp = Path(tmp_name)
        os.environ["XDG_STATE_HOME"] = str(tmp / "state")
        from goalkeeper.core.values import VerifyRun
        from goalkeeper.engine.goal_io import run_verification
        from goalkeeper.engine.hidden import keep_hidden_tests, run_hidden
        from goalkeeper.engine.ports import SubprocessRunner

        runner = SubprocessRunner()
        (tmp / "hidden").mkdir()
        (tmp / "hidden" / "test_acceptance.py").write_text(HIDDEN, "utf-8")

        def verify(tree: Path) -> tuple[VerifyRun, ...]:
            runs = run_verification(VERIFY, tree, runner, 60)
            assert runs and all(r.passed for r in runs), runs
            return runs

        cases: dict[str, Callable[[], float]] = {}
        for name, make in (("synthetic", synthetic), ("inflection", inflection)):
            project = make(tmp / name)
            keep_hidden_tests(project, tmp / "hidden")
            cases[f"{name}: verify run"] = timed(lambda p=project: verify(p))
            cases[f"{name}: hidden run (copy, overlay, verify)"] = timed(
                lambda p=project: run_hidden(p, verify)
            )
        samples = _bench.interleave(cases, args.reps, args.warmup, args.seed)
    stats = {name: _bench.stats(values) for name, values in samples.items()}
    costs = {}
    for name in ("synthetic", "inflection"):
        alone = stats[f"{name}: verify run"].median
        hidden = stats[f"{name}: hidden run (copy, overlay, verify)"].median
        costs[name] = round((hidden - alone) * 1000, 3)
    result = {
        "machine": _bench.machine(),
        "git": _bench.git_state(),
        "rows": {name: s.to_dict() for name, s in stats.items()},
        "hidden_ms": costs,
        "budget_ms": BUDGET_MS,
        "ok": all(c <= BUDGET_MS for c in costs.values()),
    }
    if args.json:
        _bench.print_json(result)
        return 0 if result["ok"] else 1
    print(_bench.headline("hidden tests per Stop", result["machine"]))  # type: ignore[arg-type]
    rows = [(name, f"{s.median * 1000:.3f}", f"{s.p90 * 1000:.3f}") for name, s in stats.items()]
    _bench.print_table(["case", "median ms", "p90 ms"], rows)
    for name, cost in costs.items():
        print(
            f"{name}: copy + overlay + clean-up +{cost:.3f} ms per proving Stop beyond the "
            f"verify run, budget +{BUDGET_MS:.0f} ms: {_bench.verdict(cost <= BUDGET_MS)}"
        )
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    _bench.install_signal_cleanup()
    sys.exit(main())
