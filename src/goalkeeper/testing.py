"""Test doubles and builders that ship with goalkeeper, the way httpx ships a mock transport.

``FakeClock`` and ``FakeRunner`` replace the two seams where time and processes enter the
engine; ``context`` and ``plan_doc`` build guard inputs from plain values. Guard authors use them
to drive their guards with events, without files, sleeping or patching.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct, field

from goalkeeper.config import Config
from goalkeeper.core.cadence.plan import PlanDoc, parse_plan
from goalkeeper.core.messages import Lang, make_say
from goalkeeper.core.values import Capability
from goalkeeper.engine.ports import Completed
from goalkeeper.guards.spec import Context

ALL_CAPABILITIES: frozenset[Capability] = frozenset(
    {"continue", "advise", "block", "notify", "compact"}
)
CLAUDE_CAPABILITIES: frozenset[Capability] = frozenset(
    {"continue", "advise", "block", "notify", "subagents", "subagent_stop"}
)


class FakeClock(Struct):
    """A clock that only moves when told to."""

    t: float = 1_700_000_000.0

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


class FakeRunner(Struct):
    """The test decides each command's outcome with a plain function, and sees every call."""

    handler: Callable[[Sequence[str]], Completed]
    calls: list[tuple[str, ...]] = field(default_factory=list)

    def run(self, argv: Sequence[str], *, cwd: Path, timeout_s: float) -> Completed:
        self.calls.append(tuple(argv))
        return self.handler(argv)


def plan_doc(text: str, path: str = "plan/topic.md") -> PlanDoc:
    """A parsed plan as the documents layer would hand it to the engine."""
    return PlanDoc(path, parse_plan(text))


def context(
    plan: PlanDoc | str | None = None,
    *,
    config: Config | None = None,
    lang: Lang = "en",
    capabilities: frozenset[Capability] = CLAUDE_CAPABILITIES,
    now: float = 1_700_000_000.0,
) -> Context:
    """A guard context; a plan given as text is parsed as ``plan/topic.md``."""
    doc = plan_doc(plan) if isinstance(plan, str) else plan
    return Context(now, config or Config(), make_say(lang), lang, doc, capabilities)


if TYPE_CHECKING:
    from goalkeeper.engine.ports import Runner
    from goalkeeper.engine.supervisor import Supervisor


def supervisor(project: Path, runner: Runner, *, lang: Lang = "en") -> Supervisor:
    """An engine for ``project`` as a Claude Code session sees it, on a clock that only moves
    when told, with plans not required and ``runner`` running its commands. The review round a
    proof earns is off: it is ``tests/engine/test_review.py``'s to pin."""
    from goalkeeper.engine.supervisor import Supervisor

    return Supervisor(
        project,
        Config(no_plan="silent", lang=lang, review="off"),
        host="test",
        capabilities=CLAUDE_CAPABILITIES,
        clock=FakeClock(),
        runner=runner,
    )
