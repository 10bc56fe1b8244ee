"""`goalkeeper todo` from a shell: the same tree and gates as the MCP tool, with exit statuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.cli.app import run


def todo(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = run(["todo", *args, "--session", "s1", "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_create_update_and_list_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """create assigns ids, update changes state, list returns the whole tree; exit 0."""
    assert todo(capsys, "create", "ship the export")[0] == 0
    code, data = todo(capsys, "create", "write the tests", "--parent", "1", "--gate", "test")
    assert code == 0 and data["result"]["task"]["metadata"] == {"parentId": 1, "gate": ["test"]}
    code, data = todo(capsys, "update", "2", "--status", "in_progress")
    assert code == 0 and data["result"]["task"]["status"] == "in_progress"
    code, data = todo(capsys, "list")
    assert [(t["id"], t["status"]) for t in data["result"]["tasks"]] == [
        (1, "pending"),
        (2, "in_progress"),
    ]
    assert data["session"] == "s1" and data["ok"] is True


def test_refusals_exit_1_and_change_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A completion without evidence, a parent with an open child, an unknown parent: exit 1
    with the reason, and the tree unchanged."""
    todo(capsys, "create", "parent")
    todo(capsys, "create", "child", "--parent", "1")
    code, data = todo(capsys, "update", "2", "--status", "completed")
    assert code == 1 and "proof of completion missing" in data["refused"]
    code, data = todo(capsys, "update", "1", "--status", "completed", "--evidence", "pytest -q")
    assert code == 1 and "subtasks #2 child are unfinished" in data["refused"]
    code, data = todo(capsys, "create", "orphan", "--parent", "9")
    assert code == 1 and "task #9, which does not exist" in data["refused"]
    _, listed = todo(capsys, "list")
    assert [t["status"] for t in listed["result"]["tasks"]] == ["pending", "pending"]


def test_bare_command_evidence_completes_an_ungated_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--evidence takes JSON or a bare command (normalized to runnable evidence)."""
    todo(capsys, "create", "run the linter")
    code, data = todo(capsys, "update", "1", "--status", "completed", "--evidence", "ruff check .")
    assert code == 0
    assert data["result"]["task"]["metadata"]["evidence"] == {
        "kind": "runnable",
        "evidence": [{"type": "cmd", "cmd": "ruff check ."}],
    }


def test_list_draws_the_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without --json the tree is drawn with states, gates and dependencies."""
    for args in (
        ["create", "root"],
        ["create", "a", "--parent", "1", "--gate", "test"],
        ["create", "b", "--parent", "1", "--blocked-by", "2"],
    ):
        run(["todo", *args, "--session", "s1"])
    capsys.readouterr()
    assert run(["todo", "list", "--session", "s1"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "#1 [ ] root",
        '├─ #2 [ ] a  (gate: ["test"])',
        "└─ #3 [ ] b  (after #2)",
    ]


def test_raw_call_and_garbage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """todo call sends raw tool arguments; invalid JSON is a usage error (exit 2)."""
    code, data = todo(capsys, "call", '{"action": "create", "subject": "raw"}')
    assert code == 0 and data["result"]["task"]["subject"] == "raw"
    assert run(["todo", "call", "{nope"]) == 2
    assert "PAYLOAD is not valid JSON" in capsys.readouterr().err


def test_default_session_is_the_most_recent_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --session or the environment, the most recently active session is used."""
    run(["todo", "create", "in s1", "--session", "s1"])
    capsys.readouterr()
    assert run(["todo", "list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["session"] == "s1" and data["result"]["tasks"][0]["subject"] == "in s1"
