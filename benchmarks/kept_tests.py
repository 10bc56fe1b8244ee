"""What keeping a session's tests costs at the user's first prompt (issue 11, protected tests).

At the first UserPromptSubmit of a session goalkeeper keeps the project's test files and test
configuration (``KeepTests``): a walk of the project and a read of each protected file, into
``.goalkeeper/state.db``. Todo test gates and plan closes are later held to them. A later prompt
of the same session keeps nothing. Measured in the process that handles the event
(``answer_in_process``), interleaved, for a small project (20 test files, 50 source files) and
a large one (400 test files, 4000 source files):

    kept = median(first prompt of a session) − median(a later prompt of the same session)

Reported, not budgeted: it is paid once per session, at a prompt, never at a Stop. The Stop
budget (≤ 2.5× ``python -c pass``) is ``hook_latency.py``'s.

Run: .venv/bin/python benchmarks/kept_tests.py [--reps 20] [--json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import _bench

SIZES = {"small": (20, 50), "large": (400, 4000)}
"""Project sizes: (test files, source files)."""


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args()


def make_project(root: Path, tests: int, sources: int) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "src").mkdir()
    for i in range(tests):
        body = "".join(f"def test_{i}_{j}():\n    assert {j} == {j}\n\n" for j in range(10))
        (root / "tests" / f"test_mod{i}.py").write_text(body, encoding="utf-8")
    for i in range(sources):
        folder = root / "src" / f"pkg{i // 100}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n", "utf-8")
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    return root


def prompt_case(project: Path, env: dict[str, str], new_session: bool) -> Callable[[], float]:
    from goalkeeper.hosts.transport.dispatch import answer_in_process

    counter = itertools.count()

    def case() -> float:
        session = f"bench-{next(counter)}" if new_session else "bench-same"
        payload = json.dumps(
            {
                "hook_event_name": "UserPromptSubmit",
                "session_id": session,
                "cwd": str(project),
                "prompt": "fix the failing test",
            }
        ).encode()
        started = time.perf_counter()
        answer_in_process("claude", payload, env, str(project))
        return time.perf_counter() - started

    return case


def main() -> int:
    args = parse_args()
    env = {"GOALKEEPER_NO_PLAN": "silent", "GOALKEEPER_SERVER": "off"}
    cases: dict[str, Callable[[], float]] = {}
    with tempfile.TemporaryDirectory(prefix="goalkeeper-bench-kept-") as tmp_name:
        for size, (tests, sources) in SIZES.items():
            project = make_project(Path(tmp_name) / size, tests, sources)
            local = {**env, "CLAUDE_PROJECT_DIR": str(project)}
            cases[f"{size}: first prompt (keeps the tests)"] = prompt_case(project, local, True)
            cases[f"{size}: later prompt"] = prompt_case(project, local, False)
        samples = _bench.interleave(cases, args.reps, args.warmup, args.seed)
    stats = {name: _bench.stats(values) for name, values in samples.items()}
    kept = {
        size: round(
            (
                stats[f"{size}: first prompt (keeps the tests)"].median
                - stats[f"{size}: later prompt"].median
            )
            * 1000,
            3,
        )
        for size in SIZES
    }
    result = {
        "machine": _bench.machine(),
        "git": _bench.git_state(),
        "rows": {name: s.to_dict() for name, s in stats.items()},
        "kept_ms": kept,
    }
    if args.json:
        _bench.print_json(result)
        return 0
    print(_bench.headline("kept tests at the first prompt", result["machine"]))  # type: ignore[arg-type]
    rows = [(name, f"{s.median * 1000:.2f}", f"{s.p90 * 1000:.2f}") for name, s in stats.items()]
    _bench.print_table(["case", "median ms", "p90 ms"], rows)
    for size, (tests, sources) in SIZES.items():
        print(f"keeping {tests} test files among {sources} sources: +{kept[size]:.2f} ms, once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
