"""``goalkeeper bridge pi`` as the Pi extension sees it: protocol lines in, the lines it writes
back out. A real engine and SQLite store in the test's project, a FakeClock, a FakeRunner, and
a timer factory that only records, so each test rings the settle timers by hand."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.core.todos.tree import TOOL_SCHEMA
from goalkeeper.engine.ports import Completed
from goalkeeper.hosts.pi.bridge import Bridge, serve
from goalkeeper.store import journal
from goalkeeper.store.db import state_path
from goalkeeper.testing import FakeClock, FakeRunner

from ..hook_answers import assert_no_internal_error

EXTENSION = Path(__file__).parents[2] / "src" / "goalkeeper" / "hosts" / "pi" / "extension.ts"
STATIC_HEAD = "goalkeeper keeps this task on its plan until it is proven done."
ANCHORS = "Plan anchors (from plan/report.md):"
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
## User Story Map
- Slice 1: minimal loop
  - [x] user runs report --json
  - [ ] output validates against the schema
"""
DONE_PLAN = PLAN.replace("- [ ]", "- [x]").replace("current 1", "current 3")

Message = dict[str, Any]


class Timers:
    """A timer factory that records each (delay, callback) instead of starting a thread."""

    def __init__(self) -> None:
        self.requested: list[tuple[float, Callable[[], None]]] = []

    def __call__(self, delay: float, fn: Callable[[], None]) -> None:
        self.requested.append((delay, fn))

    @property
    def delays(self) -> list[float]:
        return [delay for delay, _ in self.requested]

    def ring(self, index: int = -1) -> None:
        self.requested[index][1]()


def shell_ok(argv: Sequence[str]) -> Completed:
    """Verification commands pass; git says this is no repository."""
    if not any(word.endswith("git") for word in argv):
        return Completed(tuple(argv), 0, "1 passed in 0.01s")
    return Completed(tuple(argv), 1, "fatal: not a git repository")


class Pi:
    """The extension's side of the pipe: numbered requests in, written lines read back."""

    def __init__(
        self,
        project: Path,
        env: dict[str, str],
        runner: Callable[[Sequence[str]], Completed] = shell_ok,
    ) -> None:
        self.project = project
        self.written: list[bytes] = []
        self.disclosed: list[Message] = []
        self.timers = Timers()
        self.clock = FakeClock()
        self.runner = FakeRunner(runner)
        self.bridge = Bridge(
            project,
            env,
            self.written.append,
            timer=self.timers,
            clock=self.clock,
            runner=self.runner,
        )
        self.next_id = 0
        self.internal_error_expected = False
        """Set by the tests of the failure policy itself."""

    def raw(self, line: bytes) -> list[Message]:
        self.bridge.receive(line)
        return self.take()

    def take(self) -> list[Message]:
        """What the bridge wrote since the last look, each line parsed."""
        for data in self.written:
            assert data.endswith(b"\n") and data.count(b"\n") == 1 and data.isascii()
        out = [json.loads(data) for data in self.written]
        self.written.clear()
        if not self.internal_error_expected:  # failing open is not an answer
            assert_no_internal_error(out)
        self.disclosed += [m for m in out if m.get("action") == "tools"]
        return [m for m in out if m.get("action") != "tools"]  # checked on their own

    def send(self, kind: str, **fields: Any) -> list[Message]:
        self.next_id += 1
        message = {"v": 1, "kind": kind, "id": self.next_id, **fields}
        return self.raw(json.dumps(message).encode())

    def event(self, name: str, data: dict[str, Any] | None = None, **fields: Any) -> list[Message]:
        return self.send("event", name=name, event=data or {}, **fields)

    def result(self, lines: list[Message]) -> Any:
        """The result of the reply to the latest request (exactly one reply expected)."""
        replies = [m for m in lines if m["kind"] == "reply"]
        assert [m["id"] for m in replies] == [self.next_id], lines
        return replies[0]["result"]

    def journal_events(self) -> list[str]:
        entries = journal.recent(self.bridge.supervisor.store.connection(), 1000)
        return [e.data.get("type", "") for e in entries if e.kind == "event"]


def actions(lines: list[Message], name: str | None = None) -> list[Message]:
    return [m for m in lines if m["kind"] == "action" and name in (None, m["action"])]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {
        "HOME": str(tmp_path / "home"),
        "PI_CODING_AGENT_DIR": str(tmp_path / "pi-agent"),
        "GOALKEEPER_SERVER": "off",
        "GOALKEEPER_LANG": "en",
        "GOALKEEPER_NO_PLAN": "silent",
    }


@pytest.fixture
def pi(tmp_path: Path, env: dict[str, str]) -> Iterator[Pi]:
    client = Pi(tmp_path, env)
    yield client
    client.bridge.close()


def write_plan(project: Path, text: str = PLAN) -> None:
    (project / "plan").mkdir(exist_ok=True)
    (project / "plan" / "report.md").write_text(text, encoding="utf-8")


def start_run(pi: Pi) -> Any:
    """session_start, then before_agent_start: the result Pi applies to the run."""
    assert pi.result(pi.event("session_start", {"reason": "startup"})) is None
    return pi.result(pi.event("before_agent_start", {"prompt": "make report --json work"}))


# -- hello -----------------------------------------------------------------------------------


def test_hello_declares_the_tool_the_command_and_the_events(pi: Pi) -> None:
    """The hello reply holds everything the extension registers and how long to wait."""
    lines = pi.send("hello", pi={"version": "0.73.1"}, ctx={"cwd": str(pi.project)})
    assert len(lines) == 1
    decl = pi.result(lines)
    assert decl["protocol"] == 1 and decl["host"] == "pi"
    tool, *workflow_tools = decl["tools"]
    assert [t["name"] for t in workflow_tools] == ["workflow", "workflow_active", "workflow_ask"]
    assert tool["name"] == "todo"
    assert "session" not in tool["parameters"]["properties"]
    assert tool["parameters"]["required"] == ["action"]
    assert "session" in TOOL_SCHEMA["properties"]  # the shared schema is left as it was
    assert tool["timeoutMs"] > 0 and tool["description"] and tool["promptSnippet"]
    assert [c["name"] for c in decl["commands"]] == ["goal", "workflow", "mode"]
    assert {"agent_before_settle", "agent_end", "tool_call", "before_agent_start"} <= set(
        decl["forward"]
    )
    awaited = decl["awaited"]
    assert set(awaited) == {"tool_call", "before_agent_start", "agent_before_settle"}
    assert all(isinstance(ms, int) and ms > 0 for ms in awaited.values())
    # a settle may run the goal's verification: it waits longer than one evidence re-run
    assert awaited["agent_before_settle"] > tool["timeoutMs"] > awaited["tool_call"]
    assert decl["commandTimeoutMs"] > 0
    assert pi.bridge.pi_version == "0.73.1"


def test_hello_timeouts_follow_the_evidence_timeout(tmp_path: Path, env: dict[str, str]) -> None:
    """A longer evidence timeout lengthens the todo tool's and the settle's waits."""
    client = Pi(tmp_path, {**env, "GOALKEEPER_EVIDENCE_TIMEOUT_S": "600"})
    decl = client.result(client.send("hello", pi={}))
    client.bridge.close()
    assert decl["tools"][0]["timeoutMs"] == 660_000
    assert decl["awaited"]["agent_before_settle"] >= 4 * 600_000


def test_every_forwarded_event_is_one_the_extension_registers(pi: Pi) -> None:
    """The extension can only forward events it listens to: ``forward`` ⊆ its EVENTS list."""
    source = EXTENSION.read_text(encoding="utf-8")
    match = re.search(r"const EVENTS = \[(.*?)\];", source, re.DOTALL)
    assert match is not None
    registered = set(re.findall(r'"([a-z_]+)"', match.group(1)))
    decl = pi.result(pi.send("hello", pi={}))
    assert set(decl["forward"]) <= registered
    assert set(decl["awaited"]) <= set(decl["forward"])


# -- before_agent_start ----------------------------------------------------------------------


def test_first_run_gets_the_static_guidance_in_the_system_prompt(pi: Pi) -> None:
    """Without a plan the run gets goalkeeper's guidance appended to the system prompt only."""
    result = start_run(pi)
    assert result["appendSystemPrompt"].startswith(STATIC_HEAD)
    assert "[PDCA] complete" in result["appendSystemPrompt"]
    assert "message" not in result


def test_with_a_plan_the_run_also_gets_the_anchors(pi: Pi) -> None:
    """A plan file adds its anchors as the run's hidden message; the system prompt stays static."""
    write_plan(pi.project)
    result = start_run(pi)
    assert result["appendSystemPrompt"].startswith(STATIC_HEAD)
    assert ANCHORS not in result["appendSystemPrompt"]
    assert result["message"].startswith(ANCHORS)
    assert "Scripts read the report as JSON." in result["message"]
    assert "output validates against the schema" in result["message"]


def test_every_run_keeps_the_static_guidance(pi: Pi) -> None:
    """Pi resets its system prompt per prompt, so later runs get the same guidance again."""
    write_plan(pi.project)
    first = start_run(pi)
    second = pi.result(pi.event("before_agent_start", {"prompt": "next"}))
    assert second["appendSystemPrompt"] == first["appendSystemPrompt"]
    assert second["message"].startswith(ANCHORS)


def test_after_compaction_the_next_run_gets_the_anchors_again(pi: Pi) -> None:
    """session_compact makes the next run start like a fresh session (guidance and anchors)."""
    write_plan(pi.project)
    start_run(pi)
    pi.event("session_compact", {"reason": "threshold"})
    result = pi.result(pi.event("before_agent_start", {"prompt": "go on"}))
    assert result["appendSystemPrompt"].startswith(STATIC_HEAD)
    assert ANCHORS in result["message"]


def test_a_user_prompt_is_journaled_but_goalkeepers_own_message_is_not(pi: Pi) -> None:
    """``input`` from the user counts as the user's words; one sent by an extension does not."""
    pi.event("input", {"text": "make it work", "source": "interactive"}, wants_reply=False)
    pi.event("input", {"text": "Goal: …", "source": "extension"}, wants_reply=False)
    assert pi.journal_events() == ["UserPrompt"]


def test_fire_and_forget_events_get_no_reply(pi: Pi) -> None:
    """``wants_reply: false`` (the extension posts and does not wait): nothing is written."""
    assert pi.event("turn_end", {"turnIndex": 0}, wants_reply=False) == []
    assert pi.event("agent_start", wants_reply=False) == []


# -- Pi ≥ 0.80: agent_before_settle ----------------------------------------------------------


def settle(pi: Pi, text: str, **extra: Any) -> list[Message]:
    data = {"outcome": "completed", "canContinue": True, "lastText": text, **extra}
    return pi.event("agent_before_settle", data)


def test_a_reply_without_a_phase_continues_the_run(pi: Pi) -> None:
    """With a plan and no [PDCA] line, Pi is asked for one more turn, with the anchors."""
    write_plan(pi.project)
    start_run(pi)
    lines = settle(pi, "I changed the report command.")
    result = pi.result(lines)
    assert set(result) == {"continue"}
    assert "[PDCA]" in result["continue"] and ANCHORS in result["continue"]
    assert actions(lines, "continue") == []


def test_continue_is_an_action_when_pi_cannot_continue(pi: Pi) -> None:
    """``canContinue: false``: the reply is Pi's default and a follow-up continues instead."""
    write_plan(pi.project)
    start_run(pi)
    lines = settle(pi, "no phase here", canContinue=False)
    assert pi.result(lines) is None
    [follow_up] = actions(lines, "continue")
    assert ANCHORS in follow_up["text"]


def test_complete_with_every_gate_passing_closes(pi: Pi) -> None:
    """[PDCA] complete after a check, every KR and leaf ticked: no continue, the user is told."""
    write_plan(pi.project, DONE_PLAN)
    start_run(pi)
    pi.event(
        "tool_call", {"toolCallId": "t1", "toolName": "bash", "input": {"command": "pytest -q"}}
    )
    pi.event("tool_result", {"toolCallId": "t1", "isError": False, "content": "3 passed in 0.2s"})
    assert "continue" in pi.result(settle(pi, "Tests pass.\n[PDCA] check"))
    lines = settle(pi, "All done.\n[PDCA] complete")
    assert pi.result(lines) is None
    assert actions(lines, "continue") == []
    [note] = actions(lines, "notify")
    assert note["level"] == "info"
    assert "every gate passes" in note["text"]
    [entry] = actions(lines, "appendEntry")  # the session file records the close, not the model
    assert entry["customType"] == "goalkeeper" and "closed" in entry["data"]


def test_complete_with_open_gates_is_refused(pi: Pi) -> None:
    """An early [PDCA] complete continues the run, naming what is still open."""
    write_plan(pi.project)
    start_run(pi)
    result = pi.result(settle(pi, "[PDCA] complete"))
    assert result["continue"].startswith("Not closed yet:")
    assert "output validates against the schema" in result["continue"]


def test_an_aborted_settle_pauses(pi: Pi) -> None:
    """Pi says the run was aborted (agent_settled): the user is told, nothing continues."""
    write_plan(pi.project)
    start_run(pi)
    lines = pi.event("agent_settled", {"aborted": True})
    assert pi.result(lines) is None
    [note] = actions(lines)
    assert note["action"] == "notify" and note["level"] == "warning"
    assert "aborted" in note["text"]


def test_a_normal_agent_settled_does_nothing(pi: Pi) -> None:
    """agent_settled without abort only confirms what agent_before_settle decided."""
    write_plan(pi.project)
    start_run(pi)
    assert pi.event("agent_settled", {"aborted": False}) == [
        {"v": 1, "kind": "reply", "id": pi.next_id, "result": None}
    ]


def test_pis_own_settle_events_turn_the_timer_off(pi: Pi) -> None:
    """Once Pi has sent agent_before_settle, agent_end no longer asks for a settle timer."""
    write_plan(pi.project)
    start_run(pi)
    settle(pi, "[PDCA] do")
    pi.event("agent_start")
    pi.event("agent_end", {"stopReason": "stop", "lastText": "[PDCA] check"})
    assert pi.timers.requested == []


def test_on_a_settling_pi_an_aborted_run_is_paused_once(pi: Pi) -> None:
    """A Pi that settles itself (0.80.6 in hello): an aborted run gives one pause, not two."""
    pi.send("hello", pi={"version": "0.80.6"})
    write_plan(pi.project)
    start_run(pi)
    pi.event("agent_start")
    pi.event("agent_end", {"stopReason": "aborted", "lastText": ""})
    notes: list[Message] = []
    for _, ring in pi.timers.requested:
        ring()
    notes += actions(pi.take(), "notify")
    notes += actions(pi.event("agent_settled", {"aborted": True}), "notify")
    assert len(notes) == 1


# -- Pi 0.73: agent_end and the settle timer -------------------------------------------------


def test_agent_end_asks_for_a_quiet_window_then_continues(pi: Pi) -> None:
    """On 0.73.x the run settles 0.5 s after agent_end; then a follow-up continues it."""
    write_plan(pi.project)
    start_run(pi)
    pi.event("agent_start")
    lines = pi.event("agent_end", {"stopReason": "stop", "lastText": "Changed the command."})
    assert pi.result(lines) is None and actions(lines) == []
    assert pi.timers.delays == [0.5]
    pi.timers.ring()
    [follow_up] = actions(pi.take())
    assert follow_up["action"] == "continue"
    assert "[PDCA]" in follow_up["text"] and ANCHORS in follow_up["text"]


def test_without_a_plan_the_guide_continues_once(tmp_path: Path, env: dict[str, str]) -> None:
    """GOALKEEPER_NO_PLAN=guide: the first settle asks for a plan; the next one is silent."""
    client = Pi(tmp_path, {**env, "GOALKEEPER_NO_PLAN": "guide"})
    start_run(client)
    for expected in (1, 0):
        client.event("agent_start")
        client.event("agent_end", {"stopReason": "stop", "lastText": "answered"})
        client.timers.ring()
        follow_ups = actions(client.take(), "continue")
        assert len(follow_ups) == expected
    client.bridge.close()


def test_a_timer_that_rings_after_a_new_run_started_does_nothing(pi: Pi) -> None:
    """agent_start (a retry or another extension's follow-up) voids the settle: nothing sent."""
    write_plan(pi.project)
    start_run(pi)
    pi.event("agent_start")
    pi.event("agent_end", {"stopReason": "stop", "lastText": "first"})
    pi.event("agent_start")
    pi.timers.ring()
    assert pi.take() == []
    assert "Settled" not in pi.journal_events()


def test_trailing_events_do_not_void_the_settle(pi: Pi) -> None:
    """turn_end or a tool_call arriving after agent_end still lets the settle happen."""
    write_plan(pi.project)
    start_run(pi)
    pi.event("agent_start")
    pi.event("agent_end", {"stopReason": "stop", "lastText": "x"})
    pi.event("turn_end", {"turnIndex": 1}, wants_reply=False)
    pi.event("tool_call", {"toolName": "bash", "input": {"command": "ls"}})
    pi.timers.ring()
    assert len(actions(pi.take(), "continue")) == 1


def test_a_transient_error_waits_for_pis_retry_then_pauses(pi: Pi) -> None:
    """A 503 is settled only after Pi's back-off; if no retry came, goalkeeper pauses."""
    write_plan(pi.project)
    start_run(pi)
    pi.event("agent_start")
    pi.event(
        "agent_end",
        {"stopReason": "error", "errorMessage": "503 Service Unavailable", "lastText": ""},
    )
    assert pi.timers.delays == [2.5]
    pi.timers.ring()
    lines = pi.take()
    assert actions(lines, "continue") == []
    [note] = actions(lines, "notify")
    assert note["level"] == "warning" and "503 Service Unavailable" in note["text"]


def test_the_project_retry_settings_set_the_wait(pi: Pi, env: dict[str, str]) -> None:
    """Pi's ``.pi/settings.json`` retry base is what goalkeeper waits for."""
    (pi.project / ".pi").mkdir()
    (pi.project / ".pi" / "settings.json").write_text(
        json.dumps({"retry": {"baseDelayMs": 1000}}), encoding="utf-8"
    )
    client = Pi(pi.project, env)
    client.event("agent_start")
    client.event("agent_end", {"stopReason": "error", "errorMessage": "overloaded"})
    client.bridge.close()
    assert client.timers.delays == [1.5]


def test_compaction_delays_the_settle(pi: Pi) -> None:
    """A compaction after agent_end voids the timer; its end arms a fresh quiet window."""
    write_plan(pi.project)
    start_run(pi)
    pi.event("agent_start")
    pi.event("agent_end", {"stopReason": "stop", "lastText": "x"})
    pi.event("session_before_compact", {"reason": "threshold"})
    pi.timers.ring()
    assert pi.take() == []
    pi.event("session_compact", {"reason": "threshold"})
    assert pi.timers.delays == [0.5, 0.5]
    pi.timers.ring()
    assert len(actions(pi.take(), "continue")) == 1


def test_no_settle_after_the_session_shut_down(pi: Pi) -> None:
    """A timer ringing after session_shutdown sends nothing."""
    write_plan(pi.project)
    start_run(pi)
    pi.event("agent_start")
    pi.event("agent_end", {"stopReason": "stop", "lastText": "x"})
    pi.event("session_shutdown", {"reason": "quit"})
    assert pi.bridge.closed
    pi.timers.ring()
    assert pi.take() == []


def test_an_error_with_a_goal_is_retried_by_timer(pi: Pi) -> None:
    """A goal run that ended in an error is resumed after a back-off (4 s), as a follow-up."""
    pi.send("command", name="goal", args="`pytest -q` passes")
    pi.event("agent_start")
    pi.event("agent_end", {"stopReason": "error", "errorMessage": "invalid request"})
    pi.timers.ring()  # the settle
    assert actions(pi.take(), "continue") == []
    assert pi.timers.delays == [0.5, 4.0]
    pi.timers.ring()  # the retry
    [follow_up] = actions(pi.take(), "continue")
    assert "ended with an error (invalid request)" in follow_up["text"]


def test_a_user_message_cancels_the_scheduled_retry(pi: Pi) -> None:
    """The user typing before the back-off ends: goalkeeper's retry is dropped."""
    pi.send("command", name="goal", args="`pytest -q` passes")
    pi.event("agent_start")
    pi.event("agent_end", {"stopReason": "error", "errorMessage": "invalid request"})
    pi.timers.ring()
    pi.take()
    assert pi.timers.delays == [0.5, 4.0]
    pi.event("input", {"text": "try another way", "source": "interactive"}, wants_reply=False)
    pi.timers.ring()
    assert actions(pi.take(), "continue") == []


# -- tool_call -------------------------------------------------------------------------------


def test_an_ordinary_tool_call_passes(pi: Pi) -> None:
    """bash is let through (null: Pi's default) and counted."""
    start_run(pi)
    assert (
        pi.result(pi.event("tool_call", {"toolName": "bash", "input": {"command": "ls"}})) is None
    )
    assert pi.journal_events()[-1] == "ToolCall"


def test_goalkeepers_own_todo_call_skips_the_engine(pi: Pi) -> None:
    """The todo tool runs in the engine when executed, so its tool_call is not handled twice."""
    start_run(pi)
    before = pi.journal_events()
    lines = pi.event("tool_call", {"toolName": "todo", "input": {"action": "bogus"}})
    assert pi.result(lines) is None and actions(lines) == []
    assert pi.journal_events() == before


@pytest.mark.parametrize("data", [{}, {"toolName": 3}, {"toolName": None, "input": []}])
def test_a_tool_call_without_a_tool_name_passes(pi: Pi, data: dict[str, Any]) -> None:
    """A malformed tool_call payload is let through untouched."""
    assert pi.result(pi.event("tool_call", data)) is None


def test_another_todo_tools_completion_is_not_blocked(pi: Pi) -> None:
    """Pi has no native todo tool; a community one marking work done is not goalkeeper's call."""
    todos = [{"content": "a", "status": "completed"}]
    call = {"toolName": "todo_write", "input": {"todos": todos}}
    assert pi.result(pi.event("tool_call", call)) is None


def test_a_claude_named_todo_tool_completion_is_blocked(pi: Pi) -> None:
    """A tool named like Claude Code's TodoWrite marking work done is refused with the reason."""
    todos = [{"content": "a", "status": "completed", "activeForm": "doing a"}]
    result = pi.result(pi.event("tool_call", {"toolName": "TodoWrite", "input": {"todos": todos}}))
    assert result["block"] is True
    assert "metadata.evidence" in result["reason"]


# -- the todo tool ---------------------------------------------------------------------------


def test_todo_create_answers_with_the_task(pi: Pi) -> None:
    """Creating a todo answers with the JSON result (the task in it) and no error."""
    result = pi.result(pi.send("tool", name="todo", params={"action": "create", "subject": "x"}))
    assert result["isError"] is False
    body = json.loads(result["text"])
    assert body["task"]["id"] == 1 and body["task"]["subject"] == "x"
    assert body["task"]["status"] == "pending"
    assert result["details"]["task"] == body["task"]


def test_todo_completion_without_evidence_is_an_error(pi: Pi) -> None:
    """Completing without metadata.evidence is refused, explaining the evidence needed."""
    pi.send("tool", name="todo", params={"action": "create", "subject": "x"})
    update = {"action": "update", "id": 1, "status": "completed"}
    result = pi.result(pi.send("tool", name="todo", params=update))
    assert result["isError"] is True
    assert "evidence" in result["text"] and "metadata.evidence" in result["text"]
    assert result["details"] == {}
    listed = json.loads(pi.result(pi.send("tool", name="todo", params={"action": "list"}))["text"])
    assert listed["tasks"][0]["status"] == "pending"


def test_todo_completion_with_checked_evidence_passes(pi: Pi) -> None:
    """A claimed file change that goalkeeper sees on disk completes the todo."""
    pi.send("tool", name="todo", params={"action": "create", "subject": "write a.py"})
    (pi.project / "a.py").write_text("x = 1\n", encoding="utf-8")
    evidence = {"kind": "state", "evidence": [{"type": "file", "path": "a.py", "op": "write"}]}
    update = {
        "action": "update",
        "id": 1,
        "status": "completed",
        "metadata": {"evidence": evidence},
    }
    result = pi.result(pi.send("tool", name="todo", params=update))
    assert result["isError"] is False
    assert json.loads(result["text"])["task"]["status"] == "completed"


def test_an_unknown_tool_is_an_error_result(pi: Pi) -> None:
    """A tool goalkeeper does not own answers an error result, not a crash."""
    result = pi.result(pi.send("tool", name="grep", params={}))
    assert result == {"text": "goalkeeper: no tool named 'grep'", "isError": True}


# -- the goal command ------------------------------------------------------------------------


def test_goal_command_records_the_goal_and_prompts(pi: Pi) -> None:
    """/goal <text> writes GOAL.md and hands Pi the prompt to send."""
    result = pi.result(pi.send("command", name="goal", args="`true` passes"))
    assert result["prompt"].startswith("Goal: `true` passes")
    assert (pi.project / ".agents" / "goal" / "GOAL.md").is_file()
    assert "goal set" in result["notify"]


def test_goal_without_text_shows_the_status(pi: Pi) -> None:
    """/goal alone: "no goal" before one is set, then its objective and status."""
    before = pi.result(pi.send("command", name="goal", args="  "))
    assert set(before) == {"notify"} and "no goal" in before["notify"]
    pi.send("command", name="goal", args="`pytest -q` passes")
    after = pi.result(pi.send("command", name="goal", args=""))
    assert set(after) == {"notify"}
    assert "`pytest -q` passes" in after["notify"] and "active" in after["notify"]


def test_an_unknown_command_is_named(pi: Pi) -> None:
    """A command goalkeeper does not own answers with a notice."""
    assert pi.result(pi.send("command", name="plan", args="x")) == {
        "notify": "goalkeeper: no command named 'plan'"
    }


def test_the_goal_is_verified_at_the_settle(pi: Pi) -> None:
    """With a goal set, the settle runs its verification; a pass with every criterion ticked
    closes the goal and tells the user."""
    pi.send("command", name="goal", args="`pytest -q` passes")
    goal_md = pi.project / ".agents" / "goal" / "GOAL.md"
    goal_md.write_text(goal_md.read_text(encoding="utf-8").replace("- [ ]", "- [x]"), "utf-8")
    lines = settle(pi, "done")
    assert ("pytest", "-q") in pi.runner.calls  # an argument vector, no shell
    review = pi.result(lines)  # proven, then one review round (Pi: no subagents, fresh eyes)
    assert review is not None and "fresh eyes" in review["continue"], review
    assert not goal_md.exists()  # archived
    lines = settle(pi, "reviewed: nothing to fix")
    assert pi.result(lines) is None
    assert any("goal" in note["text"] for note in actions(lines, "notify"))


# -- malformed lines and failures ------------------------------------------------------------


def test_a_malformed_line_gets_an_error_line(pi: Pi) -> None:
    """A line that is not JSON is answered with one error line (no id to reply to)."""
    [line] = pi.raw(b"{not json")
    assert line["kind"] == "error" and line["id"] is None
    assert "not JSON" in line["message"]


def test_a_bad_request_with_an_id_is_released_at_once(pi: Pi) -> None:
    """A request whose id is readable gets the error and a null reply, so Pi stops waiting."""
    lines = pi.raw(b'{"v":1,"kind":"event","id":12,"name":"tool_call","event":[1]}')
    assert lines == [
        {
            "v": 1,
            "kind": "error",
            "id": 12,
            "message": "event 'tool_call': its payload is not an object",
        },
        {"v": 1, "kind": "reply", "id": 12, "result": None},
    ]


@pytest.mark.internal_error_expected
def test_an_engine_failure_fails_open_and_the_bridge_goes_on(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """An exception inside the engine answers null, tells the user (error), and the next line
    is answered as usual."""

    def broken(argv: Sequence[str]) -> Completed:
        raise RuntimeError("runner exploded")

    client = Pi(tmp_path, env, runner=broken)
    client.internal_error_expected = True
    client.send("tool", name="todo", params={"action": "create", "subject": "x"})
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    evidence = {"kind": "state", "evidence": [{"type": "file", "path": "a.py", "op": "edit"}]}
    update = {
        "action": "update",
        "id": 1,
        "status": "completed",
        "metadata": {"evidence": evidence},
    }
    lines = client.send("tool", name="todo", params=update)
    assert client.result(lines) is None
    [note] = actions(lines)
    assert note["action"] == "notify" and note["level"] == "error"
    assert "RuntimeError: runner exploded" in note["text"]
    assert "the agent was not blocked" in note["text"]
    listed = client.result(client.send("tool", name="todo", params={"action": "list"}))
    assert json.loads(listed["text"])["tasks"][0]["status"] == "pending"
    assert client.result(client.event("tool_call", {"toolName": "bash", "input": {}})) is None
    client.bridge.close()


@pytest.mark.internal_error_expected
def test_a_damaged_state_database_fails_open(tmp_path: Path, env: dict[str, str]) -> None:
    """A corrupt state.db: every awaited event answers Pi's default and the user is told."""
    state_path(tmp_path).parent.mkdir(parents=True)
    state_path(tmp_path).write_bytes(b"this is not a database" * 100)
    client = Pi(tmp_path, env)
    client.internal_error_expected = True
    for _ in range(2):
        lines = client.event("tool_call", {"toolName": "bash", "input": {}})
        assert client.result(lines) is None
        [note] = actions(lines)
        assert note["level"] == "error" and "state.db" in note["text"]
    client.bridge.close()


@pytest.mark.internal_error_expected
def test_a_failing_settle_timer_tells_the_user(tmp_path: Path, env: dict[str, str]) -> None:
    """An engine failure on the 0.73 settle timer becomes an error notice, not a dead thread."""

    def broken(argv: Sequence[str]) -> Completed:
        raise RuntimeError("verification could not start")

    client = Pi(tmp_path, env, runner=broken)
    client.internal_error_expected = True
    client.send("command", name="goal", args="`pytest -q` passes")
    client.event("agent_start")
    client.event("agent_end", {"stopReason": "stop", "lastText": "done"})
    client.timers.ring()  # the settle runs the goal's verification: the runner raises
    lines = client.take()
    client.bridge.close()
    assert [(m["action"], m["level"]) for m in actions(lines)] == [("notify", "error")]
    assert "verification could not start" in lines[0]["text"]


# -- serve -----------------------------------------------------------------------------------


def wire(*messages: dict[str, Any]) -> bytes:
    return b"".join(
        json.dumps({"v": 1, **m}, ensure_ascii=False).encode("utf-8") + b"\n" for m in messages
    )


def test_serve_answers_each_line_in_order_until_eof(tmp_path: Path, env: dict[str, str]) -> None:
    """Lines in, one reply per request out, in order; EOF ends the loop with 0."""
    stdin = io.BytesIO(
        wire(
            {"kind": "hello", "id": 1, "pi": {"version": "0.73.1"}},
            {"kind": "event", "id": 2, "name": "session_start", "event": {"reason": "startup"}},
            {"kind": "event", "id": 3, "name": "turn_end", "event": {}, "wants_reply": False},
        )
        + b"\r\n   \n"  # blank lines are skipped
        + b"garbage\n"
        + wire({"kind": "event", "id": 4, "name": "before_agent_start", "event": {"prompt": "p"}})
    )
    stdout = io.BytesIO()
    assert serve(tmp_path, stdin, stdout, env) == 0
    out = [json.loads(raw) for raw in stdout.getvalue().splitlines()]
    out = [m for m in out if m.get("action") != "tools"]
    assert [(m["kind"], m["id"]) for m in out] == [
        ("reply", 1),
        ("reply", 2),
        ("error", None),
        ("reply", 4),
    ]
    assert out[0]["result"]["host"] == "pi"
    assert out[3]["result"]["appendSystemPrompt"].startswith(STATIC_HEAD)
    assert stdout.getvalue().isascii()


def test_serve_keeps_line_separators_inside_one_message(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A raw U+2028 in a prompt (Node does not escape it) does not split the message."""
    stdin = io.BytesIO(
        wire(
            {"kind": "event", "id": 1, "name": "input", "event": {"text": "a\u2028b\u2029c"}},
            {"kind": "command", "id": 2, "name": "goal", "args": ""},
        )
    )
    stdout = io.BytesIO()
    serve(tmp_path, stdin, stdout, env)
    out = [json.loads(raw) for raw in stdout.getvalue().split(b"\n") if raw]
    out = [m for m in out if m.get("action") != "tools"]
    assert [(m["kind"], m["id"]) for m in out] == [("reply", 1), ("reply", 2)]


def test_serve_stops_after_session_shutdown(tmp_path: Path, env: dict[str, str]) -> None:
    """session_shutdown is answered, then nothing more is read."""
    stdin = io.BytesIO(
        wire(
            {"kind": "event", "id": 1, "name": "session_shutdown", "event": {"reason": "quit"}},
            {"kind": "command", "id": 2, "name": "goal", "args": ""},
        )
    )
    stdout = io.BytesIO()
    assert serve(tmp_path, stdin, stdout, env) == 0
    out = [json.loads(raw) for raw in stdout.getvalue().splitlines()]
    out = [m for m in out if m.get("action") != "tools"]
    assert out == [{"v": 1, "kind": "reply", "id": 1, "result": None}]


def test_serve_on_an_empty_stdin_writes_nothing(tmp_path: Path, env: dict[str, str]) -> None:
    """The extension closing the pipe at once: exit 0, no output."""
    stdout = io.BytesIO()
    assert serve(tmp_path, io.BytesIO(b""), stdout, env) == 0
    assert stdout.getvalue() == b""


def test_serve_survives_a_deeply_nested_line(tmp_path: Path, env: dict[str, str]) -> None:
    """A tool input nested thousands deep gets an error line; the next request is answered."""
    deep = (
        b'{"v":1,"kind":"event","id":1,"name":"tool_call","event":{"toolName":"x","input":'
        + b"[" * 5000
        + b"]" * 5000
        + b"}}\n"
    )
    stdin = io.BytesIO(deep + wire({"kind": "command", "id": 2, "name": "goal", "args": ""}))
    stdout = io.BytesIO()
    assert serve(tmp_path, stdin, stdout, env) == 0
    out = [json.loads(raw) for raw in stdout.getvalue().splitlines()]
    out = [m for m in out if m.get("action") != "tools"]
    assert [m["kind"] for m in out][-1] == "reply" and out[-1]["id"] == 2


def test_active_workflow_tools_are_disclosed_only_while_a_workflow_is_active(pi: Pi) -> None:
    """Pi shows workflow_active and workflow_ask only while a workflow is active: off at the
    start, on when one starts, off again when it completes; no repeat while unchanged."""
    pi.send("hello", pi={"version": "1.6.0"})
    start_run(pi)
    assert pi.disclosed[-1]["disable"] == ["workflow_active", "workflow_ask"]
    pi.send("tool", name="workflow", params={"mode": "workflow", "route": "hard-bug"})
    pi.take()
    assert pi.disclosed[-1]["enable"] == ["workflow_active", "workflow_ask"]
    count = len(pi.disclosed)
    pi.event("turn_end", {"turnIndex": 1}, wants_reply=False)
    assert len(pi.disclosed) == count
    pi.send("tool", name="workflow_active", params={"action": "complete"})
    pi.take()
    assert pi.disclosed[-1]["disable"] == ["workflow_active", "workflow_ask"]


def test_on_pi_0_73_every_workflow_tool_stays_enabled(pi: Pi) -> None:
    """Pi 0.73.x fixes a run's tools when it starts: nothing is hidden there."""
    pi.send("hello", pi={"version": "0.73.1"})
    start_run(pi)
    pi.send("tool", name="workflow", params={"mode": "workflow", "route": "hard-bug"})
    pi.take()
    assert pi.disclosed == []


# -- tool calls per run (seed 000 §6; audit seed000 D1) ---------------------------------------


def bash(pi: Pi, command: str, ident: str | None = None) -> list[Message]:
    data: dict[str, Any] = {"toolName": "bash", "input": {"command": command}}
    if ident is not None:
        data["toolCallId"] = ident
    return pi.event("tool_call", data)


def test_tool_less_runs_trip_the_stuck_rule(pi: Pi) -> None:
    """Pi's settles report how many tool calls each run made: runs with none compact and
    re-plan at 3 and 6 and pause at 9 (they used to continue up to max_continuations)."""
    pi.send("hello", pi={"version": "0.80.6"})
    write_plan(pi.project)
    start_run(pi)
    compacts, paused_at = [], None
    for n in range(1, 11):
        lines = settle(pi, "thinking\n[PDCA] plan")
        if actions(lines, "compact"):
            compacts.append(n)
        if any("paused" in a["text"] for a in actions(lines, "notify")):
            paused_at = n
            break
    assert compacts == [3, 6]
    assert paused_at == 9


def test_a_run_with_tool_calls_is_not_idle(pi: Pi) -> None:
    """Each run's tool_call events are counted and then start over for the next run."""
    write_plan(pi.project)
    start_run(pi)
    for _ in range(5):
        bash(pi, "ls")
        lines = settle(pi, "[PDCA] plan")
        assert actions(lines, "compact") == []
    assert pi.bridge.runs == []
    entries = journal.recent(pi.bridge.supervisor.store.connection(), 1000)
    tools = [e.data.get("tools") for e in entries if e.kind == "settle"]
    assert tools == [1] * 5


def test_a_check_with_no_tool_call_does_not_count_on_pi(pi: Pi) -> None:
    """do (a tool) → check (none) → complete: refused, the check ran no tool."""
    write_plan(pi.project, DONE_PLAN)
    start_run(pi)
    pi.event("tool_call", {"toolName": "edit", "input": {"path": "src/report.py"}})
    settle(pi, "[PDCA] do")
    assert "ran no tool at all" in pi.result(settle(pi, "[PDCA] check"))["continue"]
    result = pi.result(settle(pi, "[PDCA] complete"))
    assert "Check gate: the last [PDCA] check ran no tool" in result["continue"]


def test_an_echo_check_on_pi_is_not_a_verification(pi: Pi) -> None:
    """bash `echo '2 passed'` in the check round is named and refused as no verification."""
    write_plan(pi.project, DONE_PLAN)
    start_run(pi)
    bash(pi, "echo '2 passed'")
    told = pi.result(settle(pi, "2 passed\n[PDCA] check"))["continue"]
    assert told.startswith("That [PDCA] check ran no verification: `echo '2 passed'`")


def test_tool_results_tell_how_a_pi_check_ended(pi: Pi) -> None:
    """When the extension forwards tool_result, a failing run is a failed check, and a call
    with no result did not finish."""
    write_plan(pi.project, DONE_PLAN)
    start_run(pi)
    bash(pi, "pytest -q", "c1")
    pi.event("tool_result", {"toolCallId": "c1", "isError": True, "content": "1 failed"})
    told = pi.result(settle(pi, "[PDCA] check"))["continue"]
    assert told.startswith("The check ran and failed: 1 failed.")
    bash(pi, "pytest -q", "c2")  # no result: it never finished
    told = pi.result(settle(pi, "[PDCA] check"))["continue"]
    assert "`pytest -q` (did not finish" in told
    bash(pi, "pytest -q", "c3")
    pi.event("tool_result", {"toolCallId": "c3", "isError": False, "content": [
        {"type": "text", "text": "3 passed in 0.1s"}
    ]})  # fmt: skip
    assert pi.result(settle(pi, "[PDCA] check"))["continue"].startswith("Evidence in hand.")
    assert pi.result(settle(pi, "[PDCA] complete")) is None


@pytest.mark.parametrize(
    "target",
    [".pi/extensions/goalkeeper.ts", ".pi/settings.json", "PI_AGENT/settings.json"],
)
def test_the_agent_may_not_rewrite_what_loads_goalkeeper_in_pi(pi: Pi, target: str) -> None:
    """Pi's extension (either scope) and the settings that list extensions run goalkeeper: a
    write there is refused, so the agent cannot unload goalkeeper or load a fake for the next
    session. An ordinary file goes through."""
    agent = pi.bridge.env["PI_CODING_AGENT_DIR"]
    path = target.replace("PI_AGENT", agent)
    start_run(pi)
    refused = pi.event("tool_call", {"toolName": "write", "input": {"path": path, "content": "x"}})
    result = pi.result(refused)
    assert result["block"] is True
    assert "configures the agent's host to run goalkeeper" in result["reason"]
    allowed = pi.event(
        "tool_call", {"toolName": "write", "input": {"path": "src/a.py", "content": "x"}}
    )
    assert not (pi.result(allowed) or {}).get("block")
