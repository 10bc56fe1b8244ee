"""goalkeeper with the real Claude Code CLI, driven by a scripted fake model.

Each case installs goalkeeper's hooks with ``goalkeeper install claude --local`` into a fresh
project, runs ``claude -p`` against ``fake_anthropic.py`` and asserts on what the model received
(the fake server's request log), on how Claude Code ended, on the plan file on disk, on Claude
Code's own record of each Stop hook run (the transcript) and on goalkeeper's journal
(``goalkeeper status --json``).

The fake model's script is a list of rules, latest stage first; stages are told apart by marker
strings that appear in the conversation only once a stage happened: a tool's output (the test
command does not contain its own output), goalkeeper's continuation texts, the model's earlier
replies.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from .harness import CLOSE_MESSAGE, Case, Run, stop_feedback, tool_results

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

# goalkeeper's words, as the model and the user receive them.
FEEDBACK = "Stop hook feedback:\n"
REFUSAL = "Not closed yet:"
AFTER_PLAN = "Plan recorded."
AFTER_DO = "Change made."
AFTER_CHECK = "Evidence in hand."
NO_TOOL_CHECK = "That [PDCA] check ran no tool at all, so it produced no evidence."
AFTER_ACT = "Loop closed."
NO_PLAN_GUIDE = "Good progress. If this task needs more than one step, give it a plan"
CAPPED = "goalkeeper paused after 3 automatic continuations in a row (max_continuations)"
CAP_WARNING = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=8 is below the 44 continuations without a tool"
BLOCK_CAP_ENV = {"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "50"}

# Pre-approve what the fake model uses: the project's test run through Bash, Write for the plan.
ALLOWED = ("Bash", "Write")
# The project's one test prints the marker its run is asked for: a check is a test that ran.
MARKER_TEST = """import os


def test_marker():
    print(os.environ["MARK_HEAD"] + "-" + os.environ["MARK_TAIL"])
"""


# -------------------------------------------------------------------------------------------
# Script and assertion helpers
# -------------------------------------------------------------------------------------------
def text(reply: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": reply}]


def run_test(marker: str) -> list[dict[str, Any]]:
    """A Bash call running the project's test, whose *output* holds ``marker``
    (``EVIDENCE-OK`` → ``MARK_HEAD=EVIDENCE MARK_TAIL=OK python -m pytest …``): the marker shows
    up in the conversation only once the test really ran. See ``with_marker_test``."""
    head, _, tail = marker.rpartition("-")
    command = (
        f"MARK_HEAD={head} MARK_TAIL={tail} {sys.executable} -m pytest -q -s -p no:cacheprovider"
    )
    return [
        {
            "type": "tool_use",
            "name": "Bash",
            "input": {"command": command, "description": "evidence"},
        }
    ]


def with_marker_test(case: Case) -> None:
    """Give the project the test ``run_test`` runs."""
    (case.proj / "test_marker.py").write_text(MARKER_TEST, encoding="utf-8")


def write_plan(case: Case, content: str) -> list[dict[str, Any]]:
    """A Write call replacing the plan file (absolute path, full content)."""
    path = str(case.plan_path(TOPIC))
    return [{"type": "tool_use", "name": "Write", "input": {"file_path": path, "content": content}}]


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
    """The one Stop-feedback message after the last assistant message of request ``index``."""
    feedback = stop_feedback(run.requests[index])
    assert len(feedback) == 1, f"request {index + 1}: {feedback!r}\n{run.describe()}"
    return feedback[0]


def feedback_reason(run: Run, index: int) -> str:
    """What goalkeeper said in request ``index``'s Stop feedback (the text after the label)."""
    message = only_feedback(run, index)
    reason = message.split(FEEDBACK, 1)[1]
    return reason.split("\n</system-reminder>", 1)[0]


def end_turns(run: Run) -> list[int]:
    """Indexes of the requests the model answered with end_turn (each fired the Stop hook)."""
    return [i for i, e in enumerate(run.requests) if e.get("stop_reason") == "end_turn"]


def kinds(entries: list[dict[str, Any]]) -> list[str]:
    return [e["kind"] for e in entries]


def decided(case: Case, kind: str) -> list[str]:
    """The texts of every action of ``kind`` (Continue, Close, Pause) goalkeeper decided."""
    out = []
    for entry in case.journal({"decision"}):
        out += [a["text"] for a in entry["data"]["actions"] if a["kind"] == kind]
    return out


def system_messages(case: Case, run: Run, event: str) -> list[str]:
    """The systemMessages goalkeeper's ``event`` hook showed the user, from the transcript."""
    return [
        line["attachment"].get("content", "")
        for line in case.transcript(run)
        if line.get("type") == "attachment"
        and line["attachment"].get("type") == "hook_system_message"
        and line["attachment"].get("hookEvent") == event
    ]


def without_block_cap_env(case: Case) -> None:
    """Take the ``env`` block that ``goalkeeper install`` wrote back out of the settings."""
    settings = case.settings()
    assert settings.pop("env") == BLOCK_CAP_ENV
    case.settings_path.write_text(json.dumps(settings, indent=2), "utf-8")


# -------------------------------------------------------------------------------------------
# 1. An early "[PDCA] complete" is refused; a checked one closes.
# -------------------------------------------------------------------------------------------
def test_early_complete_is_refused_then_a_proven_close_ends_the_run(case: Case) -> None:
    case.write_plan(TOPIC, PLAN)
    with_marker_test(case)
    settings = case.install()
    assert settings["env"] == BLOCK_CAP_ENV
    assert set(settings["hooks"]) == {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "Stop",
        "StopFailure",
        "SubagentStop",
    }

    rules = [
        {"name": "complete", "when": {"contains": AFTER_CHECK},
         "reply": text("Proven: greet.sh prints hello.\n[PDCA] complete")},
        {"name": "check", "when": {"contains": "EVIDENCE-OK", "last_user_has_tool_result": True},
         "reply": text("The evidence matches the plan; both items are ticked.\n[PDCA] check")},
        {"name": "run-evidence", "when": {"contains": REFUSAL, "last_user_has_tool_result": True},
         "reply": run_test("EVIDENCE-OK")},
        {"name": "tick-plan", "when": {"contains": REFUSAL},
         "reply": write_plan(case, TICKED_PLAN)},
        {"name": "early-complete",
         "reply": text("I think greet.sh works now.\n[PDCA] complete")},
    ]  # fmt: skip
    run = case.run_claude(rules, allowed_tools=ALLOWED)

    assert run.rules == ["early-complete", "tick-plan", "run-evidence", "check", "complete"], (
        run.describe()
    )
    assert_clean_exit(run)
    assert run.result["result"] == "Proven: greet.sh prints hello.\n[PDCA] complete"
    assert_no_stray_traffic(run)

    # The first answer used no tool; the next request carries goalkeeper's refusal after it:
    # one message naming every failing gate and every open item, then the ways out.
    assert run.requests[0]["reply"] == text("I think greet.sh works now.\n[PDCA] complete")
    refusal = only_feedback(run, 1)
    assert f"{FEEDBACK}{REFUSAL}" in refusal, refusal
    assert refusal.count(REFUSAL) == 1, refusal
    for part in ("Check gate", "OKR gate", "Map gate", f"- [ ] {KR_TEXT}", f"- [ ] {LEAF_TEXT}"):
        assert part in refusal, f"{part!r} is missing from the refusal:\n{refusal}"
    for way_out in ("1. Do it", "2. Cut it", "3. Rewrite the KR"):
        assert way_out in refusal, refusal

    # The tools really ran: the plan file was rewritten, the test run produced the evidence.
    (written,) = tool_results(run.requests[2])
    assert not written.get("is_error"), written
    (evidence,) = tool_results(run.requests[3])
    assert "EVIDENCE-OK" in str(evidence.get("content")), evidence
    assert "1 passed" in str(evidence.get("content")), evidence
    assert case.plan_path(TOPIC).read_text("utf-8") == TICKED_PLAN

    # The check was continued ("Evidence in hand."); the second complete closed the task.
    assert feedback_reason(run, 4).startswith(AFTER_CHECK)
    outcomes = case.stop_hook_outcomes(run)
    assert [kind for kind, _ in outcomes] == ["block", "block", "allow"], outcomes
    assert outcomes[0][1].startswith(REFUSAL) and outcomes[1][1].startswith(AFTER_CHECK)
    assert outcomes[2] == ("allow", CLOSE_MESSAGE)
    assert system_messages(case, run, "Stop") == [CLOSE_MESSAGE]

    journal = case.journal({"refused", "closed", "capped"})
    assert kinds(journal) == ["refused", "closed"], journal
    assert journal[0]["data"]["gates"] == ["check", "okr", "map"]
    settles = case.journal({"settle"})
    assert [e["data"] for e in settles] == [
        {"phase": "complete", "tools": 0},
        {"phase": "check", "tools": 2},
        {"phase": "complete", "tools": 0},
    ], settles
    (session,) = case.status()["sessions"]
    assert session["session_id"] == run.result["session_id"]
    assert session["phase"] == "complete"


# -------------------------------------------------------------------------------------------
# 2. A long PDCA loop is not cut off by Claude Code's block cap.
# -------------------------------------------------------------------------------------------
LOOP_ROUNDS = 12  # do/check rounds, then a final check round: 13 Stop blocks, then the close


def tool_loop_rules(case: Case, rounds: int = LOOP_ROUNDS) -> list[dict[str, Any]]:
    """Rounds 1..rounds alternate ``[PDCA] do`` / ``[PDCA] check``, each running the test first;
    then one more round ticks the plan and runs the test (``check``); then ``complete``.

    Round k's tool prints ``ROUND-kk-RAN``; its report says ``Round kk finished.``.
    """
    last = rounds + 1
    rules: list[dict[str, Any]] = [
        {"name": "complete", "when": {"contains": [f"Round {last:02d} finished.", AFTER_CHECK]},
         "reply": text("Every round is checked and the plan is ticked.\n[PDCA] complete")},
        {"name": f"report-{last:02d}",
         "when": {"contains": f"ROUND-{last:02d}-RAN", "last_user_has_tool_result": True},
         "reply": text(f"Round {last:02d} finished.\n[PDCA] check")},
        {"name": f"tick-and-run-{last:02d}", "when": {"contains": f"Round {rounds:02d} finished."},
         "reply": write_plan(case, TICKED_PLAN) + run_test(f"ROUND-{last:02d}-RAN")},
    ]  # fmt: skip
    for k in range(rounds, 0, -1):
        phase = "do" if k % 2 else "check"
        rules.append(
            {"name": f"report-{k:02d}",
             "when": {"contains": f"ROUND-{k:02d}-RAN", "last_user_has_tool_result": True},
             "reply": text(f"Round {k:02d} finished.\n[PDCA] {phase}")}
        )  # fmt: skip
        when = {"contains": f"Round {k - 1:02d} finished."} if k > 1 else {}
        reply = run_test(f"ROUND-{k:02d}-RAN")
        rules.append({"name": f"run-{k:02d}", "when": when, "reply": reply})
    return rules


def assert_goalkeeper_closed_the_loop(case: Case, run: Run, blocks: int, max_turns: int) -> None:
    """goalkeeper continued every Stop (``blocks`` of them), then closed; Claude Code honoured
    each continuation and ended the run on the close, not on its block cap or max_turns."""
    assert_clean_exit(run)
    assert run.result["num_turns"] < max_turns, run.describe()
    assert (
        run.result["result"] == run.text_replies[-1] and "[PDCA] complete" in run.text_replies[-1]
    )
    outcomes = case.stop_hook_outcomes(run)
    assert [kind for kind, _ in outcomes] == ["block"] * blocks + ["allow"], outcomes
    assert outcomes[-1] == ("allow", CLOSE_MESSAGE)
    # Every block reached the model: the request after each end_turn answer carries it.
    ends = end_turns(run)
    assert len(ends) == blocks + 1, run.describe()
    continued = decided(case, "Continue")
    assert len(continued) == blocks
    for n, (i, said) in enumerate(zip(ends, continued, strict=False)):
        # (the journal keeps the first 500 characters of each decision)
        reason = feedback_reason(run, i + 1)
        assert reason.startswith(said), f"continuation {n + 1} (request {i + 2}): {reason!r}"
    journal = case.journal({"refused", "closed", "capped"})
    assert kinds(journal) == ["closed"], journal
    assert case.plan_path(TOPIC).read_text("utf-8") == TICKED_PLAN


@pytest.mark.parametrize("env_block", ["installed", "removed"])
def test_long_pdca_loop_with_tools_runs_to_goalkeepers_close(case: Case, env_block: str) -> None:
    """13 continuations, every round running a tool, then the close.

    With Claude Code 2.1.332 a tool call resets its count of Stop blocks in a row, so this loop
    survives even without the ``env`` block (``removed``); the next test shows where the
    installed block cap is what keeps a loop alive."""
    case.write_plan(TOPIC, PLAN)
    with_marker_test(case)
    case.install()
    if env_block == "removed":
        without_block_cap_env(case)
    max_turns = 60
    run = case.run_claude(tool_loop_rules(case), allowed_tools=ALLOWED, max_turns=max_turns)

    # Two requests per round (the tool call, the report), then the closing answer.
    assert len(run.requests) == 2 * (LOOP_ROUNDS + 1) + 1, run.describe()
    assert len(run.requests) > 9
    assert_no_stray_traffic(run)
    assert_goalkeeper_closed_the_loop(case, run, blocks=LOOP_ROUNDS + 1, max_turns=max_turns)
    phases = [r.rsplit("[PDCA] ", 1)[1] for r in run.text_replies]
    assert phases == ["do", "check"] * (LOOP_ROUNDS // 2) + ["check", "complete"]
    reasons = [feedback_reason(run, i + 1) for i in end_turns(run)[:-1]]
    expected = [AFTER_DO, AFTER_CHECK] * (LOOP_ROUNDS // 2) + [AFTER_CHECK]
    assert len(reasons) == len(expected)
    for n, (reason, start) in enumerate(zip(reasons, expected, strict=True), 1):
        assert reason.startswith(start), f"continuation {n}: {reason[:80]!r}"
    # Every round's tool ran, and goalkeeper counted it.
    settles = case.journal({"settle"})
    assert [e["data"]["tools"] for e in settles] == [1] * LOOP_ROUNDS + [2, 0], settles
    # With the default stuck rule the 8-block cap never bites, so nobody is warned.
    assert system_messages(case, run, "SessionStart") == []


TEXT_ROUNDS = 11  # plan/act rounds without a tool: 11 Stop blocks in a row


def text_loop_rules(case: Case, rounds: int = TEXT_ROUNDS) -> list[dict[str, Any]]:
    """Rounds 1..rounds alternate ``[PDCA] plan`` / ``[PDCA] act`` with no tool call (so Claude
    Code counts every block as one more in a row); then a round ticks the plan and runs the test
    (``check``); then ``complete``. Round k's answer says ``Thought kk done.``."""
    rules: list[dict[str, Any]] = [
        {"name": "complete", "when": {"contains": ["CHECKED-OK", AFTER_CHECK]},
         "reply": text("The plan is ticked and checked.\n[PDCA] complete")},
        {"name": "check", "when": {"contains": "CHECKED-OK", "last_user_has_tool_result": True},
         "reply": text("The test ran; the plan is ticked.\n[PDCA] check")},
        {"name": "tick-and-run", "when": {"contains": f"Thought {rounds:02d} done."},
         "reply": write_plan(case, TICKED_PLAN) + run_test("CHECKED-OK")},
    ]  # fmt: skip
    for k in range(rounds, 0, -1):
        phase = "plan" if k % 2 else "act"
        when = {"contains": f"Thought {k - 1:02d} done."} if k > 1 else {}
        rules.append(
            {"name": f"thought-{k:02d}", "when": when,
             "reply": text(f"Thought {k:02d} done.\n[PDCA] {phase}")}
        )  # fmt: skip
    return rules


# goalkeeper's stuck guard would re-plan after 3 rounds without a tool and pause after 2 such
# resets (at the 9th Stop, where Claude Code's default cap ends the turn anyway); raise it so the
# only limit left in the way of these tool-less rounds is Claude Code's block cap.
PATIENT = {"GOALKEEPER_STUCK": "15"}  # 15 × 3 − 1 = 44 tool-less continuations, cap 50


def test_installed_block_cap_keeps_more_than_eight_blocks_in_a_row_alive(case: Case) -> None:
    case.write_plan(TOPIC, PLAN)
    with_marker_test(case)
    case.install()
    max_turns = 40
    run = case.run_claude(
        text_loop_rules(case), allowed_tools=ALLOWED, max_turns=max_turns, extra_env=PATIENT
    )

    assert run.rules == (
        [f"thought-{k:02d}" for k in range(1, TEXT_ROUNDS + 1)]
        + ["tick-and-run", "check", "complete"]
    ), run.describe()
    assert len(run.requests) > 9
    assert_no_stray_traffic(run)
    assert_goalkeeper_closed_the_loop(case, run, blocks=TEXT_ROUNDS + 1, max_turns=max_turns)
    reasons = [feedback_reason(run, k) for k in range(1, TEXT_ROUNDS + 1)]
    assert all(r.startswith(AFTER_PLAN if k % 2 else AFTER_ACT) for k, r in enumerate(reasons, 1))
    assert system_messages(case, run, "SessionStart") == []


def test_without_the_installed_env_claude_code_ends_the_loop_after_eight_blocks(
    case: Case,
) -> None:
    """The control: the same script with the ``env`` block removed from settings.local.json."""
    case.write_plan(TOPIC, PLAN)
    with_marker_test(case)
    case.install()
    without_block_cap_env(case)
    run = case.run_claude(
        text_loop_rules(case), allowed_tools=ALLOWED, max_turns=40, extra_env=PATIENT
    )

    # 9 requests, 9 Stop hook runs: goalkeeper blocked all 9, Claude Code honoured the first 8.
    assert run.rules == [f"thought-{k:02d}" for k in range(1, 10)], run.describe()
    assert run.returncode == 0 and run.result.get("is_error") is False, run.describe()
    assert run.result.get("terminal_reason") == "completed", run.describe()
    outcomes = case.stop_hook_outcomes(run)
    assert [kind for kind, _ in outcomes] == ["block"] * 9, outcomes
    assert len(decided(case, "Continue")) == 9
    assert kinds(case.journal({"refused", "closed", "capped"})) == []
    assert case.plan_path(TOPIC).read_text("utf-8") == PLAN
    # goalkeeper told the user at session start that this would happen.
    warnings = system_messages(case, run, "SessionStart")
    assert any(CAP_WARNING in w for w in warnings), warnings


# -------------------------------------------------------------------------------------------
# 3. No plan: guided once.
# -------------------------------------------------------------------------------------------
def test_without_a_plan_goalkeeper_guides_once_then_lets_claude_stop(case: Case) -> None:
    case.install()
    assert not (case.proj / "plan").exists()
    rules = [
        {"name": "after-guidance", "when": {"contains": NO_PLAN_GUIDE},
         "reply": text("This was a one-off answer: hello.")},
        {"name": "answer", "reply": text("Here is the greeting: hello.")},
    ]  # fmt: skip
    run = case.run_claude(rules)

    assert run.rules == ["answer", "after-guidance"], run.describe()
    assert_clean_exit(run)
    assert_no_stray_traffic(run)
    assert run.result["result"] == "This was a one-off answer: hello."
    assert stop_feedback(run.requests[0]) == []
    assert feedback_reason(run, 1).startswith(NO_PLAN_GUIDE)
    outcomes = case.stop_hook_outcomes(run)
    assert [kind for kind, _ in outcomes] == ["block", "allow"], outcomes
    assert outcomes[1] == ("allow", "")
    assert len(decided(case, "Continue")) == 1
    assert not (case.proj / "plan").exists()

    # "Never again in that session": a new prompt in the same session is not guided either.
    rules.insert(0, {"name": "second-prompt", "when": {"contains": "SECOND-PROMPT"},
                     "reply": text("Second answer: hello again.")})  # fmt: skip
    session = run.result["session_id"]
    again = case.run_claude(rules, prompt="SECOND-PROMPT: greet me again.",
                            extra_args=["--resume", session])  # fmt: skip
    assert again.rules == ["second-prompt"], again.describe()
    assert_clean_exit(again)
    assert_no_stray_traffic(again)
    assert again.result["session_id"] == session
    assert again.result["result"] == "Second answer: hello again."
    assert len(decided(case, "Continue")) == 1
    assert [s["session_id"] for s in case.status()["sessions"]] == [session]


# -------------------------------------------------------------------------------------------
# 4. goalkeeper's own continuation cap.
# -------------------------------------------------------------------------------------------
def test_goalkeeper_pauses_after_max_continuations(case: Case) -> None:
    case.write_plan(TOPIC, PLAN)
    with_marker_test(case)
    case.install()
    rules = [{"name": "never-done", "reply": text("Still working on it.\n[PDCA] do")}]
    run = case.run_claude(rules, max_turns=20, extra_env={"GOALKEEPER_MAX_CONTINUATIONS": "3"})

    assert run.rules == ["never-done"] * 4, run.describe()
    assert_clean_exit(run)
    assert_no_stray_traffic(run)
    assert run.result["result"] == "Still working on it.\n[PDCA] do"
    for i in (1, 2, 3):
        assert only_feedback(run, i)
    outcomes = case.stop_hook_outcomes(run)
    assert [kind for kind, _ in outcomes] == ["block", "block", "block", "allow"], outcomes
    assert outcomes[3][1].startswith(CAPPED), outcomes
    assert system_messages(case, run, "Stop") == [outcomes[3][1]]
    journal = case.journal({"refused", "closed", "capped"})
    assert kinds(journal) == ["capped"], journal
    assert journal[0]["data"] == {"continuations": 3}
    assert decided(case, "Pause") == [outcomes[3][1]]
    (session,) = case.status()["sessions"]
    assert session["continuations"] == 3


# -------------------------------------------------------------------------------------------
# 5. A check that ran no tool is not evidence.
# -------------------------------------------------------------------------------------------
def test_a_check_without_a_tool_call_does_not_open_the_check_gate(case: Case) -> None:
    """The plan is ticked and a tool ran in the ``do`` round, but the ``check`` round ran
    nothing: the check is sent back, a complete after it is refused by the check gate alone,
    and a real check then closes."""
    case.write_plan(TOPIC, PLAN)
    with_marker_test(case)
    case.install()
    rules = [
        {"name": "complete-again", "when": {"contains": ["Checked with the test.", AFTER_CHECK]},
         "reply": text("Checked for real.\n[PDCA] complete")},
        {"name": "real-check",
         "when": {"contains": "RECHECK-OK", "last_user_has_tool_result": True},
         "reply": text("Checked with the test.\n[PDCA] check")},
        {"name": "run-check", "when": {"contains": REFUSAL}, "reply": run_test("RECHECK-OK")},
        {"name": "complete", "when": {"contains": ["Looks fine to me.", NO_TOOL_CHECK]},
         "reply": text("Done.\n[PDCA] complete")},
        {"name": "empty-check", "when": {"contains": AFTER_DO},
         "reply": text("Looks fine to me.\n[PDCA] check")},
        {"name": "report-do", "when": {"contains": "BUILT-OK", "last_user_has_tool_result": True},
         "reply": text("Built it and ticked the plan.\n[PDCA] do")},
        {"name": "build", "reply": write_plan(case, TICKED_PLAN) + run_test("BUILT-OK")},
    ]  # fmt: skip
    run = case.run_claude(rules, allowed_tools=ALLOWED)

    assert run.rules == [
        "build", "report-do", "empty-check", "complete", "run-check", "real-check",
        "complete-again",
    ], run.describe()  # fmt: skip
    assert_clean_exit(run)
    assert_no_stray_traffic(run)
    assert feedback_reason(run, 3).startswith(NO_TOOL_CHECK)
    refusal = feedback_reason(run, 4)
    assert refusal.startswith(REFUSAL), refusal
    assert "Check gate: the last [PDCA] check ran no tool" in refusal, refusal
    assert "OKR gate" not in refusal and "Map gate" not in refusal, refusal
    assert feedback_reason(run, 6).startswith(AFTER_CHECK)
    settles = [e["data"] for e in case.journal({"settle"})]
    assert settles == [
        {"phase": "do", "tools": 2},
        {"phase": "check", "tools": 0},
        {"phase": "complete", "tools": 0},
        {"phase": "check", "tools": 1},
        {"phase": "complete", "tools": 0},
    ], settles
    journal = case.journal({"refused", "closed", "capped"})
    assert kinds(journal) == ["refused", "closed"], journal
    assert journal[0]["data"]["gates"] == ["check"]
    assert case.stop_hook_outcomes(run)[-1] == ("allow", CLOSE_MESSAGE)
