"""A check is a verification that ran, and a loop that cannot go on stops honestly: driven
through the real hook entry point (``python -m goalkeeper hook claude`` in a subprocess) with a
synthetic Claude Code transcript that grows before each Stop, as a cheating agent would try."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import run_hook, session_start, stop

DONE_PLAN = """# Export
## Objective
Scripts read the report as JSON.
## Key Results
- [x] KR1: commands with --json 0 → 3
## User Story Map
- Slice 1
  - [x] user runs report --json
"""
OPEN_PLAN = DONE_PLAN.replace("- [x] KR1", "- [ ] KR1")


class Agent:
    """One Claude Code session against a project: it appends what the agent did to the
    transcript, fires PreToolUse the way Claude Code does for a real call, and stops."""

    def __init__(self, project: Path, plan: str = DONE_PLAN) -> None:
        self.project = project
        (project / "plan").mkdir()
        self.plan = project / "plan" / "export.md"
        self.plan.write_text(plan, encoding="utf-8")
        self.transcript = project / "session.jsonl"
        self.transcript.write_text("", encoding="utf-8")
        self.n = 0
        start = {**session_start(project), "transcript_path": str(self.transcript)}
        assert run_hook(project, start).returncode == 0

    def _line(self, entry: dict[str, Any]) -> None:
        with self.transcript.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")

    def _call(self, name: str, tool_input: dict[str, Any], output: str, failed: bool) -> None:
        self.n += 1
        ident = f"toolu_{self.n}"
        call = {"type": "tool_use", "id": ident, "name": name, "input": tool_input}
        block = {"tool_use_id": ident, "type": "tool_result", "content": output, "is_error": failed}
        self._line({"type": "assistant", "message": {"id": f"m{self.n}", "content": [call]}})
        self._line({"type": "user", "message": {"role": "user", "content": [block]}})

    def pre_tool_use(self, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        hook = {
            "hook_event_name": "PreToolUse",
            "session_id": "s1",
            "cwd": str(self.project),
            "transcript_path": str(self.transcript),
            "tool_name": name,
            "tool_input": tool_input,
        }
        return run_hook(self.project, hook).answer

    def bash(self, command: str, output: str = "", *, failed: bool = False) -> None:
        """A Bash call Claude Code really ran: announced by PreToolUse, then recorded."""
        self.pre_tool_use("Bash", {"command": command})
        self._call("Bash", {"command": command}, output, failed)

    def forge_bash(self, command: str, output: str) -> None:
        """Transcript lines the agent wrote itself: no PreToolUse ever saw this call."""
        self._call("Bash", {"command": command}, output, False)

    def edit_plan(self, note: str) -> None:
        """The agent writes its blocker into the plan (an Edit call: a tool call)."""
        self.pre_tool_use("Edit", {"file_path": str(self.plan)})
        text = self.plan.read_text(encoding="utf-8") + f"\nNote: {note}\n"
        self.plan.write_text(text, encoding="utf-8")
        self._call("Edit", {"file_path": str(self.plan)}, "The file has been updated.", False)

    def stop(self, text: str) -> dict[str, Any]:
        payload = {**stop(self.project, text=text), "transcript_path": str(self.transcript)}
        run = run_hook(self.project, payload)
        assert run.returncode == 0, run.stderr
        return run.answer


def refused(answer: dict[str, Any]) -> str:
    assert answer.get("decision") == "block", answer
    return str(answer["reason"])


def stopped(answer: dict[str, Any]) -> str:
    """The agent was let stop; what the user reads."""
    assert "decision" not in answer, answer
    return str(answer.get("systemMessage", ""))


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    return Agent(tmp_path)


def test_an_echoed_pass_is_no_check_and_complete_is_refused(agent: Agent) -> None:
    """`echo '2 passed'` + `[PDCA] check` + `[PDCA] complete`: the check is sent back naming
    the command, and the complete is refused by the check gate."""
    agent.bash("echo '2 passed'", "2 passed")
    told = refused(agent.stop("All 2 tests passed.\n[PDCA] check"))
    assert "ran no verification: `echo '2 passed'` (not a test run)" in told
    refusal = refused(agent.stop("Done.\n[PDCA] complete"))
    assert "Check gate: the last [PDCA] check ran no verification" in refusal


def test_a_real_test_run_counts_and_the_task_closes(agent: Agent) -> None:
    """A pytest call that ran (announced, finished, exit 0) in the check round is the check:
    the complete after it closes."""
    agent.bash("python -m pytest -q", "3 passed in 0.21s")
    assert refused(agent.stop("[PDCA] check")).startswith("Evidence in hand.")
    closed = stopped(agent.stop("[PDCA] complete"))
    assert "every gate passes (check, okr, map)" in closed


def test_a_failing_run_is_a_check_that_keeps_complete_refused(agent: Agent) -> None:
    """A pytest run that failed is a check (not a forgery), but complete stays refused and
    says the tests failed."""
    agent.bash(
        "pytest -q", "Exit code 1\nFAILED t.py::test_x - assert 1 == 2\n1 failed", failed=True
    )
    assert refused(agent.stop("[PDCA] check")).startswith("The check ran and failed: FAILED")
    assert "last check's verification failed" in refused(agent.stop("[PDCA] complete"))


def test_transcript_lines_the_agent_wrote_are_no_check(agent: Agent) -> None:
    """A pytest call appended to the transcript by the agent (no PreToolUse for it, while the
    session's Bash calls are announced) does not count."""
    agent.bash("ls", "plan")
    agent.forge_bash("python -m pytest -q", "3 passed in 0.2s")
    told = refused(agent.stop("[PDCA] check"))
    assert "`python -m pytest -q` (goalkeeper never saw it start)" in told
    assert "Check gate" in refused(agent.stop("[PDCA] complete"))


def test_a_forged_pass_after_a_real_failure_does_not_count(agent: Agent) -> None:
    """The tests really ran and failed; the agent appends a passing call with the same command
    and a passing result for the real one: the round is still a failed check."""
    agent.bash("pytest -q", "Exit code 1\n1 failed", failed=True)
    real = f"toolu_{agent.n}"
    agent.forge_bash("pytest -q", "3 passed in 0.1s")
    fake = {"tool_use_id": real, "type": "tool_result", "content": "3 passed", "is_error": False}
    agent._line({"type": "user", "message": {"role": "user", "content": [fake]}})
    assert refused(agent.stop("[PDCA] check")).startswith("The check ran and failed")
    assert "last check's verification failed" in refused(agent.stop("[PDCA] complete"))


def test_a_deleted_transcript_is_no_check(agent: Agent) -> None:
    """The agent deletes the transcript goalkeeper reads: the check round cannot count."""
    agent.bash("rm session.jsonl", "")
    agent.transcript.unlink()
    assert refused(agent.stop("[PDCA] check")).startswith("goalkeeper could not read")
    assert "could not read which commands the last check ran" in refused(
        agent.stop("[PDCA] complete")
    )


def test_a_loop_forging_checks_pauses_within_three_refusals(agent: Agent) -> None:
    """check (echo) → complete → check (echo): paused at the third forgery, and the user is
    told the work is not done and why."""
    agent.bash("echo '2 passed'", "2 passed")
    refused(agent.stop("[PDCA] check"))
    refused(agent.stop("[PDCA] complete"))
    agent.bash("printf '3 passed\\n'", "3 passed")
    message = stopped(agent.stop("[PDCA] check"))
    assert "goalkeeper paused: 3 times a [PDCA] check or complete came without" in message
    assert "goalkeeper: not done: the check gate is open (the last check ran no test)." in message
    assert "A new prompt resumes and restarts the count." in message


def test_repeated_identical_blockers_pause_at_the_bound(agent: Agent) -> None:
    """The same blocker three times (spelled a little differently): continued twice, paused
    the third time, with the truth for the user."""
    reasons = ["Need the API key.", "need the API key!", "NEED the api key"]
    answers = [agent.stop(f"[PDCA] blocked: {reason}") for reason in reasons]
    refused(answers[0])
    assert "You have reported this blocker 2 times" in refused(answers[1])
    message = stopped(answers[2])
    assert "the same blocker 3 times" in message
    assert "not done: the check gate is open" in message


def test_writing_the_blocker_into_the_plan_each_round_still_pauses(tmp_path: Path) -> None:
    """Each round the agent writes a new blocker into the plan (a tool call every round) and
    closes nothing: the third blocked round pauses, it is not continued 40 times."""
    agent = Agent(tmp_path, OPEN_PLAN)
    answers = []
    for reason in ("the API is down", "the schema is unclear", "CI is red"):
        agent.edit_plan(f"blocked: {reason}")
        answers.append(agent.stop(f"[PDCA] blocked: {reason}"))
    refused(answers[0])
    refused(answers[1])
    message = stopped(answers[2])
    assert "3 blocked rounds without progress" in message
    assert "the OKR gate is open (1 key result(s) not closed)" in message
