"""goalkeeper's workflow routes with the real Claude Code CLI, driven by a scripted fake model.

``goalkeeper install claude --local`` registers goalkeeper's MCP server, which serves the
workflow tools (Claude Code names them ``mcp__goalkeeper__workflow`` and
``mcp__goalkeeper__workflow_active``), and the PreToolUse hook that hands each call its session.
The fake model starts the hard-bug route, tries a transition the catalog does not allow, makes a
legal one and completes the work item; the test reads what the model received and goalkeeper's
journal. The project has no plan (``GOALKEEPER_NO_PLAN=silent``), so every decision at Stop is
the workflow guard's own.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from .harness import Case, stop_feedback
from .test_claude_todos import (
    assert_clean_exit,
    assert_no_stray_traffic,
    only_result,
    pre_tool_use_answers,
    result_text,
    text,
    tool_inputs,
)

pytestmark = pytest.mark.e2e

GATEWAY = "mcp__goalkeeper__workflow"
ACTIVE = "mcp__goalkeeper__workflow_active"
ENV = {"GOALKEEPER_NO_PLAN": "silent", "GOALKEEPER_LANG": "en"}
ILLEGAL = (
    "Cannot transition hard-bug from diagnosing-bugs to handoff. Allowed next procedures: "
    "implement, code-review. Complete or cancel the workflow if no next procedure applies."
)


def call(tool: str, **arguments: Any) -> list[dict[str, Any]]:
    return [{"type": "tool_use", "name": tool, "input": arguments}]


def test_hard_bug_start_illegal_then_legal_transition_then_complete(case: Case) -> None:
    """The model starts hard-bug and receives the diagnosing procedure; a jump to handoff is
    refused with the allowed list; implement is accepted and delivers its procedure; completing
    clears the work item, and goalkeeper journals each state with one work item id."""
    case.install()
    rules: list[dict[str, Any]] = [
        {"name": "wrap-up", "when": {"tail_contains": "completed. Persistent active state cleared"},
         "reply": text("The hard bug is fixed and the workflow is complete.")},
        {"name": "complete", "when": {"tail_contains": "transitioned to implement"},
         "reply": call(ACTIVE, action="complete")},
        {"name": "legal", "when": {"tail_contains": "Cannot transition hard-bug"},
         "reply": call(ACTIVE, action="transition", target="implement")},
        {"name": "illegal", "when": {"tail_contains": 'source="procedure/diagnosing-bugs"'},
         "reply": call(ACTIVE, action="transition", target="handoff")},
        {"name": "start", "reply": call(GATEWAY, mode="workflow", route="hard-bug")},
    ]  # fmt: skip
    run = case.run_claude(rules, extra_env=ENV)

    assert run.rules == ["start", "illegal", "legal", "complete", "wrap-up"], run.describe()
    assert_clean_exit(run)
    assert_no_stray_traffic(run)

    started = result_text(only_result(run, 1))
    assert started.startswith("# goalkeeper workflow procedure\n\nRoute: hard-bug\n")
    assert "Phase: feedback-loop" in started
    assert "- Allowed next: implement, code-review" in started
    work_item = started.split("Work item: ", 1)[1].split("\n", 1)[0]
    assert str(uuid.UUID(work_item)) == work_item

    refusal = only_result(run, 2)
    assert refusal.get("is_error") is True
    assert ILLEGAL in result_text(refusal)

    moved = result_text(only_result(run, 3))
    assert "- Synchronous action: transitioned to implement" in moved
    for block in ("implement", "bdd", "tdd"):
        assert f'source="procedure/{block}"' in moved, block
    assert 'source="procedure/diagnosing-bugs"' not in moved  # delivered already: not again

    done = result_text(only_result(run, 4))
    assert done.startswith(f"Workflow {work_item} completed.")

    session = run.result["session_id"]
    calls = tool_inputs(run, GATEWAY) + tool_inputs(run, ACTIVE)
    answers = pre_tool_use_answers(case, run, GATEWAY) + pre_tool_use_answers(case, run, ACTIVE)
    assert len(answers) == len(calls) == 4
    assert all(a["hookSpecificOutput"]["updatedInput"]["session"] == session for a in answers)

    records = [e["data"] for e in case.journal({"workflow"})]
    assert [(r["procedure"], r["status"]) for r in records] == [
        ("diagnosing-bugs", "active"),
        ("implement", "active"),
        ("implement", "completed"),
    ]
    assert {r["workItemId"] for r in records} == {work_item}

    # the MCP server cannot tell the user; the Stop hook shows what happened, in order
    shown = "\n".join(message for _, message in case.stop_hook_outcomes(run))
    assert "[goalkeeper] started · Reproducing & Diagnostics" in shown, shown
    assert shown.index("started ·") < shown.index("completed"), shown


def test_the_workflow_command_starts_a_route_with_the_users_task(case: Case) -> None:
    """`/workflow hard-bug <task>` in Claude Code: goalkeeper starts the route from the prompt
    hook, so the model's first request already carries the procedure and the user's task; a
    stop while the work item is active is sent back once, then allowed."""
    case.install()
    assert (case.proj / ".claude" / "commands" / "workflow.md").is_file()
    rules: list[dict[str, Any]] = [
        {"name": "first", "when": {"contains": 'source="procedure/diagnosing-bugs"'},
         "reply": text("I will build a red loop for the redirect first.")},
    ]  # fmt: skip
    run = case.run_claude(rules, prompt="/workflow hard-bug fix the login redirect", extra_env=ENV)
    assert run.rules == ["first", "first"], run.describe()
    assert_clean_exit(run)
    nudge = stop_feedback(run.requests[1])
    assert len(nudge) == 1 and "is still active" in nudge[0], nudge
    first = json.dumps(run.requests[0]["body"]["messages"])
    assert "User target/request:\\nfix the login redirect" in first
    records = [e["data"] for e in case.journal({"workflow"})]
    assert [(r["route"], r["status"]) for r in records] == [("hard-bug", "active")]


def test_a_long_route_start_arrives_whole_and_the_model_reads_the_rest(case: Case) -> None:
    """`/workflow wayfinding <task>`: the wayfinder method alone is longer than Claude Code's
    10,000-character cap on a hook's context, so goalkeeper sends the frame, the task and what
    fits (the whole message arrives, not a preview), and the model reads the other parts with
    the gateway's read mode, each a tool result that arrives whole, until the last."""
    case.install()
    rules: list[dict[str, Any]] = [
        {"name": "nudged", "when": {"tail_contains": "is still active"},
         "reply": text("I wait for the user before the next step.")},
        {"name": "wrap-up", "when": {"tail_contains": "That was the last part"},
         "reply": text("I have read every part of the procedure.")},
        {"name": "read-again", "when": {"tail_contains": "more part(s) to read"},
         "reply": call(GATEWAY, mode="read")},
        {"name": "read", "when": {"contains": "with mode read now"},
         "reply": call(GATEWAY, mode="read")},
    ]  # fmt: skip
    task = "map the billing exports before the rewrite"
    run = case.run_claude(rules, prompt=f"/workflow wayfinding {task}", extra_env=ENV)
    assert run.rules == ["read", "read-again", "wrap-up", "nudged"], run.describe()
    assert_clean_exit(run)
    first = json.dumps(run.requests[0]["body"]["messages"])
    assert f"User target/request:\\n{task}" in first
    assert "## Workflow state contract" in first  # the end of the message: it came whole
    assert "persisted-output" not in first and "Output too large" not in first
    parts = [result_text(only_result(run, i)) for i in (1, 2)]
    assert parts[0].startswith("# goalkeeper procedure texts, part 2 of 3"), parts[0][:200]
    assert parts[1].startswith("# goalkeeper procedure texts, part 3 of 3"), parts[1][:200]
    assert all('source="procedure/' in p for p in parts)
    assert all(len(p) <= 10_000 for p in parts)


ASK = "mcp__goalkeeper__workflow_ask"
QUESTION = {"question": "Which fix first?", "options": ["the parser", "the cache"],
            "recommended": "the parser"}  # fmt: skip


def ask_rules() -> list[dict[str, Any]]:
    return [
        {"name": "wrap-up", "when": {"tail_contains": "completed. Persistent active state cleared"},
         "reply": text("Done.")},
        {"name": "complete", "when": {"tail_contains": "is still active"},
         "reply": call(ACTIVE, action="complete")},
        {"name": "after", "when": {"tail_contains": "User selected"},
         "reply": text("Going with the user's choice.")},
        {"name": "pending", "when": {"tail_contains": "[Pending user decision]"},
         "reply": text("I wait for the user's decision.")},
        {"name": "ask", "when": {"tail_contains": 'source="procedure/diagnosing-bugs"'},
         "reply": call(ASK, **QUESTION)},
        {"name": "start", "reply": call(GATEWAY, mode="workflow", route="hard-bug")},
    ]  # fmt: skip


def add_hook(case: Case, event: str, command: str) -> None:
    settings = case.settings()
    hooks = settings.setdefault("hooks", {})
    hooks.setdefault(event, []).append({"hooks": [{"type": "command", "command": command}]})
    case.settings_path.write_text(json.dumps(settings, indent=2), "utf-8")


def test_workflow_ask_is_a_form_the_user_answers(case: Case) -> None:
    """Claude Code shows goalkeeper's question as an MCP elicitation form; here an Elicitation
    hook answers it as a user would (``-p`` has no screen), and the model gets the answer."""
    case.install()
    answer = {"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept",
                                     "content": {"answer": "the cache"}}}  # fmt: skip
    log = case.root / "elicitation.json"
    add_hook(case, "Elicitation", f"tee {log} >/dev/null; echo '{json.dumps(answer)}'")
    run = case.run_claude(ask_rules(), extra_env=ENV)
    assert run.rules == ["start", "ask", "after", "complete", "wrap-up"], run.describe()
    assert_clean_exit(run)
    assert result_text(only_result(run, 2)) == "User selected: the cache"
    asked = json.loads(log.read_text("utf-8"))
    assert asked["mcp_server_name"] == "goalkeeper" and "Which fix first?" in asked["message"]
    assert asked["requested_schema"]["properties"]["answer"]["default"] == "the parser"


def test_workflow_ask_without_an_answer_stays_pending(case: Case) -> None:
    """``-p`` with nobody to answer the form: Claude Code cancels it, and the decision stays
    pending; no answer is made up and the recommendation is not taken."""
    case.install()
    run = case.run_claude(ask_rules(), extra_env=ENV)
    assert run.rules == ["start", "ask", "pending", "complete", "wrap-up"], run.describe()
    assert_clean_exit(run)
    pending = result_text(only_result(run, 2))
    assert pending.startswith("[Pending user decision] No answer was selected."), pending
