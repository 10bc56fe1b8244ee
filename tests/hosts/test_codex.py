"""The Codex CLI host: Codex 0.171.0's hook payloads (as captured in codex-offline-e2e.md §8)
in, Codex hook answers out; the rollout tail; concurrent hooks; the unbounded Stop loop."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.hosts.codex.hook import answer_hook, own_prompt
from goalkeeper.hosts.codex.patch import cd_folders, patch_targets, tool_calls
from goalkeeper.hosts.codex.transcript import read_tail

from ..hook_answers import assert_no_internal_error

SID = "01a231e7-09a5-79f0-abc7-557566b5049b"
TURN = "01a231e7-09d5-76f3-80fb-c000c7707f0b"
PLAN = """# Report --json
## Objective
Scripts read the report as JSON.
## Key Results
- [ ] KR1: report commands with --json 0 → 3, current 1
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "report.md").write_text(PLAN, encoding="utf-8")
    (tmp_path / "rollout.jsonl").touch()
    return tmp_path


def payload(project: Path, event: str, **fields: Any) -> bytes:
    data: dict[str, Any] = {
        "session_id": SID,
        "transcript_path": str(project / "rollout.jsonl"),
        "cwd": str(project),
        "hook_event_name": event,
        "model": "gpt-5.5",
        "permission_mode": "bypassPermissions",
    }
    if event != "SessionStart":
        data["turn_id"] = TURN
    data.update(fields)
    return json.dumps(data).encode()


def ask(project: Path, event: str, **fields: Any) -> dict[str, Any]:
    result, _ = answer_hook(payload(project, event, **fields), {}, str(project))
    assert_no_internal_error(result, project)
    return result


def bash(project: Path, command: str) -> dict[str, Any]:
    return ask(
        project,
        "PreToolUse",
        tool_name="Bash",
        tool_input={"command": command},
        tool_use_id="call_1",
    )


def patch(project: Path, text: str) -> dict[str, Any]:
    return ask(
        project,
        "PreToolUse",
        tool_name="apply_patch",
        tool_input={"command": text},
        tool_use_id="call_2",
    )


def denied(result: dict[str, Any]) -> str | None:
    out = result.get("hookSpecificOutput") or {}
    return out.get("permissionDecisionReason") if out.get("permissionDecision") == "deny" else None


def add_file(path: str, line: str = "x") -> str:
    return f"*** Begin Patch\n*** Add File: {path}\n+{line}\n*** End Patch\n"


def test_session_start_answers_with_additional_context(project: Path) -> None:
    """SessionStart's context reaches Codex as hookSpecificOutput.additionalContext."""
    result = ask(project, "SessionStart", source="startup")
    out = result["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    assert "Plan anchors (from plan/report.md):" in out["additionalContext"]


def test_an_early_complete_is_refused_and_the_model_is_told_why(project: Path) -> None:
    """Stop with "[PDCA] complete" and an unproven KR: decision block, the open KR named."""
    ask(project, "SessionStart", source="startup")
    result = ask(
        project,
        "Stop",
        stop_hook_active=False,
        last_assistant_message="All done.\n\n[PDCA] complete",
    )
    assert result["decision"] == "block"
    assert "KR1: report commands with --json 0 → 3, current 1" in result["reason"]


def test_patch_targets_are_every_file_the_patch_names() -> None:
    text = (
        "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: src/b.py\n@@\n-y\n+z\n"
        "*** Move to: src/c.py\n*** Delete File: d.md\n*** Update File: a.txt\n*** End Patch\n"
    )
    assert patch_targets(text) == ("a.txt", "src/b.py", "src/c.py", "d.md")
    calls = tool_calls("s", "apply_patch", {"command": text})
    assert [c.input["file_path"] for c in calls] == ["a.txt", "src/b.py", "src/c.py", "d.md"]
    assert [c.name for c in tool_calls("s", "apply_patch", {"command": "junk"})] == ["apply_patch"]


def test_the_question_gate_refuses_shell_and_patch_writes_in_discuss_mode(project: Path) -> None:
    """In normal mode's discuss phase a shell write and a patch into the project are refused;
    a patch of the run's own folder is not; reads go through."""
    ask(project, "SessionStart", source="startup")
    started = ask(project, "UserPromptSubmit", prompt="/mode normal add --json")
    context = started["hookSpecificOutput"]["additionalContext"]
    run_dir = next(w for w in context.split() if w.startswith(".agents/runs/")).rstrip("`.,:")
    assert denied(bash(project, "echo hi > src.py"))
    assert denied(patch(project, add_file("src/new.py")))
    assert denied(patch(project, add_file(f"{run_dir}/PLAN.md") + add_file("x.py")))
    assert denied(patch(project, "not a patch"))
    assert not denied(bash(project, "cat plan/report.md"))
    assert not denied(patch(project, add_file(f"{run_dir}/NOTES.md")))


def test_a_patch_or_shell_write_to_codex_config_is_refused(project: Path) -> None:
    """The agent may not rewrite the hooks or the trust that run goalkeeper."""
    ask(project, "SessionStart", source="startup")
    assert denied(patch(project, add_file(".codex/hooks.json", "{}")))
    assert denied(bash(project, "echo x > ~/.codex/config.toml"))
    assert not denied(patch(project, add_file("notes.txt")))


def test_codexs_own_goal_command_is_not_goalkeepers() -> None:
    """``/goal`` belongs to Codex (its goal tools); goalkeeper's is ``/gk-goal``."""
    from goalkeeper.core.goals.detect import detect_goal

    assert detect_goal(own_prompt("/goal ship the release")) is None
    ours = detect_goal(own_prompt("/gk-goal ship the release"))
    assert ours is not None and ours.source == "command"
    assert own_prompt("/goalie x") == "/goalie x"


ROLLOUT = [
    {"type": "response_item", "payload": {"type": "message", "role": "user", "content": []}},
    {
        "type": "response_item",
        "payload": {
            "type": "function_call",
            "name": "exec_command",
            "arguments": json.dumps({"cmd": "pytest -q"}),
            "call_id": "call_a",
        },
    },
    {
        "type": "response_item",
        "payload": {
            "type": "function_call_output",
            "call_id": "call_a",
            "output": "Chunk ID: 20d692\nWall time: 0.0 seconds\nProcess exited with code 0\n"
            "Original token count: 4\nOutput:\n3 passed\n",
        },
    },
    {
        "type": "response_item",
        "payload": {
            "type": "custom_tool_call",
            "name": "apply_patch",
            "input": add_file("notes/a.txt"),
            "call_id": "call_b",
        },
    },
    {
        "type": "response_item",
        "payload": {
            "type": "custom_tool_call_output",
            "call_id": "call_b",
            "output": "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n",
        },
    },
    {
        "type": "response_item",
        "payload": {
            "type": "function_call",
            "name": "exec_command",
            "arguments": json.dumps({"cmd": "rm -rf x"}),
            "call_id": "call_c",
        },
    },
    {
        "type": "response_item",
        "payload": {
            "type": "function_call_output",
            "call_id": "call_c",
            "output": "Command blocked by PreToolUse hook: no. Command: rm -rf x",
        },
    },
    {
        "type": "event_msg",
        "payload": {
            "type": "token_count",
            "info": {"last_token_usage": {"input_tokens": 1200}, "model_context_window": 258400},
        },
    },
    {
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Done.\n[PDCA] check"}],
        },
    },
]


def write_rollout(path: Path, lines: list[dict[str, Any]]) -> None:
    with path.open("a", encoding="utf-8") as f:
        for n, line in enumerate(lines):
            f.write(json.dumps({"timestamp": "t", "ordinal": n, **line}) + "\n")


def test_the_rollout_tail_gives_calls_outcomes_context_and_final_text(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    write_rollout(path, ROLLOUT)
    with path.open("a", encoding="utf-8") as f:
        f.write('{"type": "response_item", "payl')  # an unfinished line: left for next time
    tail = read_tail(str(path), 0, 1 << 20)
    assert tail is not None
    assert tail.tool_calls == 3
    assert [(r.kind, r.name, r.outcome) for r in tail.runs] == [
        ("shell", "Bash", "passed"),
        ("edit", "apply_patch", "passed"),
        ("shell", "Bash", "refused"),
    ]
    assert tail.runs[0].command == "pytest -q" and tail.runs[0].tail == "3 passed\n"
    assert tail.runs[1].path == "notes/a.txt"
    assert (tail.context_tokens, tail.context_window) == (1200, 258400)
    assert tail.final_text == "Done.\n[PDCA] check"
    assert tail.offset < path.stat().st_size
    again = read_tail(str(path), tail.offset, 1 << 20)
    assert again is not None and again.tool_calls == 0
    assert read_tail(str(tmp_path / "missing.jsonl"), 0, 1024) is None


def test_the_stop_reads_only_the_new_tail_of_the_rollout(project: Path) -> None:
    """Tool calls made before the session started are not this run's; a failing run is read."""
    rollout = project / "rollout.jsonl"
    write_rollout(rollout, ROLLOUT)
    ask(project, "SessionStart", source="startup")
    from goalkeeper.store.db import Store
    from goalkeeper.store.sessions import get_session

    row = get_session(Store(project).connection(), SID)
    assert row is not None and row.host_state["transcript_offset"] == rollout.stat().st_size
    write_rollout(rollout, ROLLOUT[1:3])
    ask(project, "Stop", last_assistant_message="working")
    row = get_session(Store(project).connection(), SID)
    assert row is not None and row.host_state["transcript_offset"] == rollout.stat().st_size


def test_concurrent_hooks_of_one_session_lose_no_update(project: Path) -> None:
    """Codex runs matching hooks at once (parallel tool calls): every event is counted."""
    ask(project, "SessionStart", source="startup")
    n = 12
    errors: list[BaseException] = []

    def fire(i: int) -> None:
        try:
            bash(project, f"cat file{i}.txt")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=fire, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    from goalkeeper.store.db import Store
    from goalkeeper.store.sessions import get_session

    row = get_session(Store(project).connection(), SID)
    assert row is not None and row.events == 1 + n


def test_goalkeepers_own_caps_end_an_endless_stop_block_streak(project: Path) -> None:
    """Codex has no loop limit on Stop blocks (431 requests in 25 s were seen): goalkeeper's
    stuck rule must end a streak of tool-less continuations on its own."""
    ask(project, "SessionStart", source="startup")
    env = {"GOALKEEPER_STUCK": "3"}
    blocks = 0
    for _ in range(50):
        raw = payload(
            project,
            "Stop",
            stop_hook_active=blocks > 0,
            last_assistant_message="Still thinking.\n[PDCA] do",
        )
        result, config = answer_hook(raw, env, str(project))
        if result.get("decision") != "block":
            break
        blocks += 1
    else:
        pytest.fail("goalkeeper blocked Codex's Stop 50 times in a row")
    assert config is not None and 0 < blocks <= config.idle_streak


def test_pre_tool_use_hands_the_session_to_goalkeepers_mcp_tools(project: Path) -> None:
    """Codex 0.171.0 names goalkeeper's MCP tool ``mcp__goalkeeper__todo`` in its hooks and
    takes ``updatedInput``: the call carries the session the MCP server cannot see."""
    result = ask(
        project,
        "PreToolUse",
        tool_name="mcp__goalkeeper__todo",
        tool_input={"action": "create", "subject": "x"},
        tool_use_id="call_3",
    )
    assert result == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"action": "create", "subject": "x", "session": SID},
        }
    }


def test_a_cold_codex_session_start_imports_only_what_it_uses(tmp_path: Path) -> None:
    """The first event is answered in the hook's own process: the Codex translator adds no
    eager import (the rollout reader is the Stop's, the config writer the installer's)."""
    import os
    import subprocess
    import sys

    from tests.hosts.test_cold_imports import _PROBE, NOT_ON_THE_FIRST_EVENT

    project = tmp_path / "project"
    (project / "plan").mkdir(parents=True)
    (project / "plan" / "task.md").write_text(PLAN, encoding="utf-8")
    raw = payload(project, "SessionStart", source="startup")
    env = {
        **os.environ,
        "GOALKEEPER_SERVER": "off",
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "HOME": str(tmp_path),
    }
    env.pop("CLAUDE_PROJECT_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.replace('["claude"]', '["codex"]')],
        input=raw,
        capture_output=True,
        cwd=project,
        env=env,
        timeout=60,
        check=True,
    )
    answer, modules = done.stdout.decode().rsplit("\n", 1)
    assert "Plan anchors" in json.loads(answer)["hookSpecificOutput"]["additionalContext"]
    loaded = set(modules.split())
    unwanted = (*NOT_ON_THE_FIRST_EVENT, "goalkeeper.hosts.codex.transcript")
    assert [m for m in unwanted if m in loaded] == []
    assert "goalkeeper.hosts.codex.config" not in loaded and "tomllib" not in loaded


def shell_patch(body: str, prefix: str = "") -> str:
    return f"{prefix}apply_patch <<'EOF'\n{body}EOF"


def test_a_shell_patch_is_judged_from_every_folder_its_cds_lead_to(project: Path) -> None:
    """``cd a && cd b && apply_patch`` writing ``../../.codex/hooks.json`` writes Codex's hooks:
    judged from the first ``cd`` alone, it was let through."""
    ask(project, "SessionStart", source="startup")
    (project / "a" / "b").mkdir(parents=True)
    two = shell_patch(add_file("../../.codex/hooks.json", "{}"), "cd a && cd b && ")
    assert denied(bash(project, two))
    semi = shell_patch(add_file("../.codex/config.toml", "x"), "cd a; pushd b; cd .. && ")
    assert denied(bash(project, semi))
    assert not denied(bash(project, shell_patch(add_file("notes.txt"), "cd a && cd b && ")))
    assert cd_folders("cd a && cd b && cd /tmp && cd c") == ("a", "b", "a/b", "/tmp", "c", "/tmp/c")


def test_a_patch_through_the_shell_tool_is_judged_as_its_writes(project: Path) -> None:
    """Codex 0.171.0 applies ``apply_patch <<'EOF' …`` run by its shell tool itself (the hook
    sees ``Bash``; the file was written, seen end to end): the writes are judged like a patch's,
    a ``cd`` in front included."""
    ask(project, "SessionStart", source="startup")
    planted = shell_patch(add_file("hooks.json", "{}"), "cd .codex && ")
    assert denied(bash(project, planted))  # the trust guard: .codex/hooks.json
    assert not denied(bash(project, shell_patch(add_file("notes.txt"))))
    ask(project, "UserPromptSubmit", prompt="/mode normal add --json")
    assert denied(bash(project, shell_patch(add_file("src/x.py"))))  # the question gate
    calls = tool_calls("s", "Bash", {"command": planted})
    assert [(c.name, c.input.get("file_path")) for c in calls] == [
        ("Bash", None),
        ("apply_patch", "hooks.json"),
        ("apply_patch", ".codex/hooks.json"),
    ]


def test_a_subagents_complete_claim_is_judged_on_its_own_rollout(project: Path) -> None:
    """Codex's SubagentStop (its input schema: agent id and type, the subagent's rollout,
    stop_hook_active): `[PDCA] complete` after a file changed since its last test run is
    blocked; with stop_hook_active it stops and the user is told; without a rollout it is not
    judged."""
    rollout = project / "agent-rollout.jsonl"
    write_rollout(rollout, ROLLOUT)
    fields: dict[str, Any] = {
        "agent_id": "agent-1",
        "agent_type": "default",
        "agent_transcript_path": str(rollout),
        "last_assistant_message": "[PDCA] complete",
        "stop_hook_active": False,
    }
    first = ask(project, "SubagentStop", **fields)
    assert first["decision"] == "block" and "[PDCA] complete" in first["reason"], first
    again = ask(project, "SubagentStop", **{**fields, "stop_hook_active": True})
    assert "decision" not in again and "unproven" in again["systemMessage"], again
    blind = ask(project, "SubagentStop", **{**fields, "agent_transcript_path": None})
    assert "decision" not in blind
