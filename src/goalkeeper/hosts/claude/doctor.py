"""``goalkeeper doctor``'s checks for Claude Code (2.1.332), pure functions over settings
documents already read (``cli/doctor/doctor`` reads them, and reports a file it cannot read).

Facts, from the bundled CLI (tests/e2e/node_modules/@anthropic-ai/claude-code-linux-x64) and
``/work/shared/reference/claude-code-hooks.md``:

* ``"disableAllHooks": true`` in any settings layer turns every hook off (§1.3), and
  ``allowManagedHooksOnly`` is honoured from managed settings only (``managed-settings.json``
  in ``/etc/claude-code``, ``/Library/Application Support/ClaudeCode`` on macOS): then hooks
  of the user, project and local settings never run.
* An interactive session holds settings hooks back until the project's trust dialog is
  accepted (§1.4): ``~/.claude.json`` ``projects[<folder>].hasTrustDialogAccepted``, looked up
  from the folder upwards to its git root (the CLI's ``xh``); ``-p`` treats it as trusted, and
  the dialog asks once, so this is a warning, not a failure.
* The plugin (``claude plugin install goalkeeper@goalkeeper``) is the alternative to settings
  hooks: ``enabledPlugins["goalkeeper@goalkeeper"]`` in a settings layer.
* The hooks point the agent at ``mcp__goalkeeper__*``: the server is in the project's
  ``.mcp.json`` (approved by ``enabledMcpjsonServers`` or ``enableAllProjectMcpServers``, not
  refused by ``disabledMcpjsonServers``) or in ``~/.claude.json`` (``mcpServers``: user;
  ``projects[<abs project>].mcpServers``: local), or comes with the plugin.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from goalkeeper.hosts.claude.hook import HOOK_EVENTS
from goalkeeper.hosts.claude.plugin import MARKETPLACE_NAME
from goalkeeper.hosts.claude.settings import MCP_SERVER, is_goalkeeper_command
from goalkeeper.hosts.command_hooks.findings import Finding, coverage, dig, handler_events
from goalkeeper.hosts.command_hooks.wire import PLUGIN_NAME
from goalkeeper.hosts.transport.launcher import is_goalkeeper_mcp

PLUGIN_ID = f"{PLUGIN_NAME}@{MARKETPLACE_NAME}"
MANAGED_FILES = (
    "/etc/claude-code/managed-settings.json",
    "/Library/Application Support/ClaudeCode/managed-settings.json",
)


def plugin_enabled(settings: Mapping[str, Any]) -> bool:
    return dig(settings, "enabledPlugins", PLUGIN_ID) is True


def layer_findings(layer: str, path: str, settings: Mapping[str, Any]) -> list[Finding]:
    """The hooks of one settings file holding goalkeeper's handlers: every event present."""
    scope = "" if layer == "project" else f" --{layer}"
    found = handler_events(settings.get("hooks"), HOOK_EVENTS, is_goalkeeper_command)
    return [
        coverage(
            "claude", f"{layer} {path}", found, HOOK_EVENTS, f"goalkeeper install claude{scope}"
        )
    ]


def switch_findings(path: str, settings: Mapping[str, Any], *, managed: bool) -> list[Finding]:
    """The switches of any settings file that stop goalkeeper's hooks (whether it holds them or
    not): ``disableAllHooks``; in managed settings also ``allowManagedHooksOnly``."""
    out: list[Finding] = []
    if settings.get("disableAllHooks") is True:
        fix = "ask your administrator" if managed else f'remove "disableAllHooks" from {path}'
        out.append(
            Finding(
                "claude", "hooks-enabled", False, f"{path} sets disableAllHooks: no hook runs", fix
            )
        )
    if managed and settings.get("allowManagedHooksOnly") is True:
        out.append(
            Finding(
                "claude",
                "hooks-enabled",
                False,
                f"{path} sets allowManagedHooksOnly: only managed hooks run, not goalkeeper's",
                "ask your administrator (or use goalkeeper through a managed hook)",
            )
        )
    return out


def trust_finding(claude_json: Mapping[str, Any], project: str, git_root: str | None) -> Finding:
    """Whether the trust dialog was accepted for ``project`` (a real path) or a folder above it
    up to its git root (``git_root``; up to ``/`` outside a repository)."""
    projects = claude_json.get("projects")
    folder = project
    while isinstance(projects, dict):
        if dig(projects, folder, "hasTrustDialogAccepted") is True:
            return Finding("claude", "project-trust", True, f"trust accepted for {folder}")
        parent = os.path.dirname(folder)
        if folder == git_root or parent == folder:
            break
        folder = parent
    return Finding(
        "claude",
        "project-trust",
        True,
        f"the trust dialog was not accepted for {project} yet: an interactive `claude` asks "
        "once and holds the hooks back until you accept (`claude -p` trusts it)",
        "start `claude` in the project once and accept the trust dialog",
        warn=True,
    )


def mcp_finding(
    settings_layers: Sequence[Mapping[str, Any]],
    mcp_json: Mapping[str, Any],
    claude_json: Mapping[str, Any],
    project: str,
    *,
    plugin: bool,
) -> Finding:
    """Where the agent finds ``mcp__goalkeeper__*``: the plugin's own server, ``~/.claude.json``
    (user or local scope), or the project's ``.mcp.json`` once approved."""
    if plugin:
        return Finding("claude", "mcp", True, "the plugin brings goalkeeper's MCP server")
    if is_goalkeeper_mcp(dig(claude_json, "mcpServers", MCP_SERVER)):
        return Finding("claude", "mcp", True, "'goalkeeper' MCP server in ~/.claude.json (user)")
    if is_goalkeeper_mcp(dig(claude_json, "projects", project, "mcpServers", MCP_SERVER)):
        return Finding("claude", "mcp", True, "'goalkeeper' MCP server in ~/.claude.json (local)")
    if not is_goalkeeper_mcp(dig(mcp_json, "mcpServers", MCP_SERVER)):
        return Finding(
            "claude",
            "mcp",
            False,
            "no goalkeeper MCP server (.mcp.json, ~/.claude.json): the hooks point the agent "
            "at mcp__goalkeeper__* tools",
            "goalkeeper install claude",
        )
    entry = dig(claude_json, "projects", project)
    layers = [*settings_layers, entry if isinstance(entry, Mapping) else {}]
    refused = any(_names(s.get("disabledMcpjsonServers")) for s in layers)
    approved = any(
        _names(s.get("enabledMcpjsonServers")) or s.get("enableAllProjectMcpServers") is True
        for s in layers
    )
    if refused or not approved:
        why = "refused (disabledMcpjsonServers)" if refused else "not approved"
        return Finding(
            "claude",
            "mcp",
            False,
            f"the project's 'goalkeeper' MCP server in .mcp.json is {why}",
            "goalkeeper install claude (it approves the server in .claude/settings.json)",
        )
    return Finding("claude", "mcp", True, "'goalkeeper' MCP server in .mcp.json, approved")


def _names(value: object) -> bool:
    return isinstance(value, list) and MCP_SERVER in value
