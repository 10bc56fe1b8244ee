"""A subagent's done under goalkeeper's evidence rules (issue 22 item 6), with the real Claude
Code CLI and a scripted fake model.

The main agent starts a subagent (the ``Agent`` tool). The subagent answers
``[PDCA] complete`` without running anything: goalkeeper's SubagentStop hook blocks it, and the
reason reaches the subagent as its next instruction. The subagent then says plainly that it
verified nothing, stops, and the main agent gets its answer (the subagent runs in the
foreground: ``run_in_background: false``). The fake model tells the two
conversations apart by the user's prompt, which only the main agent's contains.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import Case, read_jsonl

pytestmark = pytest.mark.e2e

MAIN = "Delegate the greeting check to a subagent. MAIN-7c1"
SUB = "Check greet.sh prints hello. SUB-4f2"
UNPROVEN = "you reported `[PDCA] complete`, but no verification goalkeeper counts ran"
HONEST = "I did not verify anything: no test ran. SUB-HONEST"
ENV = {"GOALKEEPER_NO_PLAN": "silent", "GOALKEEPER_TODO_QUIET_AFTER_MS": "0"}


def text(reply: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": reply}]


def rules() -> list[dict[str, Any]]:
    agent = {"description": "check greeting", "prompt": SUB, "subagent_type": "general-purpose",
             "run_in_background": False}  # fmt: skip
    return [
        # the main agent, after the subagent's answer came back
        {"name": "main-wrap-up", "when": {"contains": [MAIN, HONEST]},
         "reply": text("The subagent verified nothing; the greeting is unchecked.")},
        {"name": "main-delegate", "when": {"contains": MAIN, "not_contains": SUB},
         "reply": [{"type": "tool_use", "name": "Agent", "input": agent}]},
        # the subagent: its conversation has its prompt and not the user's
        {"name": "sub-honest", "when": {"contains": SUB, "not_contains": MAIN,
                                        "tail_contains": UNPROVEN},
         "reply": text(HONEST)},
        {"name": "sub-claim", "when": {"contains": SUB, "not_contains": MAIN},
         "reply": text("All good.\n[PDCA] complete")},
    ]  # fmt: skip


def test_a_subagents_unproven_complete_is_sent_back_then_it_stops(case: Case) -> None:
    case.install()
    assert "SubagentStop" in case.settings()["hooks"]
    run = case.run_claude(rules(), prompt=MAIN, extra_env=ENV)
    named = [r for r in run.rules if r is not None]
    assert named == ["main-delegate", "sub-claim", "sub-honest", "main-wrap-up"], run.describe()
    assert run.returncode == 0, run.describe()
    # the subagent's second request carries goalkeeper's reason
    honest = next(e for e in run.requests if e.get("rule") == "sub-honest")
    assert UNPROVEN in str(honest["body"]["messages"]), run.describe()
    refused = [e["data"] for e in case.journal({"subagent_refused"})]
    assert len(refused) == 1 and refused[0]["type"] == "general-purpose", refused
    assert refused[0]["agent"], refused


TODO = "mcp__goalkeeper__todo"
SUB_TODO = "Add the greeting and track it. SUB-9d3"
REFUSED = "todo #1: its completion had no valid evidence"
GAVE_UP = "Task 1 is not done: I have no evidence. SUB-GAVE-UP"


def todo_rules() -> list[dict[str, Any]]:
    agent = {
        "description": "add greeting",
        "prompt": SUB_TODO,
        "subagent_type": "general-purpose",
        "run_in_background": False,
    }
    complete = {"action": "update", "id": 1, "status": "completed"}
    return [
        {"name": "main-wrap-up", "when": {"contains": [MAIN, GAVE_UP]},
         "reply": text("The subagent could not prove task 1.")},
        {"name": "main-delegate", "when": {"contains": MAIN, "not_contains": SUB_TODO},
         "reply": [{"type": "tool_use", "name": "Agent", "input": agent}]},
        {"name": "sub-gave-up", "when": {"contains": SUB_TODO, "not_contains": MAIN,
                                         "tail_contains": REFUSED},
         "reply": text(GAVE_UP)},
        {"name": "sub-done", "when": {"contains": [SUB_TODO, "proof of completion missing"],
                                      "not_contains": MAIN},
         "reply": text("Done.")},
        {"name": "sub-complete", "when": {"contains": [SUB_TODO, '"nextId": 2'],
                                          "not_contains": MAIN},
         "reply": [{"type": "tool_use", "name": TODO, "input": complete}]},
        {"name": "sub-create", "when": {"contains": SUB_TODO, "not_contains": MAIN},
         "reply": [{"type": "tool_use", "name": TODO,
                    "input": {"action": "create", "subject": "greet.sh prints hello"}}]},
    ]  # fmt: skip


def test_a_subagents_refused_todo_holds_its_stop_once_then_the_user_is_told(case: Case) -> None:
    """The subagent completes a todo through goalkeeper's tool without evidence (refused) and
    says "Done.": its stop is blocked naming the todo; when it stops again with the todo still
    refused, it is let go (the user is told its work is unproven), and the main agent's own
    stop then hears of the open todo."""
    case.install()
    run = case.run_claude(todo_rules(), prompt=MAIN, extra_env=ENV)
    named = [r for r in run.rules if r is not None]
    assert named == [
        "main-delegate", "sub-create", "sub-complete", "sub-done", "sub-gave-up", "main-wrap-up",
        "main-wrap-up",
    ], run.describe()  # fmt: skip
    assert run.returncode == 0, run.describe()
    # the main agent, in turn, is told at its own stop that the todo is still open
    assert "todo item(s) are still unfinished" in str(run.requests[-1]["body"]["messages"][-2:])
    refused = [e["data"] for e in case.journal({"subagent_refused"})]
    released = [e["data"] for e in case.journal({"subagent_released"})]
    assert len(refused) == 1 and len(released) == 1, (refused, released)
    assert refused[0]["agent"] == released[0]["agent"] != "", (refused, released)
    # Claude Code shows the user the release (its record of the subagent's run)
    shown = [
        a.get("content", "")
        for a in subagent_attachments(case, run)
        if a.get("type") == "hook_system_message" and a.get("hookEvent") == "SubagentStop"
    ]
    assert any("stopped with its work unproven — todo #1" in t for t in shown), shown


def subagent_attachments(case: Case, run: Any) -> list[dict[str, Any]]:
    """The hook attachments Claude Code recorded in the session's subagent transcripts."""
    session = run.result["session_id"]
    found = (case.home / ".claude" / "projects").glob(f"*/{session}/subagents/*.jsonl")
    return [
        line["attachment"]
        for path in sorted(found)
        for line in read_jsonl(path)
        if isinstance(line.get("attachment"), dict)
    ]
