"""One readable line per journal entry, for people: ``status``, ``status --follow`` and the
report's timeline all say the same thing for the same entry.

The journal stores JSON written by guards and the engine; nothing here prints a Python repr
(``aborted=False``, ``Reply: 'None'``). Text that came from the agent stays plain text here:
each renderer escapes it for its own medium (HTML, Markdown).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from goalkeeper.core.text.lazy_re import lazy_re

_CONTROL = lazy_re(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters (an ANSI escape, a bell) the agent may have written: a line shown in a
terminal must not move its cursor or recolour it."""

TEXT = 160
"""How much of a message a one-line view shows."""


def describe(kind: str, data: Mapping[str, Any]) -> str:
    """``kind`` and ``data`` of a journal entry as one line of plain text."""
    render = _RENDER.get(kind)
    if render is not None:
        try:
            return _one_line(render(data))
        except (TypeError, ValueError, AttributeError, KeyError):
            pass
    return _one_line(_generic(data))


def category(kind: str, data: Mapping[str, Any]) -> str:
    """The kind of an entry for colour and icons: ``ok``, ``bad``, ``warn``, ``run`` or
    ``info``."""
    if kind in ("goal_complete", "closed"):
        return "ok"
    if kind in ("verify_run", "evidence_run", "replay_run"):
        return "ok" if data.get("passed") else "bad" if data.get("ran", True) else "warn"
    if kind in ("refused", "todo_refused", "goal_failed", "error", "trust_refused", "mode_gate"):
        return "bad"
    if kind in ("capped", "goal_blocked", "honest_exit", "stuck_reset", "goal_tests_held"):
        return "warn"
    if kind == "decision":
        kinds = {str(a.get("kind")) for a in _actions(data)}
        if "Pause" in kinds or "Block" in kinds:
            return "warn"
        if "Close" in kinds:
            return "ok"
    return "info"


def plain(text: object) -> str:
    """Untrusted text without control characters, for a terminal."""
    return _CONTROL.sub("\ufffd", str(text))


def clip(text: object, limit: int = TEXT) -> str:
    value = " ".join(plain(text).split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def run_line(data: Mapping[str, Any]) -> str:
    """A command goalkeeper ran: ``pytest -q → exit 0 in 1.2 s``."""
    command = clip(data.get("command", ""), 80)
    if data.get("ran") is False:
        return f"{command} not run: {data.get('refusal') or 'not approved'}"
    if data.get("problem"):
        return f"replay could not run: {clip(data['problem'])}"
    result = "timed out" if data.get("timed_out") else f"exit {data.get('exit')}"
    if data.get("no_tests"):
        result += ", no test ran"
    return f"{command} → {result} in {_seconds(data.get('seconds'))}"


def _seconds(value: object) -> str:
    return f"{value:.2f} s" if isinstance(value, int | float) else "? s"


def _actions(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    actions = data.get("actions")
    return [a for a in actions if isinstance(a, Mapping)] if isinstance(actions, list) else []


def _names(values: object) -> str:
    if isinstance(values, list | tuple):
        return ", ".join(str(v) for v in values) or "none"
    return str(values)


def _event(data: Mapping[str, Any]) -> str:
    kind = str(data.get("type", "event"))
    if kind == "Settled":
        parts = [f"agent stopped after {data.get('tools', 0)} tool call(s)"]
        if data.get("aborted"):
            parts.append("aborted by the user")
        if data.get("error"):
            parts.append(f"error: {clip(data['error'], 80)}")
        tail = clip(data.get("text_tail") or "", 100)
        return "; ".join(parts) + (f': "{tail}"' if tail else "")
    if kind == "UserPrompt":
        return f'user: "{clip(data.get("text_head") or "", 120)}"'
    if kind == "ToolCall":
        return f"tool call {data.get('name')}"
    if kind == "SessionStart":
        return f"session started ({data.get('source') or 'new'})"
    extra = data.get("name") or data.get("source")
    return kind + (f" {extra}" if extra else "")


def _decision(data: Mapping[str, Any]) -> str:
    words = {
        "Continue": "sent back",
        "Pause": "paused",
        "Close": "let go",
        "Block": "refused a tool call",
        "Advise": "advised",
        "Notify": "told the user",
        "Reply": "answered a tool call",
        "Compact": "asked to compact",
        "Allow": "allowed",
        "KeepTests": "kept the test files",
        "SetGoal": "recorded the goal",
        "WriteGoal": "updated GOAL.md",
        "ApproveGoal": "approved the goal",
        "AcceptPlan": "accepted the plan",
        "Ask": "asked the user",
    }
    parts = []
    for action in _actions(data):
        kind = str(action.get("kind"))
        text = action.get("text")
        said = clip(text, 110) if text not in (None, "", "None") else ""
        parts.append(words.get(kind, kind) + (f": {said}" if said else ""))
    return "; ".join(parts) or "no action"


def _generic(data: Mapping[str, Any]) -> str:
    parts = []
    for key, value in data.items():
        if key == "traceback":
            continue
        if value is None or value == "" or value == [] or value == {}:
            continue
        if isinstance(value, bool):
            parts.append(key if value else f"not {key}")
        elif isinstance(value, list | tuple):
            parts.append(f"{key}: {_names(value)}")
        elif isinstance(value, Mapping):
            parts.append(f"{key}: {', '.join(f'{k} {v}' for k, v in value.items())}")
        else:
            parts.append(f"{key} {clip(value, 60)}")
    return ", ".join(parts)


def _one_line(text: str) -> str:
    return plain(text.replace("\r", " ").replace("\n", " ⏎ "))


_RENDER: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "event": _event,
    "decision": _decision,
    "settle": lambda d: f"marker {d.get('phase') or 'none'}, {d.get('tools', 0)} tool call(s)",
    "check": lambda d: f"check round: {d.get('status')}, ran {len(d.get('ran') or [])} command(s)",
    "refused": lambda d: f"close refused: gate(s) open: {_names(d.get('gates'))}",
    "closed": lambda d: f"closed: gates passed: {_names(d.get('gates') or d.get('mode'))}",
    "close_overruled": lambda d: "close overruled by another guard",
    "capped": lambda d: f"continuation cap reached ({d.get('continuations')})",
    "stuck_reset": lambda d: f"stuck: reset {d.get('reset')}",
    "honest_exit": lambda d: f"honest exit: {d.get('kind')}",
    "verify_run": lambda d: "verify " + run_line(d),
    "evidence_run": lambda d: "evidence " + run_line(d),
    "replay_run": lambda d: "replay against the original tests: " + run_line(d),
    "goal_detected": lambda d: f"goal detected ({d.get('source')})",
    "goal_failed": lambda d: f"goal verify failed (round {d.get('n')})",
    "goal_complete": lambda d: f"goal proven ({len(d.get('verify') or [])} verify run(s))",
    "goal_blocked": lambda d: f"goal blocked ({d.get('why')})",
    "goal_tests_held": lambda d: "protected tests changed: the pass is held",
    "review_asked": lambda d: (
        f"fresh reviewer asked for the goal {d['goal']}"
        if d.get("goal")
        else f"fresh reviewer asked for todo(s) {_names(d.get('todos'))}"
    ),
    "goal_reviewed": lambda d: "goal closed after the review round",
    "todo": lambda d: f"todo {d.get('action')} #{d.get('id')}",
    "todo_completed": lambda d: (
        f"todo #{d.get('id')} completed: "
        + (
            f"{len(d.get('unverified') or [])} claim(s) unverified"
            if d.get("unverified")
            else "evidence verified"
        )
    ),
    "todo_refused": lambda d: f"todo #{d.get('id')} refused: {d.get('reason')}",
    "mode": lambda d: (
        f"mode {d.get('mode') or 'off'}" + (f", phase {d['phase']}" if d.get("phase") else "")
    ),
    "mode_gate": lambda d: f"{d.get('tool')} refused in the {d.get('phase')} phase",
    "workflow": lambda d: (
        f"workflow {d.get('route')} {d.get('workItemId') or ''} {d.get('phase') or ''}"
        f" ({d.get('status')})"
    ),
    "error": lambda d: (
        f"internal error in {d.get('guard') or 'goalkeeper'}: "
        f"{d.get('error')} {clip(d.get('message') or '', 100)}"
    ),
}
