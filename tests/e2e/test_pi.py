"""goalkeeper inside the real Pi agent, on both pinned lines (0.73.1 and 1.6.0), end to end.

``goalkeeper install pi --user`` puts the extension in the case's Pi configuration folder (a
user extension: Pi ≥ 0.80 loads it without a project trust decision); Pi runs in RPC mode
against the scripted fake model, and every goalkeeper decision is made by the real
``goalkeeper bridge pi`` process the extension starts. Pi 1.6 continues through
``agent_before_settle``; Pi 0.73 through the settle heuristic and a turn-starting message.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.store.db import state_path

from .pi_harness import PiCase, PiRpc, tail_messages, tool_outputs

pytestmark = pytest.mark.e2e

PLAN = """\
## SWOT
S: a small calculator with tests

## Objective
People can trust the calculator's sums.

## Key Results
- [ ] KR: failing tests 1 → 0

## User Story Map
- [x] add two numbers
"""
REFUSAL = "Not closed yet:"
GUIDANCE = "goalkeeper keeps this task on its plan until it is proven done."
PAUSE_CAP = "goalkeeper paused"
# A goalkeeper continuation reaches the model this long after Pi settles, at most (the 0.73
# heuristic waits a 0.5 s quiet window; the bridge then decides in a few milliseconds).
SETTLE_KW: dict[str, float] = {"quiet": 1.5, "grace": 1.5, "timeout": 40}


def text(reply: str) -> dict[str, Any]:
    return {"type": "text", "text": reply}


def tool(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "arguments": arguments}


def install(case: PiCase, extra_env: dict[str, str] | None = None) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(case.proj), "install", "pi", "--user"],
        env=case.env(extra_env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert (case.agent_dir / "extensions" / "goalkeeper.ts").is_file()


def goalkeeper_env(**extra: str) -> dict[str, str]:
    return {"GOALKEEPER_LANG": "en", **extra}


def tails(case: PiCase) -> list[str]:
    """For each chat request, the text of the messages after the model's last reply."""
    out = []
    for request in case.fake.chat_requests():
        parts = []
        for message in tail_messages(request):
            content = message.get("content")
            if isinstance(content, list):
                content = "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
            parts.append(str(content or ""))
        out.append("\n".join(parts))
    return out


def system_prompts(case: PiCase) -> list[str]:
    out = []
    for request in case.fake.chat_requests():
        messages = request.get("body", {}).get("messages") or []
        system = [m for m in messages if m.get("role") in ("system", "developer")]
        out.append(str(system[0].get("content")) if system else "")
    return out


def notices(rpc: PiRpc) -> list[str]:
    """What goalkeeper told the user (Pi's UI notifications, as RPC records)."""
    return [
        str(e.get("message", ""))
        for e in rpc.events
        if e.get("type") == "extension_ui_request" and e.get("method") == "notify"
    ]


def start(case: PiCase, env: dict[str, str]) -> PiRpc:
    return case.rpc(env=env)


# -------------------------------------------------------------------------------------------
# 1. An early "[PDCA] complete" is refused; the refusal is the model's next message.
# -------------------------------------------------------------------------------------------
def test_an_early_complete_is_refused_in_the_next_message(pi_case: PiCase) -> None:
    """The model claims completion with a key result open: Pi's next model request carries
    goalkeeper's refusal naming it, once; the second continuation hits the cap and pauses."""
    (pi_case.proj / "plan").mkdir()
    (pi_case.proj / "plan" / "calc.md").write_text(PLAN, encoding="utf-8")
    pi_case.fake.set_rules(
        [
            {"name": "after-refusal", "when": {"tail_contains": REFUSAL},
             "reply": [text("The key result is still open; working on it.\n\n[PDCA] do")]},
            {"name": "early-complete", "when": {"tail_contains": "Fix the calculator"},
             "reply": [text("All done.\n\n[PDCA] complete")]},
        ]
    )  # fmt: skip
    env = goalkeeper_env(GOALKEEPER_MAX_CONTINUATIONS="1")
    install(pi_case, env)
    rpc = start(pi_case, env)
    rpc.prompt("Fix the calculator.")
    rpc.wait_settled(**SETTLE_KW)

    assert [r.get("rule") for r in pi_case.fake.chat_requests()] == [
        "early-complete",
        "after-refusal",
    ], pi_case.fake.describe()
    first, second = tails(pi_case)
    assert REFUSAL not in first
    assert REFUSAL in second and "failing tests 1 → 0" in second and "OKR gate" in second
    assert GUIDANCE in system_prompts(pi_case)[0]  # static guidance in the run's system prompt
    assert "People can trust the calculator's sums." in first  # the plan's anchors
    assert any(PAUSE_CAP in n for n in notices(rpc)), notices(rpc)


# -------------------------------------------------------------------------------------------
# 2. goalkeeper's todo tool refuses a completion without evidence.
# -------------------------------------------------------------------------------------------
def test_a_todo_completion_without_evidence_is_refused(pi_case: PiCase) -> None:
    """The model creates a todo and marks it completed with no evidence: the tool result it
    reads is goalkeeper's refusal, and the todo stays open."""
    pi_case.fake.set_rules(
        [
            {"name": "accept", "when": {"last_is_tool_result": True, "tail_contains": "evidence"},
             "reply": [text("I will gather evidence first.\n\n[PDCA] do")]},
            {"name": "complete", "when": {"last_is_tool_result": True,
                                          "tail_contains": '"subject": "ship the export"'},
             "reply": [tool("todo", action="update", id=1, status="completed")]},
            {"name": "create", "when": {"tail_contains": "Plan the export"},
             "reply": [tool("todo", action="create", subject="ship the export")]},
        ]
    )  # fmt: skip
    env = goalkeeper_env(GOALKEEPER_NO_PLAN="silent", GOALKEEPER_MAX_CONTINUATIONS="1")
    install(pi_case, env)
    rpc = start(pi_case, env)
    rpc.prompt("Plan the export.")
    rpc.wait_settled(**SETTLE_KW)

    rules = [r.get("rule") for r in pi_case.fake.chat_requests()]
    assert rules[:3] == ["create", "complete", "accept"], pi_case.fake.describe()
    offered = pi_case.fake.chat_requests()[0]["body"].get("tools") or []
    assert "todo" in [t.get("function", {}).get("name") for t in offered]
    created = json.loads(tool_outputs(pi_case.fake.chat_requests()[1])[-1])
    assert created["task"]["status"] == "pending"
    refusal = tool_outputs(pi_case.fake.chat_requests()[2])[-1]
    assert "evidence" in refusal and "completed" in refusal, refusal
    assert created["task"]["id"] == 1


# -------------------------------------------------------------------------------------------
# 3. A provider retry in between: one continuation, after the true settle, no false pause.
# -------------------------------------------------------------------------------------------
def test_a_provider_retry_does_not_cause_a_second_continuation(pi_case: PiCase) -> None:
    """The first model request fails with a 503 and Pi retries it: goalkeeper neither pauses
    for the error nor continues twice; the refusal reaches the model exactly once."""
    (pi_case.proj / "plan").mkdir()
    (pi_case.proj / "plan" / "calc.md").write_text(PLAN, encoding="utf-8")
    pi_case.fake.set_rules(
        [
            {"name": "outage", "when": {"tail_contains": "Check the sums"}, "times": 1,
             "error": {"status": 503, "message": "Service Unavailable (scripted)",
                       "type": "server_error"}},
            {"name": "after-refusal", "when": {"tail_contains": REFUSAL},
             "reply": [text("Still open; on it.\n\n[PDCA] do")]},
            {"name": "early-complete", "when": {"tail_contains": "Check the sums"},
             "reply": [text("All done.\n\n[PDCA] complete")]},
        ]
    )  # fmt: skip
    env = goalkeeper_env(GOALKEEPER_MAX_CONTINUATIONS="1")
    install(pi_case, env)
    rpc = start(pi_case, env)
    rpc.prompt("Check the sums.")
    rpc.wait_settled(**SETTLE_KW)

    rules = [r.get("rule") for r in pi_case.fake.chat_requests()]
    assert rules == ["outage", "early-complete", "after-refusal"], pi_case.fake.describe()
    assert sum(REFUSAL in t for t in tails(pi_case)) == 1
    assert not any("error" in n.lower() and "paus" in n.lower() for n in notices(rpc)), notices(rpc)


# -------------------------------------------------------------------------------------------
# 4. The bridge process killed mid-session: restarted once, then Pi goes on without it.
# -------------------------------------------------------------------------------------------
def test_a_killed_bridge_is_restarted_once_then_pi_goes_on_without_it(
    pi_case: PiCase, tmp_path: Path
) -> None:
    """Kill goalkeeper's Python process: the next prompt gets a new one (the guidance is back
    in the system prompt); kill that too: the user is told goalkeeper is off, and Pi still
    answers the next prompt, now without goalkeeper."""
    pids = tmp_path / "bridge-pids"
    wrapper = tmp_path / "bridge.sh"
    wrapper.write_text(
        f'#!/bin/sh\necho $$ >> "{pids}"\nexec "{sys.executable}" -m goalkeeper "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    pi_case.fake.set_rules([{"name": "answer", "reply": [text("Noted.\n\n[PDCA] plan")]}])
    env = goalkeeper_env(
        GOALKEEPER_NO_PLAN="silent",
        GOALKEEPER_MAX_CONTINUATIONS="0",
        GOALKEEPER_PI_COMMAND=json.dumps([str(wrapper)]),
    )
    install(pi_case, env)
    rpc = start(pi_case, env)

    def prompt_and_settle(words: str) -> None:
        rpc.prompt(words)
        rpc.wait_settled(**SETTLE_KW)

    def kill_current() -> None:
        pid = int(pids.read_text().split()[-1])
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the extension sees the exit; wait until it has
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        time.sleep(0.3)

    prompt_and_settle("First task.")
    assert len(pids.read_text().split()) == 1
    kill_current()
    prompt_and_settle("Second task.")
    assert len(pids.read_text().split()) == 2, "the extension did not start a new bridge"
    kill_current()
    prompt_and_settle("Third task.")

    prompts = system_prompts(pi_case)
    assert len(prompts) >= 3, pi_case.fake.describe()
    assert GUIDANCE in prompts[0] and GUIDANCE in prompts[1]
    assert GUIDANCE not in prompts[-1]  # goalkeeper is off: Pi answered on its own
    assert len(pids.read_text().split()) == 2  # not restarted a second time
    assert any("goalkeeper is off for this session" in n for n in notices(rpc)), notices(rpc)


# -------------------------------------------------------------------------------------------
# 5. goalkeeper pi run: headless, the outcome as an exit status and JSON.
# -------------------------------------------------------------------------------------------
def pi_run(case: PiCase, prompt: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    pi_cmd = " ".join(json.dumps(a) for a in case.cli.argv())
    return subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(case.proj), "pi", "run", "--json",
         "--pi", pi_cmd, "--prompt", prompt, "--timeout", "60", "--", *case.base_args()],
        env=case.env(env), capture_output=True, text=True, timeout=120, cwd=case.proj,
    )  # fmt: skip


CALC_TEST = "def test_sum():\n    assert 2 + 2 == 4\n"


def test_pi_run_reports_a_pause_and_a_close(pi_case: PiCase) -> None:
    """`goalkeeper pi run` (no install needed): an open key result keeps the agent going until
    the continuation cap pauses it (exit 1, outcome paused); with every key result closed, a
    check that ran the project's test (Pi reports how the call ended) and then a reported
    completion, goalkeeper closes the task (exit 0, outcome closed)."""
    plan = pi_case.proj / "plan" / "calc.md"
    plan.parent.mkdir()
    plan.write_text(PLAN, encoding="utf-8")
    pi_case.fake.set_rules(
        [
            {"name": "after-refusal", "when": {"tail_contains": REFUSAL},
             "reply": [text("Still open.\n\n[PDCA] do")]},
            {"name": "complete", "reply": [text("All done.\n\n[PDCA] complete")]},
        ]
    )  # fmt: skip
    proc = pi_run(pi_case, "Fix the calculator.", goalkeeper_env(GOALKEEPER_MAX_CONTINUATIONS="1"))
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout)
    assert result["outcome"] == "paused" and "max_continuations" in result["reason"], result
    assert [r.get("rule") for r in pi_case.fake.chat_requests()] == ["complete", "after-refusal"]

    plan.write_text(PLAN.replace("- [ ] KR", "- [x] KR"), encoding="utf-8")
    (pi_case.proj / "test_calc.py").write_text(CALC_TEST, encoding="utf-8")
    check = f"{sys.executable} -m pytest -q -p no:cacheprovider"
    pi_case.fake.set_rules(
        [
            {"name": "run-check", "when": {"tail_contains": "Check the calculator"},
             "reply": [tool("bash", command=check)]},
            {"name": "report-check", "when": {"last_is_tool_result": True},
             "reply": [text("The check passed.\n\n[PDCA] check")]},
            {"name": "complete", "reply": [text("Done.\n\n[PDCA] complete")]},
        ]
    )  # fmt: skip
    proc = pi_run(pi_case, "Check the calculator.", goalkeeper_env())
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["outcome"] == "closed", (result, pi_case.fake.describe())
    assert result["last_text"].endswith("[PDCA] complete")
    assert any("every gate passes" in n for n in result["notices"]), result
    # Pi's tool_result said how the call ended: the check is a test run that passed.
    status = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(pi_case.proj), "status", "--json",
         "--limit", "1000"],
        env=pi_case.env(), capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    checks = [e["data"] for e in json.loads(status.stdout)["recent"] if e["kind"] == "check"]
    assert checks[-1]["status"] == "passed", checks
    assert checks[-1]["ran"] == [{"command": check, "verdict": "passed"}], checks


# -------------------------------------------------------------------------------------------
# 6. /goal in Pi; a paused goal asks the user, and "continue" resumes it.
# -------------------------------------------------------------------------------------------
CHECK = "import sys\nprint('FAILED test_sum - expected 4, got 5')\nsys.exit(1)\n"
GIVE_UP = "I cannot find the bug.\n\n[GOAL] blocked: the check's expectation looks wrong"


GOAL_COMMAND = "/goal `python3 check.py` passes"
EARLY_RULES = [
    {"name": "retry-same", "when": {"tail_contains": "[1/3]"},
     "reply": [text("Fixed it, I believe.\n\n[PDCA] check")]},
    {"name": "early-stop", "when": {"tail_contains": "Goal: `python3 check.py` passes"},
     "reply": [text("Done, I think.\n\n[PDCA] check")]},
]  # fmt: skip
"""The agent stops early, then again without a change: the check fails the same way twice."""


def failing_goal_session(
    case: PiCase, pick: str, asked: list[dict[str, Any]], first_rule: dict[str, Any]
) -> PiRpc:
    """A Pi session with a failing check in which the user answers Pi's select with the option
    starting with ``pick``; ``first_rule`` is the model's answer after that. It sends the goal
    and waits until Pi settles."""
    (case.proj / "check.py").write_text(CHECK, encoding="utf-8")

    def answer(request: dict[str, Any]) -> dict[str, Any] | None:
        asked.append(request)
        if request.get("method") == "select":
            options = [str(o) for o in request.get("options") or []]
            return {"value": next(o for o in options if o.startswith(pick))}
        return None

    case.fake.set_rules([first_rule, *EARLY_RULES])
    env = goalkeeper_env(GOALKEEPER_NO_PLAN="silent")
    install(case, env)
    rpc = case.rpc(env=env, ui_handler=answer)
    send_and_settle(rpc, GOAL_COMMAND)
    return rpc


def send_and_settle(rpc: PiRpc, prompt: str) -> None:
    mark = rpc.mark()
    rpc.prompt(prompt)
    rpc.wait_event("agent_start", since=mark, timeout=30)
    rpc.wait_settled(since=mark, **SETTLE_KW)


def test_goal_command_runs_the_check_and_a_paused_goal_asks_the_user(pi_case: PiCase) -> None:
    """`/goal` sets a goal goalkeeper verifies itself: the early stop gets the real failure
    ([1/3]); the same failure again pauses the goal and asks the user in Pi's UI; answering
    "Continue" makes the goal active again and sends the agent back with the failure."""
    asked: list[dict[str, Any]] = []
    give_up = {"name": "give-up", "when": {"tail_contains": "The user chose to continue the goal"},
               "reply": [text(GIVE_UP)]}  # fmt: skip
    failing_goal_session(pi_case, "Continue", asked, give_up)

    rules = [r.get("rule") for r in pi_case.fake.chat_requests()]
    assert rules == ["early-stop", "retry-same", "give-up"], pi_case.fake.describe()
    feedback = tails(pi_case)
    assert "[1/3] `python3 check.py` failed (exit 1)" in feedback[1]
    assert "FAILED test_sum - expected 4, got 5" in feedback[1]
    selects = [r for r in asked if r.get("method") == "select"]
    assert len(selects) == 1 and "goalkeeper paused the goal" in str(selects[0].get("title"))
    assert "FAILED test_sum" in feedback[2]  # the resumed goal's last failure, sent back
    goal_md = (pi_case.proj / ".agents" / "goal" / "GOAL.md").read_text(encoding="utf-8")
    assert "resumed by the user" in goal_md
    assert "status: blocked" in goal_md and "the check's expectation looks wrong" in goal_md


def test_sending_a_paused_goal_again_resumes_it_where_it_stopped(pi_case: PiCase) -> None:
    """Seed 004 §4.4 (audit D9) on Pi: the user answers "Stop here" to the paused goal, then
    sends the same `/goal` again. It resumes from its last failure (the round count stays) and
    the unchanged check fails the same way, so the goal pauses again at once rather than
    starting over at [1/3]. The agent heard that it resumed."""
    resumed = {"name": "resumed", "when": {"tail_contains": "it resumes from where it stopped"},
               "reply": [text("Looking again.\n\n[PDCA] check")]}  # fmt: skip
    rpc = failing_goal_session(pi_case, "Stop here", [], resumed)
    goal_file = pi_case.proj / ".agents" / "goal" / "GOAL.md"
    assert "status: blocked" in goal_file.read_text(encoding="utf-8")

    send_and_settle(rpc, GOAL_COMMAND)
    rules = [r.get("rule") for r in pi_case.fake.chat_requests()]
    assert rules == ["early-stop", "retry-same", "resumed"], pi_case.fake.describe()
    doc = goal_file.read_text(encoding="utf-8")
    assert "resumed by the user" in doc and "attempts: 1" in doc, doc
    assert doc.count("failed again with the same failure") == 2, doc
    assert not (pi_case.proj / ".agents" / "goal" / "archive").exists()


# -------------------------------------------------------------------------------------------
# 7. Context pressure: goalkeeper compacts through Pi itself, then continues.
# -------------------------------------------------------------------------------------------
def test_a_full_context_is_compacted_by_pi_then_the_agent_continues(pi_case: PiCase) -> None:
    """The model's usage says the context is 82% full (of the model's own 128k window, as Pi
    reports it): goalkeeper has Pi compact with its instructions, and only then continues."""
    (pi_case.proj / "plan").mkdir()
    (pi_case.proj / "plan" / "calc.md").write_text(PLAN, encoding="utf-8")
    pi_case.fake.set_rules(
        [
            {"name": "after", "when": {"has_tools": True, "tail_contains": "Next: [PDCA] check"},
             "reply": [text("Checked.\n\n[PDCA] check")]},
            {"name": "heavy", "when": {"has_tools": True, "tail_contains": "Work on the calc"},
             "usage": {"prompt_tokens": 105_000},
             "reply": [text("Working.\n\n[PDCA] do")]},
        ]
    )  # fmt: skip
    env = goalkeeper_env(GOALKEEPER_MAX_CONTINUATIONS="1")
    install(pi_case, env)
    rpc = start(pi_case, env)
    rpc.prompt("Work on the calculator.")
    rpc.wait_settled(**SETTLE_KW)
    rpc.wait_event(lambda e: any("max_continuations" in n for n in notices(rpc)), timeout=30)

    requests = pi_case.fake.chat_requests()
    rules = [r.get("rule") or r.get("note") for r in requests]
    assert rules == ["heavy", "no tools: default summary", "after"], pi_case.fake.describe()
    summary_request = json.dumps(requests[1]["body"])
    assert "Keep the plan path, the objective" in summary_request  # goalkeeper's instructions


def test_an_installed_copy_and_pi_runs_copy_serve_the_session_once(pi_case: PiCase) -> None:
    """With goalkeeper installed and `pi run` loading it again with -e, one copy serves the
    session: one bridge process, one refusal, not two."""
    (pi_case.proj / "plan").mkdir()
    (pi_case.proj / "plan" / "calc.md").write_text(PLAN, encoding="utf-8")
    pi_case.fake.set_rules(
        [
            {"name": "after-refusal", "when": {"tail_contains": REFUSAL},
             "reply": [text("Still open.\n\n[PDCA] do")]},
            {"name": "complete", "reply": [text("All done.\n\n[PDCA] complete")]},
        ]
    )  # fmt: skip
    env = goalkeeper_env(GOALKEEPER_MAX_CONTINUATIONS="1")
    install(pi_case, env)
    proc = pi_run(pi_case, "Fix the calculator.", env)
    assert proc.returncode == 1, proc.stderr
    session = json.loads(proc.stdout)["session"]
    assert [r.get("rule") for r in pi_case.fake.chat_requests()] == ["complete", "after-refusal"]
    db = sqlite3.connect(state_path(pi_case.proj))
    try:
        hellos = db.execute(
            "SELECT COUNT(*) FROM journal WHERE kind = 'host' AND session_id = ?", (session,)
        ).fetchone()[0]
    finally:
        db.close()
    assert hellos == 1


# -------------------------------------------------------------------------------------------
# 8. Workflow routes through Pi's own tools (declared by Python, registered by the extension).
# -------------------------------------------------------------------------------------------
def test_a_workflow_runs_through_the_tools_goalkeeper_declares(pi_case: PiCase) -> None:
    """The model starts hard-bug with the `workflow` tool, is refused an illegal transition with
    the allowed list, moves to implement and completes; each result reaches the model, and the
    active-workflow tools are offered only while the workflow is active."""
    pi_case.fake.set_rules(
        [
            {"name": "wrap-up", "when": {"last_is_tool_result": True,
                                         "tail_contains": "Persistent active state cleared"},
             "reply": [text("Fixed and complete.")]},
            {"name": "complete", "when": {"last_is_tool_result": True,
                                          "tail_contains": "transitioned to implement"},
             "reply": [tool("workflow_active", action="complete")]},
            {"name": "legal", "when": {"last_is_tool_result": True,
                                       "tail_contains": "Cannot transition hard-bug"},
             "reply": [tool("workflow_active", action="transition", target="implement")]},
            {"name": "illegal", "when": {"last_is_tool_result": True,
                                         "tail_contains": 'source="procedure/diagnosing-bugs"'},
             "reply": [tool("workflow_active", action="transition", target="handoff")]},
            {"name": "start", "when": {"tail_contains": "The login redirect loops"},
             "reply": [tool("workflow", mode="workflow", route="hard-bug")]},
        ]
    )  # fmt: skip
    env = goalkeeper_env(GOALKEEPER_NO_PLAN="silent")
    install(pi_case, env)
    rpc = start(pi_case, env)
    rpc.prompt("The login redirect loops.")
    rpc.wait_settled(**SETTLE_KW)

    requests = pi_case.fake.chat_requests()
    assert [r.get("rule") for r in requests] == ["start", "illegal", "legal", "complete", "wrap-up"]

    def offered(request: dict[str, Any]) -> set[str]:
        return {t.get("function", {}).get("name") for t in request["body"].get("tools") or []}

    assert {"workflow", "todo"} <= offered(requests[0])
    active_only = {"workflow_active", "workflow_ask"}
    if pi_case.cli.has_settle_events:  # Pi 1.6 refreshes a run's tools; 0.73 keeps them all
        assert not active_only & offered(requests[0])
        assert active_only <= offered(requests[1])
        assert not active_only & offered(requests[4])
    else:
        assert all(active_only <= offered(r) for r in requests)
    assert "Allowed next procedures: implement, code-review" in tool_outputs(requests[2])[-1]
    assert 'source="procedure/implement"' in tool_outputs(requests[3])[-1]
    assert "completed. Persistent active state cleared" in tool_outputs(requests[4])[-1]


def test_workflow_ask_shows_a_dialog_in_pi_and_the_answer_reaches_the_model(
    pi_case: PiCase,
) -> None:
    """During a workflow the model asks the user with `workflow_ask`: Pi shows the choices (plus
    a custom answer) in its UI, and the user's choice is the tool's result."""
    asked: list[dict[str, Any]] = []

    def answer(request: dict[str, Any]) -> dict[str, Any] | None:
        asked.append(request)
        return {"value": "Drop the cookie"} if request.get("method") == "select" else None

    pi_case.fake.set_rules(
        [
            {"name": "yield", "when": {"tail_contains": "is still active"},
             "reply": [text("The fix waits for the user's review; stopping here.")]},
            {"name": "done", "when": {"last_is_tool_result": True,
                                      "tail_contains": "User selected: Drop the cookie"},
             "reply": [text("Going with dropping the cookie.")]},
            {"name": "ask", "when": {"last_is_tool_result": True,
                                     "tail_contains": 'source="procedure/diagnosing-bugs"'},
             "reply": [tool("workflow_ask", question="Which fix?",
                            options=["Guard the redirect", "Drop the cookie"],
                            recommended="Guard the redirect")]},
            {"name": "start", "when": {"tail_contains": "The login redirect loops"},
             "reply": [tool("workflow", mode="workflow", route="hard-bug")]},
        ]
    )  # fmt: skip
    env = goalkeeper_env(GOALKEEPER_NO_PLAN="silent")
    install(pi_case, env)
    rpc = pi_case.rpc(env=env, ui_handler=answer)
    rpc.prompt("The login redirect loops.")
    rpc.wait_settled(**SETTLE_KW)

    rules = [r.get("rule") for r in pi_case.fake.chat_requests()]
    assert rules == ["start", "ask", "done", "yield"], pi_case.fake.describe()
    [select] = [r for r in asked if r.get("method") == "select"]
    assert select.get("options") == [
        "Guard the redirect",
        "Drop the cookie",
        "Type custom answer...",
    ]
    assert select.get("timeout") == 60_000
