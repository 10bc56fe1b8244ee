"""Protected tests (issue 11): the test files and test configuration a goal was set against,
and how the work tree differs from them now.

When a goal is set, goalkeeper keeps the content of every test file and of the configuration
that decides what the tests do (pytest's table in ``pyproject.toml``, ``pytest.ini``, every
``conftest.py``, ``package.json``'s test scripts, the Makefile, jest/vitest configs …). At a
passing verify, a test the agent changed since then makes goalkeeper run the verify again in a
scratch copy of the work tree with the original tests restored over the agent's code
(SWE-bench's FAIL_TO_PASS idea, run live): the goal is proven only if it passes there too.
This module says which files are protected and what changed; it reads no files. Pure.
"""

from __future__ import annotations

import fnmatch
import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Literal

from msgspec import Struct

from goalkeeper.core.goals.verify import DEFAULT_TEST_GLOBS, is_test_path

PYTEST_CONFIG: tuple[str, ...] = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini")
PYTEST_CONFIG += ("pyproject.toml", "tox.ini", "setup.cfg")
"""What pytest reads its configuration from, in its order (``_pytest/config/findpaths.py``,
``CONFIG_LOADERS``, pytest 9)."""
MOCHA_CONFIG: tuple[str, ...] = (".mocharc.cjs", ".mocharc.js", ".mocharc.yaml", ".mocharc.yml")
MOCHA_CONFIG += (".mocharc.jsonc", ".mocharc.json")
"""mocha's ``CONFIG_FILES`` (``lib/cli/config.js``)."""
CONFIG_FILES = frozenset(
    {*PYTEST_CONFIG, *MOCHA_CONFIG, "package.json", "noxfile.py", "tox.toml", "conftest.py"}
    | {"Makefile", "makefile", "GNUmakefile", "deno.json", "deno.jsonc", ".taprc"}
    | {"pytest.py", "py.py", "unittest.py", "sitecustomize.py", "usercustomize.py"}
)
"""Configuration that decides what the test command does (its name anywhere in the tree), and
modules that replace the test runner or run at interpreter start-up: ``python -m pytest``
imports a ``pytest.py`` in the project folder before the real one."""
RUNNER_PACKAGES = frozenset({"pytest", "_pytest", "unittest", "pluggy"})
"""Packages by those names, anywhere in the tree, shadow the runner just the same."""
RUNNER_IMPORTS = frozenset(
    {"pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "pygments", "colorama"}
    | {"exceptiongroup", "tomli", "typing_extensions", "hypothesis", "_hypothesis_pytestplugin"}
)
"""What ``python -m pytest`` imports after start-up besides the standard library (measured
with ``-X importtime``, pytest 9 with hypothesis): ``python -m`` puts the project folder first
on ``sys.path``, so an ``iniconfig.py`` at the project's root replaces the real one and can end
the run with exit 0. Running with ``PYTHONSAFEPATH=1`` would stop that, but also the import of
the project's own modules that ``python -m pytest`` is chosen for, changing honest verdicts:
so a root module by one of these names is protected instead, and a new one sends a passing
verify through the kept tests (``replay``). A root module named like one of the standard
library's that pytest imports late (``inspect.py``) is not covered: honest projects have
packages named ``email`` or ``logging``, and the list depends on the plugins installed."""
CONFIG_PATTERNS = (
    "jest.config.*",  # jest-config's JEST_CONFIG_SEARCH_PLACES: jest.config.{js,ts,mjs,…}
    ".jestrc",
    ".jestrc.*",
    "jestrc",  # .config/jestrc*
    "jestrc.*",
    "vitest.config.*",  # vitest's CONFIG_NAMES × CONFIG_EXTENSIONS (constants.ts)
    "vite.config.*",
    "vitest.workspace.*",  # vitest's WORKSPACES_NAMES × extensions and .json
    "vitest.projects.*",
    "ava.config.*",  # ava's lib/load-config.js: ava.config.{js,cjs,mjs}
    "karma.conf.*",
    "playwright.config.*",
    "*.pth",
)
TEST_DATA_DIRS = frozenset(
    {"tests", "test", "__tests__", "testdata", "__snapshots__", "fixtures", "__fixtures__"}
    | {"golden", "goldens", "snapshots"}
)
"""Folders whose every file is test material, by the runners' conventions: pytest's and Jest's
test folders, Jest's ``__snapshots__`` (``jest -u`` rewrites them), Go's ``testdata/`` (the go
tool ignores it as a package), fixtures and golden files. A test that reads its expected values
from ``tests/data/cases.json`` is defeated by rewriting the JSON as surely as the test."""
TEST_DATA_PATTERNS = ("*.snap", "*.golden", "*.approved.*", "*.received.*")
"""Snapshot and golden files by name, wherever they are (Jest, insta, ApprovalTests)."""
PACKAGE_KEYS = ("jest", "vitest", "mocha", "ava", "c8", "nyc")
"""``package.json`` keys that configure a test runner, besides its scripts."""

ChangeKind = Literal["modified", "deleted", "added"]


class TestChange(Struct, frozen=True):
    """A protected file that is not what it was when the goal was set."""

    __test__ = False  # a value, not a pytest test class

    path: str
    kind: ChangeKind


def is_protected(path: str) -> bool:
    """Whether the project-relative POSIX ``path`` is a test file, test data or test
    configuration."""
    return is_test_config(path) or is_test_path(path, DEFAULT_TEST_GLOBS) or is_test_data(path)


def is_test_data(path: str) -> bool:
    """Whether ``path`` is test material that is not code (``TEST_DATA_DIRS``,
    ``TEST_DATA_PATTERNS``): expected values, snapshots, golden files, fixtures."""
    parts = path.split("/")
    if any(part in TEST_DATA_DIRS for part in parts[:-1]):
        return True
    return any(fnmatch.fnmatch(parts[-1], p) for p in TEST_DATA_PATTERNS)


def is_test_config(path: str) -> bool:
    """Whether ``path`` configures how tests run (``conftest.py``, ``pytest.ini`` …): a new one
    changes what the old tests do, unlike a new test file."""
    parts = path.split("/")
    name = parts[-1]
    if any(part in RUNNER_PACKAGES for part in parts[:-1]):
        return True
    if _shadows_an_import(parts):
        return True
    return name in CONFIG_FILES or any(fnmatch.fnmatch(name, p) for p in CONFIG_PATTERNS)


def _shadows_an_import(parts: list[str]) -> bool:
    """A module at the project's root (``iniconfig.py``, ``pluggy/__init__.py``) that ``python
    -m pytest`` would import instead of the one installed."""
    if len(parts) == 1:
        return parts[0].rsplit(".", 1)[0] in RUNNER_IMPORTS and parts[0].endswith((".py", ".pyc"))
    return parts[0] in RUNNER_IMPORTS and parts[-1].endswith((".py", ".pyc"))


def protected_digest(path: str, content: bytes) -> str:
    """The digest that decides whether a protected file changed: the whole content, except for
    files that mix test configuration with other things, where only the test part counts
    (a version bump in ``pyproject.toml`` or a new dependency in ``package.json`` is not a test
    change; a new ``addopts`` or ``scripts.test`` is)."""
    import hashlib

    name = path.rsplit("/", 1)[-1]
    part: bytes = content
    if name == "pyproject.toml":
        part = _pyproject_tests(content)
    elif name == "package.json":
        part = _package_tests(content)
    return hashlib.sha256(part).hexdigest()


def changed_tests(
    baseline: Mapping[str, str], current: Mapping[str, str]
) -> tuple[TestChange, ...]:
    """Protected files whose digest differs from the baseline, or that are gone, or that are
    new: new test configuration (a ``conftest.py`` that drops tests) and new test files alike,
    since a new test module can change what the old ones test (``calc.add = …`` at import).
    The replay runs the original tests without them; an honest agent's new tests do not make
    its fix pass there, nor fail."""
    out: list[TestChange] = []
    for path in sorted(baseline):
        now = current.get(path)
        if now is None:
            out.append(TestChange(path, "deleted"))
        elif now != baseline[path]:
            out.append(TestChange(path, "modified"))
    for path in sorted(current):
        if path not in baseline:
            out.append(TestChange(path, "added"))
    return tuple(out)


def session_key(session_id: str) -> str:
    """Where a session's tests are kept (``KeepTests``): at the user's first prompt, before the
    agent could change them; todo test gates and plan closes are held to them."""
    return f"session:{session_id}"


def named_test_files(commands: Sequence[str]) -> frozenset[str]:
    """Test files the approved verify ``commands`` name word for word (``pytest
    tests/test_new.py``, ``tests/test_new.py::test_x``): the user asked for those tests, so a
    new one is kept in the replay rather than left out with the agent's other new tests."""
    from goalkeeper.core.shell.argv import command_argv

    named: set[str] = set()
    for command in commands:
        words = command_argv(command)
        for before, word in itertools.pairwise(words):
            if before in _VALUE_OPTIONS:
                continue  # `-k test_new.py`, `--ignore tests/test_b.py`: not a selection
            path = word.split("::", 1)[0].removeprefix("./")
            if path and not path.startswith("-") and is_test_path(path, DEFAULT_TEST_GLOBS):
                named.add(path)
    return frozenset(named)


_VALUE_OPTIONS = frozenset({"-k", "-m", "-p", "-c", "-o", "--deselect", "--ignore", "--rootdir"})


def _pyproject_tests(content: bytes) -> bytes:
    import tomllib

    try:
        data = tomllib.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return content  # unreadable: the whole file counts
    tool = data.get("tool")
    table = tool.get("pytest") if isinstance(tool, dict) else None
    return json.dumps(table, sort_keys=True, default=str).encode()


def _package_tests(content: bytes) -> bytes:
    try:
        data = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return content
    if not isinstance(data, dict):
        return content
    # every script: `test` may call `npm run unit`, and what `unit` does is then the test
    part = {"scripts": data.get("scripts"), **{k: data.get(k) for k in PACKAGE_KEYS if k in data}}
    return json.dumps(part, sort_keys=True, default=str).encode()
