"""Reading the project: its own verify commands (seed 004 §4.5 step 2) and test fingerprints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goalkeeper.store.project import (
    declared_test_commands,
    infer_verify_commands,
    project_tests,
    walk_files,
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


@pytest.mark.parametrize("rel", ["test_calc.py", "calc_test.py", "tests/test_api.py"])
def test_test_modules_alone_mean_pytest(tmp_path: Path, rel: str) -> None:
    """Test modules where pytest looks by default, with no configuration: pytest runs them."""
    _write(tmp_path, rel, "def test_x():\n    assert 1\n")
    assert infer_verify_commands(tmp_path, ["tests"]) == ("python -m pytest -q",)


def test_a_module_not_named_for_tests_is_no_test_suite(tmp_path: Path) -> None:
    _write(tmp_path, "calc.py", "def add(a, b):\n    return a + b\n")
    _write(tmp_path, "src/test_helpers/util.py", "")
    assert infer_verify_commands(tmp_path, ["tests"]) == ()


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
# The project's own files
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("folder", ["node_modules", ".venv", ".git", ".goalkeeper", "target"])
def test_walk_files_skips_tool_dependency_and_build_folders(tmp_path: Path, folder: str) -> None:
    (tmp_path / folder).mkdir()
    (tmp_path / folder / "test_x.py").write_text("x", "utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("a", "utf-8")
    assert [rel for rel, _ in walk_files(tmp_path)] == ["tests/test_a.py"]
    assert list(walk_files(tmp_path / "nope")) == []


# ---------------------------------------------------------------------------------------------
# Makefile targets per kind (audit seed001-004 D8)
# ---------------------------------------------------------------------------------------------


def test_makefile_lint_target_is_the_lint_command(tmp_path: Path) -> None:
    """ "The build succeeds and lint is clean" with targets test, lint and build: both kinds
    get their make target (the lint one was dropped)."""
    _write(
        tmp_path, "Makefile", "test:\n\tpytest\nlint:\n\truff check .\nbuild:\n\tpython -m build\n"
    )
    assert infer_verify_commands(tmp_path, ("lint", "build")) == ("make lint", "make build")


def test_makefile_typecheck_target_is_the_types_command(tmp_path: Path) -> None:
    """A ``typecheck`` target is the project's own type check, as ``test`` is its test run."""
    _write(tmp_path, "Makefile", "typecheck:\n\tmypy src\n")
    _write(tmp_path, "mypy.ini", "[mypy]\n")
    assert infer_verify_commands(tmp_path, ("types",)) == ("make typecheck",)


def test_npm_test_and_lint_script_are_both_kept(tmp_path: Path) -> None:
    """ "npm test passes and lint is clean": ``npm test`` is named, lint comes from the
    ``lint`` script."""
    _package(tmp_path, test="vitest run", lint="eslint .")
    assert infer_verify_commands(tmp_path, ("lint",)) == ("npm run lint",)


# ---------------------------------------------------------------------------------------------
# One answer to "what is this project's test command?"
# ---------------------------------------------------------------------------------------------


def _pyproject(root: Path) -> None:
    _write(root, "pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-q'\n")


def _npm(root: Path) -> None:
    _package(root, test="jest")


def _make(root: Path) -> None:
    _write(root, "Makefile", "test:\n\tpytest\n")
    _pyproject(root)


def _cargo(root: Path) -> None:
    _write(root, "Cargo.toml", "[package]\nname = 'x'\n")


def _go(root: Path) -> None:
    _write(root, "go.mod", "module x\n")


def _pnpm_check(root: Path) -> None:
    _package(root, check="tsc && vitest")
    _write(root, "pnpm-lock.yaml", "")


@pytest.mark.parametrize(
    ("setup", "command"),
    [
        (_pyproject, "python -m pytest -q"),
        (_npm, "npm test"),
        (_make, "make test"),
        (_cargo, "cargo test"),
        (_go, "go test ./..."),
        (_pnpm_check, "pnpm run check"),
    ],
)
def test_todo_evidence_and_goal_verify_get_the_same_test_command(
    tmp_path: Path, setup: object, command: str
) -> None:
    """The goal's "all tests pass" runs the command the todo evidence re-runs first, for every
    kind of project: both come from ``project_tests``."""
    assert callable(setup)
    setup(tmp_path)
    assert infer_verify_commands(tmp_path, ("tests",)) == (command,)
    assert declared_test_commands(tmp_path)[0] == command
    assert project_tests(tmp_path).verify == (command,)


def test_the_users_test_command_answers_for_both(tmp_path: Path) -> None:
    """The user's approved ``test-command`` is the answer for the goal and the evidence alike,
    whatever the project's files declare."""
    _npm(tmp_path)
    assert project_tests(tmp_path, "npm run test:ci").accepted == ("npm run test:ci",)
    assert infer_verify_commands(tmp_path, ("tests",), "npm run test:ci") == ("npm run test:ci",)
