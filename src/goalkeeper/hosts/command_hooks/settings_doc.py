"""The ``hooks`` map of a settings document, in the shape Claude Code and Gemini CLI share.

Event → groups → ``hooks`` → handlers, each handler a ``command``. goalkeeper's handlers are
told apart by their command (each host's ``is_goalkeeper_command``), so installing twice
changes nothing and uninstalling takes exactly them out. Each host's settings module
(``hosts/claude/settings.py``, ``hosts/gemini/settings.py``) says which events and handlers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from goalkeeper.hosts.command_hooks.json_doc import JsonFileError


def drop_handlers(hooks: dict[str, Any], ours: Callable[[object], bool]) -> list[str]:
    """Take goalkeeper's handlers (``ours(command)``) out of a ``hooks`` map in place, in the
    shape Claude Code and Gemini CLI share (event → groups → ``hooks`` → handlers): a group left
    without handlers goes, and an event left without groups. The changes, one per event."""
    changes: list[str] = []
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                kept_groups.append(group)
                continue
            kept = [h for h in handlers if not (isinstance(h, dict) and ours(h.get("command")))]
            if len(kept) != len(handlers):
                changes.append(f"removed the {event} hook")
            if kept:
                kept_groups.append({**group, "hooks": kept})
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    return changes


def put_hooks(
    data: dict[str, Any],
    events: Sequence[str],
    ensure: Callable[[str, list[Any]], list[str]],
) -> list[str]:
    """goalkeeper's handler for each of ``events`` in a settings document's ``hooks`` map (the
    shape Claude Code and Gemini CLI share), put there by ``ensure(event, groups)``; what
    changed. Raises ``JsonFileError`` for a shape it cannot safely change (the file is then
    left as it is)."""
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise JsonFileError("'hooks' in the settings is not an object; fix it first")
    changes: list[str] = []
    for event in events:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise JsonFileError(f"'hooks.{event}' in the settings is not a list; fix it first")
        changes += ensure(event, groups)
    return changes


def put_handler(
    event: str,
    groups: list[Any],
    handler: dict[str, Any],
    matcher: str | None,
    ours: Callable[[object], bool],
) -> list[str]:
    """goalkeeper's ``handler`` for ``event`` in its own group (with ``matcher`` where the event
    takes one), added or brought up to date in place, in the hooks shape Claude Code and Gemini
    CLI share; ``ours(command)`` tells goalkeeper's handlers. The change, if any."""
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        mine = [
            h
            for h in (handlers if isinstance(handlers, list) else [])
            if isinstance(h, dict) and ours(h.get("command"))
        ]
        if not mine:
            continue
        stale = any(h != handler for h in mine) or (matcher and group.get("matcher") != matcher)
        for h in mine:
            h.clear()
            h.update(handler)
        if matcher:
            group["matcher"] = matcher
        return [f"updated the {event} hook"] if stale else []
    groups.append({"matcher": matcher, "hooks": [handler]} if matcher else {"hooks": [handler]})
    return [f"added the {event} hook"]
