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


def _prompt(project: Path, config: Config, text: str = "fix add() and make the tests pass") -> None:
    from goalkeeper.core.values import UserPrompt

    sup = Supervisor(project, config, host="test", capabilities=CLAUDE_CAPABILITIES)
    try:
        sup.handle([UserPrompt("s", text)])
    finally:
        sup.store.close()


def _calc(project: Path, body: str = "return a - b") -> None:
    (project / "calc.py").write_text(f"def add(a, b):\n    {body}\n", encoding="utf-8")


@pytest.mark.parametrize(
    "cheat",
    [
        ("tests/test_calc.py", "import calc\n\n\ndef test_add():\n    assert True\n"),
        ("conftest.py", "import calc\n\ncalc.add = lambda a, b: a + b\n"),
        ("tests/test_zz.py", "import calc\n\ncalc.add = lambda a, b: a + b\n"),
        ("iniconfig.py", "import os\n\nos._exit(0)  # shadows the module pytest imports\n"),
    ],
)
def test_a_test_gate_passing_only_with_changed_tests_is_refused(
    tmp_path: Path, cheat: tuple[str, str]
) -> None:
    """The tests are kept at the user's first prompt; the agent weakens them (`assert True`, a
    conftest or a new test module that patches the code under test) and claims the gate:
    goalkeeper's re-run passes in the agent's tree, but run again against the kept tests it
    fails, and the completion is refused naming the change. Fixing the code completes it."""
    _calc(tmp_path)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(
        "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n\n\n"
        "def test_other():\n    assert calc.add(0, 0) == 0\n",
        encoding="utf-8",
    )
    config = Config(evidence_commands=(PYTEST,))
    _prompt(tmp_path, config)
    call(tmp_path, config, {"action": "create", "subject": "add()", "metadata": {"gate": "test"}})
    path, content = cheat
    (tmp_path / path).write_text(content, encoding="utf-8")
    claim = complete([{"type": "cmd", "cmd": f"{PYTEST} -q", "exit": 0}])
    refused = call(tmp_path, config, claim)
    assert isinstance(refused, Block), refused
    assert "only with your changes to the tests" in refused.reason
    assert f"- {path}: " in refused.reason and "1 failed" in refused.reason
    if path == "tests/test_calc.py":  # the test put back
        (tmp_path / path).write_text(
            "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n", encoding="utf-8"
        )
    else:
        (tmp_path / path).unlink()
    _calc(tmp_path, "return a + b")
    assert isinstance(call(tmp_path, config, claim), Reply)


def test_the_user_accepts_a_corrected_test_for_the_sessions_test_gates(tmp_path: Path) -> None:
    """A test that was itself wrong: the gate is refused against the kept tests until the user
    runs `goalkeeper goal accept-tests` in their terminal (no goal needed), then it completes."""
    _calc(tmp_path, "return a + b")
    (tmp_path / "tests").mkdir()
    test_file = tmp_path / "tests" / "test_calc.py"
    test_file.write_text("import calc\n\n\ndef test_add():\n    assert calc.add(2, 2) == 5\n")
    config = Config(evidence_commands=(PYTEST,))
    _prompt(tmp_path, config)
    call(tmp_path, config, {"action": "create", "subject": "add()", "metadata": {"gate": "test"}})
    test_file.write_text("import calc\n\n\ndef test_add():\n    assert calc.add(2, 2) == 4\n")
    claim = complete([{"type": "cmd", "cmd": f"{PYTEST} -q", "exit": 0}])
    assert isinstance(call(tmp_path, config, claim), Block)
    names = ("CLAUDECODE", "PI_CODING_AGENT", "AI_AGENT", "CODEX_", "GEMINI_CLI", "GOALKEEPER_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(names)}
    accepted = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(tmp_path), "goal", "accept-tests", "--yes"],
        env={**env, "GOALKEEPER_SERVER": "off"}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "+    assert calc.add(2, 2) == 4" in accepted.stdout
    assert isinstance(call(tmp_path, config, claim), Reply)
