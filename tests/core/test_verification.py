"""Whether a command line is a verification (``core.verification``): the test runners it
recognises, the runners it does not (help, dry runs, prints), and the ways a command line hides
a runner's exit status or makes a runner's name run something else."""

from __future__ import annotations

import pytest

from goalkeeper.core.proof.verification import find_verification


@pytest.mark.parametrize(
    "command",
    [
        "pytest -q",
        "python -m pytest",
        "/home/me/p/.venv/bin/python3.12 -m pytest -q tests/test_ok.py",
        "python -m unittest discover",
        "uv run pytest -x",
        "uv run --with hypothesis pytest",
        "poetry run pytest",
        "npm test",
        "npm run test:unit",
        "pnpm test",
        "yarn test",
        "npx jest",
        "npx vitest run",
        "node --test",
        "cargo test",
        "cargo nextest run",
        "go test ./...",
        "make test",
        "make -C sub check",
        "tox -e py311",
        "nox -s tests",
        "timeout 600 pytest",
        "env CI=1 pytest",
        "PYTHONPATH=src pytest",
        "cd pkg && pytest -q",
        "(cd pkg && npm test)",
        "sh -c 'pytest -q'",
        "bash -lc 'cd x && pytest'",
        "pdm run test",
        "hatch run test:unit",
        "python test_api.py",
        "./run_tests.sh",
        "deno test",
        "bun test",
        "./gradlew test",
        "mvn -q test",
        "dotnet test",
        "bundle exec rspec",
        "python manage.py test",
        "pytest tests/a.py::t[1-2] -k 'a or b'",
    ],
)
def test_test_runners_are_verifications(command: str) -> None:
    """The usual test runners, through the usual wrappers, are verifications."""
    assert find_verification(command) is not None


@pytest.mark.parametrize(
    "command",
    [
        "echo '2 passed'",
        "echo pytest",
        "printf '3 passed in 0.1s\\n'",
        "cat test-output.txt",
        "grep -c passed log.txt",
        "true",
        "git status",
        "npm install",
        "make lint",
        "python -c 'print(\"2 passed\")'",
        "cat <<EOF\npytest\nEOF",
        "echo ';' pytest",
        "true || pytest",
        "exit 0; pytest",
        "exec true; pytest",
        "pytest() { echo 2 passed; }; pytest",
        "alias pytest=true; pytest",
        "eval pytest",
        "hash -p /bin/true pytest; pytest",
        "PATH=/tmp/fake:$PATH pytest",
        "export PATH=/tmp/fake:$PATH; pytest",
        "PYTEST_ADDOPTS=--collect-only pytest",
        "command -v pytest",
        "pytest --collect-only -q",
        "pytest --co",
        "pytest --version",
        "cargo test --no-run",
        "go test -list .",
        "make -n test",
        "tox -l",
        "pytest &",
        "x=$(pytest)",
    ],
)
def test_commands_that_verify_nothing_are_not_verifications(command: str) -> None:
    """Printing, reading, shadowing a runner's name, listing or dry runs, a runner that never
    runs: none is a verification (how a cheating agent would fake one)."""
    assert find_verification(command) is None


def test_an_exit_status_that_is_not_the_runners_is_masked() -> None:
    """`|| true`, a pipe, a later `;` or a sourced file before: it ran, its result is not known;
    `&&` after it, or a pipe with pipefail, keeps its exit status."""
    masked = ("pytest || true", "pytest | tail -5", "pytest; echo done", ". ./env && pytest")
    for command in (*masked, "if pytest; then echo ok; fi", "! pytest"):
        found = find_verification(command)
        assert found is not None and found[1] is True, command
    for command in ("pytest && echo ok", "set -o pipefail; pytest | tail", "cd x && pytest"):
        found = find_verification(command)
        assert found is not None and found[1] is False, command
