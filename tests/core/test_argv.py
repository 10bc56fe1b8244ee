"""Which re-runs goalkeeper may make: approved commands plus test selection, never more."""

from __future__ import annotations

import posixpath
import shlex

import pytest

from goalkeeper.core.shell.argv import command_argv, decide_rerun, needs_shell, runner_of

PROJECT = "/work/proj"
APPROVED = (
    "pytest",
    "python -m pytest",
    "npm test",
    "npm run test",
    "make test",
    "cargo test",
    "go test",
)


def inside(path: str) -> bool:
    """The lexical test the engine's real check refines (it also resolves symlinks)."""
    full = posixpath.normpath(posixpath.join(PROJECT, path))
    return full == PROJECT or full.startswith(PROJECT + "/")


@pytest.mark.parametrize(
    "claimed",
    [
        "pytest",
        "pytest -q",
        "pytest -q tests/test_a.py",
        "pytest tests/test_a.py::test_add tests/test_b.py::test_x[1-2]",
        "python -m pytest -q -x --lf",
        "pytest -k 'add and not slow' -m unit -vv",
        "pytest -kadd --tb=short --maxfail 2 -rA",
        "pytest -- tests/",
        "npm test",
        "npm test -- src/a.test.js",
        "npm run test -- tests",
        "make test",
        "cargo test",
        "cargo test -p core --lib parse_ -- --exact --nocapture --test-threads=1",
        "cargo test --package=core --test integration",
        "go test ./...",
        "go test -v -run 'TestAdd|TestSub' -count=1 ./pkg/...",
    ],
)
def test_test_selection_is_allowed(claimed: str) -> None:
    """The approved command with arguments that only choose which tests run is re-run as is."""
    verdict = decide_rerun(claimed, APPROVED, inside)
    assert verdict.refusal is None, verdict
    assert verdict.argv == tuple(shlex.split(claimed))


@pytest.mark.parametrize(
    ("claimed", "refusal", "detail"),
    [
        ("pytest -p evil", "argument", "-p"),
        ("python -m pytest --co -q -p evil", "argument", "--co"),
        ("pytest -qp evil", "argument", "-qp"),
        ("pytest -c evil.ini", "argument", "-c"),
        ("pytest --rootdir=/", "argument", "--rootdir=/"),
        ("pytest -o addopts=-pevil", "argument", "-o"),
        ("pytest -q --junitxml=/tmp/outside.xml", "argument", "--junitxml=/tmp/outside.xml"),
        ("pytest @args.txt", "argument", "@args.txt"),
        ("pytest ../other/tests", "argument", "../other/tests"),
        ("pytest /etc", "argument", "/etc"),
        ("pytest --version", "argument", "--version"),
        ("pytest --collect-only", "argument", "--collect-only"),
        ("make test -f evil.mk", "argument", "-f"),
        ("make test '--eval=X:=${shell touch M}'", "argument", "--eval=X:=${shell touch M}"),
        ("make test --eval=X", "argument", "--eval=X"),
        ("make test CC=evil", "argument", "CC=evil"),
        ("npm test --script-shell=./sh.sh", "argument", "--script-shell=./sh.sh"),
        ("npm test -- --config evil.js", "argument", "--config"),
        ("cargo test --offline --config build.rustc=rc.sh", "argument", "--config"),
        ("cargo test -Zunstable-options", "argument", "-Zunstable-options"),
        ("cargo test --manifest-path /elsewhere/Cargo.toml", "argument", "--manifest-path"),
        ("cargo test -- --format=json", "argument", "--format=json"),
        ("go test -exec ./evil ./...", "argument", "-exec"),
        ("go test -toolexec=./evil ./...", "argument", "-toolexec=./evil"),
        ("go test example.com/other", "argument", "example.com/other"),
        ("pytest -q; touch M", "shell", ""),
        ("pytest -q $(touch M)", "shell", ""),
        ("npm test -- && touch M", "shell", ""),
        ("pytest `touch M`", "shell", ""),
        ("touch M", "not_approved", ""),
        ("sh -c 'touch M'", "not_approved", ""),
        ("npm install evil", "not_approved", ""),
        ("pytest 'unclosed", "unparsable", ""),
    ],
)
def test_anything_else_refuses_the_rerun(claimed: str, refusal: str, detail: str) -> None:
    """Plugins, config files, shells, reports written anywhere, other programs: refused."""
    verdict = decide_rerun(claimed, APPROVED, inside)
    assert verdict.argv is None
    assert verdict.refusal == refusal
    if detail:
        assert verdict.detail == detail


def test_a_program_goalkeeper_does_not_know_takes_no_extra_arguments() -> None:
    """An approved script runs exactly as approved; nothing may be appended."""
    approved = ("./ci/check.sh",)
    assert decide_rerun("./ci/check.sh", approved, inside).argv == ("./ci/check.sh",)
    assert decide_rerun("./ci/check.sh --evil", approved, inside).refusal == "argument"


def test_the_users_shell_text_runs_only_exactly_as_approved() -> None:
    """A user-approved `cd web && npm test` runs through a shell, but only word for word."""
    approved = ("cd web && npm test",)
    assert decide_rerun("cd web && npm test", approved, inside).argv == (
        "/bin/sh",
        "-c",
        "cd web && npm test",
    )
    assert decide_rerun("cd web && npm test; touch M", approved, inside).argv is None


def test_no_approved_command_means_no_rerun() -> None:
    verdict = decide_rerun("pytest", (), inside)
    assert verdict.argv is None and verdict.refusal == "not_approved"


@pytest.mark.parametrize(
    ("command", "shell"),
    [
        ("pytest -q", False),
        ("python -m pytest -q tests/", False),
        ("cd web && npm test", True),
        ("FOO=1 pytest", True),
        ("pytest -q; touch x", True),
        ("echo $HOME", True),
        ("pytest 'unclosed", True),
    ],
)
def test_needs_shell(command: str, shell: bool) -> None:
    """Only text a shell would read differently goes through /bin/sh -c."""
    assert needs_shell(command) is shell
    argv = command_argv(command)
    assert (argv[:2] == ("/bin/sh", "-c")) is shell


@pytest.mark.parametrize(
    ("words", "runner"),
    [
        (["pytest"], "pytest"),
        (["python3", "-m", "pytest"], "pytest"),
        (["uv", "run", "pytest"], "pytest"),
        ([".venv/bin/pytest"], "pytest"),
        (["npm", "test"], "npm"),
        (["yarn", "run", "test"], "npm"),
        (["npm", "run", "lint"], "exact"),
        (["make", "test"], "make"),
        (["cargo", "test"], "cargo"),
        (["go", "test"], "go"),
        (["./check.sh"], "exact"),
    ],
)
def test_runner_of(words: list[str], runner: str) -> None:
    assert runner_of(words) == runner
