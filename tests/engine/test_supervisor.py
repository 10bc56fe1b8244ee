"""The Supervisor driven with event sequences against a real state database in a temp project."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import (
    Action,
    Activity,
    Close,
    Continue,
    Event,
    Notify,
    Pause,
    Record,
    Settled,
    UserPrompt,
)
from goalkeeper.engine.registry import build_registry
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.guards.spec import Context, GuardRegistrationError, Registry, Verdict
from goalkeeper.store import journal
from goalkeeper.store.db import Store
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock

PLAN = """## Objective
Ship the export.
## Key Results
- [ ] KR1: exports 0 → 1
## User Story Map
- [ ] user exports a report
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "export.md").write_text(PLAN, encoding="utf-8")
    return tmp_path


def supervisor(
    project: Path, config: Config | None = None, registry: Registry | None = None
) -> Supervisor:
    return Supervisor(
        project,
        config or Config(),
        host="test",
        capabilities=CLAUDE_CAPABILITIES,
        clock=FakeClock(),
        registry=registry,
    )


def settle(sup: Supervisor, text: str, tools: int = 1) -> tuple[Action, ...]:
    return sup.handle([Settled("s1", text, activity=Activity(tool_calls=tools))]).actions


def visible(actions: tuple[Action, ...]) -> list[str]:
    return [type(a).__name__ for a in actions if not isinstance(a, Record)]


def tick_everything(project: Path) -> None:
    path = project / "plan" / "export.md"
    path.write_text(PLAN.replace("- [ ]", "- [x]"), encoding="utf-8")


def test_do_check_complete_closes(project: Path) -> None:
    """do → check → complete with the plan ticked closes, across fresh Supervisors (processes)."""
    settle(supervisor(project), "[PDCA] do")
    settle(supervisor(project), "[PDCA] check")
    tick_everything(project)
    actions = settle(supervisor(project), "[PDCA] complete")
    assert visible(actions) == ["Close"]


def test_complete_without_check_is_refused(project: Path) -> None:
    """Without a check since the last do, complete is refused even with a finished plan."""
    tick_everything(project)
    sup = supervisor(project)
    settle(sup, "[PDCA] do")
    actions = settle(sup, "[PDCA] complete")
    assert visible(actions) == ["Continue"]
    assert "Check gate" in next(a for a in actions if isinstance(a, Continue)).text


def test_open_kr_and_open_leaf_are_named_in_one_message(project: Path) -> None:
    """complete with an open KR and an open leaf is refused once, naming both."""
    sup = supervisor(project)
    settle(sup, "[PDCA] do")
    settle(sup, "[PDCA] check")
    actions = settle(sup, "[PDCA] complete")
    continues = [a for a in actions if isinstance(a, Continue)]
    assert len(continues) == 1
    text = continues[0].text
    assert "OKR gate: 1 key result(s) not closed in plan/export.md" in text
    assert "- [ ] KR1: exports 0 → 1" in text
    assert "Map gate: 1 story-map leaf(s) not closed" in text
    assert "- [ ] user exports a report" in text
    assert "Check gate" not in text


def test_stuck_rounds_reset_then_pause(project: Path) -> None:
    """Rounds without tool calls trigger the re-plan reset, then the pause."""
    sup = supervisor(project, Config(stuck=2, reset=1))
    outcomes = [visible(settle(sup, "thinking", tools=0)) for _ in range(4)]
    assert outcomes == [["Continue"], ["Continue"], ["Continue"], ["Pause"]]
    kinds = [e.kind for e in journal.recent(sup.store.connection(), 100)]
    assert kinds.count("stuck_reset") == 1


def test_continuation_cap_holds_and_a_user_prompt_restarts_it(project: Path) -> None:
    """The (max+1)-th continuation in a row becomes a pause; a real user message resets it."""
    sup = supervisor(project, Config(max_continuations=3))
    outcomes = [visible(settle(sup, "[PDCA] do")) for _ in range(5)]
    assert outcomes == [["Continue"]] * 3 + [["Pause"]] * 2
    pause = next(a for a in settle(sup, "[PDCA] do") if isinstance(a, Pause))
    assert "after 3 automatic continuations" in pause.reason
    sup.handle([UserPrompt("s1", "go on")])
    assert visible(settle(sup, "[PDCA] do")) == ["Continue"]


def test_sessions_are_isolated(project: Path) -> None:
    """One session's counters never spend another session's budget."""
    sup = supervisor(project, Config(max_continuations=1))
    settle(sup, "[PDCA] do")
    other = sup.handle([Settled("s2", "[PDCA] do", activity=Activity(tool_calls=1))]).actions
    assert visible(other) == ["Continue"]


def test_state_and_journal_are_saved(project: Path) -> None:
    """Each event is journaled with the decision, and the session row holds the guard state."""
    sup = supervisor(project)
    outcome = sup.handle(
        [Settled("s1", "[PDCA] do", activity=Activity(tool_calls=2))], host_state={"k": 1}
    )
    assert outcome.session.guards["cadence"]["last_do"] == 1
    assert outcome.session.host_state == {"k": 1}
    assert outcome.session.continuations == 1
    kinds = [e.kind for e in journal.recent(sup.store.connection(), 10)]
    assert kinds == ["event", "settle", "decision"]


class Exploding:
    name: ClassVar[str] = "exploding"

    def initial_state(self) -> dict[str, Any]:
        return {}

    def load_state(self, raw: Any) -> dict[str, Any]:
        return dict(raw)

    def dump_state(self, state: dict[str, Any]) -> dict[str, Any]:
        return state

    def on_event(
        self, event: Event, state: dict[str, Any], ctx: Context
    ) -> Verdict[dict[str, Any]]:
        raise RuntimeError("boom")


@pytest.mark.internal_error_expected
def test_a_failing_guard_is_skipped_recorded_and_reported(project: Path) -> None:
    """A guard that raises never produces a Continue; the others still decide; the user is told."""
    registry = build_registry(Config())
    registry.register(Exploding())
    sup = supervisor(project, registry=registry)
    actions = sup.handle([Settled("s1", "[PDCA] do", activity=Activity(tool_calls=1))]).actions
    assert visible(actions) == ["Continue", "Notify"]
    note = next(a for a in actions if isinstance(a, Notify))
    assert "exploding" in note.text and "boom" in note.text
    errors = [e for e in journal.recent(sup.store.connection(), 10) if e.kind == "error"]
    assert errors[0].data["guard"] == "exploding"


def test_registry_refuses_a_guard_that_breaks_the_contract() -> None:
    """Registration checks names, uniqueness and method signatures up front."""
    registry = build_registry(Config())
    with pytest.raises(GuardRegistrationError, match="already registered"):
        registry.register(build_registry(Config()).guards[0])

    class NoName(Exploding):
        name: ClassVar[str] = "Bad Name"

    with pytest.raises(GuardRegistrationError, match="snake_case"):
        registry.register(NoName())

    class WrongArity(Exploding):
        name: ClassVar[str] = "wrong"

        def on_event(self, event: Event) -> Verdict[dict[str, Any]]:  # type: ignore[override]
            return Verdict()

    with pytest.raises(GuardRegistrationError, match=r"on_event\(\) must take 3"):
        registry.register(WrongArity())


def test_removing_the_plan_clears_what_the_engine_uses(project: Path) -> None:
    """With plan/ emptied, no stale OKR or map is used: complete closes without gates."""
    sup = supervisor(project)
    settle(sup, "[PDCA] complete")
    (project / "plan" / "export.md").unlink()
    actions = settle(sup, "[PDCA] complete")
    assert not any(isinstance(a, Continue) for a in actions)


def test_language_follows_the_plan(project: Path) -> None:
    """A Chinese plan makes goalkeeper speak Chinese."""
    (project / "plan" / "export.md").write_text(
        "## 目标（Objective）\n导出报告。\n\n## 关键结果（Key Results）\n- [ ] KR1 导出 0 → 1\n",
        encoding="utf-8",
    )
    actions = settle(supervisor(project), "[PDCA] do")
    assert next(a for a in actions if isinstance(a, Continue)).text.startswith("改动已完成")


def test_closing_is_recorded(project: Path) -> None:
    """A close leaves a 'closed' journal entry for status and post-mortems."""
    tick_everything(project)
    sup = supervisor(project)
    for text in ("[PDCA] do", "[PDCA] check", "[PDCA] complete"):
        actions = settle(sup, text)
    assert any(isinstance(a, Close) for a in actions)
    assert "closed" in [e.kind for e in journal.recent(Store(project).connection(), 20)]
