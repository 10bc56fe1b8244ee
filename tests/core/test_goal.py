"""The goal value: GOAL.md's body, the criteria promise and the stagnation signal words."""

from __future__ import annotations

from goalkeeper.core.goals.goal import (
    Criterion,
    Goal,
    goal_from_parts,
    has_progress_words,
    parse_goal_body,
    render_goal_markdown,
)

BODY = """# Goal

## Objective
All tests pass and mypy is clean.
Nothing else.

## Acceptance Criteria
- [x] `pytest -q` exits 0
- [ ] `mypy` exits 0
- [-] docs updated (cancelled: not part of this goal)
- [-] benchmarks
  - [ ] a nested note is not a criterion

## Progress Log
- 2026-11-30T08:45Z goal set
- 2026-11-30T08:50Z [1/3] pytest -q failed (exit 1)
```
- not an entry
```
"""


def test_body_sections_are_read() -> None:
    """Objective paragraph, top-level checklist items and log entries; fenced text skipped."""
    body = parse_goal_body(BODY)
    assert body.objective == "All tests pass and mypy is clean. Nothing else."
    assert [(c.text, c.state, c.reason) for c in body.criteria] == [
        ("`pytest -q` exits 0", "done", None),
        ("`mypy` exits 0", "open", None),
        ("docs updated (cancelled: not part of this goal)", "cancelled", "not part of this goal"),
        ("benchmarks", "cancelled", None),
    ]
    assert body.progress_log == (
        "2026-11-30T08:45Z goal set",
        "2026-11-30T08:50Z [1/3] pytest -q failed (exit 1)",
    )


def test_open_criteria_include_cancellations_without_a_reason() -> None:
    """A bare [-] keeps the goal open, as in the plan gates."""
    goal = goal_from_parts({}, BODY)
    assert [c.text for c in goal.open_criteria] == ["`mypy` exits 0", "benchmarks"]
    assert goal.passing_criteria == 1


def test_frontmatter_with_wrong_types_falls_back() -> None:
    """Bad values become defaults; unknown keys are kept aside, untouched."""
    goal = goal_from_parts(
        {
            "status": "weird",
            "verify": "pytest -q",
            "limits": {"rounds": "three"},
            "attempts": -4,
            "owner": "ana",
        },
        BODY,
    )
    assert goal.status == "active" and goal.verify == ("pytest -q",)
    assert goal.rounds == 3 and goal.attempts == 0 and goal.extra == {"owner": "ana"}


def test_progress_words_in_both_languages() -> None:
    """The stagnation signal reads the Progress Log for progress words."""
    assert has_progress_words(("fixed the rounding bug",))
    assert has_progress_words(("修复了舍入问题",))
    assert not has_progress_words(("tried again", "still red"))


def test_a_new_goal_renders_a_body_that_parses_back() -> None:
    """render_goal_markdown and parse_goal_body agree."""
    goal = Goal(
        "Ship it.", criteria=(Criterion("`make test` exits 0", "open"),), progress_log=("set",)
    )
    body = parse_goal_body(render_goal_markdown(goal))
    assert (
        body.objective == "Ship it."
        and body.criteria == goal.criteria
        and body.progress_log == ("set",)
    )


def test_tick_criteria_ticks_only_open_matching_criteria_and_keeps_every_other_byte() -> None:
    """goalkeeper ticks what it proved: the matching open item of Acceptance Criteria, whatever
    its spacing; a Progress Log line or a fenced example with the same text stays as it is."""
    from goalkeeper.core.goals.goal import tick_criteria

    body = (
        "## Objective\nAll tests pass\n\n## Acceptance Criteria\n"
        "- [ ] `pytest -q`  exits 0\n- [ ] docs\n```\n- [ ] `pytest -q` exits 0\n```\n\n"
        "## Progress Log\n- [ ] `pytest -q` exits 0\n"
    )
    ticked = tick_criteria(body, ["`pytest -q` exits 0"])
    assert ticked == body.replace("- [ ] `pytest -q`  exits 0", "- [x] `pytest -q`  exits 0", 1)
    assert tick_criteria(body, []) == body
