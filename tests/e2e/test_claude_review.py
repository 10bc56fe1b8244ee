"""The review round a proof earns (seed 002's verification duty, issue 22 §5) with the real
Claude Code CLI and a scripted fake model: every other e2e case turns it off.

The user sets a goal with ``/gk-goal``; the model fixes the bug and stops. goalkeeper runs the
goal's verify itself, the goal is proven and archived, and the stop becomes one round asking for
a fresh reviewer (a subagent: Claude Code has them). The model hands the review to a subagent
(the ``Agent`` tool, in the foreground), reads its answer and stops again: goalkeeper closes the
proven goal and asks for no second review. The fake model tells the two conversations apart by
the goal's text, which only the main agent's conversation holds.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import Case
from .test_claude_goal import (
    FILE_UPDATED,
    FIXED_CALC,
    PROVEN,
    archived,
    assert_clean_exit,
    assert_no_stray_traffic,
    goal_env,
    goal_md,
    only_feedback,
    text,
    tool,
    write_project,
)

pytestmark = pytest.mark.e2e

VERIFY = "python -m pytest -q"
MAIN = f"Goal: `{VERIFY}` passes"  # the expanded /gk-goal command: the main conversation only
ASKED = "have a fresh reviewer check the change against the goal"
SUB = "Review the change in calc.py against the goal: add(a, b) returns the sum. SUB-REVIEW-5e1"
FOUND_NOTHING = "Reviewed calc.py: add returns a + b for every input; tests unchanged. REVIEW-OK"


def review_rules(case: Case) -> list[dict[str, Any]]:
    agent = {
        "description": "review the change",
        "prompt": SUB,
        "subagent_type": "general-purpose",
        "run_in_background": False,
    }
    return [
        {"name": "main-wrap-up", "when": {"contains": [MAIN, FOUND_NOTHING]},
         "reply": text("The reviewer found nothing to fix; add() is fixed.")},
        {"name": "main-review", "when": {"contains": MAIN, "tail_contains": ASKED},
         "reply": [tool("Agent", **agent)]},
        {"name": "main-stop", "when": {"contains": MAIN, "tail_contains": FILE_UPDATED},
         "reply": text("Fixed add(): it returned a - b.")},
        {"name": "main-fix", "when": {"contains": MAIN},
         "reply": [tool("Write", file_path=str(case.proj / "calc.py"), content=FIXED_CALC)]},
        {"name": "sub-review", "when": {"contains": SUB, "not_contains": MAIN},
         "reply": text(FOUND_NOTHING)},
    ]  # fmt: skip


def test_a_proven_goal_gets_one_review_round_and_the_subagent_does_it(case: Case) -> None:
    write_project(case)
    case.install()
    env = {**goal_env(case), "GOALKEEPER_REVIEW": "on"}
    run = case.run_claude(
        review_rules(case),
        prompt=f"/gk-goal `{VERIFY}` passes",
        max_turns=12,
        allowed_tools=("Read", "Write", "Edit", "Agent"),
        extra_env=env,
    )
    named = [r for r in run.rules if r is not None]
    assert named == [
        "main-fix", "main-stop", "main-review", "sub-review", "main-wrap-up",
    ], run.describe()  # fmt: skip
    assert_clean_exit(run)
    assert_no_stray_traffic(run)
    assert (case.proj / "calc.py").read_text("utf-8") == FIXED_CALC

    # The stop after the fix: proven (archived at once), answered with the review round.
    review = only_feedback(run, run.rules.index("main-review"))
    assert review.startswith("goalkeeper: the goal is proven (`python -m pytest -q` passed)")
    assert ASKED in review and "Hand it to a subagent" in review and MAIN in review, review
    assert not goal_md(case).exists() and len(archived(case)) == 1
    # The subagent really ran the review; its answer reached the main agent.
    wrap_up = run.requests[run.rules.index("main-wrap-up")]
    assert FOUND_NOTHING in str(wrap_up["body"]["messages"][-1]), run.describe()

    # Claude Code's record: the review round once, then the stop allowed with the close.
    outcomes = case.stop_hook_outcomes(run)
    assert [kind for kind, _ in outcomes] == ["block", "allow"], outcomes
    assert outcomes[0][1] == review, outcomes
    assert PROVEN + f"`{VERIFY}` passes" in outcomes[1][1], outcomes
    asked_again = [r for r in run.requests[run.rules.index("main-review") + 1 :]
                   if ASKED in str(r["body"]["messages"][-1])]  # fmt: skip
    assert asked_again == [], run.describe()

    kinds = [e["kind"] for e in case.journal({"goal_complete", "review_asked", "goal_reviewed"})]
    assert sorted(kinds) == ["goal_complete", "goal_reviewed", "review_asked"], kinds


def test_goalkeeper_run_reports_the_goal_proven_when_the_review_round_is_cut_off(
    case: Case,
) -> None:
    """`goalkeeper run --max-turns 2`: the fix and the stop use both turns, the goal is proven
    at that stop, and Claude Code's turn limit ends the run in the review round it earned. The
    review is a request, not the proof: exit 0, done, and the reason says the review was not
    done."""
    from .test_run_command import GOAL, gk_run

    write_project(case)
    rules = [
        {"name": "review", "when": {"tail_contains": ASKED}, "reply": text("Reviewing.")},
        {"name": "stop", "when": {"tail_contains": FILE_UPDATED}, "reply": text("Fixed add().")},
        {"name": "fix",
         "reply": [tool("Write", file_path=str(case.proj / "calc.py"), content=FIXED_CALC)]},
    ]  # fmt: skip
    run = gk_run(
        case, rules, ["--goal", GOAL, "--max-turns", "2"], extra_env={"GOALKEEPER_REVIEW": "on"}
    )
    assert run.rules == ["fix", "stop"], run.describe()  # the review round never ran
    assert run.returncode == 0, run.describe()
    assert run.result["outcome"] == "done", run.describe()
    assert "review not done" in run.result["reason"], run.describe()
    assert [p["exit"] for p in run.result["proof"]] == [0], run.describe()
    assert not goal_md(case).exists() and len(archived(case)) == 1
