"""Completion evidence (seed 002, ``todo-obligations-spec.md`` §4 and §6): its shape, its lenient
normalization, and the ``gate`` duties a task can declare.

Three kinds: ``state`` (files changed), ``runnable`` (a command ran), ``effect`` (not
hard-verifiable; an honest exit, never refused). Entries are ``file``, ``cmd`` or ``review``.
Models build nested JSON arguments poorly, so common deviations are repaired before checking;
only evidence that cannot be repaired is refused, with the first thing that is wrong. These rules
check the *form* of a claim; whether it is true is the business of ``evidence_claims`` (what
goalkeeper can check itself) and of the fresh reviewer the agent is asked to spawn. Pure; no I/O;
inputs are never mutated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from msgspec import Struct

from goalkeeper.core.todos.tree import UNDEFINED, Task, is_number, js_str
from goalkeeper.core.values import Problem

KINDS = ("state", "runnable", "effect")
FILE_OPS = ("write", "edit", "delete")


def validate_evidence(ev: object) -> Problem | None:
    """Spec §4.2: None when valid, else the first failing rule, in the spec's order."""
    if not isinstance(ev, Mapping | list):  # a JSON array is an object in the original's eyes
        return Problem.of("evidence.missing")
    kind = ev.get("kind", UNDEFINED) if isinstance(ev, Mapping) else UNDEFINED
    if not isinstance(kind, str) or kind not in KINDS:
        return Problem.of("evidence.kind", kind=js_str(kind))
    items = ev.get("evidence", UNDEFINED) if isinstance(ev, Mapping) else UNDEFINED
    if kind == "effect":
        return None if isinstance(items, list) else Problem.of("evidence.effect_array")
    if not isinstance(items, list) or not items:
        return Problem.of("evidence.too_few", kind=kind)
    has_file = has_cmd = False
    for entry in items:
        if not isinstance(entry, Mapping | list):
            return Problem.of("evidence.entry_object")
        kind_of = entry.get("type", UNDEFINED) if isinstance(entry, Mapping) else UNDEFINED
        if kind_of == "file" and isinstance(entry, Mapping):
            if not _text(entry.get("path")):
                return Problem.of("evidence.file_path")
            op = entry.get("op")
            if _js_truthy(op) and op not in FILE_OPS:
                return Problem.of("evidence.file_op", op=js_str(op))
            has_file = True
        elif kind_of == "cmd" and isinstance(entry, Mapping):
            if not _text(entry.get("cmd")):
                return Problem.of("evidence.cmd_cmd")
            if "exit" in entry and not is_number(entry["exit"]):
                return Problem.of("evidence.cmd_exit")
            has_cmd = True
        elif kind_of == "review" and isinstance(entry, Mapping):
            if not _text(entry.get("agent")):
                return Problem.of("evidence.review_agent")
            if not _text(entry.get("path")):
                return Problem.of("evidence.review_path")
        else:
            return Problem.of("evidence.type", type=js_str(kind_of))
    if kind == "state" and not has_file:
        return Problem.of("evidence.state_file")
    if kind == "runnable" and not has_cmd:
        return Problem.of("evidence.runnable_cmd")
    return None


class Normalized(Struct, frozen=True):
    """Exactly one of the two is set."""

    evidence: dict[str, Any] | None
    problem: Problem | None


def normalize_evidence(raw: object) -> Normalized:
    """Spec §4.3, steps in order: a JSON string, a bare command, a single top-level entry, a
    single ``evidence`` object, entries missing ``type``, a missing ``kind``. Beyond the spec
    (seed 002: only what cannot be repaired is refused), a bare array is the list of entries,
    and a string entry is a bare command (or, if it is one, a JSON object). Never wider than
    the spec: a command entry so made has no exit code, so it meets no test gate and stays an
    unverified claim; an empty array declares no ``effect``; a kind is inferred only from a
    cmd or file entry, as for an object."""
    value: object = raw
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return Normalized(None, Problem.of("evidence.missing"))
        try:
            value = json.loads(text, parse_constant=_not_json)
        except ValueError:
            value = {"kind": "runnable", "evidence": [{"type": "cmd", "cmd": text}]}
    if isinstance(value, list):
        value = {"evidence": value}
    if not isinstance(value, Mapping):
        return Normalized(None, Problem.of("evidence.missing"))
    obj: dict[str, Any] = dict(value)
    if "evidence" not in obj and any(k in obj for k in ("cmd", "path", "type")):
        obj = {"evidence": [obj]}
    items = obj.get("evidence")
    if isinstance(items, Mapping):
        items = [items]
    if not isinstance(items, list):
        return Normalized(None, Problem.of("evidence.not_array"))
    entries = [_typed(entry) for entry in items]
    kind = obj.get("kind")
    if not _js_truthy(kind):
        types = [e.get("type") for e in entries if isinstance(e, Mapping)]
        kind = "runnable" if "cmd" in types else "state" if "file" in types else None
    normalized = {**obj, "evidence": entries}
    if kind is not None:
        normalized["kind"] = kind  # else an explicit original (null, "") is kept, as it came
    problem = validate_evidence(normalized)
    return Normalized(None, problem) if problem else Normalized(normalized, None)


class Gate(Struct, frozen=True):
    test: bool = False
    audit: bool = False


def parse_gate(value: object) -> Gate:
    """Spec §6: ``{"test": true}``, ``"audit"``, ``["test", "audit"]``; anything else declares
    nothing (never an error)."""
    if isinstance(value, Mapping):
        return Gate(value.get("test") is True, value.get("audit") is True)
    if isinstance(value, str):
        return Gate(value == "test", value == "audit")
    if isinstance(value, list):
        return Gate("test" in value, "audit" in value)
    return Gate()


def validate_gate(
    tasks: Sequence[Task], task_id: object, evidence: Mapping[str, Any]
) -> Problem | None:
    """A declared gate is a duty: ``test`` needs a ``cmd`` entry with ``exit`` exactly 0,
    ``audit`` a ``review`` entry with agent and path. Test is checked first."""
    if not is_number(task_id):
        return None
    task = next((t for t in tasks if t.id == task_id), None)
    if task is None:
        return None
    gate = parse_gate(task.metadata.get("gate"))
    entries = [e for e in evidence.get("evidence") or [] if isinstance(e, Mapping)]
    if gate.test and not any(
        e.get("type") == "cmd" and is_number(e.get("exit")) and e.get("exit") == 0 for e in entries
    ):
        return Problem.of("gate.test", id=js_str(task_id))
    if gate.audit and not any(
        e.get("type") == "review" and _text(e.get("agent")) and _text(e.get("path"))
        for e in entries
    ):
        return Problem.of("gate.audit", id=js_str(task_id))
    return None


def gate_weakened(task_id: object, stored: object, proposed: object) -> Problem | None:
    """A declared gate is a duty the agent cannot take back (audit D4): an update whose
    ``gate`` drops a duty the stored one declares (``null``, ``"audit"`` for ``["test",
    "audit"]``, ``{"test": false}``) is refused; adding duties is fine."""
    was, now = parse_gate(stored), parse_gate(proposed)
    if (was.test and not now.test) or (was.audit and not now.audit):
        return Problem.of(
            "todo.gate.kept", id=js_str(task_id), was=gate_names(was), now=gate_names(now)
        )
    return None


def gate_names(gate: Gate) -> str:
    """``test``, ``audit``, ``test+audit``, or ``-`` for none (the ids the tool takes)."""
    return "+".join(n for n, on in (("test", gate.test), ("audit", gate.audit)) if on) or "-"


def validate_gate_kind(
    tasks: Sequence[Task], task_id: object, evidence: Mapping[str, Any]
) -> Problem | None:
    """``effect`` evidence is a declaration left for human acceptance: it cannot complete a
    task that declares a gate (audit D3: ``{"kind": "effect", "evidence": [{"cmd": "echo ok",
    "exit": 0}]}`` passed ``validate_gate``, which counts any entry)."""
    task = next((t for t in tasks if is_number(task_id) and t.id == task_id), None)
    if task is None or evidence.get("kind") != "effect":
        return None
    gate = parse_gate(task.metadata.get("gate"))
    if gate.test or gate.audit:
        return Problem.of("todo.gate.effect", id=js_str(task_id), gate=gate_names(gate))
    return None


class FileClaim(Struct, frozen=True):
    path: str
    op: str | None


class CommandClaim(Struct, frozen=True):
    cmd: str
    exit: int | float | None


def evidence_claims(
    evidence: Mapping[str, Any],
) -> tuple[tuple[FileClaim, ...], tuple[CommandClaim, ...]]:
    """The file and command claims of normalized evidence: what goalkeeper could check itself."""
    files: list[FileClaim] = []
    commands: list[CommandClaim] = []
    for entry in evidence.get("evidence") or []:
        if not isinstance(entry, Mapping):
            continue
        if entry.get("type") == "file" and _text(entry.get("path")):
            op = entry.get("op")
            files.append(FileClaim(str(entry["path"]), op if isinstance(op, str) else None))
        elif entry.get("type") == "cmd" and _text(entry.get("cmd")):
            code = entry.get("exit")
            commands.append(CommandClaim(str(entry["cmd"]), code if is_number(code) else None))
    return tuple(files), tuple(commands)


def _not_json(token: str) -> object:
    """JSON has no NaN or Infinity: such text is not JSON (a bare command, then)."""
    raise ValueError(f"{token} is not JSON")


def _typed(entry: object) -> object:
    """Step 5: an entry without ``type`` gets one from its keys (a copy; never mutated). A
    string entry is read as a string is at the top (step 1): the JSON it holds, else a bare
    command; an empty one, or JSON that is no object, is left for validation to refuse."""
    if isinstance(entry, str) and entry.strip():
        text = entry.strip()
        try:
            entry = json.loads(text, parse_constant=_not_json)
        except ValueError:
            entry = {"type": "cmd", "cmd": text}
    if not isinstance(entry, Mapping) or isinstance(entry.get("type"), str):
        return dict(entry) if isinstance(entry, Mapping) else entry
    if isinstance(entry.get("cmd"), str):
        return {**entry, "type": "cmd"}
    if isinstance(entry.get("path"), str):
        return {**entry, "type": "file"}
    return dict(entry)


def _text(value: object) -> bool:
    return isinstance(value, str) and bool(value)


def _js_truthy(value: object) -> bool:
    """JavaScript truthiness: empty arrays and objects are truthy there, unlike in Python."""
    if isinstance(value, list | dict):
        return True
    if isinstance(value, float) and value != value:
        return False
    return bool(value) and value is not UNDEFINED


# ---------------------------------------------------------------------------------------------
# What the project's files held when a task was created (the baseline of file claims)
# ---------------------------------------------------------------------------------------------

PROJECT_FOLDER = "."
"""The path a guard asks facts for to get a snapshot of the project: the facts of the project
folder carry the content digest of every file in it (``FileFact.entries``)."""

_PATH_KEY = 12  # hex digits of sha256(path): 48 bits, no collision among a project's files
_CONTENT_KEY = 16  # hex digits of the content's sha256: 64 bits, no second preimage in reach
_RECORD = _PATH_KEY + _CONTENT_KEY
UNREAD = "-" * _CONTENT_KEY
"""The content key of a file that was there but not read (too large, unreadable)."""


class Baseline(Struct, frozen=True):
    """The project's files when a task was created, compactly: one fixed-width record per
    file (a key of its path, a key of its content), the folders that were not read, and
    whether every other file was read. Several tasks created with nothing changed in between
    share one baseline (``ident``)."""

    packed: str = ""
    skipped: tuple[str, ...] = ()
    complete: bool = False

    @property
    def ident(self) -> str:
        import hashlib

        blob = "\0".join((self.packed, *self.skipped, str(self.complete)))
        return hashlib.sha256(blob.encode("utf-8", "surrogateescape")).hexdigest()[:16]

    def before(self, rel: str) -> str | None:
        """What ``rel`` (a project-relative POSIX path) held then: its content key, ``""``
        when it did not exist then, ``None`` when the baseline cannot say (not read)."""
        key = _path_key(rel)
        lo, hi = 0, len(self.packed) // _RECORD
        while lo < hi:  # records are sorted by path key
            mid = (lo + hi) // 2
            at = self.packed[mid * _RECORD : mid * _RECORD + _PATH_KEY]
            if at == key:
                content = self.packed[mid * _RECORD + _PATH_KEY : (mid + 1) * _RECORD]
                return None if content == UNREAD else content
            lo, hi = (mid + 1, hi) if at < key else (lo, mid)
        covered = self.complete and not any(
            rel == folder or rel.startswith(folder + "/") for folder in self.skipped
        )
        return "" if covered else None


def make_baseline(
    entries: Sequence[tuple[str, str]], skipped: Sequence[str], complete: bool
) -> Baseline:
    """A baseline from (relative path, sha256 hex of its content or ``""`` when unread)."""
    records = sorted(
        _path_key(rel) + (content_key(digest) if digest else UNREAD) for rel, digest in entries
    )
    return Baseline("".join(records), tuple(sorted(skipped)), complete)


def content_key(digest: str) -> str:
    """The part of a file's sha256 hex digest a baseline keeps."""
    return digest[:_CONTENT_KEY]


def _path_key(rel: str) -> str:
    import hashlib

    return hashlib.sha256(rel.encode("utf-8", "surrogateescape")).hexdigest()[:_PATH_KEY]
