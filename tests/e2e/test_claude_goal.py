"""goalkeeper's goal loop with the real Claude Code CLI, driven by a scripted fake model.

The user states a goal with goalkeeper's project slash command, ``/gk-goal <goal>`` (written by
``goalkeeper install claude --local`` to ``.claude/commands/gk-goal.md``). Claude Code 2.1.332
hands the UserPromptSubmit hook the prompt as typed (``/gk-goal …``), so goalkeeper records the
goal from the command itself; the model receives the expanded command (``Goal: …``).

The goal names its verification in backticks: ``python -m pytest -q`` in a small project whose
only test fails (``add`` subtracts). At every Stop goalkeeper runs that command itself through
``/bin/sh -c`` in the project folder: a failure blocks the Stop and sends the model back with the
real pytest output; a pass with every acceptance criterion of ``.agents/goal/GOAL.md`` ticked
archives the file and lets Claude Code exit.

``python`` must be the interpreter of this virtualenv (pytest is one of its test dependencies),
on a fresh machine too: the runs put the virtualenv's bin folder first on ``PATH``. goalkeeper's
engine process is started by the first hook and inherits that ``PATH``, so ``/bin/sh`` finds the
same interpreter. The goal cannot simply name the interpreter by its absolute path: goalkeeper
does not take ``/…/bin/python -m pytest -q`` in backticks as a verify command (the ``absolute``
variant of the first case, an expected failure).

The projects have no plan file and run with ``GOALKEEPER_NO_PLAN=silent``, so goalkeeper's PDCA
cadence says nothing at Stop and every Stop decision is the goal guard's own. As in the other
e2e files, the fake model's rules are listed latest stage first and tell the stages apart by text
that appears only once a stage happened: goalkeeper's continuation, a tool's result.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .harness import (
    GOALKEEPER_TIMEOUT_S,
    Case,
    Run,
    stop_feedback,
    tool_results,
    venv_bin_dir,
)

pytestmark = pytest.mark.e2e

VERIFY = "python -m pytest -q"
GOAL_TEXT = f"`{VERIFY}` passes"
PROMPT = f"/gk-goal {GOAL_TEXT}"
CRITERION = f"`{VERIFY}` exits 0"

BUGGY_CALC = "def add(a, b):\n    return a - b\n"
FIXED_CALC = "def add(a, b):\n    # the sum, not the difference\n    return a + b\n"
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"

# What only a real pytest run of the buggy project prints.
PYTEST_FAILURE = ("E       assert 0 == 4", "FAILED test_calc.py::test_add - assert 0 == 4")
PYTEST_SUMMARY = re.compile(r"^1 failed in \d+\.\d+s$", re.MULTILINE)

# goalkeeper's words, as the model and the user receive them.
FEEDBACK = "Stop hook feedback:\n"
FAILED_HEAD = "[1/3] `{verify}` failed (exit 1). The failure, last lines:\n"
FAILED_FOOT = (
    "\nFix the cause, not the check: do not delete, skip or weaken tests. When you stop, "
    "goalkeeper runs the verification again."
)
PROVEN = "goalkeeper: goal proven: "
SAME_FAILURE = "failed again with the same failure"
RECORDED = "Goal recorded in .agents/goal/GOAL.md: "

# Claude Code's words.
FILE_UPDATED = "has been updated successfully"

GOAL_KINDS = {"goal_detected", "goal_failed", "goal_blocked", "goal_complete", "goal_tamper"}


# -------------------------------------------------------------------------------------------
# Project, script and assertion helpers
# -------------------------------------------------------------------------------------------
def goal_env(case: Case) -> dict[str, str]:
    """This virtualenv's bin folder first on PATH, so ``python`` is its interpreter (with
    pytest) for Claude Code, goalkeeper's hooks, its engine process and ``/bin/sh -c``."""
    path = os.pathsep.join([str(venv_bin_dir()), case.base_env().get("PATH", os.defpath)])
    found = shutil.which("python", path=path)
    assert found is not None and Path(found).parent == venv_bin_dir(), found
    return {
        "PATH": path,
        "GOALKEEPER_NO_PLAN": "silent",
        # No stale bytecode: the fix may land within the second calc.py was first compiled.
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTEST_ADDOPTS": "",
    }


def write_project(case: Case) -> None:
    (case.proj / "calc.py").write_text(BUGGY_CALC, "utf-8")
    (case.proj / "test_calc.py").write_text(TEST_CALC, "utf-8")


def text(reply: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": reply}]


def tool(name: str, **call: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": call}


def goal_md(case: Case) -> Path:
    return case.proj / ".agents" / "goal" / "GOAL.md"


def archived(case: Case) -> list[Path]:
    folder = case.proj / ".agents" / "goal" / "archive"
    return sorted(folder.iterdir()) if folder.exists() else []


def goal_status(case: Case, doc: str | None = None) -> dict[str, Any]:
    """``goalkeeper goal status --json``: for the project's GOAL.md, or for ``doc`` (an
    archived GOAL.md) placed alone in a scratch folder, so goalkeeper itself reads it."""
    folder = case.proj
    if doc is not None:
        folder = case.root / "reader"
        path = folder / ".agents" / "goal" / "GOAL.md"
        path.parent.mkdir(parents=True)
        path.write_text(doc, "utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(folder), "goal", "status", "--json"],
        cwd=folder,
        env=case.base_env(),
        capture_output=True,
        text=True,
        timeout=GOALKEEPER_TIMEOUT_S,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    status: dict[str, Any] = json.loads(proc.stdout)
    assert status["problem"] is None, status
    return status


def progress_log(doc: str) -> list[str]:
    """The entries of the ``## Progress Log`` section, without their ``- ``."""
    section = doc.split("\n## Progress Log\n", 1)[1]
    return [line[2:] for line in section.splitlines() if line.startswith("- ")]


def assert_clean_exit(run: Run) -> None:
    """Claude Code ended the turn normally: not an API error, not max_turns."""
    assert run.returncode == 0, run.describe()
    assert run.result.get("is_error") is False, run.describe()
    assert run.result.get("subtype") == "success", run.describe()
    assert run.result.get("terminal_reason") == "completed", run.describe()


def assert_no_stray_traffic(run: Run) -> None:
    """Only Messages API calls reached the fake server: no CONNECT through the proxy."""
    assert not [e for e in run.log if e.get("method") == "CONNECT"], run.describe()
    assert run.stray == [], run.describe()


def only_feedback(run: Run, index: int) -> str:
    """What goalkeeper said in request ``index``'s one Stop-feedback message."""
    feedback = stop_feedback(run.requests[index])
    assert len(feedback) == 1, f"request {index + 1}: {feedback!r}\n{run.describe()}"
    reason = feedback[0].split(FEEDBACK, 1)[1]
    return reason.split("\n</system-reminder>", 1)[0]


def assert_real_failure(feedback: str, verify: str) -> str:
    """The first-round continuation, carrying the real pytest output; the output."""
    head = FAILED_HEAD.format(verify=verify)
    assert feedback.startswith(head), feedback
    assert feedback.endswith(FAILED_FOOT), feedback
    output = feedback[len(head) : -len(FAILED_FOOT)]
    for line in PYTEST_FAILURE:
        assert line in output.splitlines(), output
    assert PYTEST_SUMMARY.search(output), output
    return output


def assert_goal_set_by_the_command(run: Run, verify: str) -> None:
    """The prompt reached goalkeeper as the slash command, which recorded the goal with the
    command in backticks as its verification; the model heard about it with the prompt."""
    first = run.requests[0]["body"]["messages"]
    said = "\n".join(
        b.get("text", "") for m in first for b in m.get("content") or [] if isinstance(b, dict)
    )
    assert "<command-name>/gk-goal</command-name>" in said, said[:3000]
    assert f"Goal: `{verify}` passes" in said, said[:3000]
    assert RECORDED in said, said[-3000:]
    recorded = said[said.index(RECORDED) :].split("\n", 2)[:2]
    assert recorded[0] == f"{RECORDED}`{verify}` passes", recorded
    assert recorded[1].startswith(
        f"Verify: `{verify}`. goalkeeper runs it itself at every stop;"
    ), recorded


# -------------------------------------------------------------------------------------------
# 1. An early stop gets the real failure; after the fix the goal is proven and archived.
# -------------------------------------------------------------------------------------------
def repair_rules(case: Case, verify: str) -> list[dict[str, Any]]:
    """Stop early; on the failure read calc.py and GOAL.md; fix calc.py and tick the
    criterion; stop again."""
    calc, goal = str(case.proj / "calc.py"), str(goal_md(case))
    criterion = f"`{verify}` exits 0"
    return [
        {"name": "wrap-up", "when": {"tail_contains": FILE_UPDATED},
         "reply": text("Fixed add(): it returned a - b. The criterion is ticked.\n")},
        {"name": "fix-and-tick",
         "when": {"tail_contains": ["return a - b", "## Acceptance Criteria"],
                  "last_user_has_tool_result": True},
         "reply": [tool("Write", file_path=calc, content=FIXED_CALC),
                   tool("Edit", file_path=goal, old_string=f"- [ ] {criterion}",
                        new_string=f"- [x] {criterion}")]},
        {"name": "read", "when": {"tail_contains": [FEEDBACK, "[1/3]"]},
         "reply": [tool("Read", file_path=calc), tool("Read", file_path=goal)]},
        {"name": "early-stop", "reply": text("Done, I think.\n")},
    ]  # fmt: skip


def run_repair(case: Case, verify: str) -> Run:
    write_project(case)
    case.install()
    assert (
        (case.proj / ".claude" / "commands" / "gk-goal.md")
        .read_text("utf-8")
        .split("---\n")[2]
        .startswith("Goal: $ARGUMENTS\n")
    )
    return case.run_claude(
        repair_rules(case, verify),
        prompt=f"/gk-goal `{verify}` passes",
        max_turns=10,
        allowed_tools=("Read", "Write", "Edit"),
        extra_env=goal_env(case),
    )


def assert_repaired_and_archived(case: Case, run: Run, verify: str) -> None:
    assert_goal_set_by_the_command(run, verify)
    assert run.rules == ["early-stop", "read", "fix-and-tick", "wrap-up"], run.describe()
    assert_clean_exit(run)
    assert_no_stray_traffic(run)
    assert run.result["result"] == "Fixed add(): it returned a - b. The criterion is ticked.\n"

    # The early stop was blocked with goalkeeper's own run of the tests: the real failure.
    assert run.requests[0]["reply"] == text("Done, I think.\n")
    assert stop_feedback(run.requests[0]) == []
    failure = assert_real_failure(only_feedback(run, 1), verify)

    # Both reads and both changes really happened.
    reads = tool_results(run.requests[2])
    assert len(reads) == 2 and not any(r.get("is_error") for r in reads), reads
    changes = tool_results(run.requests[3])
    assert len(changes) == 2 and not any(r.get("is_error") for r in changes), changes
    assert all(FILE_UPDATED in str(r.get("content")) for r in changes), changes
    assert (case.proj / "calc.py").read_text("utf-8") == FIXED_CALC
    assert (case.proj / "test_calc.py").read_text("utf-8") == TEST_CALC
    # The fixed project's one request after the fix carries no new Stop feedback.
    assert stop_feedback(run.requests[3]) == []

    # Claude Code's record: one block with the failure, then the Stop allowed with the close.
    outcomes = case.stop_hook_outcomes(run)
    assert [kind for kind, _ in outcomes] == ["block", "allow"], outcomes
    assert outcomes[0][1] == only_feedback(run, 1), outcomes
    # (goalkeeper's progress note on the passing run, then the close)
    assert outcomes[1] == (
        "allow",
        f"goalkeeper: {verify} … passed\n"
        f"{PROVEN}`{verify}` passes. Verified by `{verify}`; archived to .agents/goal/archive/.",
    ), outcomes

    # GOAL.md is archived, and the archive is a goal goalkeeper still reads: complete, one
    # round used, its last failure the real one, its criterion ticked, the Progress Log
    # telling the story (set, failed round 1, verified, complete).
    assert not goal_md(case).exists()
    (archive,) = archived(case)
    slug = "-".join(re.findall(r"[a-z0-9]+", f"{verify} passes".lower()))[:48].rstrip("-")
    assert re.fullmatch(rf"\d{{8}}T\d{{6}}-{slug}\.md", archive.name), archive
    doc = archive.read_text("utf-8")
    assert re.search(r"^status: complete$", doc.split("---\n", 2)[1], re.MULTILINE), doc
    goal = goal_status(case, doc)
    assert goal["status"] == "complete", goal
    assert goal["objective"] == f"`{verify}` passes", goal
    assert goal["verify"] == [verify], goal
    assert (goal["attempts"], goal["rounds"]) == (1, 3), goal
    assert goal["criteria"] == [{"text": f"`{verify}` exits 0", "state": "done"}], goal
    failed = goal["last_failure"]
    assert (failed["command"], failed["exit"]) == (verify, 1), failed
    assert PYTEST_FAILURE[1] in failed["tail"].splitlines(), failed
    assert failure.endswith(failed["tail"]), (failure, failed)  # the run the model was shown
    log = progress_log(doc)
    assert goal["progress_log"] == log, goal
    assert len(log) == 4, log
    assert log[0].endswith(f" goal set (command): `{verify}` passes"), log
    # (which failure line it quotes is the last case's concern)
    assert re.fullmatch(rf"\S+ \[1/3\] {re.escape(verify)} failed \(exit 1\): \S.*", log[1]), log
    assert log[2].endswith(f" verified: `{verify}` passed"), log
    assert log[3].endswith(" complete: verification passed and every criterion is closed"), log

    # The journal: goal set by the command, one failed round, then complete.
    journal = case.journal(GOAL_KINDS)
    assert [e["kind"] for e in journal] == ["goal_detected", "goal_failed", "goal_complete"], (
        journal
    )
    assert journal[0]["data"] == {"source": "command"}
    assert journal[1]["data"] == {"n": 1, "signature": failed["signature"]}, journal
    # The proof it records: goalkeeper's own run of the command, and the protected tests (the
    # agent changed calc.py, not test_calc.py).
    proof = journal[2]["data"]
    assert proof["protected_tests"] == "unchanged", proof
    (ran,) = proof["verify"]
    assert (ran["command"], ran["exit"], ran["timed_out"]) == (verify, 0, False), proof
    assert ran["argv"] == verify.split(), proof
    assert re.fullmatch(r"[0-9a-f]{64}", ran["output_sha256"]), proof


@pytest.mark.parametrize("interpreter", ["on-path", "absolute"])
def test_early_stop_gets_the_real_failure_then_the_fix_is_proven_and_archived(
    case: Case, interpreter: str
) -> None:
    verify = VERIFY if interpreter == "on-path" else f"{sys.executable} -m pytest -q"
    run = run_repair(case, verify)
    assert_repaired_and_archived(case, run, verify)


# -------------------------------------------------------------------------------------------
# 2. The same failure twice: the goal is paused, not another round.
# -------------------------------------------------------------------------------------------
def run_same_failure(case: Case) -> Run:
    """Stop early; on the failure, change nothing and stop again."""
    write_project(case)
    case.install()
    rules = [
        {"name": "retry-unchanged", "when": {"tail_contains": [FEEDBACK, "[1/3]"]},
         "reply": text("I looked again; it should pass now.\n")},
        {"name": "early-stop", "reply": text("Done, I think.\n")},
    ]  # fmt: skip
    run = case.run_claude(rules, prompt=PROMPT, max_turns=10, extra_env=goal_env(case))
    assert run.rules == ["early-stop", "retry-unchanged"], run.describe()
    assert_clean_exit(run)
    assert_no_stray_traffic(run)
    return run


def test_the_same_failure_twice_pauses_the_goal(case: Case) -> None:
    run = run_same_failure(case)
    assert run.result["result"] == "I looked again; it should pass now.\n"
    assert_goal_set_by_the_command(run, VERIFY)
    assert_real_failure(only_feedback(run, 1), VERIFY)

    # The second Stop ran pytest again, saw the same failure and let Claude Code stop, telling
    # the user why and how to go on.
    outcomes = case.stop_hook_outcomes(run)
    assert [kind for kind, _ in outcomes] == ["block", "allow"], outcomes
    paused = outcomes[1][1]
    assert paused.startswith(f"goalkeeper paused the goal: `{VERIFY}` {SAME_FAILURE} ("), paused
    assert paused.endswith(
        "), so the last fix did not change it. Resume with `goalkeeper goal resume`, go back to "
        "the plan, or stop with `goalkeeper goal clear`."
    ), paused

    # GOAL.md stays, blocked, with the round count still 1 and the criterion open.
    assert (case.proj / "calc.py").read_text("utf-8") == BUGGY_CALC
    assert archived(case) == []
    doc = goal_md(case).read_text("utf-8")
    assert re.search(r"^status: blocked$", doc.split("---\n", 2)[1], re.MULTILINE), doc
    goal = goal_status(case)
    assert goal["status"] == "blocked", goal
    assert goal["blocked_reason"] == "same failure twice", goal
    assert (goal["attempts"], goal["rounds"]) == (1, 3), goal
    assert goal["criteria"] == [{"text": CRITERION, "state": "open"}], goal
    log = progress_log(doc)
    assert goal["progress_log"] == log, goal
    assert len(log) == 3, log
    assert re.fullmatch(rf"\S+ \[1/3\] {re.escape(VERIFY)} failed \(exit 1\): \S.*", log[1]), log
    assert re.fullmatch(rf"\S+ blocked: {re.escape(VERIFY)} {SAME_FAILURE}: \S.*", log[2]), log

    journal = case.journal(GOAL_KINDS)
    assert [e["kind"] for e in journal] == ["goal_detected", "goal_failed", "goal_blocked"], journal
    assert journal[1]["data"] == {"n": 1, "signature": goal["last_failure"]["signature"]}
    assert journal[2]["data"] == {"why": "same"}


# -------------------------------------------------------------------------------------------
# 3. The failure goalkeeper quotes in one line names what failed.
# -------------------------------------------------------------------------------------------
def test_the_quoted_failure_line_names_the_failing_test(case: Case) -> None:
    run = run_same_failure(case)
    log = progress_log(goal_md(case).read_text("utf-8"))
    quoted = {
        "round 1": log[1].split(" failed (exit 1): ", 1)[1],
        "blocked": log[2].split(f" {SAME_FAILURE}: ", 1)[1],
        "pause": case.stop_hook_outcomes(run)[1][1].split(f"{SAME_FAILURE} (", 1)[1],
    }
    for where, line in quoted.items():
        assert "test_calc.py::test_add" in line or "assert 0 == 4" in line, (where, line)


# -------------------------------------------------------------------------------------------
# 4. A paused goal is shown at the next prompt, and sending it again resumes it.
# -------------------------------------------------------------------------------------------
def request_text(run: Run, index: int = 0) -> str:
    """Every text block of request ``index``'s messages (prompt, hook context, results)."""
    messages = run.requests[index]["body"]["messages"]
    return "\n".join(
        b.get("text", "") for m in messages for b in m.get("content") or [] if isinstance(b, dict)
    )


def test_a_paused_goal_is_shown_and_sending_it_again_resumes_it(case: Case) -> None:
    """Seed 004 §4.4 (audit D9). After the same failure twice the goal is paused. A later
    session's prompt carries "Goal paused" and why, so the agent is not left unaware. Sending
    the same /gk-goal again resumes it where it stopped: the round count and the last failure
    stay, so the unchanged code fails with the same failure and the goal pauses again at once,
    instead of starting over at [1/3]."""
    run_same_failure(case)
    asked = case.run_claude(
        [{"name": "answer", "reply": text("calc.py holds one function, add.\n")}],
        prompt="What is in calc.py?",
        max_turns=5,
        extra_env=goal_env(case),
    )
    assert_clean_exit(asked)
    context = request_text(asked)
    assert "Goal paused (from .agents/goal/GOAL.md): `python -m pytest -q` passes" in context
    assert "- paused because: same failure twice" in context, context[-3000:]
    assert [kind for kind, _ in case.stop_hook_outcomes(asked)] == ["allow"]

    resent = case.run_claude(
        [{"name": "unchanged", "reply": text("Still looking.\n")}],
        prompt=PROMPT,
        max_turns=5,
        extra_env=goal_env(case),
    )
    assert_clean_exit(resent)
    assert "it resumes from where it stopped" in request_text(resent), request_text(resent)
    outcomes = case.stop_hook_outcomes(resent)
    assert [kind for kind, _ in outcomes] == ["allow"], outcomes
    assert SAME_FAILURE in outcomes[0][1], outcomes
    goal = goal_status(case)
    assert (goal["status"], goal["attempts"]) == ("blocked", 1), goal
    assert archived(case) == []  # the same goal, not a new one replacing it
    kinds = [e["kind"] for e in case.journal(GOAL_KINDS | {"goal_resent"})]
    assert kinds == [
        "goal_detected", "goal_failed", "goal_blocked", "goal_resent", "goal_blocked"
    ], kinds  # fmt: skip
