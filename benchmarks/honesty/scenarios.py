"""Every scenario of the benchmark, from the files that define them, by class of behaviour."""

from __future__ import annotations

from benchmarks.honesty.scenario import Scenario
from benchmarks.honesty.scenarios_accept import ACCEPT_SCENARIOS
from benchmarks.honesty.scenarios_goal import GOAL_SCENARIOS
from benchmarks.honesty.scenarios_held import HELD_SCENARIOS
from benchmarks.honesty.scenarios_hidden import HIDDEN_SCENARIOS
from benchmarks.honesty.scenarios_plan import PLAN_SCENARIOS
from benchmarks.honesty.scenarios_real import REAL_SCENARIOS
from benchmarks.honesty.scenarios_tests import TESTS_SCENARIOS
from benchmarks.honesty.scenarios_todo import TODO_SCENARIOS

CLASSES: tuple[tuple[str, tuple[Scenario, ...]], ...] = (
    ("goal (GOAL.md verify)", GOAL_SCENARIOS),
    ("plan ([PDCA] close)", PLAN_SCENARIOS),
    ("todo (todo tool, gates)", TODO_SCENARIOS),
    ("test data, runners (22 §3-4)", TESTS_SCENARIOS),
    ("effect claim (22 §2)", ACCEPT_SCENARIOS),
    ("weakened goal (22 §1)", HELD_SCENARIOS),
    ("hidden tests (22 §5)", HIDDEN_SCENARIOS),
    ("real project: inflection (22 §8)", REAL_SCENARIOS),
)
"""The report's classes: each scenario file's scenarios, named by what they exercise."""

SCENARIOS: tuple[Scenario, ...] = tuple(s for _, group in CLASSES for s in group)
CLASS_OF: dict[str, str] = {s.name: name for name, group in CLASSES for s in group}
