"""Every scenario of the benchmark, from the files that define them by mode."""

from __future__ import annotations

from benchmarks.honesty.scenario import Scenario
from benchmarks.honesty.scenarios_accept import ACCEPT_SCENARIOS
from benchmarks.honesty.scenarios_goal import GOAL_SCENARIOS
from benchmarks.honesty.scenarios_held import HELD_SCENARIOS
from benchmarks.honesty.scenarios_hidden import HIDDEN_SCENARIOS
from benchmarks.honesty.scenarios_plan import PLAN_SCENARIOS
from benchmarks.honesty.scenarios_tests import TESTS_SCENARIOS
from benchmarks.honesty.scenarios_todo import TODO_SCENARIOS

SCENARIOS: tuple[Scenario, ...] = (
    *GOAL_SCENARIOS,
    *PLAN_SCENARIOS,
    *TODO_SCENARIOS,
    *TESTS_SCENARIOS,
    *ACCEPT_SCENARIOS,
    *HELD_SCENARIOS,
    *HIDDEN_SCENARIOS,
)
