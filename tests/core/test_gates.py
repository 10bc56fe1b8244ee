"""The three closing gates (seed 000 §5): check, OKR and map."""

from __future__ import annotations

from goalkeeper.core.gates import (
    CheckHistory,
    GateResult,
    OpenItem,
    evaluate_check_gate,
    evaluate_gates,
    evaluate_map_gate,
    evaluate_okr_gate,
    evaluate_plan_gates,
)
from goalkeeper.core.plan import parse_plan

CLOSED_PLAN = parse_plan(
    "## Key Results\n- [x] a\n- [-] b (cancelled: no demand)\n"
    "## User Story Map\n- [ ] slice\n  - [x] c\n  - [-] d（取消：延后）\n"
)
CHECKED = CheckHistory(last_do=3, last_check=4, check_had_tools=True)


def _problems(result: GateResult) -> list[tuple[str, str]]:
    return [(item.text, item.problem) for item in result.open]


# ---------------------------------------------------------------------------------------------
# Check gate
# ---------------------------------------------------------------------------------------------


def test_check_gate_fails_when_never_checked() -> None:
    """With no check ever reported, the check gate is closed (``no_check``)."""
    result = evaluate_check_gate(CheckHistory(last_do=2))
    assert not result.passed
    assert [item.problem for item in result.open] == ["no_check"]


def test_check_gate_fails_on_an_empty_history() -> None:
    """A fresh session with no rounds has not checked anything."""
    assert not evaluate_check_gate(CheckHistory()).passed


def test_check_gate_fails_when_do_follows_check() -> None:
    """A ``do`` after the last ``check`` closes the gate (``do_after_check``)."""
    result = evaluate_check_gate(CheckHistory(last_do=5, last_check=4, check_had_tools=True))
    assert not result.passed
    assert [item.problem for item in result.open] == ["do_after_check"]


def test_check_gate_passes_when_check_follows_do() -> None:
    """A ``check`` after the last ``do`` opens the gate."""
    result = evaluate_check_gate(CHECKED)
    assert result.passed
    assert result.open == ()


def test_check_gate_passes_with_check_and_no_do() -> None:
    """A check with no ``do`` before it is enough."""
    assert evaluate_check_gate(CheckHistory(last_check=1, check_had_tools=True)).passed


def test_check_gate_fails_when_check_ran_no_tool() -> None:
    """With ``require_tool``, a check that ran no tool is no evidence."""
    history = CheckHistory(last_do=1, last_check=2, check_had_tools=False)
    result = evaluate_check_gate(history, require_tool=True)
    assert not result.passed
    assert [item.problem for item in result.open] == ["check_without_evidence"]


def test_check_gate_ignores_tools_when_not_required() -> None:
    """Without ``require_tool``, a check that ran no tool still counts."""
    history = CheckHistory(last_do=1, last_check=2, check_had_tools=False)
    assert evaluate_check_gate(history, require_tool=False).passed


def test_check_gate_requires_tools_by_default() -> None:
    """``require_tool`` defaults to on."""
    history = CheckHistory(last_do=1, last_check=2, check_had_tools=False)
    assert not evaluate_check_gate(history).passed


def test_check_gate_passes_when_tools_are_unknown() -> None:
    """When the host cannot tell whether tools ran (None), the check counts."""
    history = CheckHistory(last_do=1, last_check=2, check_had_tools=None)
    assert evaluate_check_gate(history, require_tool=True).passed


# ---------------------------------------------------------------------------------------------
# OKR gate
# ---------------------------------------------------------------------------------------------


def test_okr_gate_passes_when_every_kr_is_closed() -> None:
    """Done and reasoned cancelled key results open the OKR gate."""
    assert evaluate_okr_gate(CLOSED_PLAN).passed


def test_okr_gate_lists_every_open_kr() -> None:
    """Each open key result is named, with its line."""
    plan = parse_plan("## Key Results\n- [ ] a\n- [x] b\n- [ ] c\n")
    result = evaluate_okr_gate(plan)
    assert not result.passed
    assert result.open == (OpenItem("a", "open", 2), OpenItem("c", "open", 4))


def test_okr_gate_refuses_a_cancellation_without_reason() -> None:
    """A bare ``[-]`` keeps the OKR gate closed (``no_reason``)."""
    result = evaluate_okr_gate(parse_plan("## Key Results\n- [-] b\n"))
    assert not result.passed
    assert _problems(result) == [("b", "no_reason")]


def test_okr_gate_accepts_a_cancellation_with_reason() -> None:
    """``[-] … （取消：理由）`` closes a key result."""
    assert evaluate_okr_gate(parse_plan("## Key Results\n- [-] b（取消：不做了）\n")).passed


def test_okr_gate_counts_plain_bullet_krs_as_open() -> None:
    """A top-level plain bullet in the key results keeps the gate closed."""
    result = evaluate_okr_gate(parse_plan("## Key Results\n- [x] a\n- outcome nobody ticks\n"))
    assert _problems(result) == [("outcome nobody ticks", "open")]


def test_okr_gate_passes_without_key_results() -> None:
    """A plan with no key results has nothing open."""
    assert evaluate_okr_gate(parse_plan("## Objective\nShip it.\n")).passed


# ---------------------------------------------------------------------------------------------
# Map gate
# ---------------------------------------------------------------------------------------------


def test_map_gate_passes_when_every_leaf_is_closed() -> None:
    """Done and reasoned cancelled leaves open the map gate."""
    assert evaluate_map_gate(CLOSED_PLAN).passed


def test_map_gate_lists_open_leaves_only() -> None:
    """Open leaves are named; their open parent is not."""
    plan = parse_plan("## User Story Map\n- [ ] slice\n  - [ ] a\n  - [x] b\n")
    assert _problems(evaluate_map_gate(plan)) == [("a", "open")]


def test_map_gate_fails_under_a_done_parent() -> None:
    """A ``[x]`` parent does not close its open leaves."""
    plan = parse_plan("## User Story Map\n- [x] slice\n  - [ ] a\n")
    assert _problems(evaluate_map_gate(plan)) == [("a", "open")]


def test_map_gate_refuses_a_leaf_cancelled_without_reason() -> None:
    """A bare ``[-]`` leaf keeps the map gate closed (``no_reason``)."""
    plan = parse_plan("## User Story Map\n- [-] share\n")
    assert _problems(evaluate_map_gate(plan)) == [("share", "no_reason")]


def test_map_gate_skips_a_cancelled_subtree() -> None:
    """Open leaves under a cancelled node (with a reason) do not keep the gate closed."""
    plan = parse_plan("## User Story Map\n- [-] slice 2 (cancelled: later)\n  - [ ] a\n  - [ ] b\n")
    assert evaluate_map_gate(plan).passed


def test_map_gate_refuses_a_subtree_cancelled_without_reason() -> None:
    """A bare ``[-]`` on a parent is a cancellation without a reason: the gate stays closed."""
    plan = parse_plan("## User Story Map\n- [-] slice 2\n  - [ ] a\n  - [ ] b\n")
    result = evaluate_map_gate(plan)
    assert not result.passed
    assert any(item.problem == "no_reason" for item in result.open)


def test_map_gate_passes_without_a_map() -> None:
    """A plan with no map has nothing open."""
    assert evaluate_map_gate(parse_plan("## Key Results\n- [x] a\n")).passed


# ---------------------------------------------------------------------------------------------
# All gates together
# ---------------------------------------------------------------------------------------------


def test_all_gates_pass() -> None:
    """A checked session with a closed plan passes every gate."""
    report = evaluate_gates(CLOSED_PLAN, CHECKED)
    assert report.passed
    assert report.failing == ()


def test_every_failing_gate_is_reported_at_once() -> None:
    """A refused close names the check, OKR and map gates together, in that order."""
    plan = parse_plan("## Key Results\n- [ ] kr\n## User Story Map\n- [ ] leaf\n")
    report = evaluate_gates(plan, CheckHistory(last_do=2))
    assert not report.passed
    assert [r.gate for r in report.failing] == ["check", "okr", "map"]


def test_only_the_failing_gates_are_listed_as_failing() -> None:
    """Passing gates are not in ``failing``, but are still in the report."""
    plan = parse_plan("## Key Results\n- [x] kr\n## User Story Map\n- [ ] leaf\n")
    report = evaluate_gates(plan, CheckHistory(last_do=2))
    assert [r.gate for r in report.failing] == ["check", "map"]
    assert [r.gate for r in report.results] == ["check", "okr", "map"]


def test_evaluate_gates_passes_require_tool_through() -> None:
    """``require_tool=False`` reaches the check gate."""
    history = CheckHistory(last_do=1, last_check=2, check_had_tools=False)
    assert not evaluate_gates(CLOSED_PLAN, history).passed
    assert evaluate_gates(CLOSED_PLAN, history, require_tool=False).passed


def test_report_get_finds_a_gate() -> None:
    """``GateReport.get`` returns the result of one gate."""
    report = evaluate_gates(CLOSED_PLAN, CheckHistory())
    result = report.get("check")
    assert result is not None
    assert not result.passed
    assert report.get("okr") is not None


def test_plan_gates_are_okr_and_map_only() -> None:
    """``evaluate_plan_gates`` reports the OKR and map gates, and no check gate."""
    report = evaluate_plan_gates(CLOSED_PLAN)
    assert [r.gate for r in report.results] == ["okr", "map"]
    assert report.passed
    assert report.get("check") is None


def test_plan_gates_report_both_failures() -> None:
    """``evaluate_plan_gates`` names both plan gates when both fail."""
    plan = parse_plan("## Key Results\n- [-] kr\n## User Story Map\n- [ ] leaf\n")
    assert [r.gate for r in evaluate_plan_gates(plan).failing] == ["okr", "map"]
