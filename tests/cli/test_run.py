"""``goalkeeper run``: the outcome a CI job gets, from goalkeeper's journal entries (plain
values), and how the agent's command is read and extended."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.cli.app import run
from goalkeeper.cli.run.claude import claude_argv, claude_settings
from goalkeeper.cli.run.command import detect_host, pi_task
from goalkeeper.hosts.claude.settings import is_goalkeeper_command
from goalkeeper.store.journal import JournalEntry
from goalkeeper.store.outcome import AgentExit, decide, proof_of

S = "s1"


class Journal:
    """Entries as the engine appends them: the event, its records, then the decision."""

    def __init__(self) -> None:
        self.entries: list[JournalEntry] = []

    def add(self, kind: str, data: dict[str, Any], session: str = S) -> Journal:
        self.entries.append(JournalEntry(len(self.entries) + 1, session, 1.0, kind, data))
        return self

    def stop(self, *records: tuple[str, dict[str, Any]], error: str | None = None) -> Journal:
        return self.add("event", {"type": "Settled", "error": error}).records(*records)

    def records(self, *records: tuple[str, dict[str, Any]]) -> Journal:
        for kind, data in records:
            self.add(kind, data)
        return self

    def decision(self, *actions: tuple[str, str]) -> Journal:
        return self.add("decision", {"actions": [{"kind": k, "text": t} for k, t in actions]})


VERIFY_RUN = {
    "command": "pytest -q",
    "argv": ["pytest", "-q"],
    "exit": 0,
    "timed_out": False,
    "seconds": 0.42,
    "output_sha256": "ab" * 32,
}
PROVEN = ("goal_complete", {"verify": [VERIFY_RUN], "protected_tests": "unchanged"})
OK = AgentExit()


def proven_run() -> Journal:
    j = Journal().add("event", {"type": "UserPrompt"})
    j.stop(("goal_failed", {"n": 1, "signature": "x"})).decision(("Continue", "[1/3] failed"))
    return j.stop(PROVEN).decision(("Notify", "passed"), ("Close", "goal proven: x"))


def test_a_close_after_a_passing_verify_is_done_with_its_proof() -> None:
    outcome = decide(proven_run().entries, "none", OK)
    assert (outcome.outcome, outcome.exit_code) == ("done", 0)
    assert outcome.reason == "goal proven: x"
    assert outcome.continuations == 1
    assert outcome.sessions == (S,)
    assert outcome.proof == [{"source": "goal", "at": 1.0, **VERIFY_RUN}]


def test_the_agents_words_never_make_it_done() -> None:
    """The agent says it is done, and even writes ``status: complete``: without goalkeeper's
    own Close the run is not done; a GOAL.md that differs from the approved goal is held."""
    j = Journal().add("event", {"type": "Settled", "text_tail": "All done, tests pass!"})
    j.decision(("Continue", "[1/3] `pytest -q` failed"))
    assert decide(j.entries, "active", OK).exit_code == 1
    assert decide(j.entries, "held", OK).exit_code == 2


def test_a_close_while_the_goal_is_still_open_is_not_done() -> None:
    j = Journal().stop(("closed", {})).decision(("Close", "every gate passes"))
    assert decide(j.entries, "none", OK).exit_code == 0
    assert decide(j.entries, "active", OK).exit_code == 1


@pytest.mark.parametrize(
    ("records", "asks", "code"),
    [
        ([("capped", {"continuations": 40})], False, 1),  # goalkeeper's cap: not done
        ([], False, 1),  # stuck: not done
        ([("honest_exit", {"kind": "same_refusal"})], False, 1),
        ([("honest_exit", {"kind": "blocked_same"})], False, 2),  # the agent needs the user
        ([("goal_blocked", {"why": "same"})], False, 2),
        ([("goal_held", {"kind": "changed", "digest": "d"})], False, 2),
        ([("goal_tests_held", {"changes": []})], False, 2),
        ([], True, 2),  # a question for the user
    ],
)
def test_a_pause_is_blocked_only_when_it_waits_for_the_user(
    records: list[tuple[str, dict[str, Any]]], asks: bool, code: int
) -> None:
    actions = [("Pause", "goalkeeper paused: why")] + ([("Ask", "")] if asks else [])
    j = Journal().stop(*records).decision(*actions)
    outcome = decide(j.entries, "none", OK)
    assert outcome.exit_code == code
    assert outcome.reason == "goalkeeper paused: why"


def test_records_of_an_earlier_stop_do_not_count_for_the_last_pause() -> None:
    j = Journal().stop(("goal_blocked", {"why": "same"})).decision(("Pause", "goal paused"))
    j.add("event", {"type": "UserPrompt"}).decision(("Notify", "resumed"))
    j.stop(("capped", {})).decision(("Pause", "cap"))
    assert decide(j.entries, "none", OK).exit_code == 1


def test_a_blocked_goal_is_blocked_even_without_a_pause_in_this_run() -> None:
    j = Journal().stop().decision(("Continue", "go on"))
    assert decide(j.entries, "blocked", AgentExit(True, 1)).exit_code == 2


def test_errors_are_3_and_limits_are_1() -> None:
    continuing = Journal().stop().decision(("Continue", "go on")).entries
    assert decide([], "none", AgentExit(False, None, error="cannot start x")).exit_code == 3
    assert decide([], "none", AgentExit(True, 0)).exit_code == 3  # goalkeeper saw nothing
    assert decide(continuing, "none", AgentExit(True, -9)).exit_code == 3
    api = Journal().stop(error="overloaded").entries
    assert decide(api, "none", AgentExit(True, 1)).reason == (
        "the agent's last turn failed: overloaded"
    )
    assert decide(api, "none", AgentExit(True, 1)).exit_code == 3
    # cut by --max-minutes, or by the agent's own turn limit (exit 1): not done
    timed = AgentExit(True, -15, timed_out=True, error="stopped after 1 minutes")
    assert decide(continuing, "none", timed).exit_code == 1
    assert decide(continuing, "none", AgentExit(True, 1)).exit_code == 1
    # a Close still counts when the agent exits non-zero afterwards
    assert decide(proven_run().entries, "none", AgentExit(True, 1)).exit_code == 0


def proven_then_review_asked() -> Journal:
    """The goal proven at a stop whose answer is the review round (seed 002), not the close."""
    j = Journal().add("event", {"type": "UserPrompt"})
    asked = ("review_asked", {"goal": "g-1"})
    return j.stop(PROVEN, asked).decision(("Notify", "passed"), ("Continue", "fresh reviewer"))


@pytest.mark.parametrize(
    ("agent", "api_error"),
    [
        (AgentExit(True, 1), None),  # its own --max-turns ended the review turn
        (AgentExit(True, -15, timed_out=True, error="stopped after 1 minutes"), None),
        (AgentExit(True, -9), None),
        (AgentExit(True, 0), None),
        (AgentExit(True, 1), "overloaded"),  # the review turn failed on an API error
    ],
)
def test_a_proven_goal_whose_review_turn_was_cut_off_is_done(
    agent: AgentExit, api_error: str | None
) -> None:
    """The review is a request, not the proof: the goal was proven (and archived) before it, so
    the run is done, exit 0, and the reason says plainly that the review was not done."""
    j = proven_then_review_asked()
    if api_error:
        j.stop(error=api_error)
    outcome = decide(j.entries, "none", agent)
    assert (outcome.outcome, outcome.exit_code) == ("done", 0)
    assert outcome.reason.startswith("goalkeeper proved the goal")
    assert "review not done" in outcome.reason
    assert outcome.proof == [{"source": "goal", "at": 1.0, **VERIFY_RUN}]
    awaiting = decide(j.entries, "none", agent, ["#2 tidy"])  # the claims rule still holds
    assert awaiting.outcome == "awaiting"


def test_the_users_goal_proven_while_a_replacement_waits_is_done() -> None:
    """The agent rewrote GOAL.md into another goal; goalkeeper proved the user's goal anyway and
    left the replacement for the user (the goal after the run reads ``held``): done, exit 0,
    the reason saying what waits. Without the proof in that stop, a held goal is blocked."""
    j = Journal().add("event", {"type": "UserPrompt"})
    moot = ("goal_held_moot", {"kind": "replaced", "digest": "d"})
    j.stop(PROVEN, moot).decision(("Notify", "waits"), ("Close", "goal proven: x"))
    outcome = decide(j.entries, "held", OK)
    assert (outcome.outcome, outcome.exit_code) == ("done", 0)
    assert outcome.reason.startswith("goal proven: x; GOAL.md now holds another goal")
    assert decide(proven_then_review_asked().entries, "held", OK).exit_code == 0
    held = Journal().stop(("goal_held", {"kind": "replaced"})).decision(("Continue", "back"))
    assert decide(held.entries, "held", OK).exit_code == 2


def test_a_review_asked_for_todos_proves_no_goal() -> None:
    """A review round after test-gated todos is not a goal's proof: cut off, not done."""
    j = Journal().stop(("review_asked", {"todos": [1]})).decision(("Continue", "review"))
    assert decide(j.entries, "none", AgentExit(True, 1)).exit_code == 1
    assert decide(proven_then_review_asked().entries, "active", OK).exit_code == 1


def test_nothing_to_prove_is_not_done() -> None:
    j = Journal().stop().add("event", {"type": "SessionStart"})
    outcome = decide(j.entries, "none", OK)
    assert outcome.exit_code == 1
    assert outcome.reason == "nothing was proven: no goal or plan of this run was closed"


def test_the_proof_lists_every_run_goalkeeper_made_itself() -> None:
    replay = {**VERIFY_RUN, "exit": 1}
    j = Journal().stop(
        ("check", {"status": "passed", "ran": [{"command": "pytest -q", "verdict": "passed"}]}),
        ("todo_completed", {"id": 3, "commands": [{"cmd": "pytest -q", "status": "verified"}]}),
        ("goal_complete", {"verify": [VERIFY_RUN], "protected_tests": {"replay": [replay]}}),
    )
    proof = proof_of(j.entries)
    assert [p["source"] for p in proof] == ["check", "todo", "goal", "goal_tests_replay"]
    assert proof[1] == {
        "source": "todo", "at": 1.0, "command": "pytest -q", "status": "verified", "todo": 3
    }  # fmt: skip
    assert proof[3]["exit"] == 1


# -------------------------------------------------------------------------------------------
# The agent's command
# -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "host"),
    [
        (["claude", "-p", "x"], "claude"),
        (["/opt/bin/claude.exe", "-p", "x"], "claude"),
        (["pi", "-p", "x"], "pi"),
        (["/usr/local/bin/gemini", "-p", "x"], "gemini"),
        (["node", "/x/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"], "pi"),
        (["node", "/x/node_modules/@anthropic-ai/claude-code/cli.js"], "claude"),
    ],
)
def test_the_host_is_read_from_the_program(argv: list[str], host: str) -> None:
    assert detect_host(argv) == host


def test_codex_is_a_host_of_run() -> None:
    assert detect_host(["codex", "exec", "x"]) == "codex"


def test_goalkeepers_options_come_right_after_the_program(tmp_path: Path) -> None:
    """``--mcp-config`` takes several values, so ``--settings`` follows it; the user's
    variadic options at the end keep their values; goalkeeper picks the session id."""
    s, m = tmp_path / "s.json", tmp_path / "m.json"
    argv, session = claude_argv(["claude", "-p", "x", "--allowedTools", "Read"], s, m, 5)
    assert session is not None
    assert argv == [
        "claude", "--mcp-config", str(m), "--settings", str(s), "--session-id", session,
        "--max-turns", "5", "-p", "x", "--allowedTools", "Read",
    ]  # fmt: skip
    resumed, none = claude_argv(["claude", "--resume", "abc", "-p", "x"], s, m, None)
    assert none is None and "--session-id" not in resumed
    own, given = claude_argv(["claude", "--session-id", "u1", "--settings", "mine.json"], s, m, 3)
    assert given == "u1" and own.count("--settings") == 1 and "mine.json" not in own
    kept, _ = claude_argv(["claude", "--max-turns", "9"], s, m, 3)
    assert kept.count("--max-turns") == 1


def test_the_run_settings_carry_the_hooks_and_keep_the_users(tmp_path: Path) -> None:
    mine = {"permissions": {"allow": ["Read"]}, "hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "echo mine"}]}]}}  # fmt: skip
    data = claude_settings(tmp_path, tmp_path / "home", mine)
    stop = [h["command"] for g in data["hooks"]["Stop"] for h in g["hooks"]]
    assert stop[0] == "echo mine" and is_goalkeeper_command(stop[1])
    assert set(data["hooks"]) == {
        "SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "StopFailure", "SubagentStop"
    }  # fmt: skip
    assert data["permissions"]["allow"] == ["Read", "mcp__goalkeeper"]
    assert int(data["env"]["CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"]) > 40


def test_an_installed_goalkeeper_serves_instead_of_a_second_set_of_hooks(tmp_path: Path) -> None:
    """Two sets of goalkeeper hooks would count every stop twice."""
    settings = tmp_path / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    hook = {"type": "command", "command": "/x/python -m goalkeeper hook claude"}
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [hook]}]}}), "utf-8")
    data = claude_settings(tmp_path, tmp_path / "home", {})
    assert "hooks" not in data and data["permissions"]["allow"] == ["mcp__goalkeeper"]


def test_the_goalkeeper_plugin_serves_instead_of_a_second_set_of_hooks(tmp_path: Path) -> None:
    """The plugin enabled in the user's settings (``goalkeeper@<marketplace>``) has its own
    hooks: the run adds none; a disabled plugin or another plugin does not count."""
    home = tmp_path / "home"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"enabledPlugins": {"goalkeeper@goalkeeper": True}}), "utf-8")
    assert "hooks" not in claude_settings(tmp_path, home, {})
    settings.write_text(
        json.dumps({"enabledPlugins": {"goalkeeper@goalkeeper": False, "other@x": True}}),
        "utf-8",
    )
    assert "Stop" in claude_settings(tmp_path, home, {})["hooks"]


def test_pi_takes_its_task_from_the_print_message() -> None:
    assert pi_task(["--no-session", "-p", "Fix it."], None) == (["--no-session"], "Fix it.")
    assert pi_task(["-p", "ignored?"], "The task.") == (["ignored?"], "The task.")


# -------------------------------------------------------------------------------------------
# Through the CLI
# -------------------------------------------------------------------------------------------
def test_run_errors_exit_3_and_json_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["-C", str(tmp_path), "run", "--json", "--", "codex", "x"]) == 3
    out = json.loads(capsys.readouterr().out)
    assert out["outcome"] == "error" and out["exit"] == 3
    assert out["reason"].startswith("goalkeeper run supervises Codex headless")
    assert run(["-C", str(tmp_path), "run", "--max-minutes", "x", "--", "claude"]) == 3
    assert run(["-C", str(tmp_path), "run", "--bogus", "--", "claude"]) == 3
    assert "comes after `--`" in capsys.readouterr().err
    missing = str(tmp_path / "no-such-claude")
    assert run(["-C", str(tmp_path), "run", "--json", "--host", "claude", "--", missing]) == 3
    assert json.loads(capsys.readouterr().out)["reason"].startswith("cannot start ")
    assert not (tmp_path / ".claude").exists() and not (tmp_path / ".mcp.json").exists()


def test_the_time_limit_ends_the_agent_and_its_children(tmp_path: Path) -> None:
    """--max-minutes: the agent's process group is stopped, and the run counts as cut."""
    import time

    from goalkeeper.cli.run.agent import run_process

    child = tmp_path / "child.pid"
    script = f"sleep 60 & echo $! > {child}; wait"
    t0 = time.monotonic()
    exited = run_process(["/bin/sh", "-c", script], tmp_path, {"PATH": "/bin:/usr/bin"}, 0.5, False)
    assert time.monotonic() - t0 < 15
    assert (
        exited.started
        and exited.timed_out
        and exited.error == ("the time limit (--max-minutes) stopped the agent after 0.5 s")
    )
    pid = int(child.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        time.sleep(0.05)
    status = Path(f"/proc/{pid}/status")
    assert not status.exists() or "State:\tZ" in status.read_text()


def test_without_json_the_outcome_and_its_proof_go_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """stdout stays the agent's; goalkeeper's verdict is one line, then one line per run."""
    from goalkeeper.cli.run.command import _report

    _report(decide(proven_run().entries, "none", OK), "claude", False)
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "goalkeeper: done and proven (exit 0): goal proven: x",
        "  proof (goal): `pytest -q` exit 0, 0.42 s, output sha256 abababababab…",
        "  continuations: 1",
    ]


def test_a_retry_resumes_the_same_session_with_the_retry_prompt_instead_of_the_task() -> None:
    """The user's options stay; their session choice becomes ``--resume SESSION`` and the task
    after ``-p`` becomes the short retry prompt (seed 001 §5)."""
    from goalkeeper.cli.run.retry import resume_argv

    argv = ["claude", "-p", "Fix it", "--session-id", "s-1", "--model", "m", "--max-turns", "5"]
    assert resume_argv(argv, "s-1", "Continue.") == [
        "claude", "--resume", "s-1", "-p", "Continue.", "--model", "m", "--max-turns", "5",
    ]  # fmt: skip
    node = ["node", "cli.js", "--output-format", "json", "-p", "Fix it"]
    assert resume_argv(node, "s-2", "Go on.") == [
        "node", "cli.js", "--resume", "s-2", "--output-format", "json", "-p", "Go on.",
    ]  # fmt: skip


class ClaudeStandIn:
    """Stands in for ``run_claude``: each run sends its hook events through goalkeeper's real
    Claude Code hook path (a StopFailure, then a Stop), as Claude Code would, and remembers the
    command it was started with."""

    def __init__(self, project: Path, session: str, events: list[str]) -> None:
        self.project, self.session, self.events = project, session, events
        self.argvs: list[list[str]] = []

    def __call__(
        self, project: Path, argv: Any, max_turns: Any, limit_s: Any, as_json: bool
    ) -> tuple[AgentExit, str | None]:
        from goalkeeper.hosts.claude.hook import answer_hook

        self.argvs.append(list(argv))
        event = self.events.pop(0)
        hook = {"session_id": self.session, "cwd": str(project), "hook_event_name": event}
        if event == "StopFailure":
            hook |= {"error": "server_error", "last_assistant_message": "API Error: 529"}
        answer_hook(json.dumps(hook).encode(), {"CLAUDE_PROJECT_DIR": str(project)}, str(project))
        return OK, None  # the user chose the session: goalkeeper was not told its id


@pytest.mark.parametrize("chosen", [["--resume", "c-0"], ["--continue"]])
def test_a_run_in_a_session_the_user_chose_is_retried_after_an_api_error(
    tmp_path: Path, chosen: list[str]
) -> None:
    """Seed 001 §5: a run whose session goalkeeper did not name (``--resume``, ``--continue``)
    and whose first event is the API error is resumed in the session its events were recorded
    under, after the first back-off, as a run with goalkeeper's own session id is."""
    from goalkeeper.cli.run.retry import run_claude_retrying

    claude = ClaudeStandIn(tmp_path, "c-1", ["StopFailure", "Stop"])
    slept: list[float] = []
    argv = ["claude", *chosen, "-p", "Fix it"]
    exited, session = run_claude_retrying(
        tmp_path, argv, None, None, False, sleep=slept.append, clock=lambda: 0.0, run=claude
    )
    assert session == "c-1"
    assert slept == [4.0]
    assert claude.argvs[1][:3] == ["claude", "--resume", "c-1"]
    assert exited == OK and claude.events == []


def test_a_run_whose_events_came_from_two_sessions_is_not_resumed(tmp_path: Path) -> None:
    """When another session of the project wrote meanwhile, the run cannot tell which one is
    its own: it resumes neither (resuming the user's other session would be worse)."""
    from goalkeeper.cli.run.retry import run_claude_retrying

    other = ClaudeStandIn(tmp_path, "c-other", ["Stop"])
    claude = ClaudeStandIn(tmp_path, "c-1", ["StopFailure", "Stop"])

    def both(*args: Any) -> tuple[AgentExit, str | None]:
        other(*args)
        return claude(*args)

    slept: list[float] = []
    run_claude_retrying(
        tmp_path, ["claude", "-c", "-p", "x"], None, None, False, sleep=slept.append, run=both
    )
    assert slept == [] and len(claude.argvs) == 1
