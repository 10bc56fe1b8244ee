"""The todo tool (seed 002, spec §3): create / update / list / get as a pure function.

``parse_todo_call`` reads the model's arguments (malformed input is a ``Problem``, never an
exception); ``apply_todo`` performs the call on a ``TodoTree``, in O(1) of the tree's size, and
builds the reply (``core/todos/reply.py``, bounded whatever the size).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from msgspec import Struct, field
from msgspec.structs import replace

from goalkeeper.core.todos.reply import result
from goalkeeper.core.todos.tree import (
    ACTIONS,
    STATUSES,
    UNDEFINED,
    Task,
    TodoTree,
    is_number,
    js_str,
    task_key,
)
from goalkeeper.core.values import Problem

MAX_SUBJECT = 500
MAX_DESCRIPTION = 10_000
MAX_METADATA = 64 * 1024  # serialized; evidence with output tails fits, a pasted log does not
MAX_ID_DIGITS = 15  # below 2**53: the id stays exact as a JSON number in every host
SHOWN_ID = 40  # characters of a refused id quoted back


class TodoCall(Struct, frozen=True):
    """A todo tool call as the gates read it. ``id`` stays raw: a non-number is a refusal
    reason of its own. ``evidence`` is read from ``metadata.evidence`` when ``metadata`` has
    that key, else from a top-level ``evidence`` (spec §4.1)."""

    action: str
    id: object = None
    subject: str | None = None
    description: str | None = None
    status: object = None
    blocked_by: tuple[int, ...] | None = None
    """``blockedBy`` read leniently (``task_numbers``); None when the call does not set it."""
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
    task_id = task_number(raw.get("id", raw.get("taskId")))
    if action in ("update", "get") and not is_number(task_id):
        return Problem.of("todo.error.id", value=_shown(task_id)[:SHOWN_ID])
    if metadata is not None and "parentId" in metadata:
        metadata = {**metadata, "parentId": task_number(metadata["parentId"])}
    blocked_by = None if raw.get("blockedBy") is None else task_numbers(raw["blockedBy"])
    if isinstance(blocked_by, Problem):
        return blocked_by
    return TodoCall(
        action=str(action),
        id=task_id,
        subject=subject if isinstance(subject, str) else None,
        description=description if isinstance(description, str) else None,
        status=raw.get("status"),
        blocked_by=blocked_by,
        metadata=dict(metadata) if metadata is not None else None,
        evidence=evidence,
        has_evidence=has_evidence,
        raw=dict(raw),
    )


def task_number(value: object) -> object:
    """A task id as the tool's schema allows it (``"id": integer | string``): a numeric
    string (``"3"``, ``" 3 "``, ``"#3"`` as the replies print ids) is the number; anything else
    is returned as it came, for the rules to refuse with what was sent. Read once, here, so
    every gate downstream sees the same number a numeric id would give."""
    if isinstance(value, str):
        text = value.strip().removeprefix("#")
        if text.isascii() and text.isdigit() and len(text) <= MAX_ID_DIGITS:
            return int(text)
    return value


def task_numbers(value: object) -> tuple[int, ...] | Problem:
    """``blockedBy`` read like an id (seed 002: lenient normalization): a list of numbers or
    numeric strings (``[1, "2", "#3"]``), one of them alone, or a string listing them
    (``"1, 2"``) are those ids, in order, each once; an empty list or string is none. Only what
    names no task is refused, with what was sent: a dependency dropped in silence would let the
    task start, and be judged, as if it had none."""
    if isinstance(value, str):
        items: list[object] = [p for p in _ID_SEPARATORS.split(value.strip()) if p]
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        items = [value]
    ids: dict[int, None] = {}
    for item in items:
        key = task_key(task_number(item))
        if key is None:
            shown = json.dumps(item, ensure_ascii=False, default=str)  # "1" vs 1 matters here
            return Problem.of("todo.error.blocked_by", value=shown[:SHOWN_ID])
        ids[key] = None
    return tuple(ids)


_ID_SEPARATORS = re.compile(r"[\s,，、]+")


class Applied(Struct, frozen=True):
    """A tool call applied: the new tree, and the tool's result for the model."""

    tree: TodoTree
    result: dict[str, Any]


def apply_todo(tree: TodoTree, call: TodoCall, now: float) -> Applied | Problem:
    """The todo tool: create / update / list / get, each O(1) in the tree's size. The result
    has the spec's shape (``{"action", "params", "nextId"}``, ``task`` for create/update/get),
    with the whole ``tasks`` list while the tree is small, else a bounded ``summary``
    (``core.todos.reply``)."""
    if call.action == "list":
        return Applied(tree, result(tree, call))
    if call.action == "get":
        found = tree.get(call.id)
        if found is None:
            return _unknown(call.id)
        return Applied(tree, result(tree, call, found))
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
            blocked_by=call.blocked_by or (),
            metadata=_json_clean(call.metadata or {}),
            description=call.description,
            created_at=now,
            updated_at=now,
        )
        new = tree.with_task(task, tree.next_id + 1)
        return Applied(new, result(new, call, task))
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
        changes["blocked_by"] = call.blocked_by
    if call.metadata is not None:
        changes["metadata"] = _json_clean({**found.metadata, **call.metadata})
    updated = replace(found, **changes)
    new = tree.with_task(updated)
    return Applied(new, result(new, call, updated))


def _json_clean(data: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON-only copy (the input may be shared or hold odd types; it is never mutated)."""
    cleaned = json.loads(json.dumps(dict(data), default=str))
    return cleaned if isinstance(cleaned, dict) else {}


def _unknown(task_id: object) -> Problem:
    if not is_number(task_id):
        return Problem.of("todo.id_not_number", value=js_str(task_id))
    return Problem.of("todo.error.unknown", id=js_str(task_id))


def _shown(value: object) -> str:
    return js_str(UNDEFINED if value is None else value)
