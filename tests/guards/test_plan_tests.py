"""The kept tests at a plan's close, as the cadence guard asks about them (pure)."""

from __future__ import annotations

from msgspec.structs import replace

from goalkeeper.core.proof.protected import TestChange
from goalkeeper.core.values import Continue, Facts, Inspect, Notify, Pause, TestReplay, VerifyRun
from goalkeeper.guards.plan_tests import check_close
from goalkeeper.testing import context

CHANGED = (TestChange("tests/test_calc.py", "modified"),)
FAILED = TestReplay(CHANGED, (VerifyRun("pytest -q", 1, "1 failed in 0.1s"),))


def test_nothing_kept_holds_nothing() -> None:
    """No key of kept tests: nothing to hold the close to, it goes ahead unchecked."""
    done = check_close("", "", "plan/x.md", context(None))
    assert done.ask is None and not done.held and done.record is None


def test_the_engine_is_asked_then_its_answer_decides() -> None:
    ctx = context(None)
    asked = check_close("session:s", "", "plan/x.md", ctx)
    assert asked.ask == Inspect(protect="session:s", replay_tests=True)
    unknown = check_close("session:s", "", "plan/x.md", replace(ctx, facts=Facts()))
    assert unknown.ask is None and not unknown.held and unknown.record == {"checked": False}
    same = check_close("session:s", "", "plan/x.md", replace(ctx, facts=Facts(kept=TestReplay())))
    assert same.record == {"checked": True, "changes": [], "runs": []}


def test_a_failing_replay_sends_back_once_then_pauses() -> None:
    ctx = replace(context(None), facts=Facts(kept=FAILED))
    first = check_close("session:s", "", "plan/x.md", ctx)
    assert [type(a) for a in first.held[:2]] == [Continue, Notify] and first.key
    assert "plan/x.md" in first.held[0].text  # type: ignore[union-attr]
    again = check_close("session:s", first.key, "plan/x.md", ctx)
    assert isinstance(again.held[0], Pause)
    unrunnable = replace(ctx, facts=Facts(kept=TestReplay(CHANGED, problem="too large")))
    assert isinstance(check_close("session:s", "", "plan/x.md", unrunnable).held[0], Pause)
