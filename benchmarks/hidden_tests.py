"""What hidden acceptance tests cost per proof (issue 22, item 5; budget: +10 ms beyond the verify).

At a passing verify of a goal set with ``--hidden-tests DIR``, goalkeeper runs the goal's verify
once more in a scratch copy of the work tree with DIR laid over it (``engine.hidden.run_hidden``).
The second verify run is the point; everything around it (building the scratch tree, laying the
hidden files over it, cleaning up) is the overhead. Measured in process, interleaved, on a
project with 20 test files, 200 sources in 10 packages, a README, a ``.git`` folder (left out of
copies) and a ``.venv`` (linked), with 3 hidden test files, against the verify run itself in the
project (``python -c pass``, the cheapest verify there is, through the same runner):

    overhead = median(run_hidden) − median(verify run)

Each proof is measured as it happens in a session: between two proofs the agent edits one
source file (so a kept scratch tree must notice, and an agent's edit must reach the copy).

Run: .venv/bin/python benchmarks/hidden_tests.py [--reps 50] [--json]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import _bench

BUDGET_MS = 10.0
VERIFY = (f"{sys.executable} -c pass",)


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
        body = "".join(f"def test_{i}_{j}():\n    assert {j} == {j}\n\n" for j in range(10))
        (root / "tests" / f"test_m{i}.py").write_text(body, "utf-8")
    for p in range(10):
        pkg = root / "src" / f"pkg{p}"
        pkg.mkdir(parents=True)
        for i in range(20):
            (pkg / f"m{i}.py").write_text(f"X = {i}\n" * 40, "utf-8")
    (root / "README.md").write_text("# project\n" * 200, "utf-8")
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n", "utf-8")
    objects = root / ".git" / "objects" / "ab"
    objects.mkdir(parents=True)
    for i in range(200):
        (objects / f"{i:038x}").write_bytes(os.urandom(512))
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").write_text("#!/bin/sh\n", "utf-8")
    return root


def main() -> int:
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="goalkeeper-bench-hidden-") as tmp_name:
        tmp = Path(tmp_name)
        os.environ["XDG_STATE_HOME"] = str(tmp / "state")  # the hidden copy lives in here
        from goalkeeper.engine.commands import run_verification
        from goalkeeper.engine.hidden import keep_hidden_tests, run_hidden
        from goalkeeper.engine.ports import SubprocessRunner

        project = make_project(tmp / "p")
        hidden = tmp / "acceptance"
        hidden.mkdir()
        for i in range(3):
            (hidden / f"test_acceptance_{i}.py").write_text("def test_x():\n    pass\n", "utf-8")
        keep_hidden_tests(project, hidden)
        runner = SubprocessRunner()
        edited = project / "src" / "pkg0" / "m0.py"
        count = [0]

        def run(tree: Path) -> tuple[object, ...]:
            runs = run_verification(VERIFY, tree, runner, 60.0)
            if not all(r.passed for r in runs):
                raise _bench.BenchError(f"the verify failed in {tree}")
            return runs

        def verify_case() -> float:
            started = time.perf_counter()
            run(project)
            return time.perf_counter() - started

        def hidden_case() -> float:
            count[0] += 1
            edited.write_text(f"X = {count[0]}\n", "utf-8")  # the agent's edit between proofs
            started = time.perf_counter()
            result = run_hidden(project, run)  # type: ignore[arg-type]
            elapsed = time.perf_counter() - started
            if result is None or not result.passed:
                raise _bench.BenchError(f"the hidden run did not pass: {result}")
            return elapsed

        cases = {"verify run (python -c pass)": verify_case, "hidden tests run": hidden_case}
        samples = _bench.interleave(cases, args.reps, args.warmup, args.seed)
    return _bench.overhead_report(
        "hidden tests per proof",
        samples,
        "verify run (python -c pass)",
        "hidden tests run",
        BUDGET_MS,
        as_json=args.json,
        what="hidden tests per proof beyond the verify run",
    )


if __name__ == "__main__":
    _bench.install_signal_cleanup()
    sys.exit(main())
