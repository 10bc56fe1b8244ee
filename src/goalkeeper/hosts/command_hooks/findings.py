"""What ``goalkeeper doctor`` found about one host: typed findings, and the counting every host's
check shares.

Each host's checks live beside its configuration code (``hosts.codex.config``,
``hosts.gemini.settings``, ``hosts.claude.doctor``, ``cli/install/pi``) as pure functions over
documents already read; they return these values and ``cli/doctor/doctor`` reads the files, runs the
launcher probe and renders. A finding says what is true (``detail``) and, when it is a problem, the
one command or step that fixes it (``fix``): the user should never have to guess why a host's hooks
stay silent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from msgspec import Struct


class Finding(Struct, frozen=True):
    """One check of one host. ``ok``: nothing stands in the way of goalkeeper's hooks here;
    ``warn``: not a failure (the host asks the user, or runs them anyway) but worth knowing."""

    host: str
    check: str
    ok: bool
    detail: str
    fix: str = ""
    warn: bool = False


def handler_events(
    hooks: object, events: Iterable[str], ours: Callable[[object], bool]
) -> list[str]:
    """The events of ``events`` that have one of goalkeeper's handlers (``ours(command)``) in a
    hooks map of the shape Claude Code, Codex and Gemini CLI share (event → groups → ``hooks``
    → handlers); anything of another shape counts as none."""
    if not isinstance(hooks, dict):
        return []
    found: list[str] = []
    for event in events:
        groups = hooks.get(event)
        for group in groups if isinstance(groups, list) else ():
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(handlers, list) and any(
                isinstance(h, dict) and ours(h.get("command")) for h in handlers
            ):
                found.append(event)
                break
    return found


def our_commands(hooks: object, ours: Callable[[object], bool]) -> list[str]:
    """Every command string of goalkeeper's handlers in a hooks map (any event)."""
    out: list[str] = []
    for groups in hooks.values() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h in handlers if isinstance(handlers, list) else ():
                if isinstance(h, dict) and ours(h.get("command")):
                    out.append(str(h["command"]))
    return out


def dig(doc: object, *keys: str) -> Any:
    """``doc[k1][k2]…``, or ``None`` where a level is missing or not an object (a file the
    agent may have written can hold any shape)."""
    for key in keys:
        if not isinstance(doc, Mapping):
            return None
        doc = doc.get(key)
    return doc


def coverage(host: str, label: str, found: list[str], events: tuple[str, ...], fix: str) -> Finding:
    """The ``hooks`` finding for one file: every event of goalkeeper's present, or which miss."""
    missing = [e for e in events if e not in found]
    if not missing:
        return Finding(
            host, "hooks", True, f"{label}: goalkeeper's hooks for all {len(events)} events"
        )
    return Finding(
        host,
        "hooks",
        False,
        f"{label}: goalkeeper's hooks miss {', '.join(missing)}",
        fix,
    )


def stale_mcp(host: str, where: str, fix: str) -> Finding:
    """A goalkeeper MCP server entry that does not name its host (an older ``install``): the
    server then names its tools as Claude Code does, which the host's model does not have, and
    on Gemini CLI the project's ``.env`` could set its settings."""
    return Finding(
        host,
        "mcp",
        False,
        f"the 'goalkeeper' MCP server in {where} was registered by an older goalkeeper (no "
        f"`--host {host}`): it names its tools as Claude Code does",
        fix,
    )
