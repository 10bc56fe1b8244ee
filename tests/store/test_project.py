"""Reading the project: its own verify commands (seed 004 §4.5 step 2) and test fingerprints."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from goalkeeper.core.verify import fingerprint_test_file
from goalkeeper.store.project import (
    MAX_FILE_BYTES,
    fingerprint_tests,
    infer_verify_commands,
)


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _package(root: Path, **scripts: str) -> None:
    _write(root, "package.json", json.dumps({"name": "x", "scripts": scripts}))


ALL_KINDS = ("tests", "types", "lint", "build")

# ---------------------------------------------------------------------------------------------
# Python
# ---------------------------------------------------------------------------------------------


def test_pyproject_with_pytest_config(tmp_path: Path) -> None:
    """``[tool.pytest.ini_options]`` means the tests run with pytest."""
    _write(tmp_path, "pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-ra'\n")
    assert infer_verify_commands(tmp_path, ["tests"]) == ("python -m pytest -q",)


@pytest.mark.parametrize(
    ("rel", "text"),
    [
        ("pytest.ini", "[pytest]\n"),
        ("conftest.py", ""),
        ("tests/conftest.py", ""),
        ("setup.cfg", "[tool:pytest]\n"),
        ("tox.ini", "[pytest]\n"),
        (
            "pyproject.toml",
            '[project]\nname = "x"\n[project.optional-dependencies]\ntest = ["pytest"]\n',
        ),
    ],
)
def test_pytest_markers(tmp_path: Path, rel: str, text: str) -> None:
    """pytest.ini, a conftest.py, setup.cfg, tox.ini or a pytest dependency mean pytest."""
    _write(tmp_path, rel, text)
    assert infer_verify_commands(tmp_path, ["tests"]) == ("python -m pytest -q",)


def test_pyproject_without_pytest_infers_nothing(tmp_path: Path) -> None:
    """A pyproject.toml that never mentions pytest names no test command."""
    _write(tmp_path, "pyproject.toml", '[project]\nname = "x"\n')
    assert infer_verify_commands(tmp_path, ["tests"]) == ()


def test_python_types_and_lint(tmp_path: Path) -> None:
    """``[tool.mypy]`` gives mypy, ``[tool.ruff]`` gives ruff check."""
    _write(
        tmp_path, "pyproject.toml", "[tool.mypy]\nstrict = true\n[tool.ruff]\nline-length = 100\n"
    )
    assert infer_verify_commands(tmp_path, ["types", "lint"]) == ("mypy", "ruff check .")


def test_mypy_ini_and_ruff_toml(tmp_path: Path) -> None:
    """mypy.ini and ruff.toml configure the tools just as well."""
    _write(tmp_path, "mypy.ini", "[mypy]\n")
    _write(tmp_path, "ruff.toml", "line-length = 100\n")
    assert infer_verify_commands(tmp_path, ["types", "lint"]) == ("mypy", "ruff check .")


def test_uv_project_runs_tools_through_uv(tmp_path: Path) -> None:
    """In a uv project the tools live in its environment: ``uv run …``."""
    _write(tmp_path, "pyproject.toml", "[tool.pytest.ini_options]\n[tool.mypy]\n[tool.ruff]\n")
    _write(tmp_path, "uv.lock", "version = 1\n")
    assert infer_verify_commands(tmp_path, ["tests", "types", "lint"]) == (
        "uv run pytest -q",
        "uv run mypy",
        "uv run ruff check .",
    )


def test_unconfigured_tools_are_not_inferred(tmp_path: Path) -> None:
    """Without a mypy or ruff configuration, types and lint stay empty."""
    _write(tmp_path, "pyproject.toml", "[tool.pytest.ini_options]\n")
    assert infer_verify_commands(tmp_path, ["types", "lint", "build"]) == ()


def test_malformed_pyproject_is_absent(tmp_path: Path) -> None:
    """A pyproject.toml that does not parse configures no tool."""
    _write(tmp_path, "pyproject.toml", "[tool.mypy\nstrict = ")
    assert infer_verify_commands(tmp_path, ["types"]) == ()


# ---------------------------------------------------------------------------------------------
# Node
# ---------------------------------------------------------------------------------------------


def test_package_test_script(tmp_path: Path) -> None:
    """``scripts.test`` gives ``npm test``."""
    _package(tmp_path, test="vitest run")
    assert infer_verify_commands(tmp_path, ["tests"]) == ("npm test",)


def test_package_check_script(tmp_path: Path) -> None:
    """Without a test script, ``scripts.check`` gives ``npm run check``."""
    _package(tmp_path, check="tsc && vitest run")
    assert infer_verify_commands(tmp_path, ["tests"]) == ("npm run check",)


def test_npm_init_placeholder_is_no_test_script(tmp_path: Path) -> None:
    """npm's "no test specified" placeholder is not a test command."""
    _package(tmp_path, test='echo "Error: no test specified" && exit 1')
    assert infer_verify_commands(tmp_path, ["tests"]) == ()


def test_package_lint_and_build(tmp_path: Path) -> None:
    """``scripts.lint`` and ``scripts.build`` give their npm commands."""
    _package(tmp_path, lint="eslint .", build="vite build")
    assert infer_verify_commands(tmp_path, ["lint", "build"]) == ("npm run lint", "npm run build")


def test_tsconfig_gives_tsc(tmp_path: Path) -> None:
    """A tsconfig.json without a typecheck script gives ``npx tsc --noEmit``."""
    _package(tmp_path)
    _write(tmp_path, "tsconfig.json", "{}")
    assert infer_verify_commands(tmp_path, ["types"]) == ("npx tsc --noEmit",)


def test_typecheck_script_wins_over_tsc(tmp_path: Path) -> None:
    """A ``typecheck`` script is the project's own way to check types."""
    _package(tmp_path, typecheck="tsc -p . --noEmit")
    _write(tmp_path, "tsconfig.json", "{}")
    assert infer_verify_commands(tmp_path, ["types"]) == ("npm run typecheck",)


@pytest.mark.parametrize(
    ("lockfile", "test", "lint"),
    [("pnpm-lock.yaml", "pnpm test", "pnpm run lint"), ("yarn.lock", "yarn test", "yarn run lint")],
)
def test_lockfile_picks_the_package_manager(
    tmp_path: Path, lockfile: str, test: str, lint: str
) -> None:
    """pnpm and yarn projects run their scripts with their own tool."""
    _package(tmp_path, test="jest", lint="eslint .")
    _write(tmp_path, lockfile, "")
    assert infer_verify_commands(tmp_path, ["tests", "lint"]) == (test, lint)


def test_malformed_package_json_is_no_scripts(tmp_path: Path) -> None:
    """A package.json that does not parse has no scripts."""
    _write(tmp_path, "package.json", "{ not json")
    assert infer_verify_commands(tmp_path, ALL_KINDS) == ()


def test_non_string_scripts_are_ignored(tmp_path: Path) -> None:
    """Scripts that are not strings are not commands."""
    _write(tmp_path, "package.json", json.dumps({"scripts": {"test": 1, "lint": ["x"]}}))
    assert infer_verify_commands(tmp_path, ["tests", "lint"]) == ()


# ---------------------------------------------------------------------------------------------
# Make, Rust, Go
# ---------------------------------------------------------------------------------------------


def test_makefile_test_target(tmp_path: Path) -> None:
    """A Makefile ``test:`` target is the project's whole test suite."""
    _write(tmp_path, "Makefile", ".PHONY: test\ntest: deps\n\tpytest -q\n")
    _write(tmp_path, "pytest.ini", "[pytest]\n")
    assert infer_verify_commands(tmp_path, ["tests"]) == ("make test",)


def test_makefile_variable_is_no_target(tmp_path: Path) -> None:
    """``test := …`` assigns a variable; it is not a target."""
    _write(tmp_path, "Makefile", "test := 1\nall:\n\techo\n")
    assert infer_verify_commands(tmp_path, ["tests"]) == ()


def test_makefile_build_targets(tmp_path: Path) -> None:
    """``build:`` gives ``make build``; ``all:`` alone gives ``make all``."""
    _write(tmp_path, "Makefile", "all: build\nbuild:\n\tcc x.c\n")
    assert infer_verify_commands(tmp_path, ["build"]) == ("make build",)
    _write(tmp_path, "Makefile", "all:\n\tcc x.c\n")
    assert infer_verify_commands(tmp_path, ["build"]) == ("make all",)


def test_cargo_project(tmp_path: Path) -> None:
    """Cargo.toml gives cargo test and cargo build."""
    _write(tmp_path, "Cargo.toml", '[package]\nname = "x"\n')
    assert infer_verify_commands(tmp_path, ["tests", "build"]) == ("cargo test", "cargo build")


def test_go_project(tmp_path: Path) -> None:
    """go.mod gives go test ./... and go build ./..."""
    _write(tmp_path, "go.mod", "module example.com/x\n")
    assert infer_verify_commands(tmp_path, ["tests", "build"]) == (
        "go test ./...",
        "go build ./...",
    )


# ---------------------------------------------------------------------------------------------
# Several ecosystems, kinds, failure
# ---------------------------------------------------------------------------------------------


def test_polyglot_project_lists_each_ecosystem(tmp_path: Path) -> None:
    """A Python backend with a Node frontend runs both test suites, Python first."""
    _write(tmp_path, "pyproject.toml", "[tool.pytest.ini_options]\n")
    _package(tmp_path, test="vitest run")
    assert infer_verify_commands(tmp_path, ["tests"]) == ("python -m pytest -q", "npm test")


def test_commands_follow_the_asked_kinds_without_duplicates(tmp_path: Path) -> None:
    """Commands come in the order of the kinds asked, each once; unknown kinds are ignored."""
    _package(tmp_path, test="jest", lint="eslint .", build="tsc")
    assert infer_verify_commands(tmp_path, ["lint", "coverage", "tests", "lint"]) == (
        "npm run lint",
        "npm test",
    )


def test_empty_project_infers_nothing(tmp_path: Path) -> None:
    """Nothing to go on: empty, and the caller asks the user."""
    assert infer_verify_commands(tmp_path, ALL_KINDS) == ()


def test_missing_project_infers_nothing(tmp_path: Path) -> None:
    """A folder that does not exist is not an error."""
    assert infer_verify_commands(tmp_path / "nope", ALL_KINDS) == ()


def test_config_file_that_is_a_folder_is_absent(tmp_path: Path) -> None:
    """A ``package.json`` folder is not a package.json."""
    (tmp_path / "package.json").mkdir()
    (tmp_path / "Cargo.toml").mkdir()
    assert infer_verify_commands(tmp_path, ALL_KINDS) == ()


# ---------------------------------------------------------------------------------------------
# Test fingerprints
# ---------------------------------------------------------------------------------------------

PY_TEST = "def test_a():\n    assert 1\n"


def test_fingerprints_by_relative_posix_path(tmp_path: Path) -> None:
    """Test files are keyed by their relative POSIX path; source files are left out."""
    _write(tmp_path, "tests/core/test_a.py", PY_TEST)
    _write(tmp_path, "web/src/a.test.ts", 'it("x", () => expect(1).toBe(1));\n')
    _write(tmp_path, "src/app.py", "def test_not_a_test_file(): assert 1\n")
    prints = fingerprint_tests(tmp_path)
    assert sorted(prints) == ["tests/core/test_a.py", "web/src/a.test.ts"]
    assert prints["tests/core/test_a.py"] == fingerprint_test_file("tests/core/test_a.py", PY_TEST)


@pytest.mark.parametrize(
    "folder",
    [".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build", ".goalkeeper"],
)
def test_tool_folders_are_skipped(tmp_path: Path, folder: str) -> None:
    """Dependency, tool and build folders are never fingerprinted."""
    _write(tmp_path, f"{folder}/tests/test_a.py", PY_TEST)
    _write(tmp_path, f"pkg/{folder}/test_b.py", PY_TEST)
    assert fingerprint_tests(tmp_path) == {}


def test_limit_bounds_the_files(tmp_path: Path) -> None:
    """At most ``limit`` files are fingerprinted, the first in sorted order."""
    for i in range(5):
        _write(tmp_path, f"tests/test_{i}.py", PY_TEST)
    assert list(fingerprint_tests(tmp_path, limit=2)) == ["tests/test_0.py", "tests/test_1.py"]
    assert fingerprint_tests(tmp_path, limit=0) == {}


def test_large_files_are_skipped(tmp_path: Path) -> None:
    """A test file over the size bound is generated or vendored: skipped."""
    _write(tmp_path, "tests/test_big.py", "#" * (MAX_FILE_BYTES + 1))
    _write(tmp_path, "tests/test_small.py", PY_TEST)
    assert list(fingerprint_tests(tmp_path)) == ["tests/test_small.py"]


def test_custom_globs(tmp_path: Path) -> None:
    """Callers may name their own test globs."""
    _write(tmp_path, "spec/parse_spec.py", PY_TEST)
    _write(tmp_path, "tests/test_a.py", PY_TEST)
    assert list(fingerprint_tests(tmp_path, globs=["spec/*_spec.py"])) == ["spec/parse_spec.py"]


def test_undecodable_bytes_still_count(tmp_path: Path) -> None:
    """A test file with invalid UTF-8 is read with replacements, not skipped."""
    path = tmp_path / "tests" / "test_a.py"
    path.parent.mkdir()
    path.write_bytes(b"# caf\xe9\n" + PY_TEST.encode())
    assert fingerprint_tests(tmp_path)["tests/test_a.py"].tests == 1


def test_unreadable_file_is_skipped(tmp_path: Path) -> None:
    """A test file that cannot be read (here a dangling symlink) is skipped."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_gone.py").symlink_to(tmp_path / "missing.py")
    _write(tmp_path, "tests/test_a.py", PY_TEST)
    assert list(fingerprint_tests(tmp_path)) == ["tests/test_a.py"]


def test_missing_project_has_no_fingerprints(tmp_path: Path) -> None:
    """A folder that does not exist has no test files."""
    assert fingerprint_tests(tmp_path / "nope") == {}


def test_a_changed_test_file_is_fingerprinted_again(tmp_path: Path) -> None:
    """Fingerprints are kept between Stops by (mtime, size, inode); a change to any of them,
    even to an old file, is seen."""
    test = tmp_path / "tests" / "test_a.py"
    test.parent.mkdir()
    test.write_text("def test_a():\n    assert 1\n", encoding="utf-8")
    os.utime(test, ns=(1_600_000_000 * 10**9,) * 2)
    assert fingerprint_tests(tmp_path)["tests/test_a.py"].asserts == 1
    test.write_text("def test_a():\n    pass\n", encoding="utf-8")
    os.utime(test, ns=(1_600_000_001 * 10**9,) * 2)
    assert fingerprint_tests(tmp_path)["tests/test_a.py"].asserts == 0
