"""A teammate's clone: ``goalkeeper install claude`` (the committed project files) made in one
folder, the project copied to another, and the real Claude Code CLI run there with a PATH of
its own. With goalkeeper on PATH the hooks and the MCP server work; without it the session runs
as if goalkeeper were not there, and nothing breaks or blocks.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from typing import Any

import pytest

from goalkeeper.store.db import state_path

from .harness import GOALKEEPER_TIMEOUT_S, Case, venv_bin_dir

pytestmark = pytest.mark.e2e

SYSTEM_PATH = "/usr/bin:/bin"
CONTEXT = "goalkeeper keeps this task on its plan"
REPLY = "Two plus two is four."
RULES: list[dict[str, Any]] = [
    {"name": "after-feedback", "when": {"contains": "Stop hook feedback"},
     "reply": [{"type": "text", "text": REPLY}]},
    {"name": "answer", "reply": [{"type": "text", "text": REPLY}]},
]  # fmt: skip


def clone(case: Case) -> None:
    """Install into ``origin/`` as a user would, then copy it to the case's project folder."""
    origin = case.root / "origin"
    origin.mkdir()
    subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(origin), "install", "claude"],
        cwd=origin,
        env=case.base_env(),
        capture_output=True,
        timeout=GOALKEEPER_TIMEOUT_S,
        check=True,
    )
    shutil.rmtree(case.proj)
    shutil.copytree(origin, case.proj)
    committed = (case.proj / ".claude" / "settings.json").read_text("utf-8")
    committed += (case.proj / ".mcp.json").read_text("utf-8")
    assert sys.executable not in committed and str(origin) not in committed


def tool_names(request: dict[str, Any]) -> list[str]:
    return [t.get("name", "") for t in request["body"].get("tools", [])]


TODO = "mcp__goalkeeper__todo"
EXPLAINED = "4. The todo 'answer the sum' stays open: the sum is answered, nothing blocks it."


def test_a_clone_with_goalkeeper_on_path_gets_the_hooks_and_the_todo_tool(case: Case) -> None:
    """The hooks answer (SessionStart's context reaches the model) and the MCP server started
    through the launcher serves ``mcp__goalkeeper__todo`` (a call returns a created task). The
    todo is left open, so the Stop sends the agent back once (⑦, also inside the quiet window
    after a run that worked); it explains and may stop."""
    clone(case)
    call = {"action": "create", "subject": "answer the sum"}
    rules: list[dict[str, Any]] = [
        {"name": "explain", "when": {"tail_contains": "do not wrap up yet"},
         "reply": [{"type": "text", "text": EXPLAINED}]},
        {"name": "done", "when": {"tail_contains": '"nextId": 2'},
         "reply": [{"type": "text", "text": REPLY}]},
        {"name": "todo", "reply": [{"type": "tool_use", "name": TODO, "input": call}]},
    ]  # fmt: skip
    env = {"PATH": f"{venv_bin_dir()}:{SYSTEM_PATH}", "GOALKEEPER_NO_PLAN": "silent"}
    run = case.run_claude(rules, prompt="What is 2+2?", extra_env=env)
    try:
        assert run.returncode == 0, run.describe()
        assert CONTEXT in json.dumps(run.requests[0]["body"]), "SessionStart's context is missing"
        assert run.rules == ["todo", "done", "explain"], run.describe()
        assert run.result.get("result") == EXPLAINED
    finally:
        case.stop_engine()


def test_a_clone_without_goalkeeper_runs_unbroken_and_says_so(case: Case) -> None:
    clone(case)
    run = case.run_claude(RULES, prompt="What is 2+2?", extra_env={"PATH": SYSTEM_PATH})
    assert run.returncode == 0, run.describe()
    assert run.result.get("result") == REPLY and run.result.get("is_error") is False
    assert run.rules == ["answer"]  # no Stop was blocked
    first = run.requests[0]
    assert CONTEXT not in json.dumps(first["body"])
    assert TODO not in json.dumps(run.requests[-1]["body"]["messages"])
    transcript = json.dumps(case.transcript(run))
    assert "goalkeeper is not installed" in transcript, "the one-line notice is not recorded"
    assert not state_path(case.proj).exists() and not (case.proj / ".goalkeeper").exists()
