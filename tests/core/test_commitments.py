"""Commitments: when a change of the plan is the agent's to make, and when it is the user's."""

from __future__ import annotations

import pytest

from goalkeeper.core.cadence.commitments import (
    commitments_digest,
    commitments_of,
    is_vague,
    item_key,
    judge_commitments,
    vague_cancellations,
)
from goalkeeper.core.cadence.plan import parse_plan

PLAN = """## Objective
Users can export their report.

## Key Results
- [ ] KR1: export succeeds 0 → 1
- [ ] KR2: CSV opens in a spreadsheet 0 → 1
- [ ] KR3: export under 2 s 10 → 2
- [ ] KR4: docs mention --csv 0 → 1
"""


def _with(*changes: tuple[str, str]) -> str:
    text = PLAN
    for old, new in changes:
        assert old in text
        text = text.replace(old, new)
    return text


BASE = commitments_of(parse_plan(PLAN))


def test_one_cancellation_with_a_reason_is_the_agents_to_make() -> None:
    plan = parse_plan(_with(("- [ ] KR4", "- [-] KR4")))
    assert judge_commitments(BASE, plan) is None


def test_most_or_all_commitments_dropped_is_material() -> None:
    """Three of four cancelled, or all four, or two cancelled and one deleted."""
    three = _with(
        ("- [ ] KR2", "- [-] KR2"), ("- [ ] KR3", "- [-] KR3"), ("- [ ] KR4", "- [-] KR4")
    )
    change = judge_commitments(BASE, parse_plan(three))
    assert change is not None and len(change.dropped) == 3 and change.total == 4
    deleted = _with(("- [ ] KR1: export succeeds 0 → 1\n", ""), ("- [ ] KR2", "- [-] KR2"))
    assert judge_commitments(BASE, parse_plan(deleted)) is None  # two of four: not most
    deleted_more = _with(
        ("- [ ] KR1: export succeeds 0 → 1\n", ""),
        ("- [ ] KR2", "- [-] KR2"),
        ("- [ ] KR3", "- [-] KR3"),
    )
    assert judge_commitments(BASE, parse_plan(deleted_more)) is not None


def test_doing_them_is_not_dropping_them() -> None:
    done = PLAN.replace("- [ ]", "- [x]")
    assert judge_commitments(BASE, parse_plan(done)) is None


def test_a_rewritten_objective_is_material() -> None:
    plan = parse_plan(_with(("Users can export their report.", "Users can view their report.")))
    change = judge_commitments(BASE, plan)
    assert change is not None and change.objective_changed


def test_a_cancellation_reason_is_not_part_of_the_items_identity() -> None:
    assert item_key("KR4: docs (cancelled: covered by the README)") == item_key("KR4: docs")
    assert item_key("KR4: docs — merged into KR2") == "kr4: docs"


@pytest.mark.parametrize(
    "reason",
    ["not needed", "N/A", "out of scope", "won't do", "later", "不需要", "跳过", "obsolete", "x"],
)
def test_a_reason_that_says_nothing_is_vague(reason: str) -> None:
    assert is_vague(reason)


@pytest.mark.parametrize(
    "reason",
    [
        "covered by KR2's export test",
        "the CSV module was removed in #12",
        "与 KR2 的导出测试重复，已覆盖",
    ],
)
def test_a_reason_that_says_why_is_not(reason: str) -> None:
    assert not is_vague(reason)


def test_vague_cancellations_are_named() -> None:
    plan = parse_plan(
        _with(("- [ ] KR4: docs mention --csv 0 → 1", "- [-] KR4: docs (cancelled: not needed)"))
    )
    assert vague_cancellations(plan) == ("KR4: docs (cancelled: not needed)",)


def test_the_digest_follows_every_state() -> None:
    assert commitments_digest(parse_plan(PLAN)) != commitments_digest(
        parse_plan(_with(("- [ ] KR4", "- [x] KR4")))
    )
