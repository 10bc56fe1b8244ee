"""goalkeeper with the real Gemini CLI (0.61.0), driven by a scripted fake Gemini API.

Each case installs goalkeeper's hooks with ``goalkeeper install gemini`` into a fresh git
repository, runs ``gemini -p`` headless against ``fake_gemini.py`` and asserts on what the model
received (the fake server's request log), on how the CLI ended, on the files on disk and on
goalkeeper's journal (``goalkeeper status --json``).

Stages of a script are told apart by text that appears in the conversation only once a stage
happened: a tool's output, goalkeeper's continuation, the model's earlier replies. Rules are
listed latest stage first.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import pytest

from .gemini_harness import GeminiCase, GeminiRun, function_responses, newest_entry, texts

pytestmark = pytest.mark.e2e

TOPIC = "greet"
KR_TEXT = "KR1: greeting script prints hello 0 → 1"
LEAF_TEXT = "user runs greet.sh and sees hello"
PLAN = f"""# Greeting
## SWOT
S: the script is tiny
W: nothing tests it yet
O: a quick visible win
T: none known
## Objective
A user who runs greet.sh sees a friendly greeting.
## Key Results
- [ ] {KR_TEXT}
## User Story Map
- Slice 1
  - [ ] {LEAF_TEXT}
"""
TICKED_PLAN = PLAN.replace("- [ ]", "- [x]")
MARKER_TEST = """import os


def test_marker():
    print(os.environ["MARK_HEAD"] + "-" + os.environ["MARK_TAIL"])
"""
REFUSAL = "Not closed yet:"
AFTER_CHECK = "Evidence in hand."
CLOSE_MESSAGE = "goalkeeper: every gate passes (check, okr, map); the task is closed."


def text(reply: str) -> list[dict[str, Any]]:
    return [{"text": reply}]


def shell(command: str) -> list[dict[str, Any]]:
    return [{"functionCall": {"name": "run_shell_command",
                              "args": {"command": command, "description": "step"}}}]  # fmt: skip


def run_test(marker: str) -> list[dict[str, Any]]:
    """The project's test run through the shell; its *output* holds ``marker``."""
    head, _, tail = marker.rpartition("-")
    return shell(
        f"MARK_HEAD={head} MARK_TAIL={tail} {sys.executable} -m pytest -q -s -p no:cacheprovider"
    )


def write_file(path: str, content: str) -> list[dict[str, Any]]:
    return [{"functionCall": {"name": "write_file",
                              "args": {"file_path": path, "content": content}}}]  # fmt: skip


def assert_clean_exit(run: GeminiRun) -> None:
    assert run.returncode == 0, run.describe()
    assert run.events and run.events[-1].get("type") == "result", run.describe()
    assert run.events[-1].get("status") == "success", run.describe()
    assert run.stray == [], run.describe()


def kinds(entries: list[dict[str, Any]]) -> list[str]:
    return [e["kind"] for e in entries]


# -------------------------------------------------------------------------------------------
# 1. An early "[PDCA] complete" is refused; a proven one closes.
# -------------------------------------------------------------------------------------------
def test_early_complete_is_refused_then_a_proven_close_ends_the_run(
    gemini_case: GeminiCase,
) -> None:
    case = gemini_case
    case.write_plan(TOPIC, PLAN)
    (case.proj / "test_marker.py").write_text(MARKER_TEST, encoding="utf-8")
    settings = case.install()
    assert set(settings["hooks"]) == {
        "SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent"
    }  # fmt: skip
    plan = str(case.plan_path(TOPIC))
    rules = [
        {"name": "complete", "when": {"last_contains": AFTER_CHECK},
         "reply": text("Proven: greet.sh prints hello.\n[PDCA] complete")},
        {"name": "check", "when": {"last_contains": "EVIDENCE-OK",
                                   "last_has_function_response": True},
         "reply": text("The evidence matches the plan; both items are ticked.\n[PDCA] check")},
        {"name": "run-evidence", "when": {"contains": REFUSAL, "last_has_function_response": True},
         "reply": run_test("EVIDENCE-OK")},
        {"name": "tick-plan", "when": {"last_contains": REFUSAL},
         "reply": write_file(plan, TICKED_PLAN)},
        {"name": "early-complete", "reply": text("I think greet.sh works now.\n[PDCA] complete")},
    ]  # fmt: skip
    run = case.run(rules)
    assert run.rules == ["early-complete", "tick-plan", "run-evidence", "check", "complete"], (
        run.describe()
    )
    assert_clean_exit(run)

    # The refusal is the continuation Gemini sent the model as a new user turn: every
    # failing gate, every open item, the ways out.
    refusal = "\n".join(texts(newest_entry(run.requests[1])))
    assert refusal.startswith(REFUSAL), refusal
    for part in ("Check gate", "OKR gate", "Map gate", f"- [ ] {KR_TEXT}", f"- [ ] {LEAF_TEXT}"):
        assert part in refusal, f"{part!r} is missing from the refusal:\n{refusal}"
    # The tools really ran: the plan was rewritten, the test produced the evidence.
    assert case.plan_path(TOPIC).read_text("utf-8") == TICKED_PLAN
    (evidence,) = function_responses(newest_entry(run.requests[3]))
    assert "EVIDENCE-OK" in str(evidence) and "1 passed" in str(evidence), evidence
    # The check was continued; the second complete closed the task.
    assert "\n".join(texts(newest_entry(run.requests[4]))).startswith(AFTER_CHECK)
    journal = case.journal({"refused", "closed"})
    assert kinds(journal) == ["refused", "closed"], journal
    assert journal[0]["data"]["gates"] == ["check", "okr", "map"]
    settles = [e["data"] for e in case.journal({"settle"})]
    assert settles == [
        {"phase": "complete", "tools": 0},
        {"phase": "check", "tools": 2},
        {"phase": "complete", "tools": 0},
    ], settles
    # goalkeeper's continuations came back as BeforeAgent prompts and were not taken for the
    # user's: one user prompt in the whole run.
    prompts = [e for e in case.journal({"event"}) if e["data"].get("type") == "UserPrompt"]
    assert len(prompts) == 1, prompts


# -------------------------------------------------------------------------------------------
# 2. Normal mode's question gate refuses a shell write in the discuss phase.
# -------------------------------------------------------------------------------------------
def test_normal_mode_refuses_a_shell_write_in_discuss_and_lets_the_question_stand(
    gemini_case: GeminiCase,
) -> None:
    """``/gk-mode normal …`` reaches goalkeeper's BeforeAgent hook as the user's prompt; the
    model's ``cat >`` through ``run_shell_command`` is refused by BeforeTool (the file is not
    written), a read-only command runs, and the stop that asks the user is not continued."""
    case = gemini_case
    case.install()
    target = case.proj / "vat.py"
    rules = [
        {"name": "ask", "when": {"last_contains": "LISTED-OK"},
         "reply": text("Before I change anything: which VAT rate applies to books?")},
        {"name": "read", "when": {"last_contains": "no code changes yet"},
         "reply": shell("ls >/dev/null && echo LISTED-OK")},
        {"name": "shell-write", "reply": shell(f"cat > {target} <<'EOF'\nRATE = 0.2\nEOF")},
    ]  # fmt: skip
    run = case.run(rules, prompt="/gk-mode normal add the VAT rule",
                   extra_env={"GOALKEEPER_NO_PLAN": "silent"})  # fmt: skip
    assert run.rules == ["shell-write", "read", "ask"], run.describe()
    assert_clean_exit(run)
    (refusal,) = function_responses(newest_entry(run.requests[1]))
    said = str(refusal["response"])
    assert "Tool execution blocked:" in said, refusal
    assert "normal mode, discuss phase: no code changes yet" in said, refusal
    assert str(target) in said
    assert not target.exists()
    (listed,) = function_responses(newest_entry(run.requests[2]))
    assert "LISTED-OK" in str(listed)
    modes = [e["data"] for e in case.journal({"mode"})]
    assert modes and modes[0]["mode"] == "normal" and modes[0]["phase"] == "discuss"
    assert kinds(case.journal({"refused", "closed"})) == []


# -------------------------------------------------------------------------------------------
# 3. A goal whose verification fails: the real output goes back to the model.
# -------------------------------------------------------------------------------------------
VERIFY = "python -m pytest -q"
BUGGY_CALC = "def add(a, b):\n    return a - b\n"
FIXED_CALC = "def add(a, b):\n    # the sum, not the difference\n    return a + b\n"
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
FAILED_HEAD = f"[1/3] `{VERIFY}` failed (exit 1). The failure, last lines:\n"
PROVEN = "goalkeeper: goal proven: "


def test_a_failing_goal_verify_is_fed_back_with_the_real_output_then_the_fix_is_proven(
    gemini_case: GeminiCase,
) -> None:
    case = gemini_case
    (case.proj / "calc.py").write_text(BUGGY_CALC, "utf-8")
    (case.proj / "test_calc.py").write_text(TEST_CALC, "utf-8")
    case.install()
    calc = str(case.proj / "calc.py")
    goal = str(case.proj / ".agents" / "goal" / "GOAL.md")
    criterion = f"`{VERIFY}` exits 0"
    rules = [
        {"name": "wrap-up", "when": {"last_has_function_response": True, "contains": "a + b"},
         "reply": text("Fixed add(): it returned a - b. The criterion is ticked.")},
        {"name": "fix", "when": {"last_contains": FAILED_HEAD[:20]},
         "reply": [*write_file(calc, FIXED_CALC),
                   {"functionCall": {"name": "replace", "args": {
                       "file_path": goal, "old_string": f"- [ ] {criterion}",
                       "new_string": f"- [x] {criterion}", "instruction": "tick it"}}}]},
        {"name": "early-stop", "reply": text("Done, I think.")},
    ]  # fmt: skip
    env = {"GOALKEEPER_NO_PLAN": "silent", "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_ADDOPTS": ""}
    run = case.run(rules, prompt=f"/gk-goal `{VERIFY}` passes", extra_env=env)
    assert run.rules == ["early-stop", "fix", "wrap-up"], run.describe()
    assert_clean_exit(run)
    feedback = "\n".join(texts(newest_entry(run.requests[1])))
    assert feedback.startswith(FAILED_HEAD), feedback
    assert "E       assert 0 == 4" in feedback, feedback
    assert "FAILED test_calc.py::test_add - assert 0 == 4" in feedback, feedback
    assert (case.proj / "calc.py").read_text("utf-8") == FIXED_CALC
    goal_kinds = kinds(case.journal({"goal_detected", "goal_failed", "goal_complete"}))
    assert goal_kinds == ["goal_detected", "goal_failed", "goal_complete"], goal_kinds


# -------------------------------------------------------------------------------------------
# 5. The stuck rule: rounds without a tool re-plan, then goalkeeper pauses (Gemini itself has
#    no bound on AfterAgent denials; goalkeeper's is the one that ends the loop).
# -------------------------------------------------------------------------------------------
STUCK_SAVE = "3 rounds without a tool call: the step is too big or the evidence too far."
STUCK_PAUSE = "goalkeeper paused: still no tool calls after 2 re-plans."


def test_the_stuck_rule_replans_twice_then_pauses(gemini_case: GeminiCase) -> None:
    case = gemini_case
    case.write_plan(TOPIC, PLAN)
    case.install()
    rules = [{"name": "idle", "reply": text("Still thinking about it.\n[PDCA] do")}]
    run = case.run(rules)
    # 9 settles: 8 continuations (two of them the re-plans), then the pause lets Gemini stop.
    assert run.rules == ["idle"] * 9, run.describe()
    assert_clean_exit(run)
    continuations = ["\n".join(texts(newest_entry(r))) for r in run.requests[1:]]
    # a re-plan clears the chat: the session start's guidance comes back in front of it
    replans = [i for i, c in enumerate(continuations, 1) if STUCK_SAVE in c]
    assert replans == [3, 6], continuations
    assert kinds(case.journal({"stuck_reset"})) == ["stuck_reset", "stuck_reset"]
    pauses = [
        a["text"]
        for e in case.journal({"decision"})
        for a in e["data"]["actions"]
        if a["kind"] == "Pause"
    ]
    assert len(pauses) == 1 and pauses[0].startswith(STUCK_PAUSE), pauses
    assert f"Hook system message: {STUCK_PAUSE}" in run.stderr  # the user is told why
    (session,) = case.status()["sessions"]
    assert session["continuations"] == 8


# -------------------------------------------------------------------------------------------
# 4. goalkeeper's todo tool over MCP: a completion without evidence is refused.
# -------------------------------------------------------------------------------------------
TODO = "mcp_goalkeeper_todo"
TODO_ENV = {"GOALKEEPER_NO_PLAN": "silent", "GOALKEEPER_TODO_QUIET_AFTER_MS": "0"}
EVIDENCE_MISSING = "goalkeeper: proof of completion missing ("
EFFECT = {"kind": "effect", "evidence": []}


def todo(**call: Any) -> list[dict[str, Any]]:
    """A call of goalkeeper's todo tool (no ``session``: goalkeeper's BeforeTool hook adds it)."""
    return [{"functionCall": {"name": TODO, "args": call}}]


def test_a_todo_completion_without_evidence_is_refused_over_mcp(gemini_case: GeminiCase) -> None:
    case = gemini_case
    case.install()
    bare = {"action": "update", "id": 1, "status": "completed"}
    rules = [
        {"name": "with-evidence", "when": {"last_contains": EVIDENCE_MISSING},
         "reply": todo(**bare, metadata={"evidence": EFFECT})},
        {"name": "wrap-up", "when": {"contains": EVIDENCE_MISSING,
                                     "last_has_function_response": True},
         "reply": text("Todo #1 is done, with its evidence recorded.")},
        {"name": "complete-bare", "when": {"last_has_function_response": True},
         "reply": todo(**bare)},
        {"name": "create", "reply": todo(action="create", subject="greet.sh prints hello")},
    ]  # fmt: skip
    run = case.run(rules, extra_env=TODO_ENV)
    offered = [
        d["name"] for t in run.requests[0]["body"].get("tools", [])
        for d in t.get("functionDeclarations", [])
    ]  # fmt: skip
    assert TODO in offered, offered
    assert run.rules == ["create", "complete-bare", "with-evidence", "wrap-up"], run.describe()
    created = function_responses(newest_entry(run.requests[1]))
    assert '"nextId": 2' in str(created[0]["response"]["output"]), created
    assert_clean_exit(run)
    (refusal,) = function_responses(newest_entry(run.requests[2]))
    assert EVIDENCE_MISSING in str(refusal), refusal
    refused = [e["data"] for e in case.journal({"todo_refused"})]
    assert refused == [{"id": 1, "reason": "evidence", "count": 1}], refused
    # every call landed in the session of this run (the BeforeTool hook handed it over)
    session = run.events[0]["session_id"]
    out = json.loads(case.goalkeeper("todo", "list", "--json", "--session", session).stdout)
    (task,) = out["result"]["tasks"]
    assert task["status"] == "completed" and task["metadata"] == {"evidence": EFFECT}, task


# -------------------------------------------------------------------------------------------
# 6. goalkeeper run -- gemini (with the installed hooks): the exit status says it is proven.
# -------------------------------------------------------------------------------------------
def test_goalkeeper_run_supervises_gemini_and_exits_0_once_the_goal_is_proven(
    gemini_case: GeminiCase,
) -> None:
    case = gemini_case
    (case.proj / "calc.py").write_text(BUGGY_CALC, "utf-8")
    (case.proj / "test_calc.py").write_text(TEST_CALC, "utf-8")
    case.install()
    calc = str(case.proj / "calc.py")
    rules = [
        {"name": "wrap-up", "when": {"last_has_function_response": True, "contains": "a + b"},
         "reply": text("Fixed add(): it returned a - b.")},
        {"name": "fix", "when": {"last_contains": FAILED_HEAD[:20]},
         "reply": write_file(calc, FIXED_CALC)},
        {"name": "early-stop", "reply": text("Done, I think.")},
    ]  # fmt: skip
    wrap = [sys.executable, "-m", "goalkeeper", "-C", str(case.proj), "run", "--json",
            "--goal", f"`{VERIFY}` passes", "--"]  # fmt: skip
    env = {"GOALKEEPER_NO_PLAN": "silent", "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_ADDOPTS": ""}
    run = case.run(rules, prompt="Fix the failing test.", extra_env=env, wrap=wrap)
    assert run.rules == ["early-stop", "fix", "wrap-up"], run.describe()
    assert run.returncode == 0, run.describe()
    report = json.loads(run.stdout)  # goalkeeper's one JSON object (the agent's on stderr)
    assert report["host"] == "gemini" and report["outcome"] == "done", report
    assert "using the goalkeeper installed in" in run.stderr
    assert (case.proj / "calc.py").read_text("utf-8") == FIXED_CALC


def test_a_completion_in_geminis_own_write_todos_is_refused(gemini_case: GeminiCase) -> None:
    """Gemini's own todo list may track work, but a completion there is refused and points at
    goalkeeper's todo tool, where a completion needs evidence."""
    case = gemini_case
    case.install()
    items = [{"description": "greet.sh prints hello", "status": "completed"}]
    rules = [
        {"name": "stop", "when": {"last_has_function_response": True},
         "reply": text("Understood: completions go through goalkeeper's todo tool.")},
        {"name": "native-complete",
         "reply": [{"functionCall": {"name": "write_todos", "args": {"todos": items}}}]},
    ]  # fmt: skip
    run = case.run(rules, extra_env=TODO_ENV)
    assert run.rules == ["native-complete", "stop"], run.describe()
    assert_clean_exit(run)
    (refusal,) = function_responses(newest_entry(run.requests[1]))
    assert "Tool execution blocked:" in str(refusal) and TODO in str(refusal), refusal
    refused = [e["data"] for e in case.journal({"todo_refused"})]
    assert refused == [{"tool": "write_todos", "reason": "native"}], refused


# -------------------------------------------------------------------------------------------
# 7. The project's .env cannot choose goalkeeper's interpreter or raise its limits.
# -------------------------------------------------------------------------------------------
def test_a_planted_goalkeeper_python_in_the_projects_env_file_is_not_run(
    gemini_case: GeminiCase,
) -> None:
    """Gemini loads the project's ``.env`` into the hooks' environment. The agent could plant
    ``GOALKEEPER_PYTHON`` there (a fake goalkeeper that approves everything) and a raised
    limit; the installed settings keep the first out, goalkeeper ignores the second (unit
    tested: ``test_goalkeeper_settings_from_the_projects_env_file_are_ignored``). The real
    goalkeeper, found on PATH as a pipx install is, answers every hook: the launcher's PATH
    search survives Gemini's expansion of ``$NAME`` in settings strings."""
    case = gemini_case
    case.write_plan(TOPIC, PLAN)
    case.install()
    marker = case.root / "fake-ran"
    fake = case.root / "fake-python"
    fake.write_text(f"#!/bin/sh\ntouch {marker}\necho '{{}}'\n", "utf-8")
    fake.chmod(0o755)
    (case.proj / ".env").write_text(
        f"GOALKEEPER_PYTHON={fake}\nGOALKEEPER_MAX_CONTINUATIONS=100000\n", "utf-8"
    )
    rules = [{"name": "early-complete", "reply": text("Done.\n[PDCA] complete")}]
    env = case.gemini_env()
    del env["GOALKEEPER_PYTHON"]  # the user named none: the launcher finds goalkeeper on PATH
    run = case.run(rules, env=env)
    assert not marker.exists(), run.describe()
    # goalkeeper itself refused the early complete and paused at the same claim's second
    # refusal (its honest exit, issue 22 §7), as with no .env at all
    assert run.rules == ["early-complete"] * 2, run.describe()
    assert kinds(case.journal({"refused"})) == ["refused"]  # the second: the honest exit
    assert "Hook system message: goalkeeper paused: [PDCA] complete was refused 2 times" in (
        run.stderr
    )


# -------------------------------------------------------------------------------------------
# 8. The workflow tools over MCP: a route started, its state recorded, an illegal move refused;
#    every goalkeeper tool a text names is one Gemini's model has (mcp_goalkeeper_*).
# -------------------------------------------------------------------------------------------
GATEWAY = "mcp_goalkeeper_workflow"
ACTIVE = "mcp_goalkeeper_workflow_active"
ILLEGAL = (
    "Cannot transition hard-bug from diagnosing-bugs to handoff. Allowed next procedures: "
    "implement, code-review."
)
STILL_ACTIVE = "is still active"
TOOL_MENTION = re.compile(r"\bmcp_\w+")


def call(tool: str, **args: Any) -> list[dict[str, Any]]:
    return [{"functionCall": {"name": tool, "args": args}}]


def offered(request: dict[str, Any]) -> dict[str, str]:
    """The functions a request offers the model: name → description."""
    return {
        d["name"]: d.get("description", "")
        for t in request["body"].get("tools", [])
        for d in t.get("functionDeclarations", [])
    }


def test_a_workflow_route_starts_over_mcp_and_an_illegal_move_is_refused(
    gemini_case: GeminiCase,
) -> None:
    """The model starts hard-bug with goalkeeper's gateway tool and gets the diagnosing
    procedure; the server lists the phase tool once a workflow is active, and Gemini offers it
    in the next request; a jump to handoff is refused with the allowed moves; the stop while
    the work item is active is sent back once, naming the phase tool as Gemini names it."""
    case = gemini_case
    case.install()
    rules = [
        {"name": "stop-again", "when": {"last_contains": STILL_ACTIVE},
         "reply": text("The work item waits for the user's reproduction.")},
        {"name": "stop", "when": {"last_contains": "Cannot transition hard-bug"},
         "reply": text("Handoff is not allowed yet; I stop here.")},
        {"name": "illegal", "when": {"last_contains": "procedure/diagnosing-bugs"},
         "reply": call(ACTIVE, action="transition", target="handoff")},
        {"name": "start", "reply": call(GATEWAY, mode="workflow", route="hard-bug")},
    ]  # fmt: skip
    run = case.run(rules, prompt="Fix the login redirect bug.", extra_env=TODO_ENV)
    assert run.rules == ["start", "illegal", "stop", "stop-again"], run.describe()
    assert_clean_exit(run)
    first, second = offered(run.requests[0]), offered(run.requests[1])
    assert GATEWAY in first and ACTIVE not in first, sorted(first)  # listed once active
    assert ACTIVE in second, sorted(second)
    (started,) = function_responses(newest_entry(run.requests[1]))
    assert "Route: hard-bug" in str(started) and "Phase: feedback-loop" in str(started)
    (refusal,) = function_responses(newest_entry(run.requests[2]))
    assert ILLEGAL in str(refusal), refusal
    (nudge,) = texts(newest_entry(run.requests[3]))
    assert STILL_ACTIVE in nudge and ACTIVE in nudge, nudge
    # every goalkeeper tool named to the model (descriptions, results, the nudge) is Gemini's
    said = json.dumps([second, started["response"], refusal["response"], nudge])
    named = {n for n in TOOL_MENTION.findall(said) if "goalkeeper" in n}
    assert named and named <= set(second), named
    session = run.events[0]["session_id"]
    records = [e["data"] for e in case.journal({"workflow"})]
    assert [(r["route"], r["procedure"], r["status"]) for r in records] == [
        ("hard-bug", "diagnosing-bugs", "active")
    ], records
    shown = case.goalkeeper("workflow", "status", "--json", "--session", session).stdout
    active = json.loads(shown)["workflow"]  # goalkeeper's record of Gemini's session
    assert (active["route"], active["procedure"]) == ("hard-bug", "diagnosing-bugs"), shown


def test_a_projects_env_file_cannot_switch_off_the_evidence_check_of_the_mcp_todo_tool(
    gemini_case: GeminiCase,
) -> None:
    """Gemini starts goalkeeper's MCP server with its own environment, into which it loaded the
    project's ``.env``: ``GOALKEEPER_EVIDENCE_CHECK=off`` there let a todo complete on a claimed
    edit of a file that does not exist. The server Gemini starts reads no setting from it."""
    case = gemini_case
    case.install()
    (case.proj / ".env").write_text("GOALKEEPER_EVIDENCE_CHECK=off\n", "utf-8")
    claim = {"kind": "state", "evidence": [{"type": "file", "path": "nothere.py", "op": "edit"}]}
    rules = [
        {"name": "stop", "when": {"contains": "there is no such file"},
         "reply": text("The evidence was refused; nothing is done yet.")},
        {"name": "complete", "when": {"last_has_function_response": True},
         "reply": todo(action="update", id=1, status="completed", metadata={"evidence": claim})},
        {"name": "create", "reply": todo(action="create", subject="greet.sh prints hello")},
    ]  # fmt: skip
    run = case.run(rules, extra_env=TODO_ENV)
    assert run.rules[:3] == ["create", "complete", "stop"], run.describe()
    (refusal,) = function_responses(newest_entry(run.requests[2]))
    assert "there is no such file" in str(refusal["response"]), refusal
    session = run.events[0]["session_id"]
    out = json.loads(case.goalkeeper("todo", "list", "--json", "--session", session).stdout)
    assert [t["status"] for t in out["result"]["tasks"]] == ["pending"], out
