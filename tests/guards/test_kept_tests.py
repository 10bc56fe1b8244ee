"""The kept tests guard: the one owner of keeping a session's tests at its first prompt."""

from __future__ import annotations

from goalkeeper.core.values import Activity, KeepTests, SessionStart, Settled, ToolCall, UserPrompt
from goalkeeper.guards.cadence import CadenceGuard, CadenceState
from goalkeeper.guards.kept_tests import KeptTestsGuard, KeptTestsState
from goalkeeper.guards.todos import TodosGuard, TodosState
from goalkeeper.testing import context

guard = KeptTestsGuard()


def test_the_first_prompt_keeps_the_sessions_tests_once() -> None:
    """The first user prompt asks the engine to keep the tests under the session's key; a
    later prompt of the same session asks nothing."""
    first = guard.on_event(UserPrompt("s", "fix it"), guard.initial_state(), context())
    assert first.actions == (KeepTests("session:s"),)
    assert first.state == KeptTestsState(kept=True)
    again = guard.on_event(UserPrompt("s", "go on"), first.state, context())
    assert again.actions == () and again.state is None


def test_nothing_but_a_prompt_keeps_tests() -> None:
    """A session start, a tool call or a settle before any prompt keeps nothing: the tests are
    kept as the user set the work going."""
    state = guard.initial_state()
    for event in (
        SessionStart("s", "startup"),
        ToolCall("s", "Bash", {"command": "pytest"}),
        Settled("s", "[PDCA] do", activity=Activity(tool_calls=1)),
    ):
        assert guard.on_event(event, state, context()).actions == ()


def test_its_state_round_trips_and_a_damaged_one_loads() -> None:
    state = KeptTestsState(kept=True)
    assert guard.load_state(guard.dump_state(state)) == state
    assert guard.load_state({"kept": "yes", "other": 1}) == KeptTestsState()


def test_states_stored_with_the_old_kept_tests_field_still_load() -> None:
    """Sessions stored when the cadence and todos guards each kept the key themselves load
    as before, the stale field dropped."""
    old = {"kept_tests": "session:s", "round": 3}
    assert CadenceGuard().load_state(old) == CadenceState(round=3)
    todos = TodosGuard().load_state({"kept_tests": "session:s", "current_round": 2})
    assert todos == TodosState(current_round=2)
