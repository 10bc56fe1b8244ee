"""The guard contract: the one seam between the engine and every policy.

A guard has a stable ``name`` and turns ``(event, its own state, context)`` into a ``Verdict``:
the actions it asks for and its new state. It never talks to a host, a file or a clock; the
context carries the time, the config, the plan and the host's capabilities. Built-in guards and
guards from ``goalkeeper.guards`` entry points pass the same ``register`` check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from msgspec import Struct, field, to_builtins

from goalkeeper.config import Config
from goalkeeper.core.cadence.plan import PlanDoc
from goalkeeper.core.goals.goal import GoalDoc
from goalkeeper.core.goals.promise import Promise
from goalkeeper.core.messages import Lang, Say
from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.values import Action, Capability, Event, Facts

S = TypeVar("S")


class Context(Struct, frozen=True):
    """Everything a guard may know besides the event and its own state."""

    now: float
    config: Config
    say: Say
    lang: Lang
    plan: PlanDoc | None
    capabilities: frozenset[Capability]
    facts: Facts | None = None
    """What the engine gathered after this guard asked with ``Inspect`` (else None)."""
    goal: GoalDoc | None = None
    """The project's GOAL.md, when there is one."""
    procedures: Callable[[], Any] | None = None
    """The workflow catalog and a reader of its procedure texts (``store.catalog_files``),
    loaded on first use: most events never need it."""
    read_text: Callable[[str], str | None] | None = None
    """A project file's text by its relative path (None when it is missing, unreadable, too
    large or outside the project): documents a guard judges, such as a run's artifacts."""
    run_mode: str | None = None
    """The session's mode run (``quick`` or ``normal``, the modes guard's), else None."""
    project: str = ""
    """The project's root directory (absolute), to tell a project path from one outside it."""
    tool_names: Mapping[str, str] = field(default_factory=dict)
    """How the host names goalkeeper's tools (Claude Code: ``mcp__goalkeeper__workflow``);
    a tool not listed keeps its own name."""
    promise: Promise | None = None
    """What the user approved for the goal GOAL.md is judged against (``store.trust``)."""
    accepted_plans: frozenset[str] = frozenset()
    """Plan commitments the user accepted as changed (``goalkeeper plan accept``), by digest."""
    host_files: tuple[str, ...] = ()
    """The host's own configuration that runs goalkeeper (absolute paths: Claude Code's
    settings files and MCP server lists): an agent that rewrote one could drop the hooks or
    point them at a fake goalkeeper, so the trust guard refuses writes to them."""
    workflow: WorkflowView | None = None
    """The session's workflow as it stood when the event arrived (the workflow guard's), so the
    goal guard can tell a coarse goal's route still shaping from one implementing."""
    max_text: int | None = None
    """The most UTF-8 bytes one message to the model may carry on this host (None: no known
    cap). A longer one the host cuts itself (Claude Code: a hook's ``additionalContext`` over
    10,000 characters becomes a preview and a file path), so a guard with long text to deliver
    asks this and splits the text into parts that fit (``core.workflows.pages``)."""
    continuations: int = 0
    """Automatic continuations in a row so far (the engine's count, before this answer): a guard
    that asks for an optional extra round (a review) asks only below ``max_continuations``."""


class WorkflowView(Struct, frozen=True):
    """What another guard may know of the session's workflow: the phase of its active work
    item (None when none is active) and the goal whose route it started (None: no goal's)."""

    phase: str | None = None
    goal_id: str | None = None

    @classmethod
    def of(cls, raw: object) -> WorkflowView:
        """The view of the workflow guard's stored state (``WorkflowState`` as saved: its
        ``active`` record and ``goal_id``); anything damaged reads as no workflow."""
        if not isinstance(raw, Mapping):
            return cls()
        active = raw.get("active")
        phase = None
        if isinstance(active, Mapping) and active.get("status", "active") == "active":
            phase = active.get("phase") if isinstance(active.get("phase"), str) else None
        goal_id = raw.get("goal_id")
        return cls(phase, goal_id if isinstance(goal_id, str) else None)


class Verdict(Struct, Generic[S], frozen=True):
    """What a guard decided: actions in the order it wants them, and its new state (None:
    unchanged)."""

    actions: tuple[Action, ...] = ()
    state: S | None = None


class Guard(Protocol[S]):
    name: ClassVar[str]

    def initial_state(self) -> S:
        """The state of a session this guard has not seen yet."""
        ...

    def load_state(self, raw: Mapping[str, Any]) -> S:
        """Rebuild the state from what ``dump_state`` stored; tolerate missing or bad keys."""
        ...

    def dump_state(self, state: S) -> dict[str, Any]:
        """A JSON-ready form of the state."""
        ...

    def on_event(self, event: Event, state: S, ctx: Context) -> Verdict[S]:
        """Decide. Pure: no I/O, no clock, no environment."""
        ...


class GuardRegistrationError(ValueError):
    """A guard does not fulfil the contract; the message names the guard and what is wrong."""


_NAME = lazy_re(r"^[a-z][a-z0-9_]*$")
_METHODS = {"initial_state": 0, "load_state": 1, "dump_state": 1, "on_event": 3}


class Registry(Struct):
    """The guards of one engine, in the order their actions are merged."""

    guards: list[Guard[Any]] = field(default_factory=list)

    def register(self, guard: Guard[Any]) -> None:
        """Check the contract now, not when the guard first runs (once per guard class and
        process: a warm engine builds a registry for every request)."""
        name = getattr(type(guard), "name", None)
        label = name or type(guard).__qualname__
        if not isinstance(name, str) or not _NAME.match(name):
            raise GuardRegistrationError(f"guard {label}: 'name' must be a snake_case string")
        if any(g.name == name for g in self.guards):
            raise GuardRegistrationError(f"guard {label}: the name '{name}' is already registered")
        if type(guard) not in _CHECKED:
            _check_methods(guard, label)
            _CHECKED.add(type(guard))
        self.guards.append(guard)


_CHECKED: set[type] = set()
"""Guard classes whose methods passed the contract check in this process."""


def _check_methods(guard: Guard[Any], label: str) -> None:
    for method, arity in _METHODS.items():
        fn = getattr(guard, method, None)
        if not callable(fn):
            raise GuardRegistrationError(f"guard {label}: missing method {method}()")
        count = _positional_arity(fn)
        if count != arity:
            raise GuardRegistrationError(
                f"guard {label}: {method}() must take {arity} argument(s), not {count}"
            )


def _positional_arity(fn: Any) -> int:
    """Positional parameters of a (bound) method, read from its code object: ``inspect`` would
    cost more to import than registering every guard, and registration runs in hooks."""
    func = getattr(fn, "__func__", fn)
    code = getattr(func, "__code__", None)
    if code is None:
        return -1
    count = int(code.co_argcount)
    return count - 1 if hasattr(fn, "__self__") else count


_TYPES: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "float": (int, float),
    "str": (str,),
    "bool": (bool,),
    "None": (type(None),),
}
D = TypeVar("D")


def dump_state_value(state: Struct) -> dict[str, Any]:
    """A state struct as plain JSON data, nested values included (what ``load_state_value``
    and the guards' own loaders read back)."""
    data: dict[str, Any] = to_builtins(state)
    return data


def load_state_value(cls: type[D], raw: Mapping[str, Any]) -> D:
    """Rebuild a state dataclass from stored JSON: unknown keys and values of the wrong type are
    dropped (the field keeps its default), so a damaged row degrades instead of crashing."""
    values: dict[str, Any] = {}
    for name, allowed in _field_types(cls):
        if name not in raw:
            continue
        value = raw[name]
        if isinstance(value, bool) and bool not in allowed:
            continue
        if allowed and isinstance(value, allowed):
            values[name] = value
    return cls(**values)


_FIELD_TYPES: dict[type, tuple[tuple[str, tuple[type, ...]], ...]] = {}


def _field_types(cls: type) -> tuple[tuple[str, tuple[type, ...]], ...]:
    """Each field of a state struct and the plain types its annotation allows, read once per
    class (every event loads every guard's state: ~190 annotation parts split per Stop)."""
    found = _FIELD_TYPES.get(cls)
    if found is None:
        annotations: dict[str, str] = cls.__annotations__  # strings: deferred annotations
        found = tuple(
            (name, tuple(t for part in str(annotations.get(name, "")).split("|")
                         for t in _TYPES.get(part.strip(), ())))
            for name in cls.__struct_fields__  # type: ignore[attr-defined]
        )  # fmt: skip
        _FIELD_TYPES[cls] = found
    return found
