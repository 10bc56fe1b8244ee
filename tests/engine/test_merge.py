"""Merging the actions of several guards into one answer."""

from __future__ import annotations

from goalkeeper.core.messages import make_say
from goalkeeper.core.values import Advise, Block, Close, Compact, Continue, Notify, Pause, Record
from goalkeeper.engine.merge import merge_actions

say = make_say("en")


def merge(*actions: object, continuations: int = 0, cap: int = 10):  # type: ignore[no-untyped-def]
    return merge_actions(actions, continuations=continuations, max_continuations=cap, say=say)  # type: ignore[arg-type]


def test_several_continues_become_one_message() -> None:
    """Two guards asking to continue produce one combined continuation."""
    merged = merge(Continue("fix the KR"), Continue("also run the tests"))
    assert merged.actions == (Continue("fix the KR\n\nalso run the tests"),)
    assert merged.continuations == 1


def test_pause_wins_over_continue_compact_and_close() -> None:
    """Stopping is always the safe merge."""
    merged = merge(Continue("go"), Compact("keep plan"), Close("done"), Pause("aborted"))
    assert merged.actions == (Pause("aborted"),)
    assert merged.continuations == 0


def test_a_close_that_lost_is_journalled_as_overruled() -> None:
    """The journal never shows a close the user did not get: its record is relabelled."""
    closed = Record("closed", {"gates": ["check"]})
    held = merge(Close("all gates pass"), closed, Pause("held for the user"))
    assert held.actions == (Pause("held for the user"), Record("close_overruled", closed.data))
    kept = merge(Close("all gates pass"), closed)
    assert kept.actions == (Close("all gates pass"), closed)


def test_continue_wins_over_close() -> None:
    """Another guard's open gate keeps the task open."""
    assert merge(Close("all gates pass"), Continue("goal not verified")).actions == (
        Continue("goal not verified"),
    )


def test_cap_turns_the_continuation_into_a_pause() -> None:
    """At max_continuations in a row, the next continuation is a pause with a record."""
    merged = merge(Continue("go"), continuations=3, cap=3)
    assert isinstance(merged.actions[0], Pause)
    assert "after 3 automatic continuations" in merged.actions[0].reason
    assert merged.actions[-1] == Record("capped", {"continuations": 3})
    assert merged.continuations == 3


def test_identical_texts_are_said_once() -> None:
    """Same-text advice and notices are deduplicated."""
    merged = merge(
        Advise("anchors"), Advise("anchors"), Notify("n"), Notify("n"), Block("b"), Block("b")
    )
    assert merged.actions == (Block("b"), Advise("anchors"), Notify("n"))


def test_compact_rides_with_its_continue_and_records_come_last() -> None:
    """Compact precedes the continuation; records are kept for the journal, at the end."""
    merged = merge(Record("settle", {}), Compact("keep"), Continue("go"))
    assert merged.actions == (Compact("keep"), Continue("go"), Record("settle", {}))
