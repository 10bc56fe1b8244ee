"""``goalkeeper run -- claude -p …`` with the real Claude Code CLI and the scripted fake model.

Nothing is installed: goalkeeper hands Claude Code its hooks and MCP server for the run through
temp files (``--settings``, ``--mcp-config``), so the project holds no ``.claude/`` and no
``.mcp.json`` afterwards. The exit status is what goalkeeper decided, read from its journal:
0 only when the goal's verification, run by goalkeeper itself, passed after the fix; 1 when
the agent stopped early (Claude Code's --max-turns, goalkeeper's continuation cap); 2 when the
goal is paused and waits for the user. The project is test_claude_goal's: ``add`` subtracts and
its one test fails.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .harness import CLAUDE_TIMEOUT_S, Case, FakeAnthropic
from .pi_harness import PiCase
from .test_claude_goal import (
    BUGGY_CALC,
    FEEDBACK,
    FILE_UPDATED,
    FIXED_CALC,
    TEST_CALC,
    archived,
    goal_env,
    goal_md,
    text,
    tool,
    write_project,
)
from .test_claude_todos import offered
from .test_pi import goalkeeper_env as pi_goal_env
from .test_pi import text as pi_text
from .test_pi import tool as pi_tool

pytestmark = pytest.mark.e2e

VERIFY = "python -m pytest -q"
GOAL = f"`{VERIFY}` passes"


@dataclass
class GkRun:
    returncode: int
    result: dict[str, Any]
    stderr: str
    rules: list[str | None]
    wall_s: float
    tools: set[str]
    """The tools Claude Code offered the model in its last request (deferred ones too)."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    """The fake model's log of the run's requests (``POST`` only), oldest first."""

    def describe(self) -> str:
        return (
            f"exit={self.returncode} wall={self.wall_s:.1f}s rules={self.rules}\n"
            f"result={json.dumps(self.result)[:3000]}\nstderr: {self.stderr[-3000:]}"
        )


def gk_run(
    case: Case,
    rules: Sequence[Mapping[str, Any]],
    options: Sequence[str],
    *,
    prompt: str = "Fix the calculator.",
    claude_args: Sequence[str] = (),
    extra_env: Mapping[str, str] | None = None,
) -> GkRun:
    """``goalkeeper run --json OPTIONS -- claude -p … --allowedTools Read Write Edit``."""
    workdir = case.root / f"run{len(case.runs) + 1}"
    workdir.mkdir(exist_ok=True)
    agent = [str(case.claude), "-p", prompt, "--output-format", "json",
             *claude_args, "--allowedTools", "Read", "Write", "Edit"]  # fmt: skip
    argv = [sys.executable, "-m", "goalkeeper", "-C", str(case.proj), "run", "--json",
            *options, "--", *agent]  # fmt: skip
    with FakeAnthropic(workdir, rules) as fake:
        env = case.claude_env(fake, {**goal_env(case), **(extra_env or {})})
        t0 = time.monotonic()
        proc = subprocess.run(
            argv,
            cwd=case.proj,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=CLAUDE_TIMEOUT_S,
        )
        wall = time.monotonic() - t0
        requests = [e for e in fake.requests() if e.get("method") == "POST"]
    try:
        result = json.loads(proc.stdout)
    except ValueError:
        result = {"unparsed_stdout": proc.stdout[-2000:]}
    rules = [e.get("rule") for e in requests]
    tools = offered(requests[-1]) if requests else set()
    return GkRun(proc.returncode, result, proc.stderr, rules, wall, tools, requests)


def assert_nothing_installed(case: Case) -> None:
    """No Claude Code settings, no MCP config, no command files in the project."""
    assert not (case.proj / ".claude").exists(), sorted((case.proj / ".claude").rglob("*"))
    assert not (case.proj / ".mcp.json").exists()
    assert not (case.home / ".claude" / "settings.json").exists()


def fix_rules(case: Case) -> list[dict[str, Any]]:
    """Stop early; on goalkeeper's failure feedback fix calc.py; then stop again."""
    calc = str(case.proj / "calc.py")
    return [
        {"name": "wrap-up", "when": {"tail_contains": FILE_UPDATED},
         "reply": text("Fixed add(): it returned a - b.\n")},
        {"name": "fix", "when": {"tail_contains": [FEEDBACK, "[1/3]"]},
         "reply": [tool("Write", file_path=calc, content=FIXED_CALC)]},
        {"name": "early-stop", "reply": text("Done, I think.\n")},
    ]  # fmt: skip


def test_run_exits_0_only_once_the_goal_is_proven(case: Case) -> None:
    write_project(case)
    run = gk_run(case, fix_rules(case), ["--goal", GOAL])
    assert run.returncode == 0, run.describe()
    assert run.rules == ["early-stop", "fix", "wrap-up"], run.describe()
    assert "mcp__goalkeeper__todo" in run.tools, run.tools  # the MCP server of --mcp-config
    result = run.result
    assert result["outcome"] == "done" and result["exit"] == 0, result
    assert result["host"] == "claude", result
    assert result["continuations"] == 1, result  # the early stop, sent back with the failure
    assert result["reason"].startswith(f"goalkeeper: goal proven: {GOAL}."), result
    # The proof is goalkeeper's own run of the verification, not the agent's word.
    (proof,) = result["proof"]
    assert (proof["source"], proof["command"], proof["exit"]) == ("goal", VERIFY, 0), proof
    assert proof["argv"] == VERIFY.split() and proof["timed_out"] is False, proof
    assert isinstance(proof["seconds"], float) and proof["seconds"] > 0, proof
    assert re.fullmatch(r"[0-9a-f]{64}", proof["output_sha256"]), proof
    # The session in the JSON is the one goalkeeper's hooks saw (the id goalkeeper chose).
    (session,) = result["sessions"]
    status = case.status()
    assert [s["session_id"] for s in status["sessions"]] == [session], status["sessions"]
    assert (case.proj / "calc.py").read_text("utf-8") == FIXED_CALC
    assert not goal_md(case).exists() and len(archived(case)) == 1
    assert_nothing_installed(case)


def test_run_exits_1_when_max_turns_stops_the_agent_early(case: Case) -> None:
    """The fix would come, but Claude Code's turn limit ends the run first."""
    write_project(case)
    run = gk_run(case, fix_rules(case), ["--goal", GOAL, "--max-turns", "1"])
    assert run.returncode == 1, run.describe()
    assert run.result["outcome"] == "not_done", run.describe()
    assert run.result["proof"] == [], run.describe()
    assert run.rules == ["early-stop"], run.describe()
    assert run.result["continuations"] == 1, run.describe()  # goalkeeper sent it back once
    assert run.result["reason"] == (
        "the agent stopped while goalkeeper was still continuing it (it exited with status 1): "
        "its own limit (--max-turns) or an early exit"
    ), run.describe()
    assert (case.proj / "calc.py").read_text("utf-8") == BUGGY_CALC
    assert goal_md(case).exists()  # the goal is still open, not archived
    assert_nothing_installed(case)


def test_a_second_run_with_the_same_goal_works_on_it_and_proves_it(case: Case) -> None:
    """A CI job runs again after a run that was not done: the same --goal is the goal the user
    set, still open, so it is kept (its round count and last failure too: stopping again with
    the same failure would pause it) rather than refused as 'another goal is active'."""
    write_project(case)
    first = gk_run(case, fix_rules(case), ["--goal", GOAL, "--max-turns", "1"])
    assert first.returncode == 1, first.describe()
    fix_first = [fix_rules(case)[0], {**fix_rules(case)[1], "when": {}}]
    again = gk_run(case, fix_first, ["--goal", GOAL])
    assert again.returncode == 0, again.describe()
    assert "goalkeeper: the goal is already set" in again.stderr, again.describe()
    assert again.rules == ["fix", "wrap-up"], again.describe()
    assert [p["exit"] for p in again.result["proof"]] == [0], again.describe()
    assert_nothing_installed(case)


PLAN = """\
## SWOT
S: a small calculator with tests

## Objective
People can trust the calculator's sums.

## Key Results
- [ ] KR: failing tests 1 → 0
"""


def test_run_exits_1_when_goalkeepers_continuations_run_out(case: Case) -> None:
    """A plan's key result stays open; the agent claims completion, is sent back, then stops
    without a claim; with one continuation allowed goalkeeper pauses at its cap: not done.
    (The same refused claim twice would pause on its own: issue 22 §7.)"""
    write_project(case)
    (case.proj / "plan").mkdir()
    (case.proj / "plan" / "calc.md").write_text(PLAN, "utf-8")
    rules = [
        {"name": "still", "when": {"tail_contains": "gate"}, "reply": text("Still on it.\n")},
        {"name": "complete", "reply": text("All done.\n\n[PDCA] complete\n")},
    ]
    run = gk_run(case, rules, [], extra_env={"GOALKEEPER_MAX_CONTINUATIONS": "1",
                                             "GOALKEEPER_NO_PLAN": ""})  # fmt: skip
    assert run.returncode == 1, run.describe()
    assert run.result["outcome"] == "not_done", run.describe()
    assert run.result["continuations"] == 1, run.describe()
    assert "max_continuations" in run.result["reason"], run.describe()
    assert run.rules == ["complete", "still"], run.describe()
    assert_nothing_installed(case)


def test_run_exits_2_when_the_goal_pauses_for_the_user(case: Case) -> None:
    """The same failure twice pauses the goal: only the user can resume or clear it."""
    write_project(case)
    rules = [
        {"name": "retry-unchanged", "when": {"tail_contains": [FEEDBACK, "[1/3]"]},
         "reply": text("I looked again; it should pass now.\n")},
        {"name": "early-stop", "reply": text("Done, I think.\n")},
    ]  # fmt: skip
    run = gk_run(case, rules, ["--goal", GOAL])
    assert run.returncode == 2, run.describe()
    assert run.result["outcome"] == "blocked", run.describe()
    assert run.result["reason"].startswith(f"goalkeeper paused the goal: `{VERIFY}`"), run.result
    assert run.result["proof"] == [], run.describe()
    assert_nothing_installed(case)


RETRY_PROMPT = "Continue the task from where the previous turn stopped."
OVERLOADED = {"name": "overloaded",
              "error": {"status": 529, "type": "overloaded_error", "message": "busy"}}  # fmt: skip
FAST_RETRIES = {"GOALKEEPER_RETRY_BASE_MS": "1"}  # the 37-minute ladder in about half a second


def test_run_resumes_the_session_after_an_api_error_and_proves_the_goal(case: Case) -> None:
    """The first turn ends on a 529 (StopFailure): goalkeeper run waits the first back-off,
    resumes the same session, whose prompt carries "resume from the last completed step"; the
    goal is then fixed and proven in that session (seed 001 §5)."""
    write_project(case)
    first = {**OVERLOADED, "when": {"not_contains": RETRY_PROMPT}}
    run = gk_run(case, [first, *fix_rules(case)], ["--goal", GOAL], extra_env=FAST_RETRIES)
    assert run.returncode == 0, run.describe()
    assert run.rules == ["overloaded", "early-stop", "fix", "wrap-up"], run.describe()
    assert "retry 1 of 10 resumes session" in run.stderr, run.describe()
    (session,) = run.result["sessions"]  # the same session, resumed: not a new one
    assert run.result["outcome"] == "done", run.describe()
    resumed = json.dumps(run.requests[1]["body"]["messages"])
    assert RETRY_PROMPT in resumed and "Resume from the last completed step" in resumed, resumed
    status = case.status()
    assert [s["session_id"] for s in status["sessions"]] == [session], status["sessions"]


def test_run_blocks_the_goal_after_ten_api_error_retries(case: Case) -> None:
    """Every turn ends on a 529: the session is resumed 10 times with back-off, then the goal
    is blocked with the strategy prompt and the run exits 2 (blocked on you)."""
    write_project(case)
    run = gk_run(case, [OVERLOADED], ["--goal", GOAL], extra_env=FAST_RETRIES)
    assert run.returncode == 2, run.describe()
    assert run.rules == ["overloaded"] * 11, run.describe()
    assert run.stderr.count("resumes session") == 10, run.describe()
    assert run.result["outcome"] == "blocked", run.describe()
    assert "after 10 failed retries" in run.result["reason"], run.describe()
    assert "Change the strategy" in run.result["reason"], run.describe()
    assert len(run.result["sessions"]) == 1, run.describe()


def test_a_goal_that_cannot_be_set_starts_no_agent(case: Case, tmp_path: Path) -> None:
    write_project(case)
    run = gk_run(case, [], ["--goal", "make it nicer"])  # no verify command to be found
    assert run.returncode == 3, run.describe()
    assert run.rules == [], run.describe()


# -------------------------------------------------------------------------------------------
# Pi: the same command, the same exit status
# -------------------------------------------------------------------------------------------
def test_run_with_pi_exits_0_once_the_goal_is_proven(pi_case: PiCase) -> None:
    """``goalkeeper run -- node cli.js --no-session -p TASK``: Pi in RPC mode with goalkeeper's
    extension loaded for the run; an early stop is sent back with the real failure, the fix
    is proven by goalkeeper's own pytest run, and nothing is installed into the project."""
    (pi_case.proj / "calc.py").write_text(BUGGY_CALC, "utf-8")
    (pi_case.proj / "test_calc.py").write_text(TEST_CALC, "utf-8")
    calc = str(pi_case.proj / "calc.py")
    pi_case.fake.set_rules(
        [
            {"name": "wrap-up", "when": {"last_is_tool_result": True},
             "reply": [pi_text("Fixed add(): it returned a - b.")]},
            {"name": "fix", "when": {"tail_contains": "[1/3]"},
             "reply": [pi_tool("write", path=calc, content=FIXED_CALC)]},
            {"name": "early-stop", "reply": [pi_text("Done, I think.")]},
        ]
    )  # fmt: skip
    agent = [*pi_case.cli.argv(), *pi_case.base_args(), "-p", "Fix the calculator."]
    env = pi_case.env({**pi_goal_env(), "GOALKEEPER_NO_PLAN": "silent"})
    proc = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(pi_case.proj), "run", "--json",
         "--goal", GOAL, "--max-minutes", "2", "--", *agent],
        env=env, capture_output=True, text=True, timeout=180, cwd=pi_case.proj,
    )  # fmt: skip
    rules = [r.get("rule") for r in pi_case.fake.chat_requests()]
    assert proc.returncode == 0, (proc.stdout, proc.stderr[-3000:], rules)
    result = json.loads(proc.stdout)
    assert (result["host"], result["outcome"], result["continuations"]) == ("pi", "done", 1)
    assert rules == ["early-stop", "fix", "wrap-up"], rules
    (proof,) = result["proof"]
    assert (proof["source"], proof["command"], proof["exit"]) == ("goal", VERIFY, 0), proof
    assert (pi_case.proj / "calc.py").read_text("utf-8") == FIXED_CALC
    assert not (pi_case.proj / ".pi").exists()  # the extension came with -e, from a temp dir
