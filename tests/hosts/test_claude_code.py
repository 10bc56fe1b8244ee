"""The Claude Code host: recorded hook payloads in, golden hook answers out.

Payloads in ``fixtures/`` follow the captures in ``claude-code-hooks.md``; ``TRANSCRIPT`` and
``PROJECT`` are replaced with paths in the test's project. Set ``GOALKEEPER_UPDATE_GOLDEN=1`` to
rewrite the ``*.answer.json`` files after an intended change, then review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.hosts.claude.hook import answer_hook, parse_input
from goalkeeper.hosts.command_hooks.fail_open import HostInputError
from goalkeeper.store.db import state_path

from ..hook_answers import assert_no_internal_error

FIXTURES = Path(__file__).parent / "fixtures"
UPDATE = os.environ.get("GOALKEEPER_UPDATE_GOLDEN") == "1"
PLAN = """# Report --json
## SWOT
S: the CLI has tests
W: no JSON output yet
O: click supports it
T: scripts parse the text
## Objective
Scripts read the report as JSON. Then more.
## Key Results
- [ ] KR1: report commands with --json 0 → 3, current 1
- [-] KR2: YAML output (cancelled: nobody asked)
## User Story Map
- Slice 1: minimal loop
  - [x] user runs report --json
  - [ ] output validates against the schema
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "report.md").write_text(PLAN, encoding="utf-8")
    (tmp_path / "transcript.jsonl").touch()  # Claude Code's, as it is when a session starts
    return tmp_path


def payload(name: str, project: Path, **changes: Any) -> bytes:
    data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    data.update({"cwd": str(project), "transcript_path": str(project / "transcript.jsonl")})
    data.update(changes)
    return json.dumps(data).encode()


def answer(raw: bytes, project: Path, **env: str) -> dict[str, Any]:
    result, _ = answer_hook(raw, {"CLAUDE_PROJECT_DIR": str(project), **env}, str(project))
    assert_no_internal_error(result, project)
    return result


def golden(name: str, value: dict[str, Any]) -> None:
    path = FIXTURES / name.replace(".json", ".answer.json")
    if UPDATE or not path.exists():
        path.write_text(json.dumps(value, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert value == json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "name",
    [
        "session_start.json",
        "session_start_compact.json",
        "user_prompt_submit.json",
        "stop_complete_early.json",
        "stop_do.json",
        "stop_failure.json",
        "session_end.json",
    ],
)
def test_recorded_payloads_give_the_golden_answers(name: str, project: Path) -> None:
    """Each recorded hook payload gets exactly the reviewed answer."""
    golden(name, answer(payload(name, project), project, CLAUDE_CODE_STOP_HOOK_BLOCK_CAP="50"))


def test_session_start_injects_static_guidance_then_anchors(project: Path) -> None:
    """SessionStart context starts with the unchanging guidance (cache-safe), then the anchors."""
    result = answer(
        payload("session_start.json", project), project, CLAUDE_CODE_STOP_HOOK_BLOCK_CAP="50"
    )
    context = result["hookSpecificOutput"]["additionalContext"]
    assert result["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert context.startswith("goalkeeper keeps this task on its plan until it is proven done.")
    assert "Plan anchors (from plan/report.md):" in context
    assert "systemMessage" not in result


def test_session_start_warns_when_claude_codes_block_cap_is_low(project: Path) -> None:
    """When Claude Code's cap would end a tool-less streak before goalkeeper's stuck rule does,
    the user is told once, at session start; with the defaults the two coincide."""
    result = answer(payload("session_start.json", project), project, GOALKEEPER_STUCK="5")
    warning = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=8 is below the 14 continuations"
    assert warning in result["systemMessage"]
    assert "systemMessage" not in answer(payload("session_start.json", project), project)


def test_early_complete_is_refused_with_every_gate(project: Path) -> None:
    """A Stop with [PDCA] complete and open work blocks the stop, naming every open gate."""
    result = answer(payload("stop_complete_early.json", project), project)
    assert result["decision"] == "block"
    reason = result["reason"]
    assert reason.startswith("Not closed yet: 3 gate(s) still open.")
    assert "KR1: report commands with --json 0 → 3, current 1" in reason
    assert "output validates against the schema" in reason
    assert "KR2" not in reason  # cancelled with a reason: closed


def test_stop_failure_records_a_pause_without_output(project: Path) -> None:
    """StopFailure output is ignored by Claude Code; the error is journaled as a pause."""
    assert answer(payload("stop_failure.json", project), project) == {}
    from goalkeeper.store import journal
    from goalkeeper.store.db import Store

    entries = journal.recent(Store(project).connection(), 10)
    decision = [e for e in entries if e.kind == "decision"][-1]
    assert decision.data["actions"][0]["kind"] == "Pause"
    assert "server_error" in decision.data["actions"][0]["text"]


def test_transcript_tail_feeds_the_tool_count(project: Path) -> None:
    """Tool calls since the previous stop come from the transcript's new tail."""
    transcript = project / "transcript.jsonl"
    transcript.write_text("", encoding="utf-8")
    answer(payload("session_start.json", project), project)
    with transcript.open("a", encoding="utf-8") as f:
        f.write(
            json.dumps(
                {
                    "type": "assistant",
                    "message": {
                        "id": "m1",
                        "content": [
                            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}
                        ],
                    },
                }
            )
            + "\n"
        )
    for text in ("[PDCA] do", "[PDCA] check"):
        answer(payload("stop_do.json", project, last_assistant_message=text), project)
    # the check round read no new tool_use, so the check has no evidence
    result = answer(payload("stop_complete_early.json", project), project)
    assert "the last [PDCA] check ran no tool" in result["reason"]


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"", "hook input was empty"),
        (b"   \n", "hook input was empty"),
        (b"{not json", "hook input is not valid JSON"),
        (b"[1, 2]", "hook input is not a JSON object"),
        (b'{"session_id": "s"}', "hook input has no 'hook_event_name'"),
        (b'{"hook_event_name": "Stop"}', "Stop hook input has no 'session_id'"),
        (b'{"hook_event_name": "Stop", "session_id": "\xff\xfe"}', "hook input is not valid UTF-8"),
    ],
)
def test_bad_input_gets_a_clear_message_and_never_blocks(
    raw: bytes, problem: str, project: Path
) -> None:
    """Malformed input: a systemMessage saying what was wrong, no decision, no exception."""
    result = answer(raw, project)
    assert set(result) == {"systemMessage"}
    assert problem in result["systemMessage"]
    assert "the agent was not blocked" in result["systemMessage"]


def test_a_project_folder_that_does_not_exist_is_bad_input(tmp_path: Path) -> None:
    """A payload whose cwd names no folder (and no CLAUDE_PROJECT_DIR): the user is told, the
    agent is not blocked, and nothing is created there (seed000 D4)."""
    missing = tmp_path / "no" / "such" / "dir"
    raw = json.dumps(
        {"hook_event_name": "Stop", "session_id": "x", "cwd": str(missing),
         "last_assistant_message": "hi"}
    ).encode()  # fmt: skip
    result, _ = answer_hook(raw, {}, str(tmp_path))
    assert set(result) == {"systemMessage"}
    assert "does not exist" in result["systemMessage"]
    assert "the agent was not blocked" in result["systemMessage"]
    assert not (tmp_path / "no").exists()


def test_unknown_and_unused_events(project: Path) -> None:
    """Claude Code events goalkeeper does not use are answered with {}; unknown ones are named."""
    assert answer(payload("session_end.json", project), project) == {}
    result = answer(b'{"hook_event_name": "Teleport", "session_id": "s"}', project)
    assert result == {"systemMessage": "goalkeeper: ignored the unknown hook event 'Teleport'."}


def test_parse_input_ignores_unknown_keys() -> None:
    """Hosts add fields; the parser keeps what it knows."""
    hook = parse_input(b'{"hook_event_name": "Stop", "session_id": "s", "brand_new": [1]}')
    assert hook.event == "Stop" and hook.session_id == "s"
    with pytest.raises(HostInputError):
        parse_input(b"x" * (16 * 1024 * 1024 + 1))


@pytest.mark.internal_error_expected
def test_damaged_state_database_fails_open(project: Path) -> None:
    """A corrupt state.db never blocks the agent, is named in the message, and is left as is."""
    db = state_path(project)
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not a database" * 100)
    raw = payload("stop_complete_early.json", project)
    result, _ = answer_hook(raw, {"CLAUDE_PROJECT_DIR": str(project)}, str(project))
    assert set(result) == {"systemMessage"}
    assert "the agent was not blocked" in result["systemMessage"]
    assert "state.db" in result["systemMessage"]
    assert db.read_bytes() == b"this is not a database" * 100


def pre_tool(project: Path, tool: str, tool_input: dict[str, Any]) -> bytes:
    return json.dumps(
        {
            "session_id": "sess-1",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": "toolu_1",
        }
    ).encode()


def test_pre_tool_use_hands_the_session_to_goalkeepers_todo_tool(project: Path) -> None:
    """The MCP todo call is let through with the session id written into its input."""
    raw = pre_tool(project, "mcp__goalkeeper__todo", {"action": "list"})
    assert answer(raw, project) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"action": "list", "session": "sess-1"},
        }
    }


def test_pre_tool_use_refuses_a_native_completion(project: Path) -> None:
    """TodoWrite or TaskUpdate marking something completed is denied with the way to
    goalkeeper's todo tool and the evidence format; other native updates pass."""
    todos = [{"content": "a", "status": "completed", "activeForm": "doing a"}]
    result = answer(pre_tool(project, "TodoWrite", {"todos": todos}), project)
    output = result["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert "mcp__goalkeeper__todo" in output["permissionDecisionReason"]
    assert "metadata.evidence" in output["permissionDecisionReason"]
    denied = answer(
        pre_tool(project, "TaskUpdate", {"taskId": "1", "status": "completed"}), project
    )
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    pending = [{"content": "a", "status": "in_progress", "activeForm": "doing a"}]
    assert answer(pre_tool(project, "TodoWrite", {"todos": pending}), project) == {}
    assert answer(pre_tool(project, "Bash", {"command": "ls"}), project) == {}


def test_native_refusal_is_off_when_todo_obligations_are_off(project: Path) -> None:
    """todos = off lets native completions through."""
    todos = [{"content": "a", "status": "completed", "activeForm": "doing a"}]
    assert (
        answer(pre_tool(project, "TodoWrite", {"todos": todos}), project, GOALKEEPER_TODOS="off")
        == {}
    )


def _append(transcript: Path, *entries: dict[str, Any]) -> None:
    with transcript.open("a", encoding="utf-8") as f:
        for entry in entries:
            f.write(json.dumps(entry) + "\n")


def _bash_round(transcript: Path, ident: str, command: str, output: str, failed: bool) -> None:
    """One Bash call and its result, as Claude Code 2.1.332 writes them."""
    call = {"type": "tool_use", "id": ident, "name": "Bash", "input": {"command": command}}
    block = {"tool_use_id": ident, "type": "tool_result", "content": output, "is_error": failed}
    _append(
        transcript,
        {"type": "assistant", "message": {"id": f"m{ident}", "content": [call]}},
        {"type": "user", "message": {"role": "user", "content": [block]}},
    )


def _pre_tool_use(project: Path, command: str) -> None:
    hook = payload(
        "stop_do.json",
        project,
        hook_event_name="PreToolUse",
        tool_name="Bash",
        tool_input={"command": command},
    )
    assert answer(hook, project) == {}


def test_a_check_is_read_from_the_bash_calls_in_the_transcript(project: Path) -> None:
    """The check round's Bash calls decide: `echo '2 passed'` is no verification (named in
    the answer); a pytest run that PreToolUse announced and the transcript shows finished is."""
    transcript = project / "transcript.jsonl"
    transcript.write_text("", encoding="utf-8")
    answer(payload("session_start.json", project), project)
    _pre_tool_use(project, "echo '2 passed'")
    _bash_round(transcript, "t1", "echo '2 passed'", "2 passed", False)
    result = answer(
        payload("stop_do.json", project, last_assistant_message="[PDCA] check"), project
    )
    assert "That [PDCA] check ran no verification: `echo '2 passed'`" in result["reason"]
    _pre_tool_use(project, "python -m pytest -q")
    _bash_round(transcript, "t2", "python -m pytest -q", "3 passed in 0.2s", False)
    result = answer(
        payload("stop_do.json", project, last_assistant_message="[PDCA] check"), project
    )
    assert result["reason"].startswith("Evidence in hand.")


def test_a_transcript_line_nobody_ran_is_not_a_check(project: Path) -> None:
    """A pytest call in the transcript that no PreToolUse announced (the agent wrote the lines
    itself) does not count once PreToolUse has announced Bash commands in this session."""
    transcript = project / "transcript.jsonl"
    transcript.write_text("", encoding="utf-8")
    answer(payload("session_start.json", project), project)
    _pre_tool_use(project, "printf '...' >> transcript.jsonl")
    _bash_round(transcript, "t9", "python -m pytest -q", "3 passed in 0.2s", False)
    result = answer(
        payload("stop_do.json", project, last_assistant_message="[PDCA] check"), project
    )
    assert "`python -m pytest -q` (goalkeeper never saw it start)" in result["reason"]


def test_a_missing_transcript_means_the_check_cannot_count(project: Path) -> None:
    """The transcript named in the Stop payload is gone (deleted, say): the check round does
    not count, and the model is told why; the user hears once that tool calls cannot be
    counted (seed000 D6)."""
    answer(payload("session_start.json", project), project)
    (project / "transcript.jsonl").unlink()
    result = answer(
        payload("stop_do.json", project, last_assistant_message="[PDCA] check"), project
    )
    assert result["reason"].startswith("goalkeeper could not read which commands")
    assert "cannot count the agent's tool calls" in result["systemMessage"]
    again = answer(payload("stop_do.json", project, last_assistant_message="[PDCA] do"), project)
    assert "cannot count" not in again.get("systemMessage", "")


def test_a_phase_line_in_an_earlier_text_block_counts(project: Path) -> None:
    """The final message as the transcript holds it, not only `last_assistant_message` (its
    last block): `[PDCA] check` in the first of two blocks is read (seed000 D5)."""
    transcript = project / "transcript.jsonl"
    _append(
        transcript,
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Tests pass.\n[PDCA] check"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Summary: 3 tests ran."}]}},
    )  # fmt: skip
    from goalkeeper.config import load_config
    from goalkeeper.hosts.claude.hook import HookInput, to_events

    hook = HookInput(
        "Stop",
        "s",
        str(project),
        transcript_path=str(transcript),
        last_assistant_message="Summary: 3 tests ran.",
    )
    (event,), _ = to_events(hook, {}, load_config(project, {}))
    assert event.last_text == "Tests pass.\n[PDCA] check\nSummary: 3 tests ran."
    stale = HookInput(
        "Stop", "s", str(project), transcript_path=str(transcript), last_assistant_message="new"
    )
    (event,), _ = to_events(stale, {}, load_config(project, {}))
    assert event.last_text == "new"  # the transcript lags behind: the hook's own word stands


def test_a_stop_with_background_work_running_is_not_a_settle(project: Path) -> None:
    """`background_tasks` in flight: the agent waits for them, so goalkeeper neither continues
    nor closes; with them done, the same Stop is decided as usual (seed000, true settle)."""
    running = [{"id": "b1", "type": "shell", "status": "running", "command": "sleep 60"}]
    waiting = answer(
        payload("stop_complete_early.json", project, background_tasks=running), project
    )
    assert set(waiting) == {"systemMessage"}  # no block, no close: the user hears why
    assert "1 background task(s) still running" in waiting["systemMessage"]
    done = [{"id": "b1", "type": "shell", "status": "completed"}]
    decided = answer(payload("stop_complete_early.json", project, background_tasks=done), project)
    assert decided["decision"] == "block"
    odd = answer(payload("stop_complete_early.json", project, background_tasks="x"), project)
    # A malformed field is ignored, not trusted: the Stop is decided, and the same refused
    # claim a second time pauses (issue 22 §7) instead of waiting on the "tasks".
    assert "background task" not in odd["systemMessage"]
    assert "refused 2 times" in odd["systemMessage"]


def test_a_goal_blocked_at_stop_failure_is_told_at_the_next_prompt(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code ignores StopFailure's output (seed001 audit D4): the retry notices and the
    block after exhausted retries reach the user (systemMessage) and the agent (context) at the
    next UserPromptSubmit, instead of nobody."""
    from goalkeeper.testing import FakeClock

    clock = FakeClock()
    env = {"CLAUDE_PROJECT_DIR": str(project)}

    def send(raw: bytes) -> dict[str, Any]:
        return answer_hook(raw, env, str(project), clock=clock)[0]

    from tests.hosts.claude_records import user_typed

    goal = "/gk-goal `true` exits 0"
    sid = "0f4c1d2e-0000-4000-8000-000000000001"
    record = user_typed(monkeypatch, project / "claude-home", sid, goal)
    env["CLAUDE_CONFIG_DIR"] = str(project / "claude-home")  # Claude Code's, in its hooks' env
    send(payload("user_prompt_submit.json", project, prompt=goal, transcript_path=record))
    assert send(payload("stop_failure.json", project)) == {}
    told = send(payload("user_prompt_submit.json", project, prompt="go on"))
    assert "retry 1 of 10" in told["systemMessage"]
    for _ in range(10):
        clock.advance(601.0)  # past every backoff: each error counts
        assert send(payload("stop_failure.json", project)) == {}
    after = send(payload("user_prompt_submit.json", project, prompt="what now?"))
    assert "after 10 failed retries" in after["systemMessage"]
    context = after["hookSpecificOutput"]["additionalContext"]
    assert "Goal paused" in context and "change the strategy" in context


def test_a_seed_format_config_warning_is_shown_once_prefixed(project: Path) -> None:
    """An invalid PI_TODONE_* variable warns in the seed's format at SessionStart, which names
    goalkeeper already: not 'goalkeeper config: [goalkeeper] …'."""
    said = answer(payload("session_start.json", project), project, PI_TODONE_STALL_THRESHOLD="x")
    lines = [line for line in said["systemMessage"].splitlines() if "PI_TODONE" in line]
    assert lines == [
        '[goalkeeper] environment variable PI_TODONE_STALL_THRESHOLD="x" is invalid; '
        "falling back to default 3"
    ], said["systemMessage"]


def test_under_the_plugin_the_model_hears_the_plugins_tool_names(project: Path) -> None:
    """Plugin hooks run with CLAUDE_PLUGIN_ROOT set, and the plugin's MCP tools are named
    mcp__plugin_goalkeeper_goalkeeper__…: the guidance names those, not a settings install's."""
    said = answer(payload("session_start.json", project), project, CLAUDE_PLUGIN_ROOT="/plugin")
    context = said["hookSpecificOutput"]["additionalContext"]
    assert "mcp__plugin_goalkeeper_goalkeeper__workflow" in context
    assert "mcp__plugin_goalkeeper_goalkeeper__todo" in context
    assert "mcp__goalkeeper__" not in context
    plain = answer(payload("session_start.json", project, session_id="other"), project)
    assert "mcp__goalkeeper__workflow" in plain["hookSpecificOutput"]["additionalContext"]


AGENT = "a5032331ef49a9e6b"


def subagent_stop(project: Path, **changes: Any) -> bytes:
    """A SubagentStop as Claude Code 2.1.197 sends it (reference §9.4)."""
    data: dict[str, Any] = {
        "session_id": "sess-1",
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
        "hook_event_name": "SubagentStop",
        "agent_id": AGENT,
        "agent_type": "general-purpose",
        "stop_hook_active": False,
        "agent_transcript_path": str(project / "agent.jsonl"),
        "last_assistant_message": "sub done",
        "background_tasks": [],
        "session_crons": [],
    }
    data.update(changes)
    return json.dumps(data).encode()


def test_a_subagents_refused_completion_blocks_its_stop_then_lets_it_go(project: Path) -> None:
    """A subagent's TodoWrite completion is denied; its SubagentStop is blocked with the
    reason; the same again, with stop_hook_active, stops it and tells the user."""
    (project / "agent.jsonl").write_text("", encoding="utf-8")
    todos = {"todos": [{"content": "x", "status": "completed", "activeForm": "x"}]}
    raw = json.loads(pre_tool(project, "TodoWrite", todos))
    raw.update(agent_id=AGENT, agent_type="general-purpose")
    assert (
        answer(json.dumps(raw).encode(), project)["hookSpecificOutput"]["permissionDecision"]
        == "deny"
    )
    first = answer(subagent_stop(project), project)
    assert first["decision"] == "block" and "TodoWrite" in first["reason"], first
    quiet = answer(subagent_stop(project), project)
    assert quiet == {}  # the native refusal is named once
    honest = answer(subagent_stop(project, agent_id="other", stop_hook_active=True), project)
    assert "decision" not in honest


def test_a_subagents_complete_claim_is_judged_on_its_own_transcript(project: Path) -> None:
    """`[PDCA] complete` with no verification in the subagent's transcript: blocked; asked
    again with stop_hook_active, it stops and the user reads why."""
    agent = project / "agent.jsonl"
    agent.write_text("", encoding="utf-8")
    _bash_round(agent, "t1", "echo '2 passed'", "2 passed", False)
    raw = subagent_stop(project, last_assistant_message="[PDCA] complete")
    first = answer(raw, project)
    assert first["decision"] == "block" and "[PDCA] complete" in first["reason"], first
    again = answer(subagent_stop(project, last_assistant_message="[PDCA] complete",
                                 stop_hook_active=True), project)  # fmt: skip
    assert "decision" not in again and "unproven" in again["systemMessage"], again
    _bash_round(agent, "t2", "python -m pytest -q", "3 passed in 0.2s", False)
    assert answer(raw, project) == {}


@pytest.mark.parametrize(
    "changes",
    [
        {"agent_id": 5, "stop_hook_active": "yes", "last_assistant_message": None},
        {"agent_transcript_path": 42, "agent_type": ["x"]},
        {"agent_transcript_path": "/no/such/agent.jsonl", "agent_id": None},
        {"last_assistant_message": {"text": "[PDCA] complete"}},
    ],
)
def test_a_malformed_subagent_stop_never_blocks_or_crashes(
    project: Path, changes: dict[str, Any]
) -> None:
    """Odd field types in a SubagentStop: no exception, no block."""
    assert "decision" not in answer(subagent_stop(project, **changes), project)


def test_goalkeepers_todo_tool_in_a_subagent_is_told_who_calls(project: Path) -> None:
    """The PreToolUse hook writes the calling subagent into the todo call (so its refusals
    count against it); the model's own "agent" argument is dropped."""
    raw = json.loads(pre_tool(project, "mcp__goalkeeper__todo", {"action": "list", "agent": "x"}))
    main = answer(json.dumps(raw).encode(), project)["hookSpecificOutput"]["updatedInput"]
    assert main == {"action": "list", "session": "sess-1"}
    raw["agent_id"] = AGENT
    sub = answer(json.dumps(raw).encode(), project)["hookSpecificOutput"]["updatedInput"]
    assert sub == {"action": "list", "session": "sess-1", "agent": AGENT}
