"""Checked evidence through the whole engine: a real project folder, a real git repository,
real re-runs. The engine gathers the facts outside its transaction and the todos guard judges."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import Block, Record, Reply, ToolCall
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "report.py").write_text("print('table')\n", encoding="utf-8")
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"],
        cwd=tmp_path,
        check=True,
    )
    return tmp_path


def call(project: Path, config: Config, tool_input: dict[str, Any]) -> Block | Reply:
    sup = Supervisor(project, config, host="test", capabilities=CLAUDE_CAPABILITIES)
    try:
        actions = sup.handle([ToolCall("s", "todo", tool_input)]).actions
    finally:
        sup.store.close()
    answer = next(a for a in actions if isinstance(a, Block | Reply))
    return answer


def complete(evidence: list[dict[str, Any]], task: int = 1) -> dict[str, Any]:
    return {
        "action": "update",
        "id": task,
        "status": "completed",
        "metadata": {"evidence": {"kind": "runnable", "evidence": evidence}},
    }


def handle(project: Path, config: Config, tool_input: dict[str, Any]) -> tuple[Any, ...]:
    sup = Supervisor(project, config, host="test", capabilities=CLAUDE_CAPABILITIES)
    try:
        return sup.handle([ToolCall("s", "todo", tool_input)]).actions
    finally:
        sup.store.close()


def edit_claim(path: str) -> dict[str, Any]:
    return {
        "action": "update",
        "id": 1,
        "status": "completed",
        "metadata": {
            "evidence": {
                "kind": "state",
                "evidence": [{"type": "file", "path": path, "op": "edit"}],
            }
        },
    }


def test_an_edit_claim_on_a_touched_file_is_refused(repo: Path) -> None:
    """A committed file only touched since the task was created is refused, saying its content
    is what it was; after a real edit the same claim is verified (audit D5)."""
    config = Config()
    call(repo, config, {"action": "create", "subject": "add --json"})
    later = time.time() + 5
    os.utime(repo / "report.py", (later, later))
    refused = call(repo, config, edit_claim("report.py"))
    assert isinstance(refused, Block)
    assert "report.py was edited, but it has not changed since task #1 was created" in (
        refused.reason
    )
    assert "its content is what it was then" in refused.reason
    (repo / "report.py").write_text("print('json')\n", encoding="utf-8")
    accepted = call(repo, config, edit_claim("report.py"))
    assert isinstance(accepted, Reply)
    assert accepted.data["task"]["metadata"]["verification"] == [  # type: ignore[index]
        {"file": "report.py", "status": "verified"}
    ]


def test_a_touched_untracked_file_and_a_file_outside_are_refused(repo: Path) -> None:
    """git cannot vouch for an untracked file, the snapshot does; a path out of the project is
    never verified."""
    (repo / "notes.md").write_text("draft\n", encoding="utf-8")
    outside = repo.parent / f"{repo.name}-elsewhere.py"
    outside.write_text("x\n", encoding="utf-8")
    config = Config()
    call(repo, config, {"action": "create", "subject": "write the notes"})
    later = time.time() + 5
    os.utime(repo / "notes.md", (later, later))
    os.utime(outside, (later, later))
    touched = call(repo, config, edit_claim("notes.md"))
    assert isinstance(touched, Block) and "its content is what it was then" in touched.reason
    elsewhere = call(repo, config, edit_claim(str(outside)))
    assert isinstance(elsewhere, Block) and "outside the project" in elsewhere.reason
    (repo / "new.py").write_text("print(1)\n", encoding="utf-8")
    written = call(repo, config, edit_claim("new.py"))
    assert isinstance(written, Reply), written


def test_without_git_the_snapshot_tells_a_touch_from_an_edit(tmp_path: Path) -> None:
    """In a project that is no git repository, the snapshot taken at creation decides."""
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    config = Config()
    call(tmp_path, config, {"action": "create", "subject": "edit a"})
    later = time.time() + 5
    os.utime(tmp_path / "a.py", (later, later))
    assert isinstance(call(tmp_path, config, edit_claim("a.py")), Block)
    (tmp_path / "a.py").write_text("x = 2\n", encoding="utf-8")
    assert isinstance(call(tmp_path, config, edit_claim("a.py")), Reply)


def pytest_project(repo: Path, passing: bool) -> None:
    (repo / "tests").mkdir(exist_ok=True)
    body = "def test_ok():\n    print('MARKER-7')\n    assert " + ("True" if passing else "False")
    (repo / "tests" / "test_x.py").write_text(body + "\n", encoding="utf-8")


PYTEST = f"{sys.executable} -m pytest"


def test_a_failing_test_claimed_as_passing_is_refused_with_the_real_tail(repo: Path) -> None:
    """A test-gated task claiming exit 0 for a run that fails is refused with the real output;
    once the tests really pass, the claim is verified with the tests that ran."""
    pytest_project(repo, passing=False)
    config = Config(evidence_commands=(PYTEST,))
    claim = complete([{"type": "cmd", "cmd": f"{PYTEST} -q", "exit": 0}])
    call(repo, config, {"action": "create", "subject": "tests pass", "metadata": {"gate": "test"}})
    refused = call(repo, config, claim)
    assert isinstance(refused, Block)
    assert "exited 0, but goalkeeper ran it in the project folder and it exited 1" in refused.reason
    assert "1 failed" in refused.reason
    pytest_project(repo, passing=True)
    actions = handle(repo, config, claim)
    accepted = next(a for a in actions if isinstance(a, Block | Reply))
    assert isinstance(accepted, Reply), accepted
    notes = accepted.data["task"]["metadata"]["verification"]  # type: ignore[index]
    assert notes == [{"cmd": f"{PYTEST} -q", "status": "verified", "exit": 0, "tests": 1}]
    (record,) = [a.data for a in actions if isinstance(a, Record) and a.kind == "todo_completed"]
    commands: Any = record["commands"]
    (run,) = commands
    assert run["argv"] == [sys.executable, "-m", "pytest", "-q"]
    assert run["tests"]["passed"] == 1 and run["seconds"] > 0


def test_an_approved_command_without_a_test_summary_does_not_meet_the_gate(repo: Path) -> None:
    """Exit 0 from an approved command that shows no test ran is refused (audit D2)."""
    (repo / "check.py").write_text("print('ok')\n", encoding="utf-8")
    config = Config(evidence_commands=(f"{sys.executable} check.py",))
    call(repo, config, {"action": "create", "subject": "tests pass", "metadata": {"gate": "test"}})
    claim = complete([{"type": "cmd", "cmd": f"{sys.executable} check.py", "exit": 0}])
    refused = call(repo, config, claim)
    assert isinstance(refused, Block)
    assert "its output has no test summary goalkeeper can read" in refused.reason


def test_a_command_outside_the_allow_list_is_never_run(repo: Path) -> None:
    """On a test-gated task the claim is refused, naming the approved commands, and the command
    provably did not run (audit D3)."""
    marker = repo / "ran.txt"
    command = f"{sys.executable} -c open('{marker}','w').write('x')"
    config = Config(evidence_commands=("pytest",))
    call(repo, config, {"action": "create", "subject": "tests pass", "metadata": {"gate": "test"}})
    refused = call(repo, config, complete([{"type": "cmd", "cmd": command, "exit": 0}]))
    assert isinstance(refused, Block)
    assert "Claim a run of an approved test command instead (`pytest`)" in refused.reason
    assert not marker.exists()


def test_an_ungated_claim_is_not_run_and_recorded_as_unverified(repo: Path) -> None:
    """Without a test gate nothing is re-run; the completion record says so."""
    marker = repo / "ran.txt"
    command = f"{sys.executable} -c open('{marker}','w').write('x')"
    config = Config(evidence_commands=(sys.executable,))
    call(repo, config, {"action": "create", "subject": "tidy"})
    actions = handle(repo, config, complete([{"type": "cmd", "cmd": command, "exit": 0}]))
    assert any(isinstance(a, Reply) for a in actions)
    assert not marker.exists()
    (record,) = [a.data for a in actions if isinstance(a, Record) and a.kind == "todo_completed"]
    assert [u["what"] for u in record["unverified"]] == ["cmd"]  # type: ignore[attr-defined]


def test_evidence_check_off_checks_nothing(repo: Path) -> None:
    """evidence_check = off keeps the seed's behaviour: the format is checked, not the facts."""
    config = Config(evidence_check="off", evidence_commands=(sys.executable,))
    (repo / "check.py").write_text("raise SystemExit(1)\n", encoding="utf-8")
    call(repo, config, {"action": "create", "subject": "t", "metadata": {"gate": "test"}})
    answer = call(
        repo, config, complete([{"type": "cmd", "cmd": f"{sys.executable} check.py", "exit": 0}])
    )
    assert isinstance(answer, Reply)
