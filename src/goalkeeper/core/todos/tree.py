"""The todo tree (seed 002): tasks, their states and dependencies, and the tree's integrity rules.

The shape is that of the todo tool pi-todone sits on (``todo-obligations-spec.md`` §3): numeric
ids, ``pending | in_progress | completed | deleted`` (a tombstone), ``blockedBy`` ids and a free
``metadata`` bag holding ``parentId``, ``gate`` and ``evidence``. ``apply_todo`` is the tool
itself (create / update / list / get) as a pure function; the gates that may refuse a call live
in ``core/evidence.py`` and the todos guard. Pure; no I/O; never raises on any tool input.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeGuard, cast

from goalkeeper.core.values import Problem

Status = Literal["pending", "in_progress", "completed", "deleted"]
STATUSES: tuple[Status, ...] = ("pending", "in_progress", "completed", "deleted")
ACTIONS = ("create", "update", "list", "get")
MAX_SUBJECT = 500
MAX_DESCRIPTION = 10_000
MAX_METADATA = 64 * 1024  # serialized; evidence with output tails fits, a pasted log does not


def is_number(value: object) -> TypeGuard[int | float]:
    """A JSON number: ``true`` is an ``int`` in Python but not a number in JSON, and JSON has
    no NaN or Infinity (Python's ``json`` reads them; they are garbage here)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return not isinstance(value, float) or math.isfinite(value)


@dataclass(frozen=True, slots=True)
class Task:
    id: int
    subject: str
    status: Status = "pending"
    blocked_by: tuple[int, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    description: str | None = None
    created_at: float = 0.0
    updated_at: float = 0.0

    @property
    def parent_id(self) -> int | None:
        value = self.metadata.get("parentId")
        return int(value) if is_number(value) and value == int(value) else None

    def to_json(self) -> dict[str, Any]:
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


@dataclass(frozen=True, slots=True)
class TodoTree:
    tasks: tuple[Task, ...] = ()
    next_id: int = 1

    def get(self, task_id: object) -> Task | None:
        if not is_number(task_id):
            return None
        return next((t for t in self.tasks if t.id == task_id), None)

    @property
    def live(self) -> tuple[Task, ...]:
        """Every task except the deleted tombstones."""
        return tuple(t for t in self.tasks if t.status != "deleted")

    @property
    def incomplete(self) -> tuple[Task, ...]:
        return tuple(t for t in self.tasks if t.status in ("pending", "in_progress"))

    def to_json(self) -> dict[str, Any]:
        return {"tasks": [t.to_json() for t in self.tasks], "nextId": self.next_id}

    @classmethod
    def from_json(cls, raw: object) -> TodoTree:
        """Rebuild a stored tree; entries that cannot be read are dropped, never raised."""
        if not isinstance(raw, Mapping):
            return cls()
        tasks = []
        for item in raw.get("tasks") or []:
            task = _task_from_json(item)
            if task is not None:
                tasks.append(task)
        next_id = raw.get("nextId")
        highest = max((t.id for t in tasks), default=0)
        n = int(next_id) if is_number(next_id) and next_id == int(next_id) else highest + 1
        return cls(tuple(tasks), max(n, highest + 1))


@dataclass(frozen=True, slots=True)
class TodoCall:
    """A todo tool call as the gates read it. ``id`` stays raw: a non-number is a refusal
    reason of its own. ``evidence`` is read from ``metadata.evidence`` when ``metadata`` has
    that key, else from a top-level ``evidence`` (spec §4.1)."""

    action: str
    id: object = None
    subject: str | None = None
    description: str | None = None
    status: object = None
    blocked_by: object = None
    metadata: Mapping[str, Any] | None = None
    evidence: object = None
    has_evidence: bool = False
    raw: Mapping[str, Any] = field(default_factory=dict)


def parse_todo_call(raw: object) -> TodoCall | Problem:
    """The tool input as a ``TodoCall``; malformed input is a ``Problem``, never an exception."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return Problem.of("todo.error.input")
    if not isinstance(raw, Mapping):
        return Problem.of("todo.error.input")
    action = raw.get("action")
    if action not in ACTIONS:
        return Problem.of("todo.error.action", action=_shown(action))
    subject = raw.get("subject")
    description = raw.get("description")
    for name, value, limit in (
        ("subject", subject, MAX_SUBJECT),
        ("description", description, MAX_DESCRIPTION),
    ):
        if isinstance(value, str) and len(value) > limit:
            return Problem.of("todo.error.too_long", field=name, size=len(value), limit=limit)
    metadata = raw.get("metadata")
    if metadata is not None and not isinstance(metadata, Mapping):
        metadata = None
    size = len(json.dumps(raw.get("metadata"), default=str)) + len(
        json.dumps(raw.get("evidence"), default=str)
    )
    if size > MAX_METADATA:
        return Problem.of("todo.error.too_long", field="metadata", size=size, limit=MAX_METADATA)
    if metadata is not None and "evidence" in metadata:
        evidence, has_evidence = metadata["evidence"], True
    else:
        evidence, has_evidence = raw.get("evidence"), "evidence" in raw
    return TodoCall(
        action=str(action),
        id=raw.get("id", raw.get("taskId")),
        subject=subject if isinstance(subject, str) else None,
        description=description if isinstance(description, str) else None,
        status=raw.get("status"),
        blocked_by=raw.get("blockedBy"),
        metadata=dict(metadata) if metadata is not None else None,
        evidence=evidence,
        has_evidence=has_evidence,
        raw=dict(raw),
    )


def validate_parent_ref(tasks: Sequence[Task], parent_id: object) -> Problem | None:
    """Spec §5.1: a child must hang under a task that exists."""
    if parent_id is None:
        return None
    if not is_number(parent_id):
        return Problem.of("todo.parent_not_number", value=js_str(parent_id))
    if not any(t.id == parent_id for t in tasks):
        return Problem.of("todo.parent_missing", id=js_str(parent_id))
    return None


def can_complete_tree(tasks: Sequence[Task], task_id: object, *, sep: str = "、") -> Problem | None:
    """Spec §5.2: a parent completes only after every live direct child has (children are
    checked the same way, so the closure holds inductively). An id that is not a number is
    refused: an undecidable case never passes."""
    if not is_number(task_id):
        return Problem.of("todo.id_not_number", value=js_str(task_id))
    open_children = [
        t for t in tasks if t.parent_id == task_id and t.status not in ("deleted", "completed")
    ]
    if not open_children:
        return None
    listed = sep.join(f"#{t.id} {t.subject}" for t in open_children)
    return Problem.of("todo.children_open", children=listed)


def open_dependencies(tasks: Sequence[Task], task: Task) -> tuple[int, ...]:
    """The ``blockedBy`` ids that exist and are neither completed nor deleted."""
    by_id = {t.id: t for t in tasks}
    return tuple(
        d for d in task.blocked_by if d in by_id and by_id[d].status not in ("completed", "deleted")
    )


def prune_alive(tasks: Sequence[Task], ids: Iterable[int], want: Status) -> tuple[int, ...]:
    """The ids (in order) whose task is in the ``want`` state."""
    status = {t.id: t.status for t in tasks}
    return tuple(i for i in ids if status.get(i) == want)


@dataclass(frozen=True, slots=True)
class Applied:
    """A tool call applied: the new tree, and the tool's result for the model."""

    tree: TodoTree
    result: dict[str, Any]


def apply_todo(tree: TodoTree, call: TodoCall, now: float) -> Applied | Problem:
    """The todo tool: create / update / list / get. The result has the shape the spec reads
    (``{"action", "params", "tasks", "nextId"}``, plus ``task`` for create/update/get)."""
    if call.action == "list":
        return Applied(tree, _result(tree, call))
    if call.action == "get":
        found = tree.get(call.id)
        if found is None:
            return _unknown(call.id)
        return Applied(tree, {**_result(tree, call), "task": found.to_json()})
    if call.action == "create":
        if not call.subject or not call.subject.strip():
            return Problem.of("todo.error.subject")
        if call.status in ("completed", "deleted"):
            return Problem.of("todo.error.create_status", status=call.status)
        status = call.status if call.status in STATUSES else "pending"
        task = Task(
            id=tree.next_id,
            subject=call.subject.strip(),
            status=status,
            blocked_by=_ids(call.blocked_by),
            metadata=_json_clean(call.metadata or {}),
            description=call.description,
            created_at=now,
            updated_at=now,
        )
        new = TodoTree((*tree.tasks, task), tree.next_id + 1)
        return Applied(new, {**_result(new, call), "task": task.to_json()})
    found = tree.get(call.id)
    if found is None:
        return _unknown(call.id)
    changes: dict[str, Any] = {"updated_at": now}
    if call.status is not None:
        if call.status not in STATUSES:
            return Problem.of("todo.error.status", status=js_str(call.status))
        changes["status"] = call.status
    if call.subject and call.subject.strip():
        changes["subject"] = call.subject.strip()
    if call.description is not None:
        changes["description"] = call.description
    if call.blocked_by is not None:
        changes["blocked_by"] = _ids(call.blocked_by)
    if call.metadata is not None:
        changes["metadata"] = _json_clean({**found.metadata, **call.metadata})
    updated = replace(found, **changes)
    new = TodoTree(tuple(updated if t.id == found.id else t for t in tree.tasks), tree.next_id)
    return Applied(new, {**_result(new, call), "task": updated.to_json()})


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


def _task_from_json(item: object) -> Task | None:
    if not isinstance(item, Mapping):
        return None
    task_id, subject, status = item.get("id"), item.get("subject"), item.get("status")
    if not (is_number(task_id) and task_id == int(task_id)) or not isinstance(subject, str):
        return None
    metadata = item.get("metadata")
    created, updated = item.get("createdAt"), item.get("updatedAt")
    return Task(
        id=int(task_id),
        subject=subject,
        status=cast(Status, status if status in STATUSES else "pending"),
        blocked_by=_ids(item.get("blockedBy")),
        metadata=dict(metadata) if isinstance(metadata, Mapping) else {},
        description=item.get("description") if isinstance(item.get("description"), str) else None,
        created_at=float(created) if is_number(created) else 0.0,
        updated_at=float(updated) if is_number(updated) else 0.0,
    )


def _ids(value: object) -> tuple[int, ...]:
    """``blockedBy`` as ids; scalars and garbage mean no dependencies (spec §3)."""
    if not isinstance(value, list | tuple):
        return ()
    return tuple(int(v) for v in value if is_number(v) and v == int(v))


def _json_clean(data: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON-only copy (the input may be shared or hold odd types; it is never mutated)."""
    cleaned = json.loads(json.dumps(dict(data), default=str))
    return cleaned if isinstance(cleaned, dict) else {}


def _result(tree: TodoTree, call: TodoCall) -> dict[str, Any]:
    params = {k: v for k, v in call.raw.items() if k != "session"}
    return {
        "action": call.action,
        "params": params,
        "tasks": [t.to_json() for t in tree.tasks],
        "nextId": tree.next_id,
    }


def _unknown(task_id: object) -> Problem:
    if not is_number(task_id):
        return Problem.of("todo.id_not_number", value=js_str(task_id))
    return Problem.of("todo.error.unknown", id=js_str(task_id))


def _shown(value: object) -> str:
    return js_str(UNDEFINED if value is None else value)


TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(ACTIONS)},
        "id": {"type": ["integer", "string"], "description": "the task id (update, get)"},
        "subject": {"type": "string", "description": "one verifiable result (create)"},
        "description": {"type": "string"},
        "status": {"type": "string", "enum": list(STATUSES)},
        "blockedBy": {"type": "array", "items": {"type": "integer"}},
        "metadata": {
            "type": "object",
            "description": "parentId (tree), gate (test / audit duty), evidence (to complete)",
        },
        "session": {"type": "string", "description": "filled in by goalkeeper; leave it out"},
    },
    "required": ["action"],
}
"""The todo tool's input schema, shared by every surface (MCP server, Pi bridge). Loose on
purpose: malformed values reach the gates, which explain what is wrong, instead of a schema
error the model learns nothing from."""
