"""Reading how many tests a run executed from its runner's summary (``core/test_summary.py``):
the outputs below are what the runners print (pytest, unittest and node checked against real
runs; jest, vitest, mocha, cargo and go from their documented formats)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goalkeeper.core.proof.test_summary import TestSummary, parse_test_summary


@pytest.mark.parametrize(
    ("output", "runner", "passed", "failed"),
    [
        ("..                                [100%]\n2 passed in 0.61s\n", "pytest", 2, 0),
        ("test_x.py ..  [100%]\n\n===== 2 passed in 0.59s =====\n", "pytest", 2, 0),
        ("FAILED a::b\n===== 1 failed, 2 passed, 1 warning in 0.12s =====\n", "pytest", 2, 1),
        ("== 3 passed, 1 xpassed, 2 errors in 61.20s (0:01:01) ==", "pytest", 4, 2),
        ("Ran 2 tests in 0.000s\n\nOK (skipped=1)\n", "unittest", 1, 0),
        ("Ran 3 tests in 0.1s\n\nFAILED (failures=1, errors=1)\n", "unittest", 1, 2),
        (
            "Test Suites: 1 passed, 1 total\nTests:       1 failed, 2 passed, 3 total\n",
            "jest",
            2,
            1,
        ),
        (" Test Files  1 passed (1)\n      Tests  4 passed (4)\n", "jest", 4, 0),
        ("  3 passing (10ms)\n  1 failing\n", "mocha", 3, 1),
        ("1..2\n# tests 2\n# suites 0\n# pass 2\n# fail 0\n# skipped 0\n", "node", 2, 0),
        ("ℹ tests 3\nℹ pass 2\nℹ fail 1\n", "node", 2, 1),
        (
            "test result: ok. 2 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; "
            "finished in 0.00s\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; "
            "3 filtered out; finished in 0.01s\n",
            "cargo",
            3,
            0,
        ),
        ("ok  \texample.com/m/a\t0.002s\n?   \texample.com/m/b\t[no test files]\n", "go", 1, 0),
        ("=== RUN   TestA\n--- PASS: TestA (0.00s)\n--- FAIL: TestB\nFAIL\tx\t0.1s\n", "go", 1, 1),
        ("\x1b[32m2 passed\x1b[0m in 0.10s\n", "pytest", 2, 0),
    ],
)
def test_summaries_are_read(output: str, runner: str, passed: int, failed: int) -> None:
    """Each runner's summary gives how many tests passed and failed."""
    summary = parse_test_summary(output)
    assert (summary.runner, summary.passed, summary.failed) == (runner, passed, failed)


@pytest.mark.parametrize(
    ("output", "runner"),
    [
        ("\nno tests ran in 0.58s\n", "pytest"),
        ("\n2 deselected in 0.58s\n", "pytest"),
        ("test_x.py::test_b\n\n2 tests collected in 0.59s\n", "pytest"),
        ("sx  [100%]\n1 skipped, 1 xfailed in 0.62s\n", "pytest"),
        ("no tests ran, 1 warning in 0.01s\n", "pytest"),
        ("Ran 0 tests in 0.000s\n\nOK\n", "unittest"),
        ("Ran 0 tests in 0.000s\n\nNO TESTS RAN\n", "unittest"),
        ("Ran 2 tests in 0.000s\n\nOK (skipped=2)\n", "unittest"),
        (
            "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; "
            "0 filtered out; finished in 0.00s\n",
            "cargo",
        ),
        ("ok  \texample.com/m/a\t0.002s [no tests to run]\n", "go"),
        ("?   \texample.com/m/a\t[no test files]\n", "go"),
    ],
)
def test_runs_that_executed_no_test_pass_none(output: str, runner: str) -> None:
    """A recognised summary of a run that ran nothing has zero passed tests (audit D2)."""
    summary = parse_test_summary(output)
    assert summary.runner == runner
    assert summary.passed == 0


@pytest.mark.parametrize(
    "output",
    [
        "pytest 9.2.0\n",
        "..                                                       [ 40%]\n",  # cut short
        "..\n",  # pytest -qq with the classic progress style: a row of dots is anyone's
        "ok\n",
        "ok 1 - a\nok 2 - b\n",  # TAP without node's totals: not go's `ok  pkg 0.1s`
        "All tests passed!\n",
        "",
        "2 passed\n",  # no duration: not pytest's summary line
    ],
)
def test_output_without_a_known_summary_is_unknown(output: str) -> None:
    """Unknown output never counts as a test that ran."""
    summary = parse_test_summary(output)
    assert summary == TestSummary()
    assert not summary.known and summary.passed == 0


@pytest.mark.parametrize(
    ("output", "passed", "failed", "skipped", "line"),
    [
        (
            "..                                                        [100%]\n",
            2,
            0,
            0,
            ".. [100%]",
        ),
        (
            "." * 72 + " [ 46%]\n" + "." * 72 + " [ 93%]\n.......x..   [100%]\n"
            "===== warnings summary =====\ntest_many.py::test_w\n  UserWarning: hm\n",
            153,
            0,
            1,
            ".......x.. [100%]",
        ),
        (
            "." * 69 + " [ 69/154]\n" + "." * 69 + " [138/154]\n" + "." * 16 + " [154/154]\n",
            154,
            0,
            0,
            "." * 16 + " [154/154]",
        ),
        ("sss  [100%]\n", 0, 0, 3, "sss [100%]"),
        (".F  [ 50%]\n.  [100%]\n== FAILURES ==\n", 2, 1, 0, ". [100%]"),
        (".  [100%]\n\n...  [100%]\n", 3, 0, 0, "... [100%]"),  # two runs: the last one
    ],
)
def test_pytest_run_quietly_is_read_from_its_progress(
    output: str, passed: int, failed: int, skipped: int, line: str
) -> None:
    """`pytest -qq` (or `-q` over an `addopts = -q`) prints no summary line when all pass, only
    its progress: the marks of a run that reached its end are its summary."""
    summary = parse_test_summary(output)
    assert (summary.runner, summary.passed, summary.failed) == ("pytest", passed, failed)
    assert (summary.skipped, summary.line) == (skipped, line)


def test_a_quiet_pytest_run_cut_short_after_a_finished_one_is_unknown() -> None:
    """The last run reached 46% and stopped (`os._exit(0)` in the code under test): an earlier
    finished run does not speak for it."""
    assert not parse_test_summary("..  [100%]\n....  [ 46%]\n").known


def test_the_last_pytest_summary_wins() -> None:
    """A test that prints a summary-like line before the real one does not decide."""
    output = "100 passed in 0.01s\n.\n=== 1 failed in 0.20s ===\n"
    summary = parse_test_summary(output)
    assert (summary.passed, summary.failed, summary.line) == (0, 1, "1 failed")


def test_the_summary_serialises_for_the_journal() -> None:
    """The journal keeps the runner, the counts and the line."""
    assert parse_test_summary("3 passed, 1 skipped in 0.1s").to_json() == {
        "runner": "pytest",
        "executed": 3,
        "passed": 3,
        "failed": 0,
        "skipped": 1,
        "deselected": 0,
        "line": "3 passed, 1 skipped",
    }


@given(st.text(max_size=2000))
def test_any_output_parses_without_raising(output: str) -> None:
    """Whatever a command prints, reading its summary never raises."""
    summary = parse_test_summary(output)
    assert summary.passed >= 0 and summary.failed >= 0
