"""Normal mode's question gate with the real Claude Code CLI and a scripted fake model.

`/gk-mode normal <task>` starts a normal-mode run from the prompt hook; the fake model then tries
to write code at once. Claude Code asks goalkeeper's PreToolUse hook, which refuses the write in
the discuss phase; the model asks its question and stops, and goalkeeper lets that stop stand
(the user owes the confirmation).
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import Case
from .test_claude_todos import assert_clean_exit, only_result, result_text, text

pytestmark = pytest.mark.e2e

ENV = {"GOALKEEPER_LANG": "en", "GOALKEEPER_NO_PLAN": "silent"}


def test_normal_mode_refuses_code_in_discuss_and_waits_for_the_user(case: Case) -> None:
    """The write is refused with the reason and the way on; no file is written; the stop that
    asks the user is not continued."""
    case.install()
    target = case.proj / "vat.py"
    rules: list[dict[str, Any]] = [
        {"name": "ask", "when": {"tail_contains": "no code changes yet"},
         "reply": text("Before I change anything: which VAT rate applies to books?")},
        {"name": "write", "when": {"contains": "discuss → plan → execute → verify"},
         "reply": [{"type": "tool_use", "name": "Write",
                    "input": {"file_path": str(target), "content": "RATE = 0.2\n"}}]},
    ]  # fmt: skip
    run = case.run_claude(
        rules, prompt="/gk-mode normal add the VAT rule", allowed_tools=("Write",), extra_env=ENV
    )
    assert run.rules == ["write", "ask"], run.describe()
    assert_clean_exit(run)
    refusal = only_result(run, 1)
    assert refusal.get("is_error") is True
    said = result_text(refusal)
    assert "normal mode, discuss phase: no code changes yet" in said
    assert "/gk-mode confirm" in said
    assert not target.exists()
    modes = [e["data"] for e in case.journal({"mode"})]
    assert modes and modes[0]["mode"] == "normal" and modes[0]["phase"] == "discuss"


def test_a_shell_write_is_refused_too_and_reading_goes_through(case: Case) -> None:
    """Refused ``Write``, the model tries ``cat >`` through Bash: refused as well, and the file
    is not written; a read-only command in the same phase runs."""
    case.install()
    target = case.proj / "vat.py"
    bash = lambda command: [{"type": "tool_use", "name": "Bash",  # noqa: E731
                             "input": {"command": command}}]  # fmt: skip
    rules: list[dict[str, Any]] = [
        {"name": "ask", "when": {"tail_contains": "LISTED-OK"},
         "reply": text("Before I change anything: which VAT rate applies to books?")},
        {"name": "read", "when": {"tail_contains": "no code changes yet"},
         "reply": bash("ls >/dev/null && echo LISTED-OK")},
        {"name": "shell-write", "when": {"contains": "discuss → plan → execute → verify"},
         "reply": bash(f"cat > {target} <<'EOF'\nRATE = 0.2\nEOF")},
    ]  # fmt: skip
    run = case.run_claude(
        rules, prompt="/gk-mode normal add the VAT rule", allowed_tools=("Bash",), extra_env=ENV
    )
    assert run.rules == ["shell-write", "read", "ask"], run.describe()
    assert_clean_exit(run)
    refusal = only_result(run, 1)
    assert refusal.get("is_error") is True
    assert "normal mode, discuss phase: no code changes yet" in result_text(refusal)
    assert str(target) in result_text(refusal)
    assert not target.exists()
    assert "LISTED-OK" in result_text(only_result(run, 2))


def test_a_path_that_climbs_out_of_the_run_folder_is_refused_in_the_plan_phase(
    case: Case,
) -> None:
    """Seed 004 §3 (audit D7), in a resumed Claude Code session: after `/gk-mode confirm` the
    plan phase lets the agent write its run folder only. A Write to
    `<run folder>/../../../vat.py` names the run folder but lands in the project: it is refused
    and the file is not written; PLAN.md inside the run folder is written."""
    case.install()
    first = case.run_claude(
        [{"name": "ask", "reply": text("Which VAT rate applies to books?")}],
        prompt="/gk-mode normal add the VAT rule",
        extra_env=ENV,
    )
    assert_clean_exit(first)
    run_dir = case.journal({"mode"})[-1]["data"]["run_dir"]
    escape = case.proj / run_dir / ".." / ".." / ".." / "vat.py"
    plan = case.proj / run_dir / "PLAN.md"
    write = lambda path, body: [{"type": "tool_use", "name": "Write",  # noqa: E731
                                 "input": {"file_path": str(path), "content": body}}]  # fmt: skip
    rules: list[dict[str, Any]] = [
        {"name": "stop", "when": {"tail_contains": "has been"},  # the plan was written
         "reply": text("The plan is written.")},
        {"name": "plan", "when": {"tail_contains": "First write the plan"},
         "reply": write(plan, "# Plan\n- add RATE to vat.py\n")},
        {"name": "escape", "when": {"tail_contains": "plan phase"},
         "reply": write(escape, "RATE = 0.2\n")},
    ]  # fmt: skip
    session = str(first.result.get("session_id"))
    run = case.run_claude(
        rules,
        prompt="/gk-mode confirm",
        allowed_tools=("Write",),
        extra_env=ENV,
        extra_args=("--resume", session),
    )
    assert run.rules[:2] == ["escape", "plan"], run.describe()
    refusal = only_result(run, 1)
    assert refusal.get("is_error") is True, refusal
    assert "First write the plan" in result_text(refusal)
    assert not (case.proj / "vat.py").exists()
    assert plan.is_file()
