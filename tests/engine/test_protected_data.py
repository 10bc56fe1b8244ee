"""Test data is protected like tests (issue 22, item 3): a test that reads its expected values
from a data file, a snapshot or a Go ``testdata/`` file is not made to pass by rewriting the
data. Real pytest runs through the supervisor; only the clock is fake."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import Activity, Close, Continue, Settled, UserPrompt
from goalkeeper.engine.ports import SubprocessRunner
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock

PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"
BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"


def _reads(data: str) -> str:
    """A test module that checks ``calc.add`` against the pairs in ``data`` (one per line:
    ``a b expected``), as a golden-file test does."""
    return (
        "import pathlib\nimport calc\n\n\ndef test_cases():\n"
        f"    for line in pathlib.Path({data!r}).read_text().splitlines():\n"
        "        a, b, want = map(int, line.split())\n"
        "        assert calc.add(a, b) == want\n"
    )


# (data file, the test module that reads it, the agent's rewrite: what the buggy code returns)
LAYOUTS = {
    "pytest data": ("tests/data/cases.json", "tests/test_calc.py"),
    "jest snapshot": ("web/__snapshots__/calc.test.js.snap", "tests/test_snap.py"),
    "go testdata": ("calc/testdata/cases.txt", "tests/test_golden.py"),
}


def _project(root: Path, data: str, test: str) -> Supervisor:
    (root / "calc.py").write_text(BUGGY, "utf-8")
    for rel, text in ((data, "2 3 5\n1 1 2\n"), (test, _reads(data))):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    return Supervisor(
        root,
        # The review round a proof earns is tests/engine/test_review.py's.
        Config(no_plan="silent", lang="en", review="off"),
        host="test",
        capabilities=CLAUDE_CAPABILITIES,
        clock=FakeClock(),
        runner=SubprocessRunner(),
    )


def _settle(sup: Supervisor) -> list[str]:
    actions = sup.handle([Settled("s", "done", activity=Activity(tool_calls=1))]).actions
    return [
        f"{type(a).__name__}: {getattr(a, 'text', getattr(a, 'summary', ''))}"
        for a in actions
        if isinstance(a, Continue | Close)
    ]


def _tick(project: Path) -> None:
    path = project / ".agents" / "goal" / "GOAL.md"
    path.write_text(path.read_text(encoding="utf-8").replace("- [ ]", "- [x]"), encoding="utf-8")


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("honest", [False, True])
def test_rewritten_test_data_is_not_proven(tmp_path: Path, layout: str, honest: bool) -> None:
    """The agent rewrites the expected values to what the buggy code returns: the tests pass in
    its tree, but the original data is restored in the replay and the goal is not proven. The
    control fixes the code and leaves the data alone: proven."""
    data, test = LAYOUTS[layout]
    sup = _project(tmp_path, data, test)
    sup.handle([UserPrompt("s", f"/gk-goal `{PYTEST}` passes")])
    _tick(tmp_path)
    change: Callable[[], object]
    if honest:
        change = lambda: (tmp_path / "calc.py").write_text(FIXED, "utf-8")  # noqa: E731
    else:
        change = lambda: (tmp_path / data).write_text("2 3 -1\n1 1 0\n", "utf-8")  # noqa: E731
    change()
    answer = _settle(sup)
    if honest:
        assert [a.split(":")[0] for a in answer] == ["Close"], answer
        assert "proven" in answer[0]
    else:
        assert [a.split(":")[0] for a in answer] == ["Continue"], answer
        assert f"{data}: changed" in answer[0] and "proven" not in answer[0]
