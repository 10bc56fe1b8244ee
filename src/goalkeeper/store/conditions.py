"""Each condition a goal names, as a command this project can run (seed 004 §4.5; issue 23).

``core.goals.conditions`` reads what the user asked for ("coverage is at least 80%", "ruff 无告警",
"every test in tests/unit passes"); this module answers, from the project's own configuration,
which command checks it: ``python -m pytest -q --cov --cov-fail-under=80`` where pytest-cov is
declared, ``ruff check .`` for ruff, ``python -m pytest -q tests/unit`` for the folder. A
condition no command fits stays ``unchecked``: the goal keeps it as a criterion that only the
user can settle, so a proof of part of the goal is never called proof of the goal.

Every command is a fixed shape; the only text taken from the goal is a folder that passed
``_SAFE_PATH`` and a number, so a goal the agent proposed cannot smuggle a command in (and such a
goal is held until the user approves it, commands shown). Reads files only; never raises.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.values import GoalCondition
from goalkeeper.store.project import (
    ProjectFacts,
    js_runner,
    kind_commands,
    python_runner,
    read_project,
)

_SAFE_PATH = lazy_re(r"[A-Za-z0-9_][\w.-]*(?:/[\w.-]+)*/?")
"""A folder named in the goal, relative, with no ``..``, no leading dash, no shell syntax."""
_WARNINGS = lazy_re(r"warn|告警|警告", re.IGNORECASE)


class ConditionCheck(Struct, frozen=True):
    """One named condition and the commands that check it (empty: no command fits, and the
    condition stays a criterion only the user can settle)."""

    condition: GoalCondition
    commands: tuple[str, ...]


def resolve_conditions(
    project: Path, conditions: Sequence[GoalCondition], test_command: str | None = None
) -> tuple[ConditionCheck, ...]:
    """The commands for each condition, in order, the project read once. A coverage check run
    by pytest also runs the tests, so a plain pytest for the tests condition is then dropped
    rather than run twice."""
    if not conditions:
        return ()
    p = read_project(project)
    checks = [ConditionCheck(c, tuple(_commands(p, project, c, test_command))) for c in conditions]
    cover = next((c for c in checks if c.condition.kind == "coverage" and c.commands), None)
    if cover is not None and "pytest -q --cov " in cover.commands[0]:
        plain = _pytest(p, "")
        checks = [
            ConditionCheck(
                c.condition, tuple(cover.commands[0] if x == plain else x for x in c.commands)
            )
            if c.condition.kind == "tests"
            else c
            for c in checks
        ]
    return tuple(checks)


def _pytest(p: ProjectFacts, args: str) -> str:
    """pytest as ``store.project`` runs it for this project (``python -m pytest -q``, or
    through ``uv run``), with ``args``."""
    base = "uv run pytest -q" if p.uv else "python -m pytest -q"
    return f"{base} {args}".rstrip()


def _commands(
    p: ProjectFacts, project: Path, c: GoalCondition, test_command: str | None
) -> list[str]:
    if c.kind == "coverage":
        return _coverage(p, c.threshold)
    if c.kind == "tests" and c.path:
        return _tests_in(p, project, c.path)
    if c.tool:
        return _tool(p, c.tool, c.words)
    return kind_commands(p, c.kind, test_command)


def _tests_in(p: ProjectFacts, project: Path, path: str) -> list[str]:
    """The project's test runner, on that folder only. A folder that is not there, or not a
    plain relative path, has no command: the user named something goalkeeper cannot find."""
    path = path.rstrip("/")
    if not _SAFE_PATH.fullmatch(path) or ".." in path.split("/"):
        return []
    try:
        if not (project / path).is_dir():
            return []
    except OSError:
        return []
    if p.python_tests:
        return [_pytest(p, path)]
    if p.go:
        return [f"go test ./{path}/..."]
    if "vitest" in p.js_deps:
        return [f"npx vitest run {path}"]
    if "jest" in p.js_deps:
        return [f"npx jest {path}"]
    return []


def _tool(p: ProjectFacts, tool: str, words: str) -> list[str]:
    """The tool the user named, run as its own documented command; a warning-free ask makes
    ESLint fail on warnings too (it exits 0 on warnings by default)."""
    strict = _WARNINGS.search(words) is not None
    python = {"ruff": "ruff check .", "mypy": "mypy .", "pyright": "pyright", "flake8": "flake8"}
    if tool in python:
        return [python_runner(p, python[tool])]
    if tool == "eslint":
        return ["npx eslint --max-warnings=0 ." if strict else "npx eslint ."]
    if tool == "tsc":
        script = next((s for s in ("typecheck", "type-check", "tsc") if s in p.scripts), None)
        return [js_runner(p, script)] if script else ["npx tsc --noEmit"]
    if tool == "golangci-lint":
        return ["golangci-lint run"]
    if tool == "clippy":
        return ["cargo clippy -- -D warnings"]
    return []  # pylint needs the packages named: the user says how


def _coverage(p: ProjectFacts, threshold: int) -> list[str]:
    """A minimum the runner itself enforces (it exits non-zero under ``threshold``%), with the
    coverage tool the project declares; none declared, none guessed."""
    n = int(threshold)
    if not 0 < n <= 100:
        return []
    if p.python_tests and "pytest-cov" in p.python_deps:
        return [_pytest(p, f"--cov --cov-fail-under={n}")]
    if p.python_tests and "coverage" in p.python_deps:
        coverage = "uv run coverage" if p.uv else "python -m coverage"
        return [f"{coverage} run -m pytest -q", f"{coverage} report --fail-under={n}"]
    test = js_runner(p, "test") if "test" in p.scripts else ""
    if "vitest" in p.js_deps:
        return [f"npx vitest run --coverage --coverage.thresholds.lines={n}"]
    if "jest" in p.js_deps:
        minimum = json.dumps({"global": {"lines": n}}, separators=(",", ":"))
        return [f"npx jest --coverage --coverageThreshold='{minimum}'"]
    if "c8" in p.js_deps and test:
        return [f"npx c8 --check-coverage --lines {n} {test}"]
    if "nyc" in p.js_deps and test:
        return [f"npx nyc --check-coverage --lines {n} {test}"]
    return []  # go test -cover reports, it does not enforce: the user says how
