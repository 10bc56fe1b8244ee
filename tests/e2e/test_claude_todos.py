"""goalkeeper's evidence-gated todo tool with the real Claude Code CLI, driven by a scripted fake
model.

``goalkeeper install claude --local`` registers goalkeeper's MCP server (the ``todo`` tool, which
Claude Code names ``mcp__goalkeeper__todo``) and a PreToolUse hook for it and for the native todo
tools. Each case runs ``claude -p`` against ``fake_anthropic.py`` and asserts on what the model
received (the tool results in the next request), on Claude Code's own record of the hooks (the
transcript), on the todo tree goalkeeper keeps for the session (``goalkeeper todo list``) and on
goalkeeper's journal.

The projects have no plan file and run with ``GOALKEEPER_NO_PLAN=silent``, so goalkeeper's PDCA
cadence says nothing at Stop and every Stop decision is the todo guard's own. They also run with
``GOALKEEPER_TODO_QUIET_AFTER_MS=0``: by default (spec S33) the settle ultimatum held back while
the user's last message was younger than 120 s, which in a run of a few seconds is always; since
issue 23 it holds back only for a run that merely answered the user, and the last case shows that
the default window no longer spares a run that worked.

As in ``test_claude_code.py``, the fake model's rules are listed latest stage first and tell the
stages apart by text that appears only once a stage happened: goalkeeper's refusals, the JSON of
an accepted todo call (``"nextId": 2`` is never in what the model wrote), another tool's output.
"""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from .harness import Case, Run, stop_feedback, tool_results

pytestmark = pytest.mark.e2e

AWAITING = (
    "goalkeeper: awaiting your acceptance (not verified) — #1 greet.sh prints hello. Check "
    "each, then run `goalkeeper todo accept ID` in your own terminal."
)  # issue 22 §2: an effect claim is left to the user, who is told at the stop

TODO = "mcp__goalkeeper__todo"
TODO_ENV = {"GOALKEEPER_NO_PLAN": "silent", "GOALKEEPER_TODO_QUIET_AFTER_MS": "0"}
NATIVE_TODO_ENV = {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1", "CLAUDE_CODE_ENABLE_TASKS": "0"}
EFFECT = {"kind": "effect", "evidence": []}

# goalkeeper's words, as the model receives them.
EVIDENCE_MISSING = "goalkeeper: proof of completion missing ("
SECOND_BLOCK = (
    "[#2 same-call blocks] Stop retrying the same shape: resend with compliant evidence in the "
    "format above, or set the task back to pending (update status=pending). "
)
ULTIMATUM = "todo item(s) are still unfinished — do not wrap up yet"
CMD_MISMATCH = (
    "goalkeeper: the evidence says `python3 check.py` exited 0, but goalkeeper ran it in the "
    "project folder and it exited 1. Last output:\n"
)
NATIVE_REFUSED = "goalkeeper: do not mark tasks completed with TodoWrite"
HOOK_ERROR = "PreToolUse:TodoWrite hook error: "

# Claude Code's words.
TODOS_WRITTEN = "Todos have been modified successfully."
FILE_UPDATED = "has been updated successfully"
DEFERRED_TOOLS = "The following deferred tools are now available"
# What Claude Code appends to the error of a deferred tool (its schema was not in the prompt).
SCHEMA_NOTE = "\n\nThis tool's input schema was not in your prompt"


# -------------------------------------------------------------------------------------------
# Script and assertion helpers
# -------------------------------------------------------------------------------------------
def text(reply: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": reply}]


def todo(**call: Any) -> list[dict[str, Any]]:
    """A call of goalkeeper's todo tool (no ``session``: goalkeeper's PreToolUse hook adds it)."""
    return [{"type": "tool_use", "name": TODO, "input": call}]


def todo_write(*todos: tuple[str, str]) -> list[dict[str, Any]]:
    """A native TodoWrite call with ``(content, status)`` items."""
    items = [{"content": c, "status": s, "activeForm": f"Working on: {c}"} for c, s in todos]
    return [{"type": "tool_use", "name": "TodoWrite", "input": {"todos": items}}]


def assert_clean_exit(run: Run) -> None:
    """Claude Code ended the turn normally: not an API error, not max_turns."""
    assert run.returncode == 0, run.describe()
    assert run.result.get("is_error") is False, run.describe()
    assert run.result.get("subtype") == "success", run.describe()
    assert run.result.get("terminal_reason") == "completed", run.describe()


def assert_no_stray_traffic(run: Run) -> None:
    """Only Messages API calls reached the fake server: no CONNECT through the proxy."""
    assert run.stray == [], run.describe()


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def only_result(run: Run, index: int) -> dict[str, Any]:
    """The one tool_result request ``index`` carries (the answer to the previous tool call)."""
    results = tool_results(run.requests[index])
    assert len(results) == 1, f"request {index + 1}: {results!r}\n{run.describe()}"
    return results[0]


def accepted(run: Run, index: int) -> dict[str, Any]:
    """The JSON answer of an accepted todo call, from request ``index``."""
    block = only_result(run, index)
    assert not block.get("is_error"), f"request {index + 1}: {block!r}"
    answer: dict[str, Any] = json.loads(result_text(block))
    return answer


def refused(run: Run, index: int) -> str:
    """The text of a refused tool call (an ``is_error`` tool_result), from request ``index``."""
    block = only_result(run, index)
    assert block.get("is_error") is True, f"request {index + 1}: {block!r}"
    return result_text(block)


def deferred_tools(request: dict[str, Any]) -> list[str]:
    """The tool names Claude Code lists as deferred (available through ToolSearch), from every
    listing in the request: an MCP server that is still connecting at the first request is
    listed in a later one."""
    names: list[str] = []
    for message in request["body"]["messages"]:
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"text": content}]
        for block in blocks:
            said = block.get("text") if isinstance(block, dict) else None
            for listing in said.split(DEFERRED_TOOLS)[1:] if isinstance(said, str) else ():
                lines = listing.split("\n\n", 1)[0].splitlines()[1:]
                names += [line for line in lines if line.strip()]
    return names


def offered(request: dict[str, Any]) -> set[str]:
    """Every tool the model may call: the request's ``tools`` and the deferred ones."""
    tools = {t.get("name") for t in request["body"].get("tools") or []}
    return {n for n in tools if isinstance(n, str)} | set(deferred_tools(request))


def pre_tool_use_answers(case: Case, run: Run, tool: str) -> list[dict[str, Any]]:
    """goalkeeper's PreToolUse answers for ``tool`` that Claude Code recorded as hook successes
    (a denial is not recorded there: it reaches the model as the tool's error)."""
    out = []
    for line in case.transcript(run):
        att = line.get("attachment") if line.get("type") == "attachment" else None
        if isinstance(att, dict) and att.get("hookName") == f"PreToolUse:{tool}":
            assert att.get("type") == "hook_success", att
            out.append(json.loads(att.get("stdout") or "{}"))
    return out


def tool_use_results(case: Case, run: Run) -> list[Any]:
    """Claude Code's own record of each tool's result (``toolUseResult`` in the transcript)."""
    return [
        line["toolUseResult"]
        for line in case.transcript(run)
        if line.get("type") == "user" and "toolUseResult" in line
    ]


def tool_inputs(run: Run, name: str) -> list[dict[str, Any]]:
    """The inputs of every ``name`` call the fake model made, in order."""
    return [
        b["input"]
        for e in run.requests
        for b in e.get("reply") or []
        if b.get("type") == "tool_use" and b.get("name") == name
    ]


def journal_data(case: Case, kind: str) -> list[dict[str, Any]]:
    return [e["data"] for e in case.journal({kind})]


def todo_tasks(case: Case, session: str) -> list[dict[str, Any]]:
    """The session's todo tree as ``goalkeeper todo list --json`` shows it."""
    out = json.loads(case.goalkeeper("todo", "list", "--json", "--session", session).stdout)
    assert out["ok"] is True and out["session"] == session, out
    tasks: list[dict[str, Any]] = out["result"]["tasks"]
    return tasks


def assert_session_handed_over(case: Case, run: Run) -> None:
    """Every todo call passed goalkeeper's PreToolUse hook, which allowed it and wrote the
    session id into its input, leaving the rest of the model's input as it was."""
    session = run.result["session_id"]
    answers = pre_tool_use_answers(case, run, TODO)
    calls = tool_inputs(run, TODO)
    assert len(answers) == len(calls), answers
    for call, answer in zip(calls, answers, strict=True):
        assert answer == {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": {**call, "session": session},
            }
        }


# -------------------------------------------------------------------------------------------
# 1. Completion without evidence is refused (twice: escalated); with evidence, accepted.
# -------------------------------------------------------------------------------------------
def test_completion_without_evidence_is_refused_then_accepted_with_evidence(case: Case) -> None:
    settings = case.install()
    # --local: the server is this user's, in ~/.claude.json under the project (not .mcp.json)
    assert "enabledMcpjsonServers" not in settings and not (case.proj / ".mcp.json").exists()
    local = json.loads((case.home / ".claude.json").read_text("utf-8"))["projects"]
    assert local[str(case.proj)]["mcpServers"]["goalkeeper"]
    complete_bare = {"action": "update", "id": 1, "status": "completed"}
    complete_proven = {**complete_bare, "metadata": {"evidence": EFFECT}}
    rules: list[dict[str, Any]] = [
        {"name": "wrap-up", "when": {"tail_contains": '"status": "completed"'},
         "reply": text("Todo #1 is done, with its evidence recorded.")},
        {"name": "with-evidence", "when": {"tail_contains": "[#2 same-call blocks]"},
         "reply": todo(**complete_proven)},
        {"name": "retry-bare", "when": {"tail_contains": EVIDENCE_MISSING},
         "reply": todo(**complete_bare)},
        {"name": "complete-bare", "when": {"tail_contains": '"nextId": 2'},
         "reply": todo(**complete_bare)},
        {"name": "create", "reply": todo(action="create", subject="greet.sh prints hello")},
    ]  # fmt: skip
    run = case.run_claude(rules, extra_env=TODO_ENV)

    assert run.rules == ["create", "complete-bare", "retry-bare", "with-evidence", "wrap-up"], (
        run.describe()
    )
    assert_clean_exit(run)
    assert_no_stray_traffic(run)
    assert run.result["result"] == "Todo #1 is done, with its evidence recorded."
    # The MCP server connected and listed its tool (deferred on 2.1.332, so not in `tools`; on a
    # busy machine it is still connecting at the first request and listed in a later one).
    assert TODO in offered(run.requests[-1]), deferred_tools(run.requests[-1])

    created = accepted(run, 1)
    assert created["action"] == "create" and created["nextId"] == 2, created
    assert created["task"]["id"] == 1 and created["task"]["status"] == "pending", created

    first = refused(run, 2)
    assert first.startswith(EVIDENCE_MISSING), first
    assert "metadata.evidence" in first, first
    # The same refusal again, escalated: the same words behind the storm notice.
    second = refused(run, 3)
    assert second.startswith(SECOND_BLOCK + first.split(SCHEMA_NOTE, 1)[0]), second

    done = accepted(run, 4)
    assert done["action"] == "update" and done["params"] == complete_proven, done
    assert done["task"]["status"] == "completed", done
    assert done["task"]["metadata"] == {"evidence": EFFECT}, done

    # Every call went through goalkeeper's PreToolUse hook into the session of this run.
    assert_session_handed_over(case, run)
    # Nothing was left open: the one Stop is allowed, without an ultimatum.
    assert case.stop_hook_outcomes(run) == [("allow", AWAITING)]  # an effect: the user's
    assert stop_feedback(run.requests[-1]) == []

    assert journal_data(case, "todo_refused") == [
        {"id": 1, "reason": "evidence", "count": 1},
        {"id": 1, "reason": "evidence", "count": 2},
    ]
    assert journal_data(case, "todo") == [
        {"action": "create", "id": 1},
        {"action": "update", "id": 1},
    ]
    assert journal_data(case, "todo_ultimatum") == []
    (task,) = todo_tasks(case, run.result["session_id"])
    assert task["id"] == 1 and task["subject"] == "greet.sh prints hello", task
    assert task["status"] == "completed", task
    assert task["metadata"] == {"evidence": EFFECT}, task


# -------------------------------------------------------------------------------------------
# 2. Settling with an open item: one ultimatum, then the stop is allowed.
# -------------------------------------------------------------------------------------------
def open_item_rules() -> list[dict[str, Any]]:
    """Create #1 and #2, complete #1 with evidence, settle; after an ultimatum, explain."""
    return [
        {"name": "explain", "when": {"tail_contains": ULTIMATUM},
         "reply": text("Blocked on #2: deploying needs credentials I do not have. "
                       "Next step: the user provides them.")},
        {"name": "settle", "when": {"tail_contains": '"status": "completed"'},
         "reply": text("greet.sh prints hello; the deploy is still open.")},
        {"name": "complete-1", "when": {"tail_contains": '"nextId": 3'},
         "reply": todo(action="update", id=1, status="completed",
                       metadata={"evidence": EFFECT})},
        {"name": "create-2", "when": {"tail_contains": '"nextId": 2'},
         "reply": todo(action="create", subject="deploy greet.sh")},
        {"name": "create-1", "reply": todo(action="create", subject="greet.sh prints hello")},
    ]  # fmt: skip


def test_settling_with_an_open_item_gets_one_ultimatum_then_the_stop_is_allowed(
    case: Case,
) -> None:
    case.install()
    run = case.run_claude(open_item_rules(), extra_env=TODO_ENV)

    assert run.rules == ["create-1", "create-2", "complete-1", "settle", "explain"], run.describe()
    assert_clean_exit(run)
    assert_no_stray_traffic(run)
    assert run.result["result"].startswith("Blocked on #2"), run.describe()
    assert accepted(run, 3)["task"]["status"] == "completed"
    assert_session_handed_over(case, run)

    # The first Stop is blocked once, naming only the open item; the explanation is accepted.
    outcomes = case.stop_hook_outcomes(run)
    assert [kind for kind, _ in outcomes] == ["block", "allow"], outcomes
    ultimatum = outcomes[0][1]
    assert ultimatum.startswith(f"goalkeeper: 1 {ULTIMATUM}:\n#2 deploy greet.sh\n"), ultimatum
    assert "#1 " not in ultimatum, ultimatum
    assert outcomes[1] == ("allow", "")
    (feedback,) = stop_feedback(run.requests[4])
    assert ultimatum in feedback, feedback
    assert run.text_replies == [
        "greet.sh prints hello; the deploy is still open.",
        run.result["result"],
    ]

    assert journal_data(case, "todo_ultimatum") == [{"open": 1}]
    assert journal_data(case, "todo_refused") == []
    tasks = todo_tasks(case, run.result["session_id"])
    assert [(t["id"], t["status"]) for t in tasks] == [(1, "completed"), (2, "pending")], tasks


# -------------------------------------------------------------------------------------------
# 3. Checked evidence: goalkeeper re-runs the test command of a test-gated todo.
# -------------------------------------------------------------------------------------------
RED_MARKER = "CHECK-RED-5e1f"
FAILING_CHECK = """\
with open("runs.log", "a") as log:
    log.write("red\\n")
print("CHECK-" + "RED-5e1f")
raise SystemExit(1)
"""  # prints RED_MARKER without containing it
PASSING_CHECK = """\
import unittest

with open("runs.log", "a") as log:
    log.write("green\\n")


class Check(unittest.TestCase):
    def test_green(self):
        print("CHECK-" + "GREEN")


unittest.main()
"""  # a real test run: goalkeeper reads its summary ("Ran 1 test … OK")
CHECK_CMD = "python3 check.py"
RUNNABLE = {"kind": "runnable", "evidence": [{"type": "cmd", "cmd": CHECK_CMD, "exit": 0}]}


def test_checked_evidence_is_rerun_refused_while_failing_then_accepted(case: Case) -> None:
    assert shutil.which("python3", path=case.base_env().get("PATH")), "python3 is not on PATH"
    (case.proj / ".goalkeeper.toml").write_text(f'test-command = "{CHECK_CMD}"\n', "utf-8")
    case.goalkeeper("allow")  # the user approves the project's test command, as a user must
    check = case.proj / "check.py"
    check.write_text(FAILING_CHECK, "utf-8")
    assert RED_MARKER not in FAILING_CHECK
    case.install()
    complete = {
        "action": "update",
        "id": 1,
        "status": "completed",
        "metadata": {"evidence": RUNNABLE},
    }
    fix = {"file_path": str(check), "content": PASSING_CHECK}
    rules: list[dict[str, Any]] = [
        {"name": "wrap-up", "when": {"tail_contains": '"status": "verified"'},
         "reply": text("check.py passes and goalkeeper verified it.")},
        {"name": "complete-again", "when": {"contains": RED_MARKER, "tail_contains": FILE_UPDATED},
         "reply": todo(**complete)},
        {"name": "fix", "when": {"tail_contains": RED_MARKER},
         "reply": [{"type": "tool_use", "name": "Write", "input": fix}]},
        {"name": "complete", "when": {"tail_contains": '"nextId": 2'}, "reply": todo(**complete)},
        {"name": "create",
         "reply": todo(action="create", subject="check.py passes", metadata={"gate": "test"})},
    ]  # fmt: skip
    run = case.run_claude(rules, allowed_tools=("Write",), extra_env=TODO_ENV)

    assert run.rules == ["create", "complete", "fix", "complete-again", "wrap-up"], run.describe()
    assert_clean_exit(run)
    assert_no_stray_traffic(run)
    assert accepted(run, 1)["task"]["metadata"] == {"gate": "test"}

    # Refused with the real exit code and the real output: only running check.py prints the
    # marker, and it ran in the project folder (its relative runs.log is there).
    refusal = refused(run, 2)
    assert refusal.startswith(CMD_MISMATCH + RED_MARKER + "\n"), refusal
    # The fix really was written; then the same claim is re-run and accepted.
    assert not only_result(run, 3).get("is_error"), only_result(run, 3)
    assert check.read_text("utf-8") == PASSING_CHECK
    done = accepted(run, 4)
    assert done["task"]["status"] == "completed", done
    assert done["task"]["metadata"] == {
        "gate": "test",
        "evidence": RUNNABLE,
        "verification": [{"cmd": CHECK_CMD, "status": "verified", "exit": 0, "tests": 1}],
    }, done
    # goalkeeper ran check.py once per completion claim: the failing one, then the fixed one.
    assert (case.proj / "runs.log").read_text("utf-8") == "red\ngreen\n"

    assert_session_handed_over(case, run)
    assert case.stop_hook_outcomes(run) == [("allow", "")]
    assert journal_data(case, "todo_refused") == [{"id": 1, "reason": "checked", "count": 1}]
    (task,) = todo_tasks(case, run.result["session_id"])
    assert task["status"] == "completed" and task["metadata"] == done["task"]["metadata"], task


# -------------------------------------------------------------------------------------------
# 4. Native TodoWrite: a completion is denied, a list without one passes.
# -------------------------------------------------------------------------------------------
def test_native_todowrite_completion_is_denied_and_a_plain_update_passes(case: Case) -> None:
    case.install()
    rules: list[dict[str, Any]] = [
        {"name": "wrap-up", "when": {"tail_contains": NATIVE_REFUSED},
         "reply": text("TodoWrite may not complete items; I will use goalkeeper's todo tool.")},
        {"name": "complete", "when": {"tail_contains": TODOS_WRITTEN},
         "reply": todo_write(("greet.sh prints hello", "completed"))},
        {"name": "start", "reply": todo_write(("greet.sh prints hello", "in_progress"))},
    ]  # fmt: skip
    run = case.run_claude(rules, extra_env={**TODO_ENV, **NATIVE_TODO_ENV})

    assert run.rules == ["start", "complete", "wrap-up"], run.describe()
    assert_clean_exit(run)
    assert_no_stray_traffic(run)
    assert "TodoWrite" in offered(run.requests[0]), deferred_tools(run.requests[0])

    passed = only_result(run, 1)
    assert not passed.get("is_error"), passed
    assert result_text(passed).startswith(TODOS_WRITTEN), passed
    denial = refused(run, 2)
    assert denial.startswith(HOOK_ERROR + NATIVE_REFUSED), denial
    assert TODO in denial and "metadata.evidence" in denial, denial

    # Claude Code applied the first list and not the second.
    results = tool_use_results(case, run)
    assert len(results) == 2, results
    assert results[0]["newTodos"] == [
        {
            "content": "greet.sh prints hello",
            "status": "in_progress",
            "activeForm": "Working on: greet.sh prints hello",
        }
    ], results[0]
    assert isinstance(results[1], str) and NATIVE_REFUSED in results[1], results[1]
    # goalkeeper had no objection to the first call and blocked the second.
    assert pre_tool_use_answers(case, run, "TodoWrite") == [{}]
    blocks = [
        a["text"]
        for d in journal_data(case, "decision")
        for a in d["actions"]
        if a["kind"] == "Block"
    ]
    assert len(blocks) == 1 and blocks[0].startswith(NATIVE_REFUSED), blocks
    # Native todos are Claude Code's, not goalkeeper's: its tree stays empty, no ultimatum;
    # the user hears of the refused completion at the stop.
    assert todo_tasks(case, run.result["session_id"]) == []
    told = (
        "goalkeeper: not done — a task marked completed with TodoWrite was refused (no evidence)."
    )
    assert case.stop_hook_outcomes(run) == [("allow", told)]


# -------------------------------------------------------------------------------------------
# 5. The default quiet window does not spare a run that worked (issue 23).
# -------------------------------------------------------------------------------------------
def test_within_the_default_quiet_window_a_run_that_worked_gets_the_ultimatum(case: Case) -> None:
    """The control of case 2: the same script with goalkeeper's default quiet window (120 s
    after the user's last message). The run settles within seconds of the prompt, but it
    worked (it created and completed todos), so the open item is pushed back once, as in case 2,
    instead of ending in silence (spec S33 held it)."""
    case.install()
    run = case.run_claude(open_item_rules(), extra_env={"GOALKEEPER_NO_PLAN": "silent"})

    assert run.rules == ["create-1", "create-2", "complete-1", "settle", "explain"], run.describe()
    assert_clean_exit(run)
    assert_no_stray_traffic(run)
    outcomes = case.stop_hook_outcomes(run)
    assert [kind for kind, _ in outcomes] == ["block", "allow"], outcomes
    assert outcomes[0][1].startswith(f"goalkeeper: 1 {ULTIMATUM}:\n#2 deploy greet.sh\n")
    assert journal_data(case, "todo_ultimatum") == [{"open": 1}]
    tasks = todo_tasks(case, run.result["session_id"])
    assert [(t["id"], t["status"]) for t in tasks] == [(1, "completed"), (2, "pending")], tasks
