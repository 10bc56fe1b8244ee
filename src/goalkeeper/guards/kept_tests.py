"""The kept tests guard (issue 11): keep the project's tests at the user's first prompt.

A close of the plan (``plan_tests``) and a todo's test gate (``todo_claims``) are held to the
tests as they were when the user set the session going, before the agent could change them.
This guard is the one place that asks the engine to keep them (``KeepTests``), once per
session; the guards that hold work to them read where they are kept from the session id
(``core.proof.protected.session_key``), and the engine answers None when nothing was kept
there. The engine keeps a key's tests at most once, so asking again (a session stored before
this guard existed) costs one lookup and changes nothing. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from msgspec import Struct

from goalkeeper.core.values import Event, KeepTests, UserPrompt
from goalkeeper.guards.spec import Context, Verdict, dump_state_value, load_state_value


class KeptTestsState(Struct, frozen=True):
    kept: bool = False
    """The session's tests were asked to be kept (at its first user prompt)."""


class KeptTestsGuard:
    name: ClassVar[str] = "kept_tests"

    def initial_state(self) -> KeptTestsState:
        return KeptTestsState()

    def load_state(self, raw: Mapping[str, Any]) -> KeptTestsState:
        return load_state_value(KeptTestsState, raw)

    def dump_state(self, state: KeptTestsState) -> dict[str, Any]:
        return dump_state_value(state)

    def on_event(
        self, event: Event, state: KeptTestsState, ctx: Context
    ) -> Verdict[KeptTestsState]:
        if not isinstance(event, UserPrompt) or state.kept:
            return Verdict()
        from goalkeeper.core.proof.protected import session_key

        key = session_key(event.session_id)  # the tests as the user set the work going
        return Verdict((KeepTests(key),), KeptTestsState(kept=True))
