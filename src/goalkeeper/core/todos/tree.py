"""The todo tree (seed 002): tasks, their states and dependencies, and the tree's integrity rules.

The shape is that of the todo tool pi-todone sits on (``todo-obligations-spec.md`` §3): numeric
ids, ``pending | in_progress | completed | deleted`` (a tombstone), ``blockedBy`` ids and a free
``metadata`` bag holding ``parentId``, ``gate`` and ``evidence``. A ``TodoTree`` reads its tasks
from a ``TaskSource`` (the store's rows, or tasks in memory) by what a rule asks, never all of
them. The tool itself (create / update / list / get) is ``core/todos/tool.py``; the gates that may
refuse a call live in ``core/todos/evidence.py`` and the todos guard. Pure; never raises on any
tool input.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, Protocol, TypeGuard, cast

from msgspec import Struct, field

from goalkeeper.core.values import Problem

Status = Literal["pending", "in_progress", "completed", "deleted"]
STATUSES: tuple[Status, ...] = ("pending", "in_progress", "completed", "deleted")
ACTIONS = ("create", "update", "list", "get")


def is_number(value: object) -> TypeGuard[int | float]:
    """A JSON number: ``true`` is an ``int`` in Python but not a number in JSON, and JSON has
    no NaN or Infinity (Python's ``json`` reads them; they are garbage here)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return not isinstance(value, float) or math.isfinite(value)


def task_key(value: object) -> int | None:
    """A value as a task id: a whole JSON number the store can hold (a signed 64-bit
    integer); None for anything else, so a hostile ``1e30`` is no task instead of an error."""
    if not is_number(value) or value != int(value) or not -(2**63) <= int(value) < 2**63:
        return None
    return int(value)


class Task(Struct, frozen=True):
    id: int
    subject: str
    status: Status = "pending"
    blocked_by: tuple[int, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    description: str | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    baseline: str = ""
    """The ident of the project snapshot taken when the task was created (the todos guard's
    bookkeeping): stored with the task, never shown to the model."""

    @property
    def parent_id(self) -> int | None:
        value = self.metadata.get("parentId")
        return task_key(value)

    @property
    def open(self) -> bool:
        return self.status in OPEN

    @property
    def gated(self) -> bool:
        """A declared test or audit duty (``metadata.gate``, spec §6)."""
        from goalkeeper.core.todos.evidence import parse_gate

        gate = parse_gate(self.metadata.get("gate"))
        return gate.test or gate.audit

    def to_json(self) -> dict[str, Any]:
        """The task as the model reads it (the spec's shape)."""
        data: dict[str, Any] = {"id": self.id, "subject": self.subject, "status": self.status}
        if self.blocked_by:
            data["blockedBy"] = list(self.blocked_by)
        if self.description:
            data["description"] = self.description
        if self.metadata:
            data["metadata"] = dict(self.metadata)
        data["createdAt"] = self.created_at
        data["updatedAt"] = self.updated_at
        return data

    def stored_json(self) -> dict[str, Any]:
        """The task as it is stored: the model's shape plus goalkeeper's own bookkeeping."""
        data = self.to_json()
        if self.baseline:
            data["baseline"] = self.baseline
        return data


OPEN: tuple[Status, ...] = ("pending", "in_progress")


class TaskSource(Protocol):
    """Read access to a stored tree, by what an event needs: one task, a task's children, the
    open tasks in id order, the counts. The store implements it over indexed rows
    (``store.todo_tasks``), so an event reads a few rows whatever the tree's size; reads are
    answered inside the event's transaction, so they are as stable as a value."""

    def task(self, task_id: int) -> Task | None: ...

    def children(self, parent_id: int) -> tuple[Task, ...]: ...

    def open_below(self, task_id: int) -> tuple[Task, ...]:
        """The open tasks nearest below ``task_id`` (``nearest_open_below``), by id: one
        question, so the store answers it in one query instead of one per task below."""
        ...

    def open_tasks(self, after: int, limit: int, *, gated: bool = False) -> tuple[Task, ...]:
        """Open tasks (gated ones only, if asked) with an id above ``after``, ascending."""
        ...

    def counts(self) -> Mapping[str, int]:
        """Tasks by status, plus ``gated_open``: open tasks with a declared gate."""
        ...

    def next_id(self) -> int: ...

    def all_tasks(self) -> tuple[Task, ...]:
        """Every task in id order: O(n), for a full listing only."""
        ...


class MemoryTasks:
    """A ``TaskSource`` over tasks in memory: a tree built in a test, or read from JSON."""

    def __init__(self, tasks: Iterable[Task] = (), next_id: int = 1) -> None:
        self._by_id = {t.id: t for t in tasks}
        self._next_id = next_id

    def task(self, task_id: int) -> Task | None:
        return self._by_id.get(task_id)

    def children(self, parent_id: int) -> tuple[Task, ...]:
        return tuple(t for t in self._by_id.values() if t.parent_id == parent_id)

    def open_below(self, task_id: int) -> tuple[Task, ...]:
        from goalkeeper.core.todos.integrity import by_parent, nearest_open_below

        return nearest_open_below(by_parent(self._by_id.values()), task_id)

    def open_tasks(self, after: int, limit: int, *, gated: bool = False) -> tuple[Task, ...]:
        found = sorted(
            (t for t in self._by_id.values() if t.id > after and t.open and (t.gated or not gated)),
            key=lambda t: t.id,
        )
        return tuple(found[:limit])

    def counts(self) -> Mapping[str, int]:
        return _counts(self._by_id.values())

    def next_id(self) -> int:
        return self._next_id

    def all_tasks(self) -> tuple[Task, ...]:
        return tuple(sorted(self._by_id.values(), key=lambda t: t.id))


def _counts(tasks: Iterable[Task]) -> dict[str, int]:
    counts = dict.fromkeys((*STATUSES, "gated_open"), 0)
    for t in tasks:
        counts[t.status] += 1
        counts["gated_open"] += t.open and t.gated
    return counts


class TodoTree:
    """The session's tree as a value: a source of stored tasks plus the tasks this event
    changed. Reads go to the changes first, then to the source; a change never touches the
    source, so an event that changes nothing has nothing to write, and the store writes only
    ``changed`` (one row per changed task, whatever the tree's size).

    ``TodoTree(tasks, next_id)`` is a tree in memory (tests, JSON)."""

    __slots__ = ("_next_id", "changed", "source")

    def __init__(
        self,
        tasks: Iterable[Task] = (),
        next_id: int = 1,
        *,
        source: TaskSource | None = None,
        changed: Mapping[int, Task] | None = None,
    ) -> None:
        self.source: TaskSource = source if source is not None else MemoryTasks(tasks, next_id)
        self.changed: Mapping[int, Task] = changed or {}
        self._next_id = next_id if source is None else None

    @property
    def next_id(self) -> int:
        if self._next_id is None:
            self._next_id = self.source.next_id()
        return self._next_id

    @property
    def stored(self) -> bool:
        """Backed by the store (not by tasks in memory)."""
        return not isinstance(self.source, MemoryTasks)

    def with_task(self, task: Task, next_id: int | None = None) -> TodoTree:
        """A new tree with ``task`` added or replaced: O(changed), never O(tree)."""
        new = TodoTree(source=self.source, changed={**self.changed, task.id: task})
        new._next_id = max(next_id or 0, self.next_id, task.id + 1)
        return new

    def stored_in(self, source: TaskSource) -> TodoTree:
        """This tree on top of the store's ``source``: tasks it holds in memory (a tree kept
        in an old session row) become changes, so the store writes them once."""
        tasks = {t.id: t for t in self.tasks}
        new = TodoTree(source=source, changed=tasks)
        if tasks or self.next_id > 1:
            new._next_id = max(self.next_id, source.next_id())
        return new

    def get(self, task_id: object) -> Task | None:
        key = task_key(task_id)
        if key is None:
            return None
        return self.changed[key] if key in self.changed else self.source.task(key)

    def children(self, parent_id: int) -> tuple[Task, ...]:
        if task_key(parent_id) is None:
            return ()
        stored = [t for t in self.source.children(parent_id) if t.id not in self.changed]
        mine = [t for t in self.changed.values() if t.parent_id == parent_id]
        return tuple(sorted((*stored, *mine), key=lambda t: t.id))

    def open_below(self, task_id: int) -> tuple[Task, ...]:
        """The open tasks nearest below ``task_id`` (``nearest_open_below``): the source's one
        answer when this event changed nothing, else a walk over the source's children with
        the changes in place of what they replace. An id no task can have has nothing below."""
        if task_key(task_id) is None:
            return ()
        if not self.changed:
            return self.source.open_below(task_id)
        from goalkeeper.core.todos.integrity import by_parent, nearest_open_below

        changed = by_parent(self.changed.values())

        def children(parent_id: int) -> Iterable[Task]:
            stored = self.source.children(parent_id)
            return [*(t for t in stored if t.id not in self.changed), *changed(parent_id)]

        return nearest_open_below(children, task_id)

    def open_tasks(self, limit: int, *, after: int = 0, gated: bool = False) -> tuple[Task, ...]:
        """The first ``limit`` open tasks (of those with a declared gate, if asked) by id."""
        stored = self.source.open_tasks(after, limit + len(self.changed), gated=gated)
        merged = [t for t in stored if t.id not in self.changed]
        merged += [
            t for t in self.changed.values() if t.id > after and t.open and (t.gated or not gated)
        ]
        return tuple(sorted(merged, key=lambda t: t.id)[:limit])

    def iter_open(self, page: int = 200) -> Iterator[Task]:
        """Every open task by id, read a page at a time (stop early to read little)."""
        after = 0
        while True:
            batch = self.open_tasks(page, after=after)
            yield from batch
            if len(batch) < page:
                return
            after = batch[-1].id

    def counts(self) -> dict[str, int]:
        """Tasks by status and ``gated_open``, the changes included."""
        counts = dict(self.source.counts())
        for task in self.changed.values():
            before = self.source.task(task.id)
            if before is not None:
                counts[before.status] -= 1
                counts["gated_open"] -= before.open and before.gated
            counts[task.status] += 1
            counts["gated_open"] += task.open and task.gated
        return counts

    @property
    def open_count(self) -> int:
        counts = self.counts()
        return counts["pending"] + counts["in_progress"]

    @property
    def live_count(self) -> int:
        """Tasks that are not deleted tombstones."""
        counts = self.counts()
        return counts["pending"] + counts["in_progress"] + counts["completed"]

    @property
    def tasks(self) -> tuple[Task, ...]:
        """Every task by id: O(n), for a full listing (the CLI, tests), never an event's path."""
        stored = [t for t in self.source.all_tasks() if t.id not in self.changed]
        return tuple(sorted((*stored, *self.changed.values()), key=lambda t: t.id))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TodoTree):
            return NotImplemented
        return self.tasks == other.tasks and self.next_id == other.next_id

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TodoTree(changed={list(self.changed)}, next_id={self._next_id})"

    def to_json(self) -> dict[str, Any]:
        return {"tasks": [t.stored_json() for t in self.tasks], "nextId": self.next_id}

    @classmethod
    def from_json(cls, raw: object) -> TodoTree:
        """Rebuild a stored tree; entries that cannot be read are dropped, never raised."""
        if not isinstance(raw, Mapping):
            return cls()
        tasks = []
        items = raw.get("tasks")
        for item in items if isinstance(items, list) else []:
            task = task_from_json(item)
            if task is not None:
                tasks.append(task)
        next_id = raw.get("nextId")
        highest = max((t.id for t in tasks), default=0)
        n = int(next_id) if is_number(next_id) and next_id == int(next_id) else highest + 1
        return cls(tuple(tasks), max(n, highest + 1))


Tasks = TodoTree | Sequence[Task]
"""What the tree rules read: the tree, or plain tasks (a test's, a rule's own)."""


def as_tree(tasks: Tasks) -> TodoTree:
    return tasks if isinstance(tasks, TodoTree) else TodoTree(tasks)


def validate_parent_ref(tasks: Tasks, parent_id: object) -> Problem | None:
    """Spec §5.1: a child must hang under a task that exists."""
    if parent_id is None:
        return None
    if not is_number(parent_id):
        return Problem.of("todo.parent_not_number", value=js_str(parent_id))
    if as_tree(tasks).get(parent_id) is None:
        return Problem.of("todo.parent_missing", id=js_str(parent_id))
    return None


def can_complete_tree(tasks: Tasks, task_id: object, *, sep: str = "、") -> Problem | None:
    """Spec §5.2: a parent completes only after every live direct child has; beyond the spec,
    no task below it may be open either (a reopened or moved task breaks the spec's induction,
    ``core.todos.integrity``). An id that is not a number is refused: an undecidable case never
    passes."""
    from goalkeeper.core.todos.integrity import open_descendants

    if not is_number(task_id):
        return Problem.of("todo.id_not_number", value=js_str(task_id))
    if task_id != int(task_id):
        return None  # no task has it, so no task is its child
    open_children = open_descendants(tasks, int(task_id))
    if not open_children:
        return None
    listed = sep.join(f"#{t.id} {t.subject}" for t in open_children)
    return Problem.of("todo.children_open", children=listed)


def open_dependencies(tasks: Tasks, task: Task) -> tuple[int, ...]:
    """The ``blockedBy`` ids that exist and are neither completed nor deleted."""
    tree = as_tree(tasks)
    return tuple(d for d in task.blocked_by if (t := tree.get(d)) is not None and t.open)


def prune_alive(tasks: Tasks, ids: Iterable[int], want: Status) -> tuple[int, ...]:
    """The ids (in order) whose task is in the ``want`` state."""
    tree = as_tree(tasks)
    return tuple(i for i in ids if (t := tree.get(i)) is not None and t.status == want)


def js_str(value: object) -> str:
    """How JavaScript's ``String(x)`` prints a JSON value (the spec's messages do so):
    ``null``, ``true``/``false``, ``1`` for 1.0, arrays joined by commas."""
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        text = repr(value)  # JavaScript writes exponents without padding: 1e-7, 1e+21
        mantissa, _, exponent = text.partition("e")
        return f"{mantissa}e{exponent[0]}{exponent[1:].lstrip('0') or '0'}" if exponent else text
    if isinstance(value, int | str):
        return str(value)
    if isinstance(value, list | tuple):
        return ",".join("" if v is None or v is UNDEFINED else js_str(v) for v in value)
    return "[object Object]"


class _Undefined:
    """JavaScript's ``undefined``: a key that is not there (unlike an explicit ``null``)."""

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED: Any = _Undefined()


def task_from_json(item: object) -> Task | None:
    """A stored task; None when it cannot be read (never raised)."""
    if not isinstance(item, Mapping):
        return None
    task_id, subject, status = item.get("id"), item.get("subject"), item.get("status")
    key = task_key(task_id)
    if key is None or not isinstance(subject, str):
        return None
    metadata = item.get("metadata")
    created, updated = item.get("createdAt"), item.get("updatedAt")
    return Task(
        id=key,
        subject=subject,
        status=cast(Status, status if status in STATUSES else "pending"),
        blocked_by=ids_of(item.get("blockedBy")),
        metadata=dict(metadata) if isinstance(metadata, Mapping) else {},
        description=item.get("description") if isinstance(item.get("description"), str) else None,
        created_at=float(created) if is_number(created) else 0.0,
        updated_at=float(updated) if is_number(updated) else 0.0,
        baseline=item["baseline"] if isinstance(item.get("baseline"), str) else "",
    )


def ids_of(value: object) -> tuple[int, ...]:
    """``blockedBy`` as ids; scalars and garbage mean no dependencies (spec §3)."""
    if not isinstance(value, list | tuple):
        return ()
    return tuple(key for v in value if (key := task_key(v)) is not None)


TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(ACTIONS)},
        "id": {"type": ["integer", "string"], "description": "the task id (update, get)"},
        "subject": {"type": "string", "description": "one verifiable result (create)"},
        "description": {"type": "string"},
        "status": {"type": "string", "enum": list(STATUSES)},
        "blockedBy": {
            "type": "array",
            "items": {"type": ["integer", "string"]},
            "description": "ids of the tasks this one waits for",
        },
        "metadata": {
            "type": "object",
            "description": "parentId (tree), gate (test / audit duty), evidence (to complete)",
        },
        "session": {"type": "string", "description": "filled in by goalkeeper; leave it out"},
        "agent": {"type": "string", "description": "filled in by goalkeeper; leave it out"},
    },
    "required": ["action"],
}
"""The todo tool's input schema, shared by every surface (MCP server, Pi bridge). Loose on
purpose: malformed values reach the gates, which explain what is wrong, instead of a schema
error the model learns nothing from."""
