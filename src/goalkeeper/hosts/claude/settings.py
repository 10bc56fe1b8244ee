"""Merge goalkeeper's hooks into Claude Code settings, and take exactly them out again.

Other hooks and settings are never touched. goalkeeper's handlers are recognised by their
command (``… goalkeeper hook claude``), so installing twice changes nothing and a moved
virtualenv is updated in place.

Claude Code ends a turn after 8 Stop blocks in a row with no tool call in between (a tool call
restarts its count). A PDCA loop that works calls tools and is never cut; a tool-less streak is
bounded by goalkeeper's own stuck rule, which with the defaults pauses exactly at the 9th stop.
So that goalkeeper's limits, not Claude Code's, decide in every configuration (a longer stuck
streak, other Stop hooks blocking too), install raises ``CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`` in the
settings' ``env`` (Claude Code applies it to its own process; proven end to end) above both of
goalkeeper's caps. What install changed in ``env`` is written to a receipt, so uninstall
restores the previous value.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from msgspec import Struct, field

from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.hosts.claude.hook import HOOK_EVENTS, PRE_TOOL_MATCHER
from goalkeeper.hosts.command_hooks.json_doc import (
    MAX_BYTES,
    JsonFileError,
    Style,
    read_document,
    write_document,
)
from goalkeeper.hosts.command_hooks.settings_doc import drop_handlers, put_handler, put_hooks
from goalkeeper.hosts.transport.launcher import is_goalkeeper_mcp

if TYPE_CHECKING:
    from goalkeeper.core.messages import Lang

Scope = Literal["project", "local", "user"]
SettingsError = JsonFileError
"""A settings or MCP file cannot be changed safely; it is left as it was."""
BLOCK_CAP_VAR = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"
BLOCK_CAP_HEADROOM = 10  # room for other Stop hooks that block in the same loop
HOOK_TIMEOUT_S = 60
STOP_TIMEOUT_S = 600  # a Stop may run the goal's verification (default timeout 120 s per command)
_OURS = lazy_re(r"""(?:^|[\s/'"])goalkeeper['"]?\s+hook\s+claude\b""")


class Receipt(Struct, frozen=True):
    """What install changed besides its own hooks, so uninstall can undo exactly that."""

    env_set: dict[str, str] = field(default_factory=dict)
    env_previous: dict[str, str | None] = field(default_factory=dict)
    created: tuple[str, ...] = ()
    """Top-level settings keys ("hooks", "env", "enabledMcpjsonServers") install created."""
    enabled_mcp: bool = False
    """Install added "goalkeeper" to ``enabledMcpjsonServers``."""
    mcp_server: bool = False
    """Install added the "goalkeeper" server to .mcp.json."""
    mcp_file_created: bool = False
    goal_command: bool = False
    """Install wrote the /gk-goal command file."""
    commands: tuple[str, ...] = ()
    """The command files install wrote (``gk-goal``, ``workflow``)."""
    mcp_config: str = ""
    """Where install put the MCP server: ``project`` (.mcp.json), ``local`` or ``user``
    (``~/.claude.json``); "" from versions that only wrote .mcp.json."""
    mcp_created: int = 0
    """How many of the containers on the way to the server (``mcpServers``, a project's entry
    in ``~/.claude.json``) install created, counted from the innermost."""
    created_paths: tuple[str, ...] = ()
    """Files and folders install created (``~`` for the home folder, else relative to the
    project), removed by uninstall when nothing but what install put there is left."""

    def wrote(self, name: str) -> bool:
        return name in self.commands or (name == GOAL_COMMAND_NAME and self.goal_command)


MCP_SERVER = "goalkeeper"


def hook_command(python: str | None = None) -> str:
    """The hook command Claude Code runs for every event: the portable launcher
    (``hosts.transport.launcher``), which finds goalkeeper at run time and names no path of this
    machine.
    This is the launcher's public entry point for settings and plugins (``hooks.json``).
    ``python`` bakes in this machine's interpreter as a fallback: only for files that are never
    committed (``--local``, ``--user``)."""
    from goalkeeper.hosts.transport.launcher import hook_command as launcher_hook_command

    return launcher_hook_command("claude", python)


def mcp_command(python: str | None = None) -> list[str]:
    """The MCP server's argv (``command`` is its first item, ``args`` the rest): the same
    launcher, so a teammate without goalkeeper gets a failed server and one clear stderr line,
    never a broken session."""
    from goalkeeper.hosts.transport.launcher import mcp_argv

    return mcp_argv(python)


def is_goalkeeper_command(command: object) -> bool:
    return isinstance(command, str) and bool(_OURS.search(command))


def command_path(scope: Scope, project: Path, home: Path, name: str = "gk-goal") -> Path:
    base = home if scope == "user" else project
    return base / ".claude" / "commands" / f"{name}.md"


def settings_path(scope: Scope, project: Path, home: Path) -> Path:
    if scope == "user":
        return home / ".claude" / "settings.json"
    name = "settings.local.json" if scope == "local" else "settings.json"
    return project / ".claude" / name


def receipt_path(scope: Scope, project: Path, home: Path) -> Path:
    """In goalkeeper's state folder (the project's, or the state home for ``--user``)."""
    from goalkeeper.store.locations import project_state_dir, state_home

    base = state_home() if scope == "user" else project_state_dir(project)
    return base / f"install-claude-{scope}.json"


SETTINGS_MAX_BYTES = MAX_BYTES


def read_json_object(path: Path) -> dict[str, Any]:
    """The file's JSON object; ``{}`` when it does not exist. Raises ``SettingsError`` for
    anything that is not a JSON object, so a file we cannot parse is never overwritten."""
    return read_document(path)[0]


def write_json_atomic(path: Path, data: dict[str, Any], style: Style | None = None) -> None:
    """Write ``data`` in ``style`` (the file's own, from ``read_document``; goalkeeper's for a
    new file), atomically and with the file's permission bits."""
    write_document(path, data, style)


def add_hooks(
    settings: dict[str, Any], command: str, block_cap: int, *, enable_mcp: bool = False
) -> tuple[dict[str, Any], Receipt, list[str]]:
    """A copy of ``settings`` with goalkeeper's hooks and block cap (and, with ``enable_mcp``,
    the project's "goalkeeper" MCP server approved); also the receipt and a list of what
    changed (empty when it was already installed)."""
    data = json.loads(json.dumps(settings))  # deep copy, JSON types only
    keys = ("hooks", "env", "enabledMcpjsonServers") if enable_mcp else ("hooks", "env")
    created = tuple(key for key in keys if key not in data)
    changes = put_hooks(
        data, HOOK_EVENTS, lambda event, groups: _ensure_handler(event, groups, command)
    )
    env = data.setdefault("env", {})
    if not isinstance(env, dict):
        raise SettingsError("'env' in the settings is not an object; fix it first")
    env_set: dict[str, str] = {}
    env_previous: dict[str, str | None] = {}
    current = env.get(BLOCK_CAP_VAR)
    if not _cap_is_enough(current, block_cap):
        env[BLOCK_CAP_VAR] = env_set[BLOCK_CAP_VAR] = str(block_cap)
        env_previous[BLOCK_CAP_VAR] = _as_str(current)
        changes.append(f"set env {BLOCK_CAP_VAR}={block_cap}")
    if not env and "env" in created:
        del data["env"]
    enabled_added = False
    if enable_mcp:
        enabled = data.setdefault("enabledMcpjsonServers", [])
        if not isinstance(enabled, list):
            raise SettingsError(
                "'enabledMcpjsonServers' in the settings is not a list; fix it first"
            )
        if MCP_SERVER not in enabled:
            enabled.append(MCP_SERVER)
            enabled_added = True
            changes.append(f"approved the project's {MCP_SERVER!r} MCP server")
    receipt = Receipt(env_set, env_previous, created, enabled_mcp=enabled_added)
    return data, receipt, changes


def remove_hooks(
    settings: dict[str, Any], receipt: Receipt | None
) -> tuple[dict[str, Any], list[str]]:
    """A copy of ``settings`` without goalkeeper's handlers, without the env values its
    receipt says it set (restoring what was there before) and without its MCP approval."""
    data = json.loads(json.dumps(settings))
    changes: list[str] = []
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        changes += drop_handlers(hooks, is_goalkeeper_command)
        if not hooks and (receipt is None or "hooks" in receipt.created):
            del data["hooks"]
    env = data.get("env")
    if receipt is not None and isinstance(env, dict):
        for key, value in receipt.env_set.items():
            if env.get(key) != value:
                continue  # changed since install: the user's now
            previous = receipt.env_previous.get(key)
            if previous is None:
                del env[key]
            else:
                env[key] = previous
            changes.append(f"restored env {key}")
        if not env and "env" in receipt.created:
            del data["env"]
    enabled = data.get("enabledMcpjsonServers")
    if receipt is not None and receipt.enabled_mcp and isinstance(enabled, list):
        if MCP_SERVER in enabled:
            enabled.remove(MCP_SERVER)
            changes.append(f"withdrew the approval of the {MCP_SERVER!r} MCP server")
        if not enabled and "enabledMcpjsonServers" in receipt.created:
            del data["enabledMcpjsonServers"]
    return data, changes


MCP_FILE = ".mcp.json"
CLAUDE_JSON = ".claude.json"
"""Claude Code's own config in the home folder: ``mcpServers`` holds the servers of
``claude mcp add --scope user``, ``projects[<abs project>].mcpServers`` those of
``--scope local`` (checked with Claude Code 2.1.332)."""


def mcp_location(scope: Scope, project: Path, home: Path) -> tuple[Path, tuple[str, ...]]:
    """The file and the keys to the server table where ``scope``'s MCP server goes: the
    project's shared .mcp.json, or ``~/.claude.json`` for the scopes that are not committed
    (``--local`` is private to this user and project there, as ``claude mcp add`` does)."""
    if scope == "project":
        return project / MCP_FILE, ("mcpServers",)
    if scope == "local":
        return home / CLAUDE_JSON, ("projects", str(project), "mcpServers")
    return home / CLAUDE_JSON, ("mcpServers",)


def mcp_entry(argv: list[str], in_claude_json: bool) -> dict[str, Any]:
    """The server entry as Claude Code writes it where it goes: ``~/.claude.json`` entries
    carry ``type`` and ``env``, as ``claude mcp add`` writes them."""
    entry: dict[str, Any] = {"command": argv[0], "args": argv[1:]}
    return {"type": "stdio", **entry, "env": {}} if in_claude_json else entry


def missing_containers(mcp: dict[str, Any], keys: tuple[str, ...]) -> int:
    """How many of the containers on the way to the server table ``add_mcp_server`` will
    create, counted from the innermost (``Receipt.mcp_created``)."""
    table: object = mcp
    for depth, key in enumerate(keys):
        if not isinstance(table, dict) or key not in table:
            return len(keys) - depth
        table = table[key]
    return 0


def add_mcp_server(
    mcp: dict[str, Any],
    argv: list[str],
    keys: tuple[str, ...] = ("mcpServers",),
    entry: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], bool, list[str]]:
    """A copy of ``mcp`` with the "goalkeeper" server under ``keys`` (``entry``, else
    ``command``/``args`` from ``argv``); whether it was added (rather than already there), and
    what changed."""
    data = json.loads(json.dumps(mcp))
    table = data
    for depth, key in enumerate(keys):
        table = table.setdefault(key, {})
        if not isinstance(table, dict):
            raise SettingsError(f"{'.'.join(keys[: depth + 1])!r} is not an object; fix it first")
    wanted = entry if entry is not None else mcp_entry(argv, in_claude_json=False)
    existing = table.get(MCP_SERVER)
    if existing == wanted:
        return data, False, []
    table[MCP_SERVER] = wanted
    verb = "updated" if existing is not None else "added"
    return data, existing is None, [f"{verb} the {MCP_SERVER!r} MCP server"]


def remove_mcp_server(
    mcp: dict[str, Any], keys: tuple[str, ...] = ("mcpServers",), created: int = 0
) -> tuple[dict[str, Any], list[str]]:
    """A copy of ``mcp`` without goalkeeper's server (recognised by its command, so a server
    the user put under that name is kept), and without the ``created`` innermost containers
    install made when they are empty now."""
    data = json.loads(json.dumps(mcp))
    path: list[dict[str, Any]] = [data]
    for key in keys:
        table = path[-1].get(key)
        if not isinstance(table, dict):
            return data, []
        path.append(table)
    if not is_goalkeeper_mcp(path[-1].get(MCP_SERVER)):
        return data, []
    del path[-1][MCP_SERVER]
    for depth in range(len(keys), len(keys) - created, -1):
        if path[depth]:
            break
        del path[depth - 1][keys[depth - 1]]
    return data, [f"removed the {MCP_SERVER!r} MCP server"]


def _ensure_handler(event: str, groups: list[Any], command: str) -> list[str]:
    """goalkeeper's handler for ``event`` in its own group (with the tool matcher for
    PreToolUse), added or brought up to date."""
    timeout = STOP_TIMEOUT_S if event == "Stop" else HOOK_TIMEOUT_S
    handler = {"type": "command", "command": command, "timeout": timeout}
    matcher = PRE_TOOL_MATCHER if event == "PreToolUse" else None
    return put_handler(event, groups, handler, matcher, is_goalkeeper_command)


def save_receipt(path: Path, receipt: Receipt) -> None:
    write_json_atomic(
        path,
        {
            "env_set": receipt.env_set,
            "env_previous": receipt.env_previous,
            "created": list(receipt.created),
            "enabled_mcp": receipt.enabled_mcp,
            "mcp_server": receipt.mcp_server,
            "mcp_file_created": receipt.mcp_file_created,
            "goal_command": receipt.goal_command,
            "commands": list(receipt.commands),
            "mcp_config": receipt.mcp_config,
            "mcp_created": receipt.mcp_created,
            "created_paths": list(receipt.created_paths),
        },
    )


def load_receipt(path: Path) -> Receipt | None:
    try:
        raw = read_json_object(path)
    except SettingsError:
        return None
    env_set, previous, created = raw.get("env_set"), raw.get("env_previous"), raw.get("created")
    if not isinstance(env_set, dict) or not isinstance(previous, dict):
        return None
    return Receipt(
        {str(k): str(v) for k, v in env_set.items()},
        {str(k): (None if v is None else str(v)) for k, v in previous.items()},
        tuple(str(k) for k in created) if isinstance(created, list) else (),
        enabled_mcp=raw.get("enabled_mcp") is True,
        mcp_server=raw.get("mcp_server") is True,
        mcp_file_created=raw.get("mcp_file_created") is True,
        goal_command=raw.get("goal_command") is True,
        commands=_strings(raw.get("commands")),
        mcp_config=str(raw.get("mcp_config") or ""),
        mcp_created=created_n if isinstance(created_n := raw.get("mcp_created"), int) else 0,
        created_paths=_strings(raw.get("created_paths")),
    )


def _strings(value: object) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _cap_is_enough(value: object, needed: int) -> bool:
    try:
        cap = int(str(value))
    except ValueError:
        return False
    return cap == 0 or cap >= needed


def _as_str(value: object) -> str | None:
    return None if value is None else str(value)


GOAL_COMMAND_NAME = "gk-goal"
"""goalkeeper's slash command in Claude Code: ``/gk-goal <goal>``. Not ``/goal``: that is
Claude Code's own (a Stop hook judged by a small model on the transcript); the two can run side
by side, and goalkeeper's runs the verification itself."""


COMMAND_FILES = {
    GOAL_COMMAND_NAME: "goal.command_file",
    "workflow": "workflow.command_file",
    "gk-mode": "mode.command_file",
}
"""goalkeeper's slash commands in Claude Code and the catalog key of each command file."""


def command_text(name: str, lang: Lang = "en") -> str:
    """A command file: it only frames the prompt; goalkeeper's UserPromptSubmit hook acts on
    the command itself."""
    from goalkeeper.core.messages import make_say

    return make_say(lang)(COMMAND_FILES[name])


def is_command_text(name: str, text: str) -> bool:
    """The file holds the text goalkeeper wrote for ``name``, in any language: uninstall may
    remove it."""
    return text in (command_text(name, "en"), command_text(name, "zh"))


def goal_command_text(lang: Lang = "en") -> str:
    """The command file: it only frames the prompt; goalkeeper's UserPromptSubmit hook records
    the goal (``/gk-goal …``, a ``Goal:`` and a ``目标：`` line are all recognised)."""
    from goalkeeper.core.messages import make_say

    return make_say(lang)("goal.command_file")
