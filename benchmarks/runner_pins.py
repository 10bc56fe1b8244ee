"""What pinning the runner costs per Stop (issue 22, item 4; budget: +10 ms beyond the verify).

At a passing verify of an active goal, the replay compares the protected files with the goal's
baseline (``current_digests``); with runner pins it also resolves each verify program on
``PATH`` and digests the runners pinned inside the project (``current_state``). Measured in
process, interleaved, on a project with 20 test files, 50 sources, a ``.venv/bin/pytest``
first on ``PATH`` and a ``node_modules/.bin/jest`` linked to its script, against the verify run
itself (``python -c pass``, the cheapest verify there is):

    pinning = median(current_state) − median(current_digests)

Run: .venv/bin/python benchmarks/runner_pins.py [--reps 50] [--json]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import _bench

COMMANDS = ("pytest -q", "jest --ci")
BUDGET_MS = 10.0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args()


def make_project(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    for i in range(20):
        (root / "tests" / f"test_m{i}.py").write_text(f"def test_{i}():\n    pass\n", "utf-8")
    (root / "src").mkdir()
    for i in range(50):
        (root / "src" / f"m{i}.py").write_text(f"X = {i}\n", "utf-8")
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "pytest").write_text(f"#!{sys.executable}\nimport pytest\n", "utf-8")
    script = root / "node_modules" / "jest" / "bin" / "jest.js"
    script.parent.mkdir(parents=True)
    script.write_text("require('jest-cli/bin/jest');\n" * 20, "utf-8")
    (root / "node_modules" / ".bin").mkdir()
    os.symlink("../jest/bin/jest.js", root / "node_modules" / ".bin" / "jest")
    for path in (bin_dir / "pytest", script):
        path.chmod(0o755)
    return root


def timed(fn: Callable[[], object]) -> Callable[[], float]:
    def case() -> float:
        started = time.perf_counter()
        fn()
        return time.perf_counter() - started

    return case


def main() -> int:
    args = parse_args()
    from goalkeeper.store.runner_pins import pin
    from goalkeeper.store.test_baseline import Baseline, current_digests, current_state

    with tempfile.TemporaryDirectory(prefix="goalkeeper-bench-pins-") as tmp_name:
        project = make_project(Path(tmp_name) / "p")
        path = os.pathsep.join(
            [str(project / ".venv" / "bin"), str(project / "node_modules" / ".bin")]
        )
        os.environ["PATH"] = path + os.pathsep + os.environ.get("PATH", "")
        pins = pin(project, COMMANDS)
        assert len(pins) == 2, sorted(pins)
        baseline = Baseline("g", pins, {p: "x" for p in pins})
        cases = {
            "verify run (python -c pass)": timed(
                lambda: subprocess.run([sys.executable, "-c", "pass"], check=True)
            ),
            "protected files (baseline)": timed(lambda: current_digests(project)),
            "protected files + runner pins": timed(
                lambda: current_state(project, baseline, COMMANDS)
            ),
        }
        samples = _bench.interleave(cases, args.reps, args.warmup, args.seed)
    return _bench.overhead_report(
        "runner pins per Stop",
        samples,
        "protected files (baseline)",
        "protected files + runner pins",
        BUDGET_MS,
        as_json=args.json,
        what="pinning per Stop",
    )


if __name__ == "__main__":
    _bench.install_signal_cleanup()
    sys.exit(main())
