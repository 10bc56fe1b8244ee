"""Per condition kind: does `goal set` produce a check for it (issue 23 §1, Measure).

Each case is a goal text a user would type, the kind of condition it names beyond its plain
tests, and a project it is set in (a few files written to a temporary folder: pyproject with
pytest-cov, a Node project with Jest, a Go module …). The case runs the real `goalkeeper goal
set` in a fresh process per project (as a user in their own terminal) and reads the GOAL.md it
wrote: the condition counts as *checked* when a verify command enforces it, as *held* when it
is kept as a criterion only the user can settle, and as *dropped* when neither (the failure
this issue is about). The report gives per kind: checked / held / dropped, and `goal set`'s
time per goal against `goal set --verify true` in the same run (median of --reps).

Run: .venv/bin/python benchmarks/goal_conditions.py [--reps 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _bench

PY_COV = {
    "pyproject.toml": '[project]\nname = "p"\noptional-dependencies = { dev = ["pytest-cov"] }\n'
    "[tool.pytest.ini_options]\n[tool.ruff]\n[tool.mypy]\n",
    "tests/test_a.py": "def test_a():\n    assert True\n",
    "tests/unit/test_b.py": "def test_b():\n    assert True\n",
}
PY_PLAIN = {
    "pyproject.toml": '[project]\nname = "p"\n[tool.pytest.ini_options]\n',
    "tests/test_a.py": "def test_a():\n    assert True\n",
}
NODE = {
    "package.json": json.dumps(
        {
            "scripts": {"test": "jest", "build": "tsc"},
            "devDependencies": {"jest": "29", "eslint": "9", "typescript": "5"},
        }
    ),
    "tsconfig.json": "{}",
    "src/a.test.js": "test('a', () => {});\n",
}
GO = {"go.mod": "module p\n", "a_test.go": "package p\n"}

# (goal text, the condition kind it names, project, the words that must appear in a check)
CASES: list[tuple[str, str, dict[str, str], str]] = [
    ("pytest passes and coverage is at least 80%", "coverage", PY_COV, "--cov-fail-under=80"),
    ("所有测试通过，覆盖率不低于 85%", "coverage", PY_COV, "--cov-fail-under=85"),
    ("all tests pass with 90% coverage", "coverage", NODE, '"lines":90'),
    ("tests pass and coverage is at least 70%", "coverage", PY_PLAIN, ""),
    ("go test passes and coverage reaches 80%", "coverage", GO, ""),
    ("所有测试通过，且 ruff 无告警", "lint", PY_COV, "ruff check"),
    ("the tests pass and lint is clean", "lint", PY_COV, "ruff check"),
    ("eslint reports no warnings and the tests pass", "lint", NODE, "eslint"),
    ("the tests pass and the type check is clean", "types", PY_COV, "mypy"),
    ("tests pass and tsc has no errors", "types", NODE, "tsc"),
    ("类型检查通过并且测试全部通过", "types", PY_COV, "mypy"),
    ("the build succeeds and the tests pass", "build", NODE, "npm run build"),
    ("构建无错误，测试通过", "build", GO, "go build"),
    ("every test in tests/unit passes", "tests in a folder", PY_COV, "pytest -q tests/unit"),
    ("tests/ 下的所有测试通过", "tests in a folder", PY_COV, "pytest -q tests"),
    ("all tests pass", "tests", PY_PLAIN, "pytest"),
]


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def goal_set(project: Path, *args: str) -> tuple[float, dict[str, Any]]:
    env = _bench.clean_env(project)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(project), "goal", "set", *args, "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    took = time.perf_counter() - start
    try:
        return took, json.loads(done.stdout)
    except ValueError:
        return took, {"error": done.stderr[-400:]}


def judge(data: dict[str, Any], must: str) -> str:
    goal = data.get("goal") or {}
    verify = goal.get("verify") or []
    criteria = [c.get("text", "") for c in goal.get("criteria") or []]
    if must and any(must in v for v in verify):
        return "checked"
    if any("no command checks this" in c or "没有命令检查这一条" in c for c in criteria):
        return "held"
    return "dropped"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    times: list[float] = []
    base: list[float] = []
    for text, kind, files, must in CASES:
        outcomes = []
        for _ in range(max(1, args.reps)):
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp)
                write(root, files)
                took, data = goal_set(root, text)
                times.append(took)
                outcomes.append(judge(data, must))
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp)
                write(root, files)
                took, _ = goal_set(root, "--verify", "true", text)
                base.append(took)
        rows.append(
            {"goal": text, "kind": kind, "outcome": outcomes[0], "stable": len(set(outcomes)) == 1}
        )
    per_kind: dict[str, dict[str, int]] = {}
    for row in rows:
        counts = per_kind.setdefault(row["kind"], {"checked": 0, "held": 0, "dropped": 0})
        counts[row["outcome"]] += 1
    report = {
        "cases": rows,
        "per_kind": per_kind,
        "goal_set_ms": round(statistics.median(times) * 1000, 1),
        "goal_set_verify_true_ms": round(statistics.median(base) * 1000, 1),
    }
    report["ratio"] = round(report["goal_set_ms"] / report["goal_set_verify_true_ms"], 2)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0
    for row in rows:
        print(f"{row['outcome']:8} {row['kind']:18} {row['goal']}")
    print()
    for kind, counts in per_kind.items():
        print(
            f"{kind:18} checked {counts['checked']}  held {counts['held']}  "
            f"dropped {counts['dropped']}"
        )
    print(
        f"\ngoal set: {report['goal_set_ms']} ms median, --verify true: "
        f"{report['goal_set_verify_true_ms']} ms ({report['ratio']}x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
