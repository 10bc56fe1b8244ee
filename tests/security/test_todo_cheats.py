"""Every cheat the seed 002 audit saw pass ("Cheats that pass", reference/audit/seed002.md) is
refused now, through the real `goalkeeper todo` CLI in a subprocess (the engine the MCP tool
uses) and through the MCP server's `run_call`, with the default settings (`evidence_check =
rerun`, the test commands inferred from `pytest.ini`). The honest paths still pass: a real fix
re-run by goalkeeper, a real edit. A stop with the cheat unresolved tells the user."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.core.values import Block, Reply
from goalkeeper.hosts.mcp.server import run_call
from tests.security.conftest import run_hook, stop

SESSION = "s1"
FAILING = "def test_fail():\n    assert 1 == 2\n"
PASSING = "def test_pass():\n    assert 1 == 1\n"


def _env() -> dict[str, str]:
    names = ("CLAUDECODE", "PI_CODING_AGENT", "AI_AGENT", "CODEX_", "GEMINI_CLI", "GOALKEEPER_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(names)}
    bin_dir = os.path.dirname(sys.executable)  # `python` and `pytest`: this virtualenv's
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env.update({"GOALKEEPER_SERVER": "off", "GOALKEEPER_SESSION": SESSION})
    return env


def todo(project: Path, *args: str) -> dict[str, Any]:
    """One `goalkeeper todo … --json` call as the agent's shell would run it."""
    done = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(project), "todo", *args, "--json"],
        cwd=project,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    data: dict[str, Any] = json.loads(done.stdout)
    assert done.returncode == (0 if data["ok"] else 1), done.stderr
    return data


def raw(project: Path, payload: dict[str, Any]) -> dict[str, Any]:
    return todo(project, "call", json.dumps(payload))


def complete(project: Path, task: int, *entries: dict[str, Any], kind: str = "") -> dict[str, Any]:
    evidence: dict[str, Any] = {"evidence": list(entries)}
    if kind:
        evidence["kind"] = kind
    return raw(
        project,
        {"action": "update", "id": task, "status": "completed", "metadata": {"evidence": evidence}},
    )


def cmd(command: str, code: int | None = 0) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "cmd", "cmd": command}
    if code is not None:
        entry["exit"] = code
    return entry


def edit(path: str) -> dict[str, Any]:
    return {"type": "file", "path": path, "op": "edit"}


def git(project: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=project,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The audit's scratch repository: pytest declared, a failing, a passing and an empty test
    file, and committed sources with old modification times."""
    root = tmp_path / "p"
    (root / "tests").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / "tests" / "test_fail.py").write_text(FAILING, encoding="utf-8")
    (root / "tests" / "test_pass.py").write_text(PASSING, encoding="utf-8")
    (root / "tests" / "test_x.py").write_text("X = 1\n", encoding="utf-8")
    (root / "src" / "a.py").write_text("A = 1\n", encoding="utf-8")
    (root / "src" / "b.py").write_text("B = 1\n", encoding="utf-8")
    (root / "run_tests.sh").write_text(f"#!/bin/sh\ntouch {root / 'RAN'}\n", encoding="utf-8")
    (root / "run_tests.sh").chmod(0o755)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    old = time.time() - 86_400
    for path in (root / "src" / "a.py", root / "src" / "b.py"):
        os.utime(path, (old, old))
    return root


def gated(project: Path, subject: str = "tests pass") -> int:
    created = todo(project, "create", subject, "--gate", "test")
    assert created["ok"], created
    return int(created["result"]["task"]["id"])


def touch(*paths: Path) -> None:
    later = time.time() + 5
    for path in paths:
        os.utime(path, (later, later))


# ---------------------------------------------------------------------------------------------
# The cheats
# ---------------------------------------------------------------------------------------------


def test_the_gate_cannot_be_dropped_before_completing(project: Path) -> None:
    """`update {metadata: {gate: null}}` is refused, and a completion without an exit is still
    held to the test gate (D4)."""
    task = gated(project)
    payload = {"action": "update", "id": task, "status": "in_progress", "metadata": {"gate": None}}
    dropped = raw(project, payload)
    assert not dropped["ok"]
    assert "a declared gate is a duty" in dropped["refused"]
    weakened = raw(project, {"action": "update", "id": task, "metadata": {"gate": {"test": False}}})
    assert not weakened["ok"]
    done = complete(project, task, cmd("python -m pytest -q tests/test_fail.py", None))
    assert not done["ok"] and "test hard gate" in done["refused"]
    listed = todo(project, "get", str(task))
    assert listed["result"]["task"]["metadata"]["gate"] == ["test"]


@pytest.mark.parametrize(
    "command",
    ["./run_tests.sh", "pytest -q tests/test_fail.py || true", "sh run_tests.sh"],
)
def test_a_command_goalkeeper_will_not_run_does_not_meet_a_test_gate(
    project: Path, command: str
) -> None:
    """Refused (not "accepted as unverified"), naming the commands goalkeeper would run, and the
    script never ran (D3)."""
    task = gated(project)
    done = complete(project, task, cmd(command))
    assert not done["ok"], done
    assert "needs a test run goalkeeper makes itself" in done["refused"]
    assert "`pytest`" in done["refused"] and "`python -m pytest`" in done["refused"]
    assert not (project / "RAN").exists()


@pytest.mark.parametrize(
    "command",
    [
        "pytest --version",
        "pytest --collect-only -q",
        "python -m pytest -q -k nonexistent",
        "python -m pytest -q tests/test_x.py",
    ],
)
def test_a_run_that_executes_no_test_does_not_meet_a_test_gate(project: Path, command: str) -> None:
    """`--version`, `--collect-only`, a selection of nothing, a file without tests (D2)."""
    task = gated(project)
    done = complete(project, task, cmd(command))
    assert not done["ok"], done


def test_effect_with_echo_ok_does_not_complete_a_gated_todo(project: Path) -> None:
    """`effect` with `{cmd: "echo ok", exit: 0}` is refused on a gated task (D3)."""
    task = gated(project)
    done = complete(project, task, cmd("echo ok"), kind="effect")
    assert not done["ok"]
    assert "cannot complete a gated todo" in done["refused"]


def test_a_failing_test_claimed_as_passing_is_refused(project: Path) -> None:
    """goalkeeper re-runs the claimed command and quotes what it really printed."""
    task = gated(project)
    done = complete(project, task, cmd("python -m pytest -q tests/test_fail.py"))
    assert not done["ok"]
    assert "it exited 1" in done["refused"] and "1 failed" in done["refused"]


def test_touch_is_not_an_edit(project: Path) -> None:
    """A committed file and an untracked one, only touched since the todo was created (D5)."""
    (project / "notes.md").write_text("draft\n", encoding="utf-8")
    todo(project, "create", "edit a")
    touch(project / "src" / "a.py", project / "notes.md")
    for path in ("src/a.py", "notes.md"):
        done = complete(project, 1, edit(path), kind="state")
        assert not done["ok"], done
        assert "its content is what it was then" in done["refused"]


def test_a_file_outside_the_project_is_never_verified(project: Path) -> None:
    """A freshly touched absolute path outside the project is refused (D5)."""
    outside = project.parent / "elsewhere.py"
    outside.write_text("x = 1\n", encoding="utf-8")
    todo(project, "create", "edit elsewhere")
    outside.write_text("x = 2\n", encoding="utf-8")
    done = complete(project, 1, edit(str(outside)), kind="state")
    assert not done["ok"]
    assert "outside the project" in done["refused"]


def test_the_mcp_tool_refuses_the_same_cheats(project: Path) -> None:
    """The MCP server's call path holds the gate and refuses `pytest --version`."""
    env = _env()
    created = run_call(
        project, {"action": "create", "subject": "t", "metadata": {"gate": "test"}}, env
    )
    assert any(isinstance(a, Reply) for a in created)
    dropped = run_call(project, {"action": "update", "id": 1, "metadata": {"gate": None}}, env)
    assert any(isinstance(a, Block) for a in dropped)
    evidence = {"evidence": [cmd("pytest --version")]}
    payload = {
        "action": "update",
        "id": 1,
        "status": "completed",
        "metadata": {"evidence": evidence},
    }
    refused = run_call(project, payload, env)
    assert any(isinstance(a, Block) for a in refused)


@pytest.mark.parametrize(
    "command",
    ["python -m pytest -q tests/test_pass.py", "python -m pytest -q -k test_pass"],
)
def test_a_selection_that_passes_does_not_meet_the_test_gate(project: Path, command: str) -> None:
    """The one test file that passes, or -k for it, while test_fail.py still fails: goalkeeper
    re-runs the selection, sees it pass, and still refuses: a test gate is the whole suite."""
    task = gated(project)
    refused = complete(project, task, cmd(command))
    assert not refused["ok"], refused
    assert "it passed, but it ran a selection of the tests" in refused["refused"], refused
    assert "claim `python -m pytest -q` without test paths" in refused["refused"], refused


# ---------------------------------------------------------------------------------------------
# The honest paths, and what the user hears at a stop
# ---------------------------------------------------------------------------------------------


def test_a_real_fix_re_run_by_goalkeeper_completes_the_gated_todo(project: Path) -> None:
    """Refused while the test fails; after the fix, goalkeeper's own re-run verifies it."""
    task = gated(project)
    claim = cmd("python -m pytest -q")
    assert not complete(project, task, claim)["ok"]
    (project / "tests" / "test_fail.py").write_text(PASSING.replace("pass", "fail"), "utf-8")
    done = complete(project, task, claim)
    assert done["ok"], done
    assert done["result"]["task"]["metadata"]["verification"] == [
        {
            "cmd": "python -m pytest -q",
            "status": "verified",
            "exit": 0,
            "tests": 2,  # the whole suite: test_fail.py and test_pass.py
        }
    ]


def test_a_real_edit_is_verified(project: Path) -> None:
    """An edited committed file and a new one are verified."""
    todo(project, "create", "edit b")
    (project / "src" / "b.py").write_text("B = 2\n", encoding="utf-8")
    (project / "src" / "c.py").write_text("C = 1\n", encoding="utf-8")
    done = complete(project, 1, edit("src/b.py"), edit("src/c.py"), kind="state")
    assert done["ok"], done
    assert done["result"]["task"]["metadata"]["verification"] == [
        {"file": "src/b.py", "status": "verified"},
        {"file": "src/c.py", "status": "verified"},
    ]


def test_a_stop_with_the_refusal_unfixed_tells_the_user(project: Path) -> None:
    """Claude Code's Stop hook carries the notice as its systemMessage."""
    task = gated(project)
    assert not complete(project, task, cmd("python -m pytest -q tests/test_fail.py"))["ok"]
    answer = run_hook(project, stop(project, SESSION, "all done")).answer
    assert "goalkeeper: not done — todo #1: its test run failed (exit 1)" in answer.get(
        "systemMessage", ""
    ), answer


def test_deleting_the_gated_todo_to_dodge_its_gate_is_told_to_the_user(project: Path) -> None:
    """Deleting is the seed's tombstone and stays allowed; an ungated stand-in completed with
    effect passes, but the stop tells the user the deleted todo's gate was never met."""
    task = gated(project)
    assert raw(project, {"action": "update", "id": task, "status": "deleted"})["ok"]
    todo(project, "create", "tests pass (again)")
    assert complete(project, 2, kind="effect")["ok"]
    answer = run_hook(project, stop(project, SESSION, "all done")).answer
    assert "todo #1 (deleted): its gate test was never met" in answer.get("systemMessage", "")
