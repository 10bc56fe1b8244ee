"""A plan's close is held to the tests kept at the user's first prompt: real pytest runs in a
real project folder, through the whole engine."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import Activity, Close, Continue, Pause, Record, Settled, UserPrompt
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock

PLAN = "## Objective\nadd() adds.\n\n## Key Results\n- [x] KR1 tests failing 1 → 0, current 0\n"
TEST = "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n"


@pytest.fixture
def sup(tmp_path: Path) -> Supervisor:
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "work.md").write_text(PLAN, "utf-8")
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n", "utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(TEST, "utf-8")
    config = Config(
        no_plan="silent",
        lang="en",
        check_needs_tool=False,
        test_command=f"{sys.executable} -m pytest -q -p no:cacheprovider",
    )
    sup = Supervisor(
        tmp_path, config, host="test", capabilities=CLAUDE_CAPABILITIES, clock=FakeClock()
    )
    sup.handle([UserPrompt("s", "fix add() so the tests pass")])
    return sup


def close(sup: Supervisor) -> tuple[object, ...]:
    sup.handle([Settled("s", "[PDCA] check", activity=Activity(tool_calls=1))])
    return sup.handle([Settled("s", "[PDCA] complete", activity=Activity(tool_calls=1))]).actions


@pytest.mark.parametrize(
    ("path", "content"),
    [
        ("tests/test_calc.py", "def test_add():\n    assert True\n"),
        ("tests/conftest.py", "import calc\n\ncalc.add = lambda a, b: a + b\n"),
    ],
)
def test_a_close_that_passes_only_with_changed_tests_is_held(
    sup: Supervisor, path: str, content: str
) -> None:
    """The agent weakens the tests and says complete: held with the change named, once; the
    same change again pauses for the user."""
    (sup.project / path).write_text(content, "utf-8")
    first = close(sup)
    assert not any(isinstance(a, Close) for a in first)
    (cont,) = [a for a in first if isinstance(a, Continue)]
    assert "only with your changes to them" in cont.text and f"- {path}: " in cont.text
    assert "1 failed" in cont.text
    assert any(isinstance(a, Record) and a.kind == "plan_tests_held" for a in first)
    again = close(sup)
    (pause,) = [a for a in again if isinstance(a, Pause)]
    assert "goalkeeper goal accept-tests" in pause.reason


def test_a_real_fix_closes_and_records_the_check(sup: Supervisor) -> None:
    """The code fixed and a test added: the kept tests pass, the close goes through, and its
    record says what was checked."""
    (sup.project / "calc.py").write_text("def add(a, b):\n    return a + b\n", "utf-8")
    (sup.project / "tests" / "test_more.py").write_text(
        "import calc\n\n\ndef test_zero():\n    assert calc.add(0, 0) == 0\n", "utf-8"
    )
    actions = close(sup)
    assert any(isinstance(a, Close) for a in actions), actions
    (record,) = [a for a in actions if isinstance(a, Record) and a.kind == "closed"]
    protected = record.data["protected_tests"]
    assert isinstance(protected, dict) and protected["checked"] is True
    assert protected["changes"] == [{"path": "tests/test_more.py", "kind": "added"}]


def test_unchanged_tests_close_without_a_second_run(sup: Supervisor) -> None:
    (sup.project / "calc.py").write_text("def add(a, b):\n    return a + b\n", "utf-8")
    actions = close(sup)
    (record,) = [a for a in actions if isinstance(a, Record) and a.kind == "closed"]
    assert record.data["protected_tests"] == {"checked": True, "changes": [], "runs": []}
