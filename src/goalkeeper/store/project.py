"""Reading the project a goal works in: its own verify and test commands, and its files.

Seed 004 §4.5 step 2: when a goal names no command, the command comes from the project's own
configuration (``package.json`` scripts, ``pyproject.toml``, a ``Makefile`` target, ``Cargo.toml``,
``go.mod``), not from a guess; when nothing fits, the answer is empty and the caller asks the
user (step 3). ``walk_files`` lists the project's own files (for the protected tests).
Reads files only; never writes, never runs anything, never raises: an unreadable or malformed
file counts as absent.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct

from goalkeeper.core.text.lazy_re import lazy_re

MAX_FILE_BYTES = 1_000_000
"""Configuration files larger than this are generated or vendored, not written by hand."""
SKIP_DIRS = frozenset(
    {".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build", ".goalkeeper"}
    | {".hg", ".svn", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "target"}
    | {".next", ".nuxt", "coverage", ".gradle", ".idea", "site-packages"}
)
"""Folders of tools, dependencies and build output: never the project's own tests."""

# ``npm init`` writes this script; it is a placeholder, not a test command.
_NPM_PLACEHOLDER = lazy_re(r"no test specified", re.IGNORECASE)
_MAKE_RULE = lazy_re(r"^([A-Za-z0-9_.%/ -]+?)[ \t]*::?(?!=)", re.MULTILINE)


class ProjectFacts(Struct, frozen=True):
    """What the project's configuration says, read once (``read_project``)."""

    scripts: Mapping[str, str]
    runner: str  # npm, pnpm or yarn, by lockfile
    make_targets: frozenset[str]
    python_tests: bool
    mypy: bool
    pyright: bool
    ruff: bool
    uv: bool
    tsconfig: bool
    cargo: bool
    go: bool
    python_deps: frozenset[str] = frozenset()
    """Python tools the project declares that a condition may need (``pytest-cov``,
    ``coverage``), from its pyproject, setup.cfg, tox.ini and requirements files."""
    js_deps: frozenset[str] = frozenset()
    """``package.json``'s dependency and devDependency names."""


class ProjectTests(Struct, frozen=True):
    """This project's answer to "what is the test command?", for both of its users.
    ``verify``: what a goal that asks for passing tests runs (one per declared suite; a Makefile
    ``test`` target stands for all of them). ``accepted``: every spelling of those runners an
    agent may report having run, which goalkeeper may re-run as todo evidence. The first of
    ``accepted`` is the first of ``verify``."""

    verify: tuple[str, ...]
    accepted: tuple[str, ...]


def project_tests(project: Path, configured: str | None = None) -> ProjectTests:
    """The one answer to "what is this project's test command?": the user's approved
    ``test-command`` when there is one, else what the project's own files declare (pytest
    configuration or test modules, a ``package.json`` test script, a Makefile ``test`` target,
    ``Cargo.toml``, ``go.mod``). The goal's verify inference and the todo evidence both ask
    here, so they cannot disagree. Only fixed command shapes are returned, never text read from
    a file: a script the agent edits changes what ``npm test`` does, not which command runs."""
    if configured and configured.strip():
        return ProjectTests((configured,), (configured,))
    return _project_tests(_read_project(project))


def _project_tests(p: ProjectFacts) -> ProjectTests:
    suites = _test_suites(p)
    verify = ["make test"] if "test" in p.make_targets else [suite[0] for suite in suites]
    accepted = tuple(dict.fromkeys(c for suite in suites for c in suite))
    return ProjectTests(tuple(verify), accepted)


def infer_verify_commands(
    project: Path, kinds: Sequence[str], test_command: str | None = None
) -> tuple[str, ...]:
    """Seed 004 §4.5 step 2: for each asked kind (tests, types, lint, build), the project's own
    command, in the order asked, de-duplicated. Tests come from ``project_tests`` (the user's
    ``test_command`` first); a Makefile target named for a kind (``test``, ``lint``,
    ``typecheck``, ``build``) stands for that kind; otherwise each ecosystem present gives its
    command (Python, Node, Rust, Go). Unknown kinds are ignored. Empty when nothing fits: the
    caller then asks the user. Every command is a fixed shape shown to the user with the goal
    (``goal.recorded_user``); none is text read from a file."""
    p = _read_project(project)
    out: list[str] = []
    for kind in kinds:
        out.extend(c for c in kind_commands(p, kind, test_command) if c not in out)
    return tuple(out)


def read_project(project: Path) -> ProjectFacts:
    """The project's configuration, read once, for callers that ask more than one question of
    it (``store.conditions``)."""
    return _read_project(project)


def kind_commands(p: ProjectFacts, kind: str, test_command: str | None = None) -> list[str]:
    """The project's own commands for one kind of check (``infer_verify_commands``'s rule)."""
    if kind == "tests":
        return list((test_command,) if test_command and test_command.strip() else _tests(p))
    if kind == "types":
        return _types(p)
    if kind == "lint":
        return _lint(p)
    if kind == "build":
        return _build(p)
    return []


def python_runner(p: ProjectFacts, tool: str) -> str:
    """``tool`` as this project runs a Python tool (``uv run`` in a uv project)."""
    return _py(p, tool)


def js_runner(p: ProjectFacts, script: str) -> str:
    """``npm test`` / ``pnpm run lint``: a package.json script as the lockfile's manager runs it."""
    return _run(p, script)


# ---------------------------------------------------------------------------------------------
# Commands per kind
# ---------------------------------------------------------------------------------------------


def _run(p: ProjectFacts, script: str) -> str:
    return f"{p.runner} test" if script == "test" else f"{p.runner} run {script}"


def _py(p: ProjectFacts, tool: str) -> str:
    """A Python tool, through ``uv run`` in a uv project (its tools live in the project's
    environment, not on PATH)."""
    return f"uv run {tool}" if p.uv else tool


def _tests(p: ProjectFacts) -> list[str]:
    """The verify command of each test suite the project declares; a Makefile ``test`` target
    stands for all of them."""
    return list(_project_tests(p).verify)


def _test_suites(p: ProjectFacts) -> list[tuple[str, ...]]:
    """Each test suite the project's files declare: its verify command first, then every other
    spelling of the same runner an agent may report having run (read by ``project_tests``)."""
    suites: list[tuple[str, ...]] = []
    if "test" in p.make_targets:
        suites.append(("make test",))
    if p.python_tests:
        # ``python -m pytest`` puts the project folder on sys.path, as an installed package
        # would be; a bare ``pytest`` does not.
        canonical = "uv run pytest -q" if p.uv else "python -m pytest -q"
        uv = ("uv run pytest",) if p.uv else ()
        suites.append((canonical, "pytest", "python -m pytest", "python3 -m pytest", *uv))
    test = p.scripts.get("test")
    if test and not _NPM_PLACEHOLDER.search(test):
        others = (f"{r} {w}" for r in ("npm", "pnpm", "yarn") for w in ("test", "run test"))
        suites.append((_run(p, "test"), *others))
    elif "check" in p.scripts:
        suites.append((_run(p, "check"), *(f"{r} run check" for r in ("npm", "pnpm", "yarn"))))
    if p.cargo:
        suites.append(("cargo test",))
    if p.go:
        suites.append(("go test ./...", "go test"))
    return suites


def declared_test_commands(project: Path) -> tuple[str, ...]:
    """The test commands the project's own files declare, in every spelling (``pytest``,
    ``python -m pytest``, ``npm run test`` …): ``project_tests(project).accepted``."""
    return project_tests(project).accepted


_MAKE_TYPES = ("typecheck", "type-check", "types", "mypy")


def _types(p: ProjectFacts) -> list[str]:
    target = next((t for t in _MAKE_TYPES if t in p.make_targets), None)
    if target is not None:
        return [f"make {target}"]  # the project's own way, as ``make test`` is for tests
    found: list[str] = []
    if p.mypy:
        found.append(_py(p, "mypy"))
    if p.pyright:
        found.append(_py(p, "pyright"))
    script = next((s for s in ("typecheck", "type-check", "types", "tsc") if s in p.scripts), None)
    if script is not None:
        found.append(_run(p, script))
    elif p.tsconfig:
        found.append("npx tsc --noEmit")
    return found


def _lint(p: ProjectFacts) -> list[str]:
    if "lint" in p.make_targets:
        return ["make lint"]
    found: list[str] = []
    if p.ruff:
        found.append(_py(p, "ruff check ."))
    if "lint" in p.scripts:
        found.append(_run(p, "lint"))
    return found


def _build(p: ProjectFacts) -> list[str]:
    if "build" in p.make_targets:
        return ["make build"]
    if "all" in p.make_targets:
        return ["make all"]
    found: list[str] = []
    if "build" in p.scripts:
        found.append(_run(p, "build"))
    if p.cargo:
        found.append("cargo build")
    if p.go:
        found.append("go build ./...")
    return found


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


MAX_LISTED = 2000
"""Folder entries looked at for test modules: a huge folder is not read to the end."""


def _has_test_modules(folder: Path) -> bool:
    """Python test modules in ``folder`` (``test_*.py``, ``*_test.py``, pytest's defaults):
    a project with tests but no pytest configuration still runs them with pytest. This adds
    no command the agent chose: the one goalkeeper would run is the fixed ``python -m pytest
    -q``, which a ``pytest.ini`` the agent writes would declare just the same."""
    try:
        with os.scandir(folder) as entries:
            for n, entry in enumerate(entries):
                if n >= MAX_LISTED:
                    return False
                name = entry.name
                test = name.startswith("test_") or name.endswith("_test.py")
                if test and name.endswith(".py") and entry.is_file(follow_symlinks=False):
                    return True
    except OSError:
        return False
    return False


def _read_project(root: Path) -> ProjectFacts:
    pyproject_text = _read(root / "pyproject.toml", root) or ""
    pyproject = _toml(pyproject_text) if pyproject_text else None
    tool = pyproject.get("tool") if pyproject is not None else None
    tool = tool if isinstance(tool, Mapping) else {}
    setup_cfg = _read(root / "setup.cfg", root) or ""
    tox_ini = _read(root / "tox.ini", root) or ""
    package = _json(_read(root / "package.json", root))
    requirements = "\n".join(
        _read(root / name, root) or ""
        for name in ("requirements.txt", "requirements-dev.txt", "dev-requirements.txt")
    )
    raw_scripts = package.get("scripts") if package is not None else None
    scripts = (
        {k: v for k, v in raw_scripts.items() if isinstance(v, str)}
        if isinstance(raw_scripts, Mapping)
        else {}
    )
    python_tests = (
        "pytest" in tool
        or _exists(root / "pytest.ini")
        or _exists(root / "conftest.py")
        or _exists(root / "tests" / "conftest.py")
        or "[tool:pytest]" in setup_cfg
        or "[pytest]" in tox_ini
        or re.search(r"\bpytest\b", pyproject_text) is not None
        or _has_test_modules(root)
        or _has_test_modules(root / "tests")
    )
    return ProjectFacts(
        scripts=scripts,
        runner=_runner(root),
        make_targets=_make_targets(root),
        python_tests=python_tests,
        mypy="mypy" in tool
        or _exists(root / "mypy.ini")
        or _exists(root / ".mypy.ini")
        or "[mypy]" in setup_cfg
        or (pyproject is None and "[tool.mypy]" in pyproject_text),
        pyright="pyright" in tool or _exists(root / "pyrightconfig.json"),
        ruff="ruff" in tool
        or _exists(root / "ruff.toml")
        or _exists(root / ".ruff.toml")
        or (pyproject is None and "[tool.ruff" in pyproject_text),
        uv=_exists(root / "uv.lock"),
        tsconfig=_exists(root / "tsconfig.json"),
        cargo=_exists(root / "Cargo.toml"),
        go=_exists(root / "go.mod"),
        python_deps=_python_deps("\n".join((pyproject_text, setup_cfg, tox_ini, requirements)))
        | (frozenset({"coverage"}) if _exists(root / ".coveragerc") else frozenset()),
        js_deps=_js_deps(package),
    )


_PY_DEP = lazy_re(r"(?<![\w-])(pytest-cov|coverage)(?![\w-])", re.IGNORECASE)


def _python_deps(text: str) -> frozenset[str]:
    return frozenset(m.group(1).lower() for m in _PY_DEP.finditer(text))


def _js_deps(package: Mapping[str, Any] | None) -> frozenset[str]:
    names: set[str] = set()
    for key in ("dependencies", "devDependencies"):
        table = package.get(key) if package is not None else None
        if isinstance(table, Mapping):
            names.update(k for k in table if isinstance(k, str))
    return frozenset(names)


def _runner(root: Path) -> str:
    """The package manager the lockfile names; ``yarn run check`` and not ``yarn check``, which
    is a yarn command of its own."""
    if _exists(root / "pnpm-lock.yaml"):
        return "pnpm"
    if _exists(root / "yarn.lock"):
        return "yarn"
    return "npm"


def _make_targets(root: Path) -> frozenset[str]:
    for name in ("GNUmakefile", "makefile", "Makefile"):
        text = _read(root / name, root)
        if text is not None:
            targets: set[str] = set()
            for m in _MAKE_RULE.finditer(text):
                targets.update(t for t in m.group(1).split() if not t.startswith("."))
            return frozenset(targets)
    return frozenset()


def walk_files(root: Path) -> Iterator[tuple[str, str]]:
    """Files under ``root`` as (relative POSIX path, path), sorted, without tool, dependency
    and build folders (``SKIP_DIRS``); symlinked folders are not followed. Never raises."""
    return _walk(root)


def _walk(root: Path) -> Iterator[tuple[str, str]]:
    """Files under ``root`` as (relative POSIX path, path), folders and files in sorted order.
    Relative paths are built as strings: this runs at every Stop of an active goal."""
    top = os.fspath(root)
    try:
        for folder, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            rel_folder = os.path.relpath(folder, top).replace(os.sep, "/")
            prefix = "" if rel_folder == "." else rel_folder + "/"
            for name in sorted(files):
                yield prefix + name, os.path.join(folder, name)
    except OSError:
        return


def _exists(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _read(path: Path, root: Path) -> str | None:
    """The file's text, or None when it is missing, unreadable, not a regular file, too large
    or a symlink out of ``root`` (the agent can plant any of them). Undecodable bytes are
    replaced: a test file in Latin-1 still counts its tests."""
    from goalkeeper.store.safe_read import UnsafeFile, read_capped

    try:
        return read_capped(path, MAX_FILE_BYTES, within=root).decode("utf-8", errors="replace")
    except UnsafeFile:
        return None


def _toml(text: str) -> Mapping[str, Any] | None:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return None


def _json(text: str | None) -> Mapping[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, Mapping) else {}
