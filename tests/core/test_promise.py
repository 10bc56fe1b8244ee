"""A goal's promise: what the user approved, how GOAL.md may differ from it, and what stays."""

from __future__ import annotations

from msgspec.structs import replace

from goalkeeper.core.goals.goal import Criterion, Goal
from goalkeeper.core.goals.promise import (
    added_criteria,
    change_reason,
    goal_digest,
    goal_in_force,
    judge_goal,
    promise_of,
    trusted_goal,
)

GOAL = Goal(
    "All tests pass",
    verify=("python -m pytest -q",),
    criteria=(Criterion("`python -m pytest -q` exits 0", "open"), Criterion("docs", "open")),
    goal_id="g-1",
)
APPROVED = promise_of(GOAL, goal_id="g-1", source="prompt", now=1.0)


def test_the_approved_goal_is_not_held() -> None:
    assert judge_goal(GOAL, APPROVED) is None
    assert APPROVED.digest == goal_digest(GOAL)


def test_ticking_a_criterion_or_logging_progress_is_not_a_change() -> None:
    """Progress is not a new promise: ticks, log lines, whitespace."""
    ticked = replace(
        GOAL,
        criteria=(Criterion("`python -m pytest -q`  exits 0", "done"), Criterion("docs", "done")),
        progress_log=("fixed it",),
    )
    assert judge_goal(ticked, APPROVED) is None


def test_every_part_of_the_promise_counts() -> None:
    """Objective, each verify command, each criterion (a cancellation too) is the promise."""
    changes = [
        replace(GOAL, objective="Most tests pass"),
        replace(GOAL, verify=("true",)),
        replace(GOAL, verify=("python -m pytest -q", "touch pwned")),
        replace(GOAL, criteria=GOAL.criteria[:1]),
        replace(
            GOAL,
            criteria=(GOAL.criteria[0], Criterion("docs (cancelled: not needed)", "cancelled")),
        ),
    ]
    for changed in changes:
        held = judge_goal(changed, APPROVED)
        assert held is not None and held.kind == "changed", changed
        assert held.digest == goal_digest(changed)


def test_the_diff_names_what_was_removed_and_added() -> None:
    held = judge_goal(replace(GOAL, verify=("touch pwned",)), APPROVED)
    assert held is not None
    assert "- verify: python -m pytest -q" in held.diff
    assert "+ verify: touch pwned" in held.diff


def test_no_approval_another_goal_or_a_missing_file() -> None:
    """Unapproved: nothing recorded (or only closed promises). Replaced: another goal id than
    the open one. Missing: no GOAL.md while the approved goal is open."""
    assert judge_goal(GOAL, None).kind == "unapproved"  # type: ignore[union-attr]
    closed = replace(APPROVED, status="complete")
    assert judge_goal(GOAL, closed).kind == "unapproved"  # type: ignore[union-attr]
    other = replace(GOAL, goal_id="g-2", objective="Something else")
    assert judge_goal(other, APPROVED).kind == "replaced"  # type: ignore[union-attr]
    assert judge_goal(None, APPROVED).kind == "missing"  # type: ignore[union-attr]
    assert judge_goal(None, None) is None
    assert judge_goal(None, closed) is None


def test_a_paused_or_finished_goal_md_without_an_open_goal_is_not_judged() -> None:
    """A blocked or complete GOAL.md with no open approved goal runs nothing anyway."""
    closed = replace(APPROVED, status="complete")
    assert judge_goal(replace(GOAL, status="complete", verify=("x",)), closed) is None
    assert judge_goal(replace(GOAL, status="blocked", verify=("x",)), None) is None


def test_a_status_written_over_an_open_goal_does_not_end_it() -> None:
    """The agent writes `status: complete` (or `blocked`) into GOAL.md: the goal stays active
    and its promise is still judged; only goalkeeper's recorded pause stands."""
    for status in ("complete", "blocked"):
        written = replace(GOAL, status=status, blocked_reason="done, trust me")
        assert judge_goal(written, APPROVED) is None
        goal = trusted_goal(written, APPROVED)
        assert (goal.status, goal.blocked_reason) == ("active", None), status
        weakened = replace(written, verify=("true",))
        assert judge_goal(weakened, APPROVED).kind == "changed"  # type: ignore[union-attr]
    paused = replace(APPROVED, status="blocked", blocked_reason="round limit")
    assert trusted_goal(replace(GOAL, status="complete"), paused).status == "blocked"


def test_trusted_goal_keeps_the_stricter_of_both() -> None:
    """GOAL.md may lower limits, never raise them; counters never go below the recorded ones;
    a recorded pause stands."""
    recorded = replace(APPROVED, attempts=2, status="blocked", blocked_reason="round limit")
    loosened = replace(GOAL, rounds=100, timeout_s=9999.0, retries_max=99, attempts=0)
    goal = trusted_goal(loosened, recorded)
    assert (goal.rounds, goal.timeout_s, goal.retries_max) == (3, 120.0, 10)
    assert (goal.attempts, goal.status, goal.blocked_reason) == (2, "blocked", "round limit")
    tighter = trusted_goal(replace(GOAL, rounds=1, attempts=3), APPROVED)
    assert (tighter.rounds, tighter.attempts, tighter.status) == (1, 3, "active")


def test_only_added_criteria_are_an_addition() -> None:
    """More criteria, every approved one kept word for word: an addition (not held). A new
    command, a reworded or dropped criterion, another objective: not one."""
    extra = Criterion("the README documents --json", "open")
    added = replace(GOAL, criteria=(*GOAL.criteria, extra))
    assert added_criteria(added, APPROVED) == ("the README documents --json",)
    assert judge_goal(added, APPROVED) is None
    not_additions = [
        replace(added, verify=("python -m pytest -q", "touch pwned")),
        replace(added, criteria=(GOAL.criteria[0], extra)),
        replace(added, criteria=(GOAL.criteria[0], Criterion("docs, mostly", "open"), extra)),
        replace(added, objective="Most tests pass"),
        replace(added, goal_id="g-2"),
    ]
    for changed in not_additions:
        assert added_criteria(changed, APPROVED) == (), changed
    assert added_criteria(GOAL, APPROVED) == ()  # nothing added
    closed = replace(APPROVED, status="complete")
    assert added_criteria(added, closed) == ()


def test_the_reason_is_the_latest_logged_one() -> None:
    logged = replace(GOAL, progress_log=("goal set", "added docs because users asked", "ran it"))
    assert change_reason(logged) == "added docs because users asked"
    assert (
        change_reason(replace(GOAL, progress_log=("理由：用户要求文档",))) == "理由：用户要求文档"
    )
    assert change_reason(GOAL) is None


def test_the_goal_in_force_is_the_approved_one_with_goal_md_ticks() -> None:
    """Verify, objective and criteria come from the promise; a tick counts only on a criterion
    GOAL.md still has word for word; limits are never looser."""
    edited = replace(
        GOAL,
        objective="anything",
        verify=("true",),
        criteria=(Criterion("`python -m pytest -q` exits 0", "done"), Criterion("doc", "done")),
        rounds=50,
    )
    in_force = goal_in_force(edited, APPROVED)
    assert in_force.verify == APPROVED.verify and in_force.objective == APPROVED.objective
    assert [(c.text, c.state) for c in in_force.criteria] == [
        ("`python -m pytest -q` exits 0", "done"),
        ("docs", "open"),
    ]
    assert in_force.rounds == APPROVED.rounds
