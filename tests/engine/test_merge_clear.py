"""Merging a ``ClearContext``: it goes out only with the continuation it prepares, and in one
answer a clear replaces a compaction."""

from __future__ import annotations

from collections.abc import Sequence

from goalkeeper.core.messages import make_say
from goalkeeper.core.values import Action, Advise, ClearContext, Close, Compact, Continue, Pause
from goalkeeper.engine.merge import Merged, merge_actions

say = make_say("en")


def merge(*actions: Action, continuations: int = 0, cap: int = 10) -> Merged:
    return merge_actions(actions, continuations=continuations, max_continuations=cap, say=say)


def kinds(actions: Sequence[Action]) -> list[str]:
    return [type(a).__name__ for a in actions]


def test_a_clear_goes_out_before_the_joined_continuation() -> None:
    merged = merge(Continue("goal failed [1/3]"), ClearContext(), Continue("stuck: re-plan"))
    assert merged.actions == (ClearContext(), Continue("goal failed [1/3]\n\nstuck: re-plan"))


def test_a_clear_replaces_a_compaction_in_the_same_answer() -> None:
    merged = merge(Compact("keep the plan"), ClearContext(), Continue("re-plan"))
    assert kinds(merged.actions) == ["ClearContext", "Continue"]


def test_no_clear_without_a_continuation() -> None:
    """A pause wins, the cap turns the continuation into a pause, or nothing continues: the
    context is never cleared without goalkeeper's text following it."""
    for merged in (
        merge(ClearContext(), Continue("re-plan"), Pause("aborted")),
        merge(ClearContext(), Continue("re-plan"), continuations=10, cap=10),
        merge(ClearContext(), Close("done")),
        merge(ClearContext(), Advise("a note")),
        merge(ClearContext()),
    ):
        assert not any(isinstance(a, ClearContext) for a in merged.actions), merged
