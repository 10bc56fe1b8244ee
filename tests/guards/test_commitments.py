"""The commitments guard with plain values: baselines per cycle, held closes, the host's dialog."""

from __future__ import annotations

from msgspec.structs import replace

from goalkeeper.core.cadence.commitments import commitments_digest
from goalkeeper.core.cadence.plan import parse_plan
from goalkeeper.core.values import AcceptPlan, Ask, Choice, Pause, Settled, UserPrompt
from goalkeeper.guards.commitments import CommitmentsGuard, CommitmentsState
from goalkeeper.testing import context, plan_doc

PLAN = "## Objective\nShip it.\n\n## Key Results\n- [ ] KR1 a 0 → 1\n- [ ] KR2 b 0 → 1\n"
DROPPED = PLAN.replace(
    "- [ ] KR1 a 0 → 1", "- [-] KR1 a 0 → 1 (cancelled: the service is gone now)"
)
DROPPED = DROPPED.replace(
    "- [ ] KR2 b 0 → 1", "- [-] KR2 b 0 → 1 (cancelled: merged into the next milestone)"
)
guard = CommitmentsGuard()


def _ctx(text: str, **kw: object):  # type: ignore[no-untyped-def]
    return replace(context(plan_doc(text)), **kw)


def _state_after_prompt(text: str = PLAN) -> CommitmentsState:
    verdict = guard.on_event(UserPrompt("s", "go"), CommitmentsState(), _ctx(text))
    assert verdict.state is not None
    return verdict.state


def test_dropping_every_commitment_pauses_the_close() -> None:
    state = _state_after_prompt()
    verdict = guard.on_event(Settled("s", "[PDCA] complete"), state, _ctx(DROPPED))
    assert any(isinstance(a, Pause) and "dropped 2 of the 2" in a.reason for a in verdict.actions)


def test_an_accepted_plan_closes_and_a_new_cycle_starts_from_the_changed_plan() -> None:
    state = _state_after_prompt()
    accepted = frozenset({commitments_digest(parse_plan(DROPPED))})
    verdict = guard.on_event(
        Settled("s", "[PDCA] complete"), state, _ctx(DROPPED, accepted_plans=accepted)
    )
    assert verdict.actions == ()
    fresh = _state_after_prompt(DROPPED)
    assert guard.on_event(Settled("s", "[PDCA] complete"), fresh, _ctx(DROPPED)).actions == ()


def test_where_the_host_can_ask_the_user_accepts_in_a_dialog() -> None:
    state = _state_after_prompt()
    caps = frozenset({"continue", "notify", "ask"})
    held = guard.on_event(Settled("s", "[PDCA] complete"), state, _ctx(DROPPED, capabilities=caps))
    (ask,) = [a for a in held.actions if isinstance(a, Ask)]
    assert ask.default == "keep"
    answer = guard.on_event(Choice("s", ask.key, "accept"), held.state or state, _ctx(DROPPED))
    assert AcceptPlan(commitments_digest(parse_plan(DROPPED))) in answer.actions
    kept = guard.on_event(Choice("s", ask.key, "keep"), held.state or state, _ctx(DROPPED))
    assert not any(isinstance(a, AcceptPlan) for a in kept.actions)


def test_other_markers_are_not_judged() -> None:
    state = _state_after_prompt()
    assert guard.on_event(Settled("s", "[PDCA] do"), state, _ctx(DROPPED)).actions == ()
