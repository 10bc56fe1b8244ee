"""How many tests a run executed, read from the summary its test runner printed.

A test gate is a duty to make tests pass, so an exit status of 0 is not enough: ``pytest
--version``, ``pytest --collect-only`` and a selection that matches nothing exit 0 (or 5) without
running a test. This module reads the runner's own summary line from the end of a run's output:
pytest (``3 passed, 1 skipped in 0.1s``, ``no tests ran``, ``2 deselected``; with ``-qq``,
or ``-q`` on top of an ``addopts = -q``, only its progress ``..s  [100%]``), ``python -m
unittest`` (``Ran 3 tests`` then ``OK (skipped=1)``), jest (``Tests: 2 passed, 2 total``),
vitest (``Tests  2 passed (2)``), mocha (``2 passing``), ``node --test`` (``# tests 2`` /
``# pass 2``, or ``ℹ pass 2``), cargo (``test result: ok. 2 passed; 0 failed``, summed over
test binaries) and go (``--- PASS: TestX``, ``ok  pkg``, ``[no tests to run]``,
``[no test files]``). Output it does not recognise is ``unknown``, which never counts as a test
that ran. The summary is the runner's word: a test that prints a fake summary line and exits the
process is not detected. Pure; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from msgspec import Struct

from goalkeeper.core.text.lazy_re import lazy_re

UNKNOWN = "unknown"


class TestSummary(Struct, frozen=True):
    """What a run's summary says. ``passed`` counts tests that ran and passed (a lower bound
    where the runner gives no count, as go's ``ok  pkg``); ``runner`` is ``unknown`` when no
    summary was recognised."""

    __test__ = False  # not a pytest test class, despite the name

    runner: str = UNKNOWN
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    deselected: int = 0
    line: str = ""
    """The summary line as printed (trimmed), for messages and the journal."""

    @property
    def known(self) -> bool:
        return self.runner != UNKNOWN

    @property
    def executed(self) -> int:
        """Tests that ran, passing or failing (skipped and deselected ones did not)."""
        return self.passed + self.failed

    def to_json(self) -> dict[str, object]:
        return {
            "runner": self.runner,
            "executed": self.executed,
            "passed": self.passed,
            "failed": self.failed,
            "skipped": self.skipped,
            "deselected": self.deselected,
            "line": self.line,
        }


def parse_test_summary(output: str) -> TestSummary:
    """The summary of the first runner whose summary appears in ``output``; ``unknown`` when
    none does. Runners are tried from the most specific summary format to the least."""
    text = _ANSI.sub("", output).replace("\r\n", "\n").replace("\r", "\n")
    for parse in _PARSERS:
        found = parse(text)
        if found is not None:
            return found
    return TestSummary()


_ANSI = lazy_re(r"\x1b\[[0-9;?]*[A-Za-z]")
_MAX_LINE = 300  # a summary line is short; longer ones are quoted cut


def _line(text: str) -> str:
    return text.strip()[:_MAX_LINE]


# -- pytest -----------------------------------------------------------------------------------

_PYTEST_COUNT = lazy_re(
    r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?|rerun|"
    r"selected|tests? collected)"
)
_PYTEST_LINE = lazy_re(
    r"^=*\s*((?:(?:\d+ [a-z ]+?|no tests ran)(?:, )?)+)\s+in \d+(?:\.\d+)?s(?: \([^)]*\))?\s*=*$",
    re.MULTILINE,
)


def _pytest(text: str) -> TestSummary | None:
    lines = _PYTEST_LINE.findall(text)
    if not lines:
        return None
    last = lines[-1]
    counts: dict[str, int] = {}
    for number, word in _PYTEST_COUNT.findall(last):
        key = word.rstrip("s") if word in ("errors", "warnings") else word
        counts[key] = counts.get(key, 0) + int(number)
    return TestSummary(
        "pytest",
        passed=counts.get("passed", 0) + counts.get("xpassed", 0),
        failed=counts.get("failed", 0) + counts.get("error", 0),
        skipped=counts.get("skipped", 0) + counts.get("xfailed", 0),
        deselected=counts.get("deselected", 0),
        line=_line(last),
    )


_PROGRESS = lazy_re(r"^([.sxXFER]+) *\[ *(?:(\d+)%|(\d+)/(\d+))\]\s*$", re.MULTILINE)
"""A line of pytest's progress: one mark per test (``.`` passed, ``F`` failed, ``E`` error, ``s``
skipped, ``x`` xfailed, ``X`` xpassed) and how far the run is (``[ 46%]``, or ``[69/154]`` with
``console_output_style = count``)."""


def _pytest_progress(text: str) -> TestSummary | None:
    """pytest run quietly (``-qq``) prints its progress and no summary line when all pass. Only
    a run that reached its end (``[100%]``, ``[N/N]``) counts, so a run cut short (code that
    calls ``os._exit(0)`` mid-run) is not read as one; the marks since the previous finished
    run are counted, a lower bound when a test printed onto the progress line (``-s``)."""
    marks: list[str] = []
    finished: tuple[str, str] | None = None
    for found in _PROGRESS.finditer(text):
        if finished is not None:  # a later run starts: count only its marks
            marks, finished = [], None
        marks.append(found[1])
        if found[2] == "100" or (found[3] is not None and found[3] == found[4]):
            finished = ("".join(marks), " ".join(found[0].split()))
    if finished is None:
        return None
    counted, last = finished
    return TestSummary(
        "pytest",
        passed=counted.count(".") + counted.count("X"),
        failed=counted.count("F") + counted.count("E"),
        skipped=counted.count("s") + counted.count("x"),
        line=_line(last),
    )


# -- python -m unittest -----------------------------------------------------------------------

_UNITTEST_RAN = lazy_re(r"^Ran (\d+) tests? in \d+(?:\.\d+)?s\s*$", re.MULTILINE)
_UNITTEST_RESULT = lazy_re(r"^(OK|FAILED|NO TESTS RAN)(?: \(([^)]*)\))?\s*$", re.MULTILINE)
_UNITTEST_PART = lazy_re(r"(failures|errors|skipped|expected failures|unexpected successes)=(\d+)")


def _unittest(text: str) -> TestSummary | None:
    ran = list(_UNITTEST_RAN.finditer(text))
    if not ran:
        return None
    last = ran[-1]
    result = _UNITTEST_RESULT.search(text, last.end())
    parts = {k: int(v) for k, v in _UNITTEST_PART.findall(result[2] or "")} if result else {}
    total = int(last[1])
    failed = parts.get("failures", 0) + parts.get("errors", 0)
    failed += parts.get("unexpected successes", 0)
    skipped = parts.get("skipped", 0) + parts.get("expected failures", 0)
    if result is None or result[1] != "OK":
        failed = max(failed, 1 if total else 0)
    line = f"{last[0].strip()} {result[0].strip()}" if result else last[0]
    return TestSummary(
        "unittest",
        passed=max(total - failed - skipped, 0),
        failed=failed,
        skipped=skipped,
        line=_line(line),
    )


# -- jest, vitest, mocha ----------------------------------------------------------------------

_JEST_LINE = lazy_re(r"^\s*Tests:?\s+(\d+ [a-z]+.*)$", re.MULTILINE)
_JS_COUNT = lazy_re(r"(\d+) (passed|failed|skipped|todo|pending)")
_MOCHA = lazy_re(r"^\s*(\d+) (passing|failing|pending)\b", re.MULTILINE)


def _jest(text: str) -> TestSummary | None:
    lines = _JEST_LINE.findall(text)
    if not lines:
        return None
    counts = {word: int(n) for n, word in _JS_COUNT.findall(lines[-1])}
    return TestSummary(
        "jest",
        passed=counts.get("passed", 0),
        failed=counts.get("failed", 0),
        skipped=counts.get("skipped", 0) + counts.get("todo", 0) + counts.get("pending", 0),
        line=_line("Tests: " + lines[-1]),
    )


def _mocha(text: str) -> TestSummary | None:
    found = _MOCHA.findall(text)
    if not found or not any(word == "passing" for _, word in found):
        return None
    counts: dict[str, int] = {}
    for n, word in found:
        counts[word] = int(n)  # the last block of the output wins
    line = ", ".join(f"{counts[w]} {w}" for w in ("passing", "failing", "pending") if w in counts)
    return TestSummary(
        "mocha",
        passed=counts.get("passing", 0),
        failed=counts.get("failing", 0),
        skipped=counts.get("pending", 0),
        line=line,
    )


# -- node --test (TAP or spec reporter) -------------------------------------------------------

_NODE = lazy_re(r"^(?:#|ℹ) (tests|pass|fail|cancelled|skipped|todo) (\d+)\s*$", re.MULTILINE)


def _node(text: str) -> TestSummary | None:
    counts: dict[str, int] = {}
    for word, n in _NODE.findall(text):
        counts[word] = int(n)
    if "tests" not in counts or "pass" not in counts:
        return None
    failed = counts.get("fail", 0) + counts.get("cancelled", 0)
    return TestSummary(
        "node",
        passed=counts["pass"],
        failed=failed,
        skipped=counts.get("skipped", 0) + counts.get("todo", 0),
        line=f"tests {counts['tests']}, pass {counts['pass']}, fail {failed}",
    )


# -- cargo test -------------------------------------------------------------------------------

_CARGO = lazy_re(
    r"^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; "
    r"(\d+) measured; (\d+) filtered out",
    re.MULTILINE,
)


def _cargo(text: str) -> TestSummary | None:
    found = _CARGO.findall(text)
    if not found:
        return None
    passed = sum(int(r[1]) for r in found)
    failed = sum(int(r[2]) for r in found)
    return TestSummary(
        "cargo",
        passed=passed,
        failed=failed,
        skipped=sum(int(r[3]) for r in found),
        deselected=sum(int(r[5]) for r in found),
        line=f"test result: {passed} passed; {failed} failed ({len(found)} test binaries)",
    )


# -- go test ----------------------------------------------------------------------------------

_GO_TEST = lazy_re(r"^\s*--- (PASS|FAIL|SKIP): \S+", re.MULTILINE)
_GO_PACKAGE = lazy_re(
    r"^(ok|FAIL|\?)\s+(\S+)\s+((?:\d+(?:\.\d+)?s|\(cached\)|\[no test files\]).*)$", re.MULTILINE
)
"""``ok  <tab>pkg<tab>0.01s``, ``ok ... (cached)``, ``?   ... [no test files]``, ``FAIL ... 0.1s``:
a duration or a bracket must follow, so a TAP ``ok 1 - name`` line is not read as go's."""


def _go(text: str) -> TestSummary | None:
    tests = _GO_TEST.findall(text)
    packages = _GO_PACKAGE.findall(text)
    if not tests and not packages:
        return None
    if tests:
        passed, failed = tests.count("PASS"), tests.count("FAIL")
        skipped = tests.count("SKIP")
    else:  # without -v only packages are listed: an ``ok`` package ran at least one test
        passed = sum(1 for s, _, rest in packages if s == "ok" and "[no tests to run]" not in rest)
        failed = sum(1 for s, _, _ in packages if s == "FAIL")
        skipped = 0
    empty = sum(1 for s, _, rest in packages if s == "?" or "[no tests to run]" in rest)
    line = f"{passed} passed, {failed} failed, {empty} packages without tests"
    return TestSummary("go", passed=passed, failed=failed, skipped=skipped, line=line)


_PARSERS: tuple[Callable[[str], TestSummary | None], ...] = (
    _pytest,
    _pytest_progress,
    _unittest,
    _cargo,
    _jest,
    _node,
    _mocha,
    _go,
)
