"""A check is a verification that ran, and honest exits, with the real Claude Code CLI.

The fake model first "checks" with ``echo '2 passed'``; goalkeeper reads the Bash call from the
transcript (announced by its PreToolUse hook) and sends the check back. The model then runs the
project's real test with pytest, and the task closes. A model that repeats the same blocker is
paused at the third report, and the user is told the work is not done.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from .harness import CLOSE_MESSAGE, Case, stop_feedback

pytestmark = pytest.mark.e2e

TOPIC = "greet"
PLAN = """# Greeting
## Objective
A user who runs greet.py sees a friendly greeting.
## Key Results
- [x] KR1: greeting printed 0 → 1
## User Story Map
- Slice 1
  - [x] user runs greet.py and sees hello
"""
TEST = "from greet import greet\n\n\ndef test_greet():\n    assert greet() == 'hello'\n"
FORGED = "echo '2 passed'"
NOT_VERIFIED = "That [PDCA] check ran no verification: `echo '2 passed'` (not a test run)"
AFTER_CHECK = "Evidence in hand."


def text(reply: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": reply}]


def bash(command: str) -> list[dict[str, Any]]:
    return [{"type": "tool_use", "name": "Bash", "input": {"command": command}}]


def test_an_echoed_check_is_sent_back_and_a_real_test_run_closes(case: Case) -> None:
    case.write_plan(TOPIC, PLAN)
    (case.proj / "greet.py").write_text("def greet():\n    return 'hello'\n", encoding="utf-8")
    (case.proj / "test_greet.py").write_text(TEST, encoding="utf-8")
    case.install()
    pytest_run = f"{sys.executable} -m pytest -q -p no:cacheprovider"
    rules: list[dict[str, Any]] = [
        {"name": "complete", "when": {"contains": AFTER_CHECK},
         "reply": text("Proven by the test run.\n[PDCA] complete")},
        {"name": "real-check",
         "when": {"contains": "1 passed in", "last_user_has_tool_result": True},
         "reply": text("The test passes.\n[PDCA] check")},
        {"name": "run-pytest", "when": {"contains": NOT_VERIFIED}, "reply": bash(pytest_run)},
        {"name": "forged-check", "when": {"last_user_has_tool_result": True},
         "reply": text("All 2 tests passed.\n[PDCA] check")},
        {"name": "forge", "reply": bash(FORGED)},
    ]  # fmt: skip
    run = case.run_claude(rules, allowed_tools=("Bash",))

    assert run.rules == ["forge", "forged-check", "run-pytest", "real-check", "complete"], (
        run.describe()
    )
    assert run.returncode == 0 and run.result.get("subtype") == "success", run.describe()
    feedback = stop_feedback(run.requests[2])
    assert len(feedback) == 1 and NOT_VERIFIED in feedback[0], feedback
    assert case.stop_hook_outcomes(run)[-1] == ("allow", CLOSE_MESSAGE)
    checks = [e["data"] for e in case.journal({"check"})]
    assert [c["status"] for c in checks] == ["none", "passed"], checks
    assert checks[0]["ran"] == [{"command": FORGED, "verdict": "not_verification"}]
    assert checks[1]["ran"] == [{"command": pytest_run, "verdict": "passed"}]


def test_the_same_blocker_three_times_pauses_and_tells_the_user(case: Case) -> None:
    case.write_plan(TOPIC, PLAN.replace("- [x] KR1", "- [ ] KR1"))
    case.install()
    rules = [
        {"name": "blocked", "reply": text("I cannot go on.\n[PDCA] blocked: need the API key")}
    ]
    run = case.run_claude(rules, max_turns=20)

    assert run.rules == ["blocked"] * 3, run.describe()
    assert run.returncode == 0 and run.result.get("subtype") == "success", run.describe()
    outcomes = case.stop_hook_outcomes(run)
    assert [kind for kind, _ in outcomes] == ["block", "block", "allow"], outcomes
    message = outcomes[-1][1]
    assert "the same blocker 3 times (need the API key)" in message, message
    assert "goalkeeper: not done: the check gate is open" in message, message
    assert "the OKR gate is open (1 key result(s) not closed)" in message, message
