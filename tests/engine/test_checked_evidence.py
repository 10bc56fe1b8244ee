"""Checked evidence through the whole engine: a real project folder, a real git repository,
real re-runs. The engine gathers the facts outside its transaction and the todos guard judges."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import Block, Reply, ToolCall
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


def test_an_edit_claim_on_an_unchanged_file_is_refused(repo: Path) -> None:
    """The file was last changed before the task and git shows no change: refused, saying so;
    after a real edit the same claim is accepted."""
    old = time.time() - 3600
    import os

    os.utime(repo / "report.py", (old, old))
    config = Config()
    call(repo, config, {"action": "create", "subject": "add --json"})
    claim = {
        "action": "update",
        "id": 1,
        "status": "completed",
        "metadata": {
            "evidence": {
                "kind": "state",
                "evidence": [{"type": "file", "path": "report.py", "op": "edit"}],
            }
        },
    }
    refused = call(repo, config, claim)
    assert isinstance(refused, Block)
    assert (
        "report.py was edited, but it has not changed since task #1 was created" in refused.reason
    )
    assert "git shows no change" in refused.reason
    (repo / "report.py").write_text("print('json')\n", encoding="utf-8")
    accepted = call(repo, config, claim)
    assert isinstance(accepted, Reply)
    assert accepted.data["task"]["metadata"]["verification"] == [
        {"file": "report.py", "status": "verified"}
    ]  # type: ignore[index]


def test_a_failing_test_claimed_as_passing_is_refused_with_the_real_tail(repo: Path) -> None:
    """A test-gated task claiming exit 0 for a command that exits 1 is refused with the real
    output; once the command really passes, the claim is accepted and marked verified."""
    check = repo / "check.py"
    check.write_text("print('MARKER-7 assertion failed'); raise SystemExit(1)\n", encoding="utf-8")
    config = Config(evidence_commands=(f"{sys.executable} check.py",))  # approved as it is
    call(repo, config, {"action": "create", "subject": "tests pass", "metadata": {"gate": "test"}})
    claim = complete([{"type": "cmd", "cmd": f"{sys.executable} check.py", "exit": 0}])
    refused = call(repo, config, claim)
    assert isinstance(refused, Block)
    assert "exited 0, but goalkeeper ran it in the project folder and it exited 1" in refused.reason
    assert "MARKER-7 assertion failed" in refused.reason
    check.write_text("print('ok')\n", encoding="utf-8")
    accepted = call(repo, config, claim)
    assert isinstance(accepted, Reply)
    notes = accepted.data["task"]["metadata"]["verification"]  # type: ignore[index]
    assert notes == [{"cmd": f"{sys.executable} check.py", "status": "verified", "exit": 0}]


def test_a_command_outside_the_allow_list_is_never_run(repo: Path) -> None:
    """The claim is accepted as a claim, marked unverified, and the command provably did not run."""
    marker = repo / "ran.txt"
    command = f"{sys.executable} -c open('{marker}','w').write('x')"
    config = Config(evidence_commands=("pytest",))
    call(repo, config, {"action": "create", "subject": "tests pass", "metadata": {"gate": "test"}})
    accepted = call(repo, config, complete([{"type": "cmd", "cmd": command, "exit": 0}]))
    assert isinstance(accepted, Reply)
    assert not marker.exists()
    notes = accepted.data["task"]["metadata"]["verification"]  # type: ignore[index]
    assert notes[0]["status"] == "unverified"


def test_evidence_check_off_checks_nothing(repo: Path) -> None:
    """evidence_check = off keeps the seed's behaviour: the format is checked, not the facts."""
    config = Config(evidence_check="off", evidence_commands=(sys.executable,))
    (repo / "check.py").write_text("raise SystemExit(1)\n", encoding="utf-8")
    call(repo, config, {"action": "create", "subject": "t", "metadata": {"gate": "test"}})
    answer = call(
        repo, config, complete([{"type": "cmd", "cmd": f"{sys.executable} check.py", "exit": 0}])
    )
    assert isinstance(answer, Reply)
