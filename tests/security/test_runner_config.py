"""Issue 21 item 5: every configuration file the test runner itself reads is protected like a
test file (the lists come from the runners' sources), and a module in the project that shadows
one the runner imports is protected too, so it does not change what goalkeeper's verification
decides."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from goalkeeper.core.proof.protected import is_protected, is_test_config

RUNNER_CONFIG = [
    # pytest, _pytest/config/findpaths.py CONFIG_LOADERS (pytest 9)
    "pytest.toml",
    ".pytest.toml",
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "tox.ini",
    "setup.cfg",
    "sub/conftest.py",
    # mocha, lib/cli/config.js CONFIG_FILES
    ".mocharc.cjs",
    ".mocharc.js",
    ".mocharc.yaml",
    ".mocharc.yml",
    ".mocharc.jsonc",
    ".mocharc.json",
    # vitest, packages/vitest/src/constants.ts CONFIG_NAMES x CONFIG_EXTENSIONS, workspaces
    "vitest.config.mts",
    "vite.config.ts",
    "vite.config.cjs",
    "vitest.workspace.json",
    "vitest.projects.ts",
    # jest, packages/jest-config/src/constants.ts JEST_CONFIG_SEARCH_PLACES
    "jest.config.cts",
    "jest.config.yml",
    ".jestrc",
    ".jestrc.json",
    ".config/jestrc.ts",
    # ava, lib/load-config.js
    "ava.config.mjs",
    # others goalkeeper recognises as test runners
    "karma.conf.ts",
    "playwright.config.mts",
    "noxfile.py",
    "deno.json",
    ".taprc",
]


@pytest.mark.parametrize("path", RUNNER_CONFIG)
def test_each_file_the_runner_reads_is_protected(path: str) -> None:
    assert is_test_config(path) and is_protected(path)


@pytest.mark.parametrize("path", ["src/app.py", "README.md", "vite.md", "docs/pytest.txt"])
def test_other_files_are_not_test_configuration(path: str) -> None:
    assert not is_test_config(path)


@pytest.mark.parametrize("path", ["iniconfig.py", "pluggy/__init__.py", "py.py", "pygments/x.py"])
def test_a_root_module_that_shadows_what_pytest_imports_is_protected(path: str) -> None:
    """`python -m pytest` puts the project first on sys.path: an `iniconfig.py` at its root
    replaces the real one (tests/engine/test_checked_evidence.py shows the verdict unchanged
    end to end: the verify runs again against the kept tests, without it)."""
    assert is_test_config(path)


def test_control_the_shadow_works_where_the_project_comes_first(tmp_path: Path) -> None:
    """Unprotected, the shadow turns a failing run into exit 0: the protection is needed."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    assert False\n", "utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    honest = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, timeout=120)
    assert honest.returncode == 1
    (tmp_path / "iniconfig.py").write_text("import os\nos._exit(0)\n", "utf-8")
    shadowed = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, timeout=120)
    assert shadowed.returncode == 0


@pytest.mark.parametrize("path", ["calc.py", "app/__init__.py", "email/send.py", "logging.md"])
def test_the_projects_own_modules_are_not_test_configuration(path: str) -> None:
    assert not is_test_config(path)
