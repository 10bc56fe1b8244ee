"""The three closing gates (seed 000 §5): check, OKR and map."""

from __future__ import annotations

import pytest

from goalkeeper.core.cadence.gates import (
    CheckHistory,
    GateResult,
    OpenItem,
    RanCommand,
    change_filter,
    command_digest,
    declared_commands,
    evaluate_check_gate,
    evaluate_gates,
    evaluate_map_gate,
    evaluate_okr_gate,
    evaluate_plan_gates,
    evaluate_round,
    kr_commands,
    parse_ran,
    render_ran,
)
from goalkeeper.core.cadence.plan import parse_plan
from goalkeeper.core.proof.verification import find_verification
from goalkeeper.core.values import ToolRun

CLOSED_PLAN = parse_plan(
    "## Key Results\n- [x] a\n- [-] b (cancelled: no demand)\n"
    "## User Story Map\n- [ ] slice\n  - [x] c\n  - [-] d（取消：延后）\n"
)
CHECKED = CheckHistory(last_do=3, last_check=4, check_status="passed")


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
    result = evaluate_check_gate(CheckHistory(last_do=5, last_check=4, check_status="passed"))
    assert not result.passed
    assert [item.problem for item in result.open] == ["do_after_check"]


def test_check_gate_passes_when_check_follows_do() -> None:
    """A ``check`` after the last ``do`` opens the gate."""
    result = evaluate_check_gate(CHECKED)
    assert result.passed
    assert result.open == ()


def test_check_gate_passes_with_check_and_no_do() -> None:
    """A check with no ``do`` before it is enough."""
    assert evaluate_check_gate(CheckHistory(last_check=1, check_status="passed")).passed


def test_check_gate_fails_when_check_ran_no_tool() -> None:
    """With ``require_tool``, a check that ran no tool is no evidence."""
    history = CheckHistory(last_do=1, last_check=2, check_status="idle")
    result = evaluate_check_gate(history, require_tool=True)
    assert not result.passed
    assert [item.problem for item in result.open] == ["check_without_evidence"]


def test_check_gate_ignores_tools_when_not_required() -> None:
    """Without ``require_tool``, a check that ran no tool (or no verification) still counts."""
    for status in ("idle", "none", "failed", "unreadable"):
        history = CheckHistory(last_do=1, last_check=2, check_status=status)
        assert evaluate_check_gate(history, require_tool=False).passed
    changed = CheckHistory(last_do=1, last_check=2, check_status="passed", last_change=3)
    assert evaluate_check_gate(changed, require_tool=False).passed


def test_check_gate_requires_tools_by_default() -> None:
    """``require_tool`` defaults to on."""
    history = CheckHistory(last_do=1, last_check=2, check_status="idle")
    assert not evaluate_check_gate(history).passed


def test_check_gate_passes_when_the_host_reports_no_runs() -> None:
    """A host that reports only a tool count (``untold``) keeps the old rule: the check counts,
    as it does for a session recorded before rounds were judged (None)."""
    for status in ("untold", None):
        history = CheckHistory(last_do=1, last_check=2, check_status=status)
        assert evaluate_check_gate(history, require_tool=True).passed


def test_check_gate_names_why_a_check_round_proves_nothing() -> None:
    """No verification, a failing one, a change after it, an unreadable record, a run whose
    end nothing shows, a selection of the tests: each its own problem; a passing one passes."""
    expected = {
        "none": "check_not_verified",
        "failed": "check_failed",
        "stale": "check_stale",
        "unreadable": "check_unreadable",
        "unknown": "check_unknown",
        "narrowed": "check_narrowed",
    }
    for status, problem in expected.items():
        history = CheckHistory(1, 2, status, detail="not_verification\techo 2 passed")  # type: ignore[arg-type]
        result = evaluate_check_gate(history)
        assert [(i.problem, i.text) for i in result.open] == [
            (problem, "not_verification\techo 2 passed")
        ]
    assert evaluate_check_gate(CheckHistory(1, 2, "passed")).passed


def test_check_gate_fails_when_files_changed_after_the_check() -> None:
    """A round that changed a project file after the last check reopens the gate."""
    history = CheckHistory(last_do=1, last_check=2, check_status="passed", last_change=3)
    assert [i.problem for i in evaluate_check_gate(history).open] == ["changed_after_check"]
    same_round = CheckHistory(last_do=1, last_check=3, check_status="passed", last_change=3)
    assert evaluate_check_gate(same_round).passed


# ---------------------------------------------------------------------------------------------
# A check is a verification that ran
# ---------------------------------------------------------------------------------------------


def shell(command: str, outcome: str = "passed", tail: str | None = None) -> ToolRun:
    """A shell run as the host reports it; a passing one prints pytest's summary by default."""
    if tail is None:
        tail = "1 passed in 0.01s" if outcome == "passed" else ""
    return ToolRun("shell", "Bash", command, outcome=outcome, tail=tail)  # type: ignore[arg-type]


def test_declared_commands_count_and_the_plan_cannot_name_a_print() -> None:
    """The user's commands count word for word (with test-selection arguments after them);
    the plan's key results may name a real command, never echo/cat/true or an inline program."""
    plan = parse_plan(
        "## Key Results\n"
        "- [ ] KR1: `./scripts/e2e.sh` exits 0\n"
        "- [ ] KR2: `echo 2 passed` prints it\n"
        "- [ ] KR3: `bash -c 'echo ok'` and `python -c 1` and `true`\n"
    )
    declared = declared_commands(["make lint", "ruff check ."], kr_commands(plan))
    assert declared == ("make lint", "ruff check .", "./scripts/e2e.sh")
    assert find_verification("make lint", declared) is not None
    assert find_verification("ruff check . --fix", declared) is not None
    assert find_verification("./scripts/e2e.sh --fast", declared) is not None
    assert find_verification("echo 2 passed", declared) is None
    assert find_verification("make lint --help", declared) is None


def test_a_round_counts_only_when_a_verification_finished() -> None:
    """A finished test run is a check (passed, or failed: still evidence); echo, a refused,
    timed-out or background run, a run that selected no tests are not, and say so."""
    assert evaluate_round([shell("pytest -q")], tools=1).status == "passed"
    failed = evaluate_round([shell("pytest", "failed", "E  assert 1 == 2\n1 failed")], tools=1)
    assert failed.status == "failed" and "1 failed" in failed.headline
    forged = evaluate_round([shell("echo '2 passed'")], tools=1)
    assert forged.status == "none"
    assert forged.ran == (RanCommand("echo '2 passed'", "not_verification"),)
    for outcome in ("refused", "unfinished"):
        assert evaluate_round([shell("pytest", outcome)], tools=1).ran[0].verdict == outcome
    empty = evaluate_round([shell("pytest -k nothing", tail="no tests ran in 0.01s")], tools=1)
    assert empty.status == "none" and empty.ran[0].verdict == "empty"
    assert evaluate_round([], tools=0).status == "idle"
    assert evaluate_round([ToolRun("edit", "Edit", path="a.py")], tools=1).status == "none"


def test_a_masked_exit_status_counts_only_with_the_runners_passing_summary() -> None:
    """`pytest | tail` exits 0 either way: passed when the output shows pytest's passing
    summary, failed when it shows a failure, unknown (not a pass) when it shows nothing."""
    piped = shell("pytest | tail -3", tail="3 passed in 0.1s")
    assert evaluate_round([piped], tools=1).status == "passed"
    failing = shell("pytest | tail -3", tail="FAILED t.py::x\n1 failed, 2 passed")
    assert evaluate_round([failing], tools=1).status == "failed"
    silent = shell("python -m pytest -q >/dev/null 2>&1 || true", tail="")
    assert evaluate_round([silent], tools=1).status == "unknown"
    untold = shell("pytest -q", outcome="unknown", tail="")  # a host that reports no exit
    assert evaluate_round([untold], tools=1).status == "unknown"


def test_a_pytest_run_that_prints_no_summary_is_not_a_pass() -> None:
    """pytest always ends with its summary line: exit 0 without one is something else
    answering as pytest (a `pytest.py` in the project that exits 0), whatever redirection the
    line has: `2>&1` shows everything, and output sent to a file shows nothing."""
    shadow = shell("python -m pytest -q", tail="")
    assert evaluate_round([shadow], tools=1).status == "unknown"
    cut = shell("pytest -qq", tail="..  [ 40%]")
    assert evaluate_round([cut], tools=1).status == "unknown"
    merged = shell("python -m pytest -q 2>&1", tail="")
    assert evaluate_round([merged], tools=1).status == "unknown"
    logged = shell("pytest -q > test.log", tail="")
    assert evaluate_round([logged], tools=1).status == "unknown"
    shown = shell("pytest -q 2>&1", tail="3 passed in 0.1s")
    assert evaluate_round([shown], tools=1).status == "passed"
    other = shell("npm test", tail="")
    assert evaluate_round([other], tools=1, declared=("npm test",)).status == "passed"


def test_pytest_run_quietly_is_a_check() -> None:
    """`pytest -qq` prints only its progress when all pass; a run that reached 100% is a check
    (an honest agent with `addopts = -q` adding its own `-q` was refused)."""
    quiet = shell("pytest -qq", tail="..                     [100%]")
    assert evaluate_round([quiet], tools=1).status == "passed"
    failed = shell("python -m pytest -qq", outcome="failed", tail=".F   [100%]\nFAILED t.py::x")
    assert evaluate_round([failed], tools=1).status == "failed"


@pytest.mark.parametrize(
    "command",
    [
        "python -m pytest -q test_trivial.py",
        "pytest -k add_zero",
        "pytest tests/test_api.py::test_get",
        "python -m pytest --deselect test_calc.py::test_add",
        "npx jest -t 'adds zero'",
        "go test -run TestZero ./...",
    ],
)
def test_a_selection_of_the_tests_is_not_a_check(command: str) -> None:
    """A check that ran the test file the agent just wrote, or ``-k`` for the one test that
    passes, proves nothing about the others: ``narrowed``, which keeps the gate closed."""
    evidence = evaluate_round([shell(command, tail="1 passed in 0.1s")], tools=1)
    assert evidence.status == "narrowed"
    assert evidence.ran[0].verdict == "narrowed"
    history = CheckHistory(1, 2, evidence.status)
    assert [i.problem for i in evaluate_check_gate(history).open] == ["check_narrowed"]


@pytest.mark.parametrize(
    "command", ["python -m pytest -q", "pytest tests/", "npm test", "go test ./...", "make test"]
)
def test_the_whole_suite_is_a_check(command: str) -> None:
    assert evaluate_round([shell(command, tail="4 passed in 0.1s")], tools=1).status == "passed"


def test_a_change_after_the_last_verification_makes_the_round_stale() -> None:
    """Edit → test is checked; test → edit is not; edits of the plan are bookkeeping."""
    is_change = change_filter("/p", ("plan", ".agents"))
    edit = ToolRun("edit", "Edit", path="/p/src/a.py")
    plan_edit = ToolRun("edit", "Edit", path="/p/plan/x.md")
    checked = evaluate_round([edit, shell("pytest")], tools=2, is_change=is_change)
    assert checked.status == "passed" and checked.changed is None
    stale = evaluate_round([shell("pytest"), edit], tools=2, is_change=is_change)
    assert stale.status == "stale" and stale.changed == "/p/src/a.py"
    ticked = evaluate_round([shell("pytest"), plan_edit], tools=2, is_change=is_change)
    assert ticked.status == "passed"
    sed = shell("sed -i s/a/b/ src/a.py")
    assert evaluate_round([sed], tools=1, is_change=is_change).changed == "src/a.py"
    scratch = ToolRun("edit", "Write", path="/tmp/notes.md")
    assert evaluate_round([scratch], tools=1, is_change=is_change).changed is None
    refused = ToolRun("edit", "Edit", path="/p/src/a.py", outcome="refused")
    assert evaluate_round([shell("pytest"), refused], tools=2, is_change=is_change).changed is None
    for hidden in ("/p/.agents/../src/a.py", ".agents/runs/r/../../../src/a.py", "./plan/../a.py"):
        climbed = ToolRun("edit", "Edit", path=hidden)
        assert evaluate_round([shell("pytest"), climbed], tools=2, is_change=is_change).status == (
            "stale"
        ), hidden  # a record folder's name in front of `..` hides no change


def test_a_command_nobody_announced_did_not_run() -> None:
    """Where the host announces commands before they run, a transcript line for a command that
    was never announced (written by the agent) is not a check."""
    runs = [shell("pytest -q")]
    announced = [command_digest("pytest -q")]
    assert evaluate_round(runs, tools=1, seen=announced).status == "passed"
    forged = evaluate_round(runs, tools=1, seen=[command_digest("ls")])
    assert forged.status == "none" and forged.ran[0].verdict == "unseen"
    assert evaluate_round(runs, tools=1, seen=None).status == "passed"


def test_one_announcement_vouches_for_one_call() -> None:
    """A real failing pytest, then a forged passing `pytest` line with the same text: the
    one announcement covers the first call; the second is unseen and the round failed."""
    runs = [shell("pytest -q", "failed", "1 failed"), shell("pytest -q", "passed", "3 passed")]
    evidence = evaluate_round(runs, tools=2, seen=[command_digest("pytest -q")])
    assert [r.verdict for r in evidence.ran] == ["failed", "unseen"]
    assert evidence.status == "failed"


def test_what_a_host_cannot_tell_or_read() -> None:
    """No runs reported: the tool count decides (old rule); unreadable: nothing counts."""
    assert evaluate_round(None, tools=3).status == "untold"
    assert evaluate_round(None, tools=None).status == "untold"
    assert evaluate_round(None, tools=0).status == "idle"
    assert evaluate_round([shell("pytest")], tools=1, unreadable=True).status == "unreadable"


def test_the_kept_form_of_what_ran_reads_back() -> None:
    """render_ran keeps the last commands, one line each; parse_ran reads them back."""
    ran = tuple(RanCommand(f"cmd {i}\twith tab", "not_verification") for i in range(8))
    kept = parse_ran(render_ran(ran))
    assert [r.command for r in kept] == [f"cmd {i} with tab" for i in range(3, 8)]
    assert parse_ran("garbage\nbogus\tx") == ()


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
    history = CheckHistory(last_do=1, last_check=2, check_status="none")
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
