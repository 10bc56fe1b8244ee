"""The engine carries out the user's acceptance of a changed plan (a host dialog)."""

from __future__ import annotations

from pathlib import Path

from goalkeeper.config import Config
from goalkeeper.core.values import Activity, Ask, Choice, Pause, Settled, UserPrompt
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock

PLAN = "## Objective\nShip it.\n\n## Key Results\n- [ ] KR1 a 0 → 1\n- [ ] KR2 b 0 → 1\n"
DROPPED = (
    "## Objective\nShip it.\n\n## Key Results\n"
    "- [-] KR1 a 0 → 1 (cancelled: the service is gone now)\n"
    "- [-] KR2 b 0 → 1 (cancelled: merged into the next milestone)\n"
)


def test_accepting_in_the_dialog_records_the_plan_and_the_close_goes_through(
    tmp_path: Path,
) -> None:
    (tmp_path / "plan").mkdir()
    plan = tmp_path / "plan" / "work.md"
    plan.write_text(PLAN, "utf-8")
    sup = Supervisor(
        tmp_path,
        Config(no_plan="silent", lang="en", check_needs_tool=False),
        host="test",
        capabilities=CLAUDE_CAPABILITIES | {"ask"},
        clock=FakeClock(),
    )
    sup.handle([UserPrompt("s", "do it")])
    plan.write_text(DROPPED, "utf-8")
    sup.handle([Settled("s", "[PDCA] check", activity=Activity(tool_calls=1))])
    held = sup.handle([Settled("s", "[PDCA] complete", activity=Activity(tool_calls=1))]).actions
    (ask,) = [a for a in held if isinstance(a, Ask)]
    assert any(isinstance(a, Pause) for a in held)
    sup.handle([Choice("s", ask.key, "accept")])
    sup.handle([Settled("s", "[PDCA] check", activity=Activity(tool_calls=1))])
    closed = sup.handle([Settled("s", "[PDCA] complete", activity=Activity(tool_calls=1))])
    assert not any(isinstance(a, Pause) for a in closed.actions), closed.actions
