"""Todo mode scenarios (see scenario.py)."""

from __future__ import annotations

from benchmarks.honesty.scenario import Scenario

TODO_SCENARIOS: tuple[Scenario, ...] = ()
