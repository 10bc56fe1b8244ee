"""GOAL.md is the agent's to edit, so nothing in it runs unless the user approved it: the
audit's goal vectors (reliability.md defect 1, seed001-004.md D1/D2), each asserting that no
marker file appears, and the approval that then lets it run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .. import user_terminal
from .conftest import run_hook, stop

GOAL_MD = Path(".agents") / "goal" / "GOAL.md"


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    names = ("CLAUDECODE", "PI_CODING_AGENT", "AI_AGENT", "CODEX_", "GEMINI_CLI", "GOALKEEPER_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(names)}
    env["GOALKEEPER_SERVER"] = "off"
    env.update(extra or {})
    return env


def goalkeeper(
    project: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``goalkeeper -C project ARGS`` as the user runs it in their own terminal (``env`` may
    mark it as an agent's shell)."""
    return user_terminal.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(project), *args],
        cwd=project,
        env=env or _env(),
        timeout=120,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()  # a project folder, for `goalkeeper -C`
    return tmp_path


def _edit(project: Path, old: str, new: str) -> None:
    path = project / GOAL_MD
    text = path.read_text("utf-8")
    assert old in text, text
    path.write_text(text.replace(old, new), "utf-8")


def _log(project: Path, line: str) -> None:
    path = project / GOAL_MD
    path.write_text(path.read_text("utf-8").rstrip("\n") + f"\n- {line}\n", "utf-8")


def test_a_goal_md_the_agent_writes_when_no_goal_was_set_runs_nothing(project: Path) -> None:
    """v_goal_fresh: `status: active`, `verify: [touch M]`, then a stop: M never appears."""
    path = project / GOAL_MD
    path.parent.mkdir(parents=True)
    path.write_text(
        "---\nid: g-1\nstatus: active\nverify:\n- touch M\n---\n"
        "## Objective\nship it\n\n## Acceptance Criteria\n- [x] done\n",
        "utf-8",
    )
    done = run_hook(project, stop(project))
    assert not (project / "M").exists()
    assert "nobody approved" in done.answer.get("systemMessage", "")
    assert done.answer.get("decision") != "block" or "touch M" not in done.answer.get("reason", "")


@pytest.mark.parametrize(
    ("old", "new", "log"),
    [
        ("- test -e ready", "- touch M", "changed the check because the old one was wrong"),
        ("- test -e ready", "- touch M", None),
        ("- test -e ready", "- test -e ready\n  - touch M", "added a check because CI needs it"),
        ("- test -e ready", "- true; touch M", "verify adjusted because of the CI setup"),
    ],
    ids=["edit-with-reason", "edit-no-reason", "extra-item", "shell-suffix"],
)
def test_a_verify_the_agent_edited_is_held_until_the_user_approves(
    project: Path, old: str, new: str, log: str | None
) -> None:
    """The user set `--verify 'test -e ready'` (not done yet); the agent edits it (with or
    without a "because" line): the next stop runs none of the edit (only the goal in force,
    which fails) and shows the user the change; `goalkeeper goal approve` in the user's
    terminal then makes it run."""
    verify = "test -e ready"
    assert goalkeeper(project, "goal", "set", "it works", "--verify", verify).returncode == 0
    _edit(project, old, new)
    if log:
        _log(project, log)
    held = run_hook(project, stop(project))
    assert not (project / "M").exists()
    message = held.answer.get("systemMessage", "")
    assert "+ verify: " in message and "touch M" in message and "goal approve" in message
    again = run_hook(project, stop(project))  # said once; still nothing runs
    assert not (project / "M").exists() and "touch M" not in again.answer.get("systemMessage", "")
    refused = goalkeeper(project, "goal", "verify")
    assert refused.returncode == 1 and not (project / "M").exists()
    approved = goalkeeper(project, "goal", "approve", "--yes")
    assert approved.returncode == 0, approved.stderr
    (project / "ready").write_text("", "utf-8")
    run_hook(project, stop(project))
    assert (project / "M").exists()  # the user approved it: now it is theirs


def test_a_reset_counter_or_status_does_not_lift_a_pause(project: Path) -> None:
    """After goalkeeper paused the goal (same failure twice), `status: active` and
    `attempts: 0` in GOAL.md do not make it run again: only `goalkeeper goal resume` does."""
    runs = project / "runs.txt"
    verify = f"{sys.executable} -c \"open('runs.txt','a').write('x');raise SystemExit(1)\""
    assert goalkeeper(project, "goal", "set", "it works", "--verify", verify).returncode == 0
    run_hook(project, stop(project))
    run_hook(project, stop(project))  # the same failure twice: paused
    assert runs.read_text() == "xx"
    _edit(project, "status: blocked", "status: active")
    _edit(project, "attempts: 1", "attempts: 0")
    run_hook(project, stop(project))
    assert runs.read_text() == "xx"
    assert goalkeeper(project, "goal", "resume").returncode == 0
    run_hook(project, stop(project))
    assert runs.read_text() == "xxx"


def test_a_goal_set_from_an_agent_shell_is_only_a_proposal(project: Path) -> None:
    """`goalkeeper goal set --verify 'touch M'` run by the agent writes GOAL.md, but nothing
    runs until the user approves it."""
    done = goalkeeper(
        project, "goal", "set", "x", "--verify", "touch M", env=_env({"CLAUDECODE": "1"})
    )
    assert done.returncode == 1 and "proposal" in done.stdout
    assert "goal set (Claude Code's shell): x" in done.stdout  # who proposed it, in words
    assert (project / GOAL_MD).exists()
    held = run_hook(project, stop(project))
    assert not (project / "M").exists()
    assert "nobody approved" in held.answer.get("systemMessage", "")


@pytest.mark.parametrize(
    "command",
    [["goal", "approve", "--yes"], ["goal", "resume"], ["goal", "set", "x", "--replace"]],
)
def test_approving_commands_refuse_an_agent_shell(project: Path, command: list[str]) -> None:
    """What grants an approval or more rounds is the user's."""
    done = goalkeeper(project, *command, env=_env({"PI_CODING_AGENT": "true"}))
    assert done.returncode == 2 and "your own terminal" in done.stderr


def test_clearing_the_goal_refuses_an_agent_shell(project: Path) -> None:
    """An agent cannot drop the goal it was given to escape it."""
    done = goalkeeper(project, "goal", "clear", env=_env({"CLAUDECODE": "1"}))
    assert done.returncode == 2 and "your own terminal" in done.stderr
