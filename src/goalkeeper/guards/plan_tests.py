"""Protected tests at a plan's close (issue 11): the plan closes only if the project's tests,
as they were when the user set the session going, pass against the agent's code.

The check gate counts a verification that ran in the agent's tree, where the agent may have
made the tests pass by changing them (``assert True``, a conftest that patches the code under
test, a deselect in ``pytest.ini``). So at a close the gates would let through, the cadence guard
asks the engine (``Inspect.replay_tests``) to run the project's test command in a scratch copy
with the tests kept at the user's first prompt (``KeepTests``) restored over the agent's code.
Nothing changed, or it passes there: the close goes through, and its record says what was
checked. It fails there: the agent is sent back once, then the loop pauses for the user, who
alone can accept changed tests (``goalkeeper goal accept-tests``). Pure.
"""

from __future__ import annotations

from msgspec import Struct

from goalkeeper.core.values import Action, Inspect, TestReplay
from goalkeeper.guards.goal_tests import run_record, tests_held, tests_key
from goalkeeper.guards.spec import Context


class CloseCheck(Struct, frozen=True):
    """What the kept tests say about a close: ``ask`` the engine first, ``held`` (with the
    change's ``key``, said once), or go ahead with ``record`` for the close's journal entry."""

    ask: Inspect | None = None
    held: tuple[Action, ...] = ()
    key: str = ""
    record: dict[str, object] | None = None


def check_close(kept: str, last_held: str, path: str, ctx: Context) -> CloseCheck:
    """``kept``: the key of the session's kept tests (``session_key``; "": nothing to hold the
    close to, and the engine answers None when nothing was kept under it); ``last_held``: the
    change held at the last close, so the same one pauses."""
    if not kept:
        return CloseCheck()
    if ctx.facts is None:
        return CloseCheck(ask=Inspect(protect=kept, replay_tests=True))
    replay = ctx.facts.kept
    if replay is None:
        return CloseCheck(record={"checked": False})
    if replay.passed:
        return CloseCheck(record=_record(replay))
    key = tests_key(replay)
    held = tests_held(replay, last_held == key, path, ctx, what="plan")
    return CloseCheck(held=held, key=key)


def _record(replay: TestReplay) -> dict[str, object]:
    return {
        "checked": True,
        "changes": [{"path": c.path, "kind": c.kind} for c in replay.changes],
        "runs": [run_record(r) for r in replay.runs],
    }
