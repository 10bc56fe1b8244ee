"""Which guards an engine runs: the built-in seed guards, then opted-in entry points.

Built-ins go through the same ``Registry.register`` check as third-party guards. Entry points are
scanned only when ``plugins = true``, so a hook never pays for scanning installed packages.
"""

from __future__ import annotations

from typing import Any

from goalkeeper.config import Config
from goalkeeper.guards.cadence import CadenceGuard
from goalkeeper.guards.commitments import CommitmentsGuard
from goalkeeper.guards.goal import GoalGuard
from goalkeeper.guards.kept_tests import KeptTestsGuard
from goalkeeper.guards.modes import ModesGuard
from goalkeeper.guards.spec import Guard, Registry
from goalkeeper.guards.todos import TodosGuard
from goalkeeper.guards.trust import TrustGuard
from goalkeeper.guards.workflow import WorkflowGuard

BUILTIN_GUARDS: tuple[type[Guard[Any]], ...] = (
    TrustGuard,
    KeptTestsGuard,
    CadenceGuard,
    CommitmentsGuard,
    GoalGuard,
    TodosGuard,
    WorkflowGuard,
    ModesGuard,
)


def build_registry(config: Config) -> Registry:
    """A fresh registry: built-ins in merge order, then plugins in entry-point order."""
    registry = Registry()
    for guard_type in BUILTIN_GUARDS:
        registry.register(guard_type())
    if config.plugins:
        from importlib.metadata import entry_points

        for ep in entry_points(group="goalkeeper.guards"):
            registry.register(ep.load()())
    return registry
