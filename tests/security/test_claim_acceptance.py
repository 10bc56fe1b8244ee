"""Claims the user must accept (issue 22 item 2, seed 002): a todo completed as ``effect``
(a declaration goalkeeper cannot check) is not refused but left to the user. Through the real
`goalkeeper todo` CLI and the real Claude Code Stop hook: the stop names the claim once, the
report shows it awaiting acceptance, only the user's terminal can accept it (the agent's shell
is refused), and an honest evidence-backed todo is unchanged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import user_terminal
from tests.security.conftest import run_hook, stop
from tests.security.test_todo_cheats import (
    FAILING,
    PASSING,
    SESSION,
    _env,
    cmd,
    complete,
    gated,
    git,
    todo,
)

AWAITING = "awaiting your acceptance"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository with pytest declared, a failing and a passing test."""
    root = tmp_path / "p"
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / "tests" / "test_fail.py").write_text(FAILING, encoding="utf-8")
    (root / "tests" / "test_pass.py").write_text(PASSING, encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    return root


def _goalkeeper(project: Path, *args: str, agent: bool = False) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "goalkeeper", "-C", str(project), *args]
    if agent:  # the agent's shell: Claude Code marks it with CLAUDECODE=1
        env = {**_env(), "CLAUDECODE": "1"}
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    return user_terminal.run(argv, env=_env(), timeout=120)


def _report(project: Path) -> dict[str, Any]:
    done = _goalkeeper(project, "report", "--session", SESSION, "--format", "json")
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def _todo_in_report(project: Path, task: int) -> dict[str, Any]:
    found: dict[str, Any] = next(t for t in _report(project)["todos"] if t["id"] == task)
    return found


def _effect_done(project: Path, subject: str = "the login page works") -> int:
    created = todo(project, "create", subject)
    task = int(created["result"]["task"]["id"])
    assert complete(project, task, kind="effect")["ok"]  # not blocked (seed 002)
    return task


def test_an_effect_claim_is_told_once_at_the_stop(project: Path) -> None:
    task = _effect_done(project)
    first = run_hook(project, stop(project, SESSION, "all done")).answer
    message = first.get("systemMessage", "")
    assert AWAITING in message and f"#{task} the login page works" in message, first
    assert "goalkeeper todo accept" in message
    again = run_hook(project, stop(project, SESSION, "all done")).answer
    assert AWAITING not in again.get("systemMessage", ""), again  # once per claim


def test_the_report_marks_an_effect_claim_unverified_until_the_user_accepts(
    project: Path,
) -> None:
    task = _effect_done(project)
    before = _todo_in_report(project, task)
    assert before["evidence"] == "unverified" and before["acceptance"] == "awaiting"
    accepted = _goalkeeper(project, "todo", "accept", str(task), "--session", SESSION, "--json")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    data = json.loads(accepted.stdout)
    assert data["accepted"]["id"] == task and data["accepted"]["what"] == "effect"
    assert data["awaiting"] == []
    assert _todo_in_report(project, task)["acceptance"] == "accepted"
    markdown = _goalkeeper(project, "report", "--session", SESSION)
    assert "accepted by you" in markdown.stdout, markdown.stdout


def test_the_agents_shell_cannot_accept_a_claim(project: Path) -> None:
    """The agent has a shell as the same user: `todo accept` run there is refused (exit 2)
    and the claim still awaits the user."""
    task = _effect_done(project)
    done = _goalkeeper(project, "todo", "accept", str(task), "--session", SESSION, agent=True)
    assert done.returncode == 2 and "your own terminal" in done.stderr, done.stderr
    assert _todo_in_report(project, task)["acceptance"] == "awaiting"


def test_accepting_an_unknown_todo_is_a_clear_error(project: Path) -> None:
    done = _goalkeeper(project, "todo", "accept", "42", "--session", SESSION)
    assert done.returncode == 1
    assert "#42" in done.stderr and "awaits no acceptance" in done.stderr, done.stderr


def test_an_honest_test_backed_todo_awaits_no_acceptance(project: Path) -> None:
    """A gated todo completed on goalkeeper's own passing re-run: verified, nothing awaits the
    user, the stop says nothing about acceptance, and `todo accept` has nothing to accept."""
    task = gated(project)
    (project / "tests" / "test_fail.py").write_text(PASSING.replace("pass", "fail"), "utf-8")
    assert complete(project, task, cmd("python -m pytest -q"))["ok"]
    answer = run_hook(project, stop(project, SESSION, "all done")).answer
    assert AWAITING not in answer.get("systemMessage", ""), answer
    row = _todo_in_report(project, task)
    assert row["evidence"] == "verified" and row["acceptance"] is None
    done = _goalkeeper(project, "todo", "accept", str(task), "--session", SESSION)
    assert done.returncode == 1


def test_a_claim_completed_again_with_real_evidence_no_longer_awaits(project: Path) -> None:
    """Reopened and completed with a check goalkeeper can make: the claim is settled."""
    task = _effect_done(project, "tests pass")
    assert todo(project, "update", str(task), "--status", "in_progress")["ok"]
    (project / "tests" / "test_fail.py").write_text(PASSING.replace("pass", "fail"), "utf-8")
    assert complete(project, task, cmd("python -m pytest -q"), kind="runnable")["ok"]
    assert _todo_in_report(project, task)["acceptance"] is None
