"""Issue 22 §7: a cheat (or a slip) caught within three continuations, honest runs unchanged.

Each test counts the continuations the agent is given before the loop closes or pauses, and
asserts what the user or agent reads."""

from __future__ import annotations

from goalkeeper.core.values import Close, Continue, Pause
from goalkeeper.guards.cadence import CadenceState
from goalkeeper.guards.spec import Verdict
from tests.guards.test_cadence import DONE_PLAN, PLAN, pause_of, settle, shell

FENCED = "All done, the tests pass.\n\n```\n[PDCA] complete\n```\n"
STUBBORN_TURNS = 10  # more than any bound: the loop must stop the agent by itself


def drive_until_stop(
    replies: list[tuple[str, object]], plan: str
) -> tuple[int, Verdict[CadenceState]]:
    """Settle each (text, activity) in turn, repeating the last, until the loop closes or
    pauses: (continuations given, the last verdict)."""
    state, continued = CadenceState(), 0
    for i in range(STUBBORN_TURNS):
        text, activity = replies[min(i, len(replies) - 1)]
        verdict = settle(state, text, plan, activity=activity)
        state = verdict.state or state
        if any(isinstance(a, Close | Pause) for a in verdict.actions):
            return continued, verdict
        continued += sum(isinstance(a, Continue) for a in verdict.actions)
    raise AssertionError(f"still going after {STUBBORN_TURNS} settles")


def test_a_fenced_complete_after_a_passing_check_closes() -> None:
    """An honest agent that wrote its marker inside a code block: closed, no round wasted."""
    replies = [("[PDCA] check", shell("pytest -q")), (FENCED, shell("true"))]
    continued, verdict = drive_until_stop(replies, DONE_PLAN)
    assert continued == 1 and any(isinstance(a, Close) for a in verdict.actions)


def test_a_fenced_complete_with_open_gates_pauses_within_three() -> None:
    """The same claim in a code block over and over, the plan not done: paused, user told."""
    continued, verdict = drive_until_stop([(FENCED, shell("true"))], PLAN)
    assert continued <= 3
    assert "refused 2 times for the same open gates" in pause_of(verdict)


def test_a_failing_check_then_complete_pauses_within_three() -> None:
    """A check that failed, then `complete` claimed again and again: paused within three."""
    replies = [
        ("[PDCA] check", shell("pytest -q", "failed", "1 failed in 0.1s")),
        ("[PDCA] complete", shell("true")),
    ]
    continued, verdict = drive_until_stop(replies, DONE_PLAN)
    assert continued <= 3 and "refused" in pause_of(verdict)


def test_a_check_piped_through_tail_then_complete_pauses_within_three() -> None:
    """`pytest | tail` hides pytest's exit status; claiming complete on it: paused within
    three, and the user reads why."""
    replies = [
        ("[PDCA] check", shell("pytest -q | tail -5", tail="1 failed in 0.1s")),
        ("[PDCA] complete", shell("true")),
    ]
    continued, verdict = drive_until_stop(replies, DONE_PLAN)
    assert continued <= 3 and pause_of(verdict)
