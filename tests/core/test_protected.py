"""Which files are a goal's protected tests, and what counts as a change of them."""

from __future__ import annotations

import pytest

from goalkeeper.core.proof.protected import (
    TestChange,
    changed_tests,
    is_protected,
    is_test_config,
    named_test_files,
    protected_digest,
)


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_calc.py",
        "tests/unit/helpers.py",
        "test_x.py",
        "pkg/calc_test.py",
        "web/src/a.test.ts",
        "conftest.py",
        "tests/conftest.py",
        "pytest.ini",
        "pyproject.toml",
        "package.json",
        "web/vitest.config.ts",
        "Makefile",
        "cmd/run_test.go",
        "tests/data/cases.json",
        "test/fixtures/page.html",
        "web/src/__snapshots__/a.test.ts.snap",
        "web/src/render.snap",
        "pkg/parse/testdata/input.txt",
        "lib/fixtures/user.yaml",
        "cli/golden/help.txt",
        "out.golden",
    ],
)
def test_test_files_and_test_configuration_are_protected(path: str) -> None:
    assert is_protected(path)


@pytest.mark.parametrize(
    "path",
    ["calc.py", "src/app.ts", "README.md", "docs/testing.md", "data/cases.json", "src/latest.py"],
)
def test_code_and_documents_are_not(path: str) -> None:
    assert not is_protected(path)


def test_only_the_test_part_of_mixed_files_counts() -> None:
    """A version bump or a new dependency is not a test change; addopts or a script is."""
    base = b'[project]\nversion = "1"\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    bumped = base.replace(b'"1"', b'"2"')
    deselect = base + b'addopts = "--deselect tests/t.py::test_a"\n'
    assert protected_digest("pyproject.toml", base) == protected_digest("pyproject.toml", bumped)
    assert protected_digest("pyproject.toml", base) != protected_digest("pyproject.toml", deselect)
    pkg = b'{"dependencies": {"a": "1"}, "scripts": {"test": "vitest"}}'
    more = b'{"dependencies": {"a": "1", "b": "2"}, "scripts": {"test": "vitest"}}'
    fake = b'{"dependencies": {"a": "1"}, "scripts": {"test": "true"}}'
    assert protected_digest("package.json", pkg) == protected_digest("package.json", more)
    assert protected_digest("package.json", pkg) != protected_digest("package.json", fake)
    assert protected_digest("package.json", b"not json") != protected_digest("package.json", pkg)


def test_changes_are_modified_deleted_and_new_files() -> None:
    """A new test file is a change like a new conftest.py: a module the agent adds can patch the
    code the old tests test (``calc.add = …`` at import), so the replay runs without it."""
    baseline = {"tests/test_a.py": "1", "tests/test_b.py": "2", "pytest.ini": "3"}
    current = {
        "tests/test_a.py": "1",
        "tests/test_b.py": "9",
        "tests/test_new.py": "4",
        "conftest.py": "5",
    }
    assert changed_tests(baseline, current) == (
        TestChange("pytest.ini", "deleted"),
        TestChange("tests/test_b.py", "modified"),
        TestChange("conftest.py", "added"),
        TestChange("tests/test_new.py", "added"),
    )
    assert changed_tests(baseline, baseline) == ()
    assert is_test_config("tests/conftest.py") and not is_test_config("tests/test_new.py")


def test_modules_that_replace_the_runner_are_test_configuration() -> None:
    """`python -m pytest` imports a project `pytest.py` before the real one; a `.pth` file or
    `sitecustomize.py` runs at interpreter start-up: each is protected like a conftest.py."""
    for path in ("pytest.py", "src/sitecustomize.py", "_pytest/main.py", "pytest/__init__.py"):
        assert is_test_config(path) and is_protected(path), path
    assert is_test_config("lib/evil.pth")
    assert not is_test_config("src/calc.py") and not is_test_config("src/pytest_helpers.py")


def test_the_verify_names_the_new_test_files_it_keeps() -> None:
    """`pytest tests/test_new.py` asks for that file: a new one is kept in the replay."""
    named = named_test_files(["pytest -q tests/test_new.py", "pytest ./tests/test_b.py::test_x"])
    assert named == {"tests/test_new.py", "tests/test_b.py"}
    unnamed = ["pytest -q", "make test", "pytest -k test_new.py --ignore tests/test_b.py"]
    assert named_test_files(unnamed) == set()
