"""goalkeeper with the real Codex CLI (0.171.0, pinned in tests/e2e/codex) and a scripted fake
Responses API: installed with ``goalkeeper install codex --trust`` as a user runs it, then
``codex exec`` headless. Codex delivers a Stop block as a user message in the same turn and a
PreToolUse denial as the tool's output, so the fake model's next request shows what
goalkeeper said."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from typing import Any

import pytest

from .codex_harness import CodexCase, CodexRun
from .fake_responses import item_text, mcp, patch, search, shell, text

pytestmark = pytest.mark.e2e

ENV = {"GOALKEEPER_LANG": "en"}
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
HOOK_PROMPT = "<hook_prompt"
BLOCKED = "Command blocked by PreToolUse hook:"


def run_test(marker: str) -> str:
    head, _, tail = marker.rpartition("-")
    return f"MARK_HEAD={head} MARK_TAIL={tail} {sys.executable} -m pytest -q -s -p no:cacheprovider"


def hook_prompts(run: CodexRun, n: int) -> list[str]:
    """The Stop-block messages Codex put into request ``n``'s input."""
    return [
        item_text(i)
        for i in run.requests[n]["input"]
        if i.get("role") == "user" and item_text(i).startswith(HOOK_PROMPT)
    ]


def tool_outputs(run: CodexRun, n: int) -> list[str]:
    kinds = ("function_call_output", "custom_tool_call_output")
    return [item_text(i) for i in run.requests[n]["input"] if i.get("type") in kinds]


def assert_hooks_ran(case: CodexCase) -> None:
    """Codex skips an untrusted hook without a word: goalkeeper must have seen the session."""
    sessions = case.status()["sessions"]
    assert sessions, "no goalkeeper session: Codex ran none of goalkeeper's hooks"


def test_install_codex_writes_trusted_hooks(codex_case: CodexCase) -> None:
    out = codex_case.install()
    assert "Recorded your trust" in out, out
    config = (codex_case.codex_home / "config.toml").read_text(encoding="utf-8")
    assert config.count("trusted_hash") == 5  # five hooks, SubagentStop included
    assert f'[projects."{codex_case.repo}"]' in config


# 1. An early "[PDCA] complete" is refused; a proven one closes.
def test_early_complete_is_refused_then_a_proven_close_ends_the_run(
    codex_case: CodexCase,
) -> None:
    case = codex_case
    case.install()
    case.write("plan/greet.md", PLAN)
    case.write("test_marker.py", MARKER_TEST)
    rules: list[dict[str, Any]] = [
        {"name": "complete", "when": {"contains": AFTER_CHECK},
         "reply": text("Proven: greet.sh prints hello.\n[PDCA] complete")},
        {"name": "check", "when": {"after_tool": True, "tool_output": "EVIDENCE-OK"},
         "reply": text("The evidence matches the plan; both items are ticked.\n[PDCA] check")},
        {"name": "run-evidence", "when": {"contains": REFUSAL, "after_tool": True},
         "reply": shell(run_test("EVIDENCE-OK"))},
        {"name": "tick-plan", "when": {"contains": REFUSAL},
         "reply": shell("sed -i 's/- \\[ \\]/- [x]/' plan/greet.md")},
        {"name": "early-complete",
         "reply": text("I think greet.sh works now.\n[PDCA] complete")},
    ]  # fmt: skip
    run = case.run(rules, "Make greet.sh print hello.", ENV)

    assert run.returncode == 0, run.describe()
    assert_hooks_ran(case)
    assert run.rules == ["early-complete", "tick-plan", "run-evidence", "check", "complete"], (
        run.describe()
    )
    # the refusal reached the model as the Stop block's message, naming the open KR
    (refusal,) = hook_prompts(run, 1)
    assert REFUSAL in refusal and KR_TEXT in refusal, refusal
    assert "EVIDENCE-OK" in tool_outputs(run, 3)[-1]
    assert (case.repo / "plan/greet.md").read_text(encoding="utf-8") == TICKED_PLAN
    assert AFTER_CHECK in hook_prompts(run, 4)[-1]
    assert "Proven: greet.sh prints hello." in run.stdout
    journal = case.journal({"refused", "closed"})
    assert [e["kind"] for e in journal] == ["refused", "closed"], journal


# 2. The question gate refuses shell and patch writes in normal mode's discuss phase.
def test_normal_mode_refuses_shell_and_patch_writes_in_discuss(codex_case: CodexCase) -> None:
    case = codex_case
    case.install()
    rules: list[dict[str, Any]] = [
        {"name": "patch-try", "when": {"after_tool": True, "tool_output": "greet.sh"},
         "reply": patch("*** Begin Patch\n*** Add File: greet.py\n+print('hi')\n*** End Patch\n")},
        {"name": "ask", "when": {"after_tool": True},
         "reply": text("Which greeting should it print, and to whom?")},
        {"name": "shell-try", "when": {"contains": "/gk-mode normal"},
         "reply": shell("echo hello > greet.sh")},
    ]  # fmt: skip
    run = case.run(rules, "/gk-mode normal add a greeting script", ENV)

    assert run.returncode == 0, run.describe()
    assert_hooks_ran(case)
    assert run.rules == ["shell-try", "patch-try", "ask"], run.describe()
    (denied_shell,) = tool_outputs(run, 1)
    assert denied_shell.startswith(BLOCKED) and "discuss phase" in denied_shell, denied_shell
    denied_patch = tool_outputs(run, 2)[-1]
    assert denied_patch.startswith(BLOCKED) and "discuss phase" in denied_patch, denied_patch
    assert "greet.py" in denied_patch
    assert not (case.repo / "greet.sh").exists()
    assert not (case.repo / "greet.py").exists()
    assert "Which greeting" in run.stdout


# 3. A failing goal verification is fed back with the real output; the fix proves the goal.
VERIFY = "python -m pytest -q"
CRITERION = f"`{VERIFY}` exits 0"
BUGGY_CALC = "def add(a, b):\n    return a - b\n"
FIXED_CALC = "def add(a, b):\n    return a + b\n"
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"


def goal_env() -> dict[str, str]:
    """This virtualenv's bin first on PATH: ``python`` (with pytest) for goalkeeper's verify."""
    from .harness import venv_bin_dir

    path = os.pathsep.join([str(venv_bin_dir()), os.environ.get("PATH", os.defpath)])
    return {**ENV, "PATH": path, "GOALKEEPER_NO_PLAN": "silent", "PYTHONDONTWRITEBYTECODE": "1"}


def test_a_failing_goal_verify_is_fed_back_then_the_fix_proves_the_goal(
    codex_case: CodexCase,
) -> None:
    case = codex_case
    case.install()
    case.write("calc.py", BUGGY_CALC)
    case.write("test_calc.py", TEST_CALC)
    fix = (
        f"printf '%s' {shlex.quote(FIXED_CALC)} > calc.py && "
        f"sed -i 's/- \\[ \\] {CRITERION}/- [x] {CRITERION}/' .agents/goal/GOAL.md"
    )
    rules: list[dict[str, Any]] = [
        {"name": "wrap-up", "when": {"contains": "[1/3]", "after_tool": True},
         "reply": text("Fixed add(): it returned a - b. The criterion is ticked.")},
        {"name": "fix", "when": {"contains": "[1/3]"}, "reply": shell(fix)},
        {"name": "early-stop", "reply": text("Done, I think.")},
    ]  # fmt: skip
    run = case.run(rules, f"/gk-goal `{VERIFY}` passes", goal_env())

    assert run.returncode == 0, run.describe()
    assert_hooks_ran(case)
    assert run.rules == ["early-stop", "fix", "wrap-up"], run.describe()
    (failure,) = hook_prompts(run, 1)
    assert f"[1/3] `{VERIFY}` failed (exit 1)" in failure, failure
    assert "FAILED test_calc.py::test_add - assert 0 == 4" in failure, failure  # real output
    assert (case.repo / "calc.py").read_text(encoding="utf-8") == FIXED_CALC
    kinds = [e["kind"] for e in case.journal({"goal_detected", "goal_failed", "goal_complete"})]
    assert kinds == ["goal_detected", "goal_failed", "goal_complete"], kinds
    assert not (case.repo / ".agents" / "goal" / "GOAL.md").exists()  # archived


# 5. The stuck rule: Codex has no loop limit on Stop blocks; goalkeeper's own cap ends it.
def test_the_stuck_rule_ends_a_tool_less_streak_codex_would_not_end(
    codex_case: CodexCase,
) -> None:
    case = codex_case
    case.install()
    case.write("plan/greet.md", PLAN)
    rules = [{"name": "idle", "reply": text("Still thinking about it.\n[PDCA] do")}]
    run = case.run(rules, "Make greet.sh print hello.", {**ENV, "GOALKEEPER_STUCK": "2"})

    assert run.returncode == 0, run.describe()
    assert_hooks_ran(case)
    # Without goalkeeper's cap an always-blocking Stop hook loops for good (431 requests in
    # 25 s were seen). GOALKEEPER_STUCK=2: re-plan after 2 idle rounds, twice (the default
    # reset count), then pause: 5 continuations (idle_streak), so 6 model requests.
    assert run.rules == ["idle"] * 6, run.describe()
    recent = case.status()["recent"]
    assert [e["kind"] for e in recent].count("stuck_reset") == 2, recent
    last = [e for e in recent if e["kind"] == "decision"][-1]
    assert [a["kind"] for a in last["data"]["actions"]] == ["Pause"], last


# 4. goalkeeper's todo tool over MCP: the session is handed over (PreToolUse updatedInput) and
#    a completion without evidence is refused.
NAMESPACE = "mcp__goalkeeper"
EVIDENCE_GUIDE = "Marking a todo completed requires metadata.evidence"


def test_a_todo_completion_without_evidence_is_refused_over_mcp(codex_case: CodexCase) -> None:
    case = codex_case
    case.install()
    subject = "greet.sh prints hello"
    complete = {"action": "update", "id": 1, "status": "completed"}
    rules: list[dict[str, Any]] = [
        {"name": "after-stop", "when": {"contains": HOOK_PROMPT},
         "reply": text("Stopping here.")},
        {"name": "create", "when": {"last_type": "tool_search_output"},
         "reply": mcp(NAMESPACE, "todo", {"action": "create", "subject": subject})},
        {"name": "complete", "when": {"after_tool": True, "tool_output": '"nextId": 2'},
         "reply": mcp(NAMESPACE, "todo", complete)},
        {"name": "wrap-up", "when": {"after_tool": True, "tool_output": EVIDENCE_GUIDE},
         "reply": text("The completion needs evidence first.")},
        {"name": "search", "when": {"after_tool": True, "tool_output": "Process exited"},
         "reply": search("goalkeeper todo")},
        # Codex starts the MCP server alongside the first turn: give it a moment
        {"name": "wait", "reply": shell("sleep 4")},
    ]  # fmt: skip
    run = case.run(
        rules, "Track the greeting work as a todo.", {**ENV, "GOALKEEPER_NO_PLAN": "silent"}
    )

    assert run.returncode == 0, run.describe()
    assert_hooks_ran(case)
    assert run.rules[:5] == ["wait", "search", "create", "complete", "wrap-up"], run.describe()
    refused = tool_outputs(run, 4)[-1]
    assert EVIDENCE_GUIDE in refused, refused
    (session,) = case.status()["sessions"]
    listed = case.goalkeeper("todo", "list", "--session", session["session_id"]).stdout
    assert subject in listed, listed  # the todo belongs to Codex's session, not "default"
    shown = case.goalkeeper("todo", "get", "1", "--session", session["session_id"]).stdout
    assert "completed" not in shown, shown


# goalkeeper run -- codex exec: nothing installed; the hooks and the MCP server come as -c.
def test_goalkeeper_run_supervises_codex_exec_until_the_goal_is_proven(
    codex_case: CodexCase,
) -> None:
    case = codex_case
    case.configure()
    case.write("calc.py", BUGGY_CALC)
    case.write("test_calc.py", TEST_CALC)
    fix = (
        f"printf '%s' {shlex.quote(FIXED_CALC)} > calc.py && "
        "sed -i 's/- \\[ \\]/- [x]/' .agents/goal/GOAL.md"
    )
    rules: list[dict[str, Any]] = [
        {"name": "wrap-up", "when": {"contains": "[1/3]", "after_tool": True},
         "reply": text("Fixed add(). The criterion is ticked.")},
        {"name": "fix", "when": {"contains": "[1/3]"}, "reply": shell(fix)},
        {"name": "early-stop", "reply": text("Done, I think.")},
    ]  # fmt: skip
    gk = [sys.executable, "-m", "goalkeeper", "-C", str(case.repo), "run", "--json"]
    gk += ["--goal", f"`{VERIFY}` passes", "--max-minutes", "2", "--"]
    run = case.run(rules, "Fix the failing test.", goal_env(), wrapper=gk)

    assert run.returncode == 0, run.describe()  # done and proven
    assert run.rules == ["early-stop", "fix", "wrap-up"], run.describe()
    verdict = json.loads(run.stdout)
    assert verdict["outcome"] == "done", verdict
    assert not (case.repo / ".codex").exists()  # nothing installed into the project
    config = (case.codex_home / "config.toml").read_text(encoding="utf-8")
    assert "/<session-flags>/config.toml:stop:0:0" in config  # the recorded trust


# 5. The workflow tools over MCP: a route started, its state recorded, an illegal move refused;
#    every goalkeeper tool a text names is one Codex has (mcp__goalkeeper__*).
ILLEGAL = (
    "Cannot transition hard-bug from diagnosing-bugs to handoff. Allowed next procedures: "
    "implement, code-review."
)
TOOL_MENTION = re.compile(r"\bmcp_\w+")


def searched(run: CodexRun) -> list[tuple[str, dict[str, Any]]]:
    """The MCP tools Codex's tool searches returned: (namespace, tool) pairs."""
    return [
        (space["name"], tool)
        for request in run.requests
        for item in request["input"]
        if item.get("type") == "tool_search_output"
        for space in item.get("tools") or []
        for tool in space.get("tools") or []
    ]


def test_a_workflow_route_starts_over_mcp_and_an_illegal_move_is_refused(
    codex_case: CodexCase,
) -> None:
    """After a tool search the model starts hard-bug with goalkeeper's gateway tool (namespace
    ``mcp__goalkeeper``) and gets the diagnosing procedure; a jump to handoff with the phase tool
    is refused with the allowed moves; the stop while the work item is active is sent back once,
    naming the phase tool as Codex does; goalkeeper records the route in Codex's session."""
    case = codex_case
    case.install()
    jump = {"action": "transition", "target": "handoff"}
    rules: list[dict[str, Any]] = [
        {"name": "after-stop", "when": {"contains": HOOK_PROMPT},
         "reply": text("The work item waits for the user's reproduction.")},
        {"name": "stop", "when": {"after_tool": True, "tool_output": "Cannot transition"},
         "reply": text("Handoff is not allowed yet; I stop here.")},
        {"name": "no-phase-tool", "when": {"after_tool": True, "tool_output": "unsupported call"},
         "reply": text("goalkeeper's phase tool is not there.")},
        {"name": "illegal", "when": {"after_tool": True, "tool_output": "procedure/diagnosing"},
         "reply": mcp(NAMESPACE, "workflow_active", jump)},
        {"name": "start", "when": {"last_type": "tool_search_output"},
         "reply": mcp(NAMESPACE, "workflow", {"mode": "workflow", "route": "hard-bug"})},
        {"name": "search", "when": {"after_tool": True, "tool_output": "Process exited"},
         "reply": search("goalkeeper workflow")},
        {"name": "wait", "reply": shell("sleep 4")},  # Codex starts the MCP server meanwhile
    ]  # fmt: skip
    run = case.run(rules, "Fix the login redirect bug.", {**ENV, "GOALKEEPER_NO_PLAN": "silent"})

    assert run.returncode == 0, run.describe()
    assert_hooks_ran(case)
    assert run.rules == ["wait", "search", "start", "illegal", "stop", "after-stop"], run.describe()
    started = tool_outputs(run, 3)[-1]
    assert "Route: hard-bug" in started and "Phase: feedback-loop" in started, started
    refused = tool_outputs(run, 4)[-1]
    assert ILLEGAL in refused, refused
    (nudge,) = hook_prompts(run, 5)
    assert "is still active" in nudge and "mcp__goalkeeper__workflow_active" in nudge, nudge
    # every goalkeeper tool named to the model (descriptions, results, the nudge) is one a tool
    # search gave it; the phase tool among them from the start (Codex never lists again)
    found = {f"{space}__{tool['name']}" for space, tool in searched(run)}
    assert "mcp__goalkeeper__workflow_active" in found, found
    descriptions = [str(tool.get("description")) for _, tool in searched(run)]
    said = json.dumps([descriptions, started, refused, nudge])
    named = {n for n in TOOL_MENTION.findall(said) if "goalkeeper" in n}
    assert "mcp__goalkeeper__workflow" in named and named <= found, (named, found)
    (session,) = case.status()["sessions"]
    shown = case.goalkeeper("workflow", "status", "--json", "--session", session["session_id"])
    active = json.loads(shown.stdout)["workflow"]  # goalkeeper's record of Codex's session
    assert (active["route"], active["procedure"]) == ("hard-bug", "diagnosing-bugs"), shown
