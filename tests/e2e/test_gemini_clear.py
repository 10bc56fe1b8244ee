"""The stuck rule's re-plan in a cleared context, with the real Gemini CLI (0.61.0) and the
scripted fake Gemini API (issue 14, item 2).

goalkeeper answers the stuck settle with AfterAgent ``decision: deny`` and
``hookSpecificOutput.clearContext``: Gemini starts a new chat and sends the reason into it. The
model request after it must hold none of the earlier turns (the model's replies), the user's
last message once, as goalkeeper repeats it, all of goalkeeper's anchors (the stuck note, the
goal, the plan) and, once, what the session's start said (the guidance, the todo rule): what
the fake server received is the proof.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .gemini_harness import GeminiCase, texts
from .test_gemini import PLAN, TOPIC

pytestmark = pytest.mark.e2e

PROMPT = "Make greet.sh print hello, PROMPT-MARK-5521."
EARLY = "EARLY-TURN-7731: I keep turning the design over in my head."
CLEARED = "goalkeeper cleared the conversation"
GOAL = "greet.sh prints a friendly hello"
VERIFY = "test -f greet.sh"


def text(reply: str) -> list[dict[str, Any]]:
    return [{"text": reply}]


def test_the_stuck_re_plan_starts_a_fresh_context_that_holds_the_anchors(
    gemini_case: GeminiCase,
) -> None:
    case = gemini_case
    case.write_plan(TOPIC, PLAN)
    case.install()
    case.goalkeeper("goal", "set", GOAL, "--verify", VERIFY)  # the user's own terminal
    rules: list[dict[str, Any]] = [
        {"name": "fresh", "when": {"contains": CLEARED},
         "reply": text("Starting over from the plan.\n[PDCA] plan")},
        {"name": "idle", "reply": text(f"{EARLY}\n[PDCA] plan")},
    ]  # fmt: skip
    env = {"GOALKEEPER_STUCK": "1", "GOALKEEPER_RESET": "1"}
    run = case.run(rules, prompt=PROMPT, extra_env=env)
    assert run.rules == ["idle", "fresh"], run.describe()
    assert run.returncode == 0, run.describe()
    assert run.stray == [], run.describe()

    before, after = (json.dumps(r["body"]["contents"], ensure_ascii=False) for r in run.requests)
    assert PROMPT in before and "<hook_context>" in before  # what there was to clear
    assert EARLY not in after, after  # the turns are gone
    assert after.count(PROMPT) == 1 and f"> {PROMPT}" in after  # the user's words, repeated
    # the new chat is Gemini's environment context and this continuation, nothing else; the
    # continuation's BeforeAgent gives back what the session's start said (the chat that held
    # it is gone): the guidance and the todo rule, once, in front of the continuation
    (entry,) = run.requests[1]["body"]["contents"]
    environment, *rest = texts(entry)
    assert environment.startswith("<session_context>"), environment
    fresh = "\n".join(rest)
    assert fresh.count("keeps this task on its plan until it is proven done") == 1, fresh
    assert "Todo duty (goalkeeper)" in fresh and "mcp_goalkeeper_todo" in fresh
    assert "1 rounds without a tool call" in fresh
    assert CLEARED in fresh
    assert GOAL in fresh and f"`{VERIFY}`" in fresh  # the goal's anchors
    plan = str(case.plan_path(TOPIC).relative_to(case.proj))
    assert plan in fresh and "A user who runs greet.sh sees a friendly greeting." in fresh
    assert "user runs greet.sh and sees hello" in fresh  # the next open leaf

    assert [e["kind"] for e in case.journal({"stuck_reset"})] == ["stuck_reset"]
    cleared = [
        e for e in case.journal({"decision"})
        if any(a["kind"] == "ClearContext" for a in e["data"]["actions"])
    ]  # fmt: skip
    assert len(cleared) == 1, case.journal({"decision"})
