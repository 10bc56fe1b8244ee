"""Claude Code's sandbox as goalkeeper's wall: written into the user's settings by ``goalkeeper
install claude --sandbox``, taken out again by ``uninstall claude --sandbox``, and read back by
``doctor`` from every settings layer.

Facts, from Claude Code 2.1.332's settings schema (in its binary) and checked end to end
(``tests/e2e/test_claude_sandbox.py``):

* ``sandbox.enabled`` runs every Bash command under bubblewrap (Linux; Seatbelt on macOS): it
  may write the working folder and a temp folder of its own, nothing else. Hooks and MCP
  servers run outside it. A ``true`` in managed or user settings (or ``--settings``) holds
  whatever the project's ``.claude/settings*.json`` say; so does ``failIfUnavailable``. The
  sandbox itself keeps the agent's Bash from writing the project's ``.claude/settings*.json``.
* ``failIfUnavailable: true``: without it, a machine lacking bubblewrap or socat shows a
  warning and runs the commands unsandboxed.
* ``allowUnsandboxedCommands`` (default true) lets the model ask for a command outside the
  sandbox with the Bash tool's ``dangerouslyDisableSandbox``; ``false`` ignores that parameter,
  and a ``false`` in user settings holds whatever the project says.
* ``filesystem.denyRead`` / ``denyWrite`` (lists, merged over every layer): an absolute path
  (``/x`` or ``//x``) or ``~/x``. A denied folder is hidden behind an empty mount.
* ``network.allowAllUnixSockets`` opens every unix socket (on Linux a seccomp filter blocks
  creating one otherwise); ``network.allowUnixSockets`` lists paths, honoured on macOS only.
* ``excludedCommands`` run outside the sandbox.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from msgspec import Struct, field

from goalkeeper.hosts.command_hooks.findings import Finding, dig
from goalkeeper.hosts.command_hooks.json_doc import JsonFileError
from goalkeeper.hosts.command_hooks.own_folders import covered, inside

SANDBOX = "sandbox"
SWITCHES: dict[str, bool] = {
    "enabled": True,
    "failIfUnavailable": True,
    "allowUnsandboxedCommands": False,
}
"""The sandbox's switches ``install --sandbox`` sets, and the value each gets."""
DENY_LISTS = ("denyRead", "denyWrite")
STRONG_LAYERS = ("managed", "user")
"""Layers whose ``enabled: true`` / ``allowUnsandboxedCommands: false`` the project cannot undo."""
PRECEDENCE = ("managed", "local", "project", "user")
"""Claude Code's settings layers, strongest first (``--settings`` is not on disk)."""


class SandboxRecord(Struct, frozen=True):
    """What ``install claude --sandbox`` changed in the user's settings, for uninstall."""

    switched: tuple[str, ...] = ()
    """The switches install set (``enabled`` …); the others were so already."""
    previous: dict[str, Any] = field(default_factory=dict)
    """The value each switch install set had before (absent: it had none)."""
    added: dict[str, list[str]] = field(default_factory=dict)
    """The entries install appended to ``filesystem.denyRead`` / ``denyWrite``."""
    created: tuple[str, ...] = ()
    """The containers install created (``sandbox``, ``sandbox.filesystem``, …)."""


def add_sandbox(
    settings: dict[str, Any], folders: Sequence[str]
) -> tuple[dict[str, Any], SandboxRecord, list[tuple[str, dict[str, object]]]]:
    """A copy of ``settings`` with the sandbox on, its escape hatch shut and ``folders`` denied
    to it for reading and writing; the user's own entries are kept. Also the record of what
    changed, and the changes as catalog keys with their fields (none: already so)."""
    data = json.loads(json.dumps(settings))
    created: list[str] = []
    box = _table(data, SANDBOX, SANDBOX, created)
    previous: dict[str, Any] = {}
    switched: list[str] = []
    changes: list[tuple[str, dict[str, object]]] = []
    for key, value in SWITCHES.items():
        if box.get(key) is value:
            continue
        switched.append(key)
        if key in box:
            previous[key] = box[key]
        box[key] = value
        changes.append((f"sandbox.install.{key}", {}))
    fs = _table(box, "filesystem", f"{SANDBOX}.filesystem", created)
    added: dict[str, list[str]] = {}
    for name in DENY_LISTS:
        label = f"{SANDBOX}.filesystem.{name}"
        if name not in fs:
            created.append(label)
        entries = fs.setdefault(name, [])
        if not isinstance(entries, list):
            raise JsonFileError(f"'{label}' in the settings is not a list; fix it first")
        new = [f for f in folders if f not in entries]
        entries += new
        if new:
            added[name] = new
            changes.append((f"sandbox.install.{name}", {"folders": ", ".join(new)}))
        elif label in created:
            created.remove(label)
            del fs[name]
    return data, SandboxRecord(tuple(switched), previous, added, tuple(created)), changes


def remove_sandbox(
    settings: dict[str, Any], record: SandboxRecord
) -> tuple[dict[str, Any], list[tuple[str, dict[str, object]]]]:
    """A copy of ``settings`` without what ``record`` says install added: each switch back to
    its previous value (unless changed since: then it is the user's), its deny entries gone,
    the containers it created gone when empty."""
    data = json.loads(json.dumps(settings))
    box = data.get(SANDBOX)
    if not isinstance(box, dict):
        return data, []
    changes: list[tuple[str, dict[str, object]]] = []
    for key in record.switched:
        if box.get(key) is not SWITCHES.get(key):
            continue  # changed since install: the user's now
        if key in record.previous:
            box[key] = record.previous[key]
            changes.append(("sandbox.uninstall.restored", {"key": key}))
        else:
            del box[key]
            changes.append(("sandbox.uninstall.removed", {"key": key}))
    fs = box.get("filesystem")
    for name, entries in record.added.items():
        current = fs.get(name) if isinstance(fs, dict) else None
        if not isinstance(current, list):
            continue
        gone = [e for e in entries if e in current]
        current[:] = [e for e in current if e not in entries]
        if gone:
            changes.append(("sandbox.uninstall.denied", {"list": name}))
    for label in sorted(record.created, key=lambda s: s.count("."), reverse=True):
        *parents, last = label.split(".")
        holder = dig(data, *parents) if parents else data
        if isinstance(holder, dict) and holder.get(last) in ({}, []):
            del holder[last]
    return data, changes


def _table(parent: dict[str, Any], key: str, label: str, created: list[str]) -> dict[str, Any]:
    if key not in parent:
        created.append(label)
    table = parent.setdefault(key, {})
    if not isinstance(table, dict):
        raise JsonFileError(f"'{label}' in the settings is not an object; fix it first")
    return table


def dump_record(record: SandboxRecord) -> dict[str, Any]:
    return {
        "switched": list(record.switched),
        "previous": record.previous,
        "added": record.added,
        "created": list(record.created),
    }


def load_record(raw: Mapping[str, Any]) -> SandboxRecord:
    previous, added, created = raw.get("previous"), raw.get("added"), raw.get("created")
    switched = raw.get("switched")
    return SandboxRecord(
        tuple(k for k in switched if k in SWITCHES) if isinstance(switched, list) else (),
        {str(k): v for k, v in previous.items() if k in SWITCHES}
        if isinstance(previous, dict)
        else {},
        {
            str(k): [e for e in v if isinstance(e, str)]
            for k, v in added.items()
            if k in DENY_LISTS and isinstance(v, list)
        }
        if isinstance(added, dict)
        else {},
        tuple(c for c in created if isinstance(c, str)) if isinstance(created, list) else (),
    )


def merge_records(old: SandboxRecord | None, new: SandboxRecord) -> SandboxRecord:
    """A re-install keeps what the first install recorded (the values before goalkeeper)."""
    if old is None:
        return new
    added = {k: list(dict.fromkeys([*old.added.get(k, []), *new.added.get(k, [])])) for k in
             DENY_LISTS if k in old.added or k in new.added}  # fmt: skip
    return SandboxRecord(
        tuple(dict.fromkeys((*old.switched, *new.switched))),
        {**new.previous, **old.previous},
        added,
        tuple(dict.fromkeys((*old.created, *new.created))),
    )


# -------------------------------------------------------------------------------------------
# Reading it back: the sandbox the settings layers give the agent's Bash
# -------------------------------------------------------------------------------------------
class Effective(Struct, frozen=True):
    """The sandbox as Claude Code would run it from these settings layers."""

    enabled: bool
    enabled_in: str
    """The layer that decides ``enabled`` ("" when none sets it)."""
    fail_if_unavailable: bool
    escape_hatch: bool
    """``dangerouslyDisableSandbox`` is honoured (``allowUnsandboxedCommands`` not false)."""
    all_unix_sockets: bool
    unix_socket_paths: tuple[str, ...]
    deny_read: tuple[str, ...]
    deny_write: tuple[str, ...]
    excluded_commands: tuple[str, ...]


def effective(layers: Mapping[str, Mapping[str, Any]], home: str) -> Effective:
    """The sandbox the layers (``managed``, ``user``, ``project``, ``local``: settings
    documents) give: a switch from the strongest layer that sets it, except that ``enabled`` /
    ``failIfUnavailable`` true and ``allowUnsandboxedCommands`` false in managed or user
    settings hold whatever the project says; lists merged over every layer."""
    boxes = {name: dig(doc, SANDBOX) for name, doc in layers.items()}
    boxes = {name: box for name, box in boxes.items() if isinstance(box, Mapping)}

    def switch(key: str, strong: bool | None, default: bool) -> tuple[bool, str]:
        if strong is not None:
            for name in STRONG_LAYERS:
                if boxes.get(name, {}).get(key) is strong:
                    return strong, name
        for name in PRECEDENCE:
            value = boxes.get(name, {}).get(key)
            if isinstance(value, bool):
                return value, name
        return default, ""

    def merged(*keys: str) -> tuple[str, ...]:
        out: list[str] = []
        for box in boxes.values():
            value = dig(box, *keys)
            out += [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
        return tuple(dict.fromkeys(out))

    enabled, enabled_in = switch("enabled", True, False)
    fail, _ = switch("failIfUnavailable", True, False)
    hatch, _ = switch("allowUnsandboxedCommands", False, True)
    sockets = any(dig(box, "network", "allowAllUnixSockets") is True for box in boxes.values())
    return Effective(
        enabled,
        enabled_in,
        fail,
        hatch,
        sockets,
        merged("network", "allowUnixSockets"),
        _resolved(merged("filesystem", "denyRead"), home),
        _resolved(merged("filesystem", "denyWrite"), home),
        merged("excludedCommands"),
    )


def _resolved(rules: Sequence[str], home: str) -> tuple[str, ...]:
    """The absolute folders of path rules (``//x`` and ``/x`` from the root, ``~/x`` from the
    home folder; a trailing ``/**`` covers the folder); relative rules and other globs are left
    out: they name no one folder."""
    out: list[str] = []
    for rule in rules:
        path = rule[:-3] if rule.endswith("/**") else rule
        if "*" in path or "?" in path or "[" in path:
            continue
        if path == "~" or path.startswith("~/"):
            path = home + path[1:]
        elif not path.startswith("/"):
            continue
        out.append(os.path.normpath("/" + path.lstrip("/")))
    return tuple(out)


def sandbox_findings(box: Effective, folders: Sequence[str]) -> list[Finding]:
    """doctor's findings on the agent's Bash: off is a note (goalkeeper still works, on text
    checks); on but with a hole in it (goalkeeper's folders not denied, unix sockets open, the
    escape hatch open) is a problem, since the wall the user chose does not hold."""
    from goalkeeper.core.messages import make_say

    say = make_say("en")
    fix = say("sandbox.fix")
    if not box.enabled:
        return [Finding("claude", "sandbox", True, say("sandbox.off"), fix, warn=True)]
    out: list[Finding] = []
    if box.enabled_in not in STRONG_LAYERS:
        weak = say("sandbox.weak", layer=box.enabled_in)
        out.append(Finding("claude", "sandbox", True, weak, fix, warn=True))
    else:
        out.append(Finding("claude", "sandbox", True, say("sandbox.on", layer=box.enabled_in)))
    if not box.fail_if_unavailable:
        out.append(Finding("claude", "sandbox", True, say("sandbox.may_fall_back"), fix, warn=True))
    for name, rules in (("denyRead", box.deny_read), ("denyWrite", box.deny_write)):
        open_ = [f for f in folders if not covered(f, rules)]
        if open_:
            detail = say("sandbox.not_denied", list=name, folders=", ".join(open_))
            out.append(Finding("claude", "sandbox-folders", False, detail, fix))
    if not any(f.check == "sandbox-folders" for f in out):
        out.append(Finding("claude", "sandbox-folders", True, say("sandbox.denied")))
    ours = [p for p in box.unix_socket_paths if any(inside(p, f) for f in folders)]
    if box.all_unix_sockets or ours:
        detail = say("sandbox.sockets_open", paths=", ".join(ours) or "allowAllUnixSockets")
        out.append(Finding("claude", "sandbox-sockets", False, detail, say("sandbox.fix_sockets")))
    if box.escape_hatch:
        out.append(Finding("claude", "sandbox-escape", False, say("sandbox.escape"), fix))
    if box.excluded_commands:
        detail = say("sandbox.excluded", commands=", ".join(box.excluded_commands))
        out.append(Finding("claude", "sandbox-escape", True, detail, warn=True))
    return out


def is_confined(box: Effective, folders: Sequence[str]) -> bool:
    """The agent's Bash is confined in goalkeeper's sense: the sandbox is on and held by managed
    or user settings, never falls back to running unsandboxed, has no escape hatch, and keeps
    the shell out of goalkeeper's folders and away from unix sockets."""
    return (
        box.enabled
        and box.enabled_in in STRONG_LAYERS
        and box.fail_if_unavailable
        and not box.escape_hatch
        and not box.all_unix_sockets
        and not any(inside(p, f) for p in box.unix_socket_paths for f in folders)
        and all(covered(f, box.deny_read) and covered(f, box.deny_write) for f in folders)
    )
