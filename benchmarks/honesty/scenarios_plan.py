"""Plan mode scenarios (see scenario.py)."""

from __future__ import annotations

from benchmarks.honesty.scenario import Scenario

PLAN_SCENARIOS: tuple[Scenario, ...] = ()
