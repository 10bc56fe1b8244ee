"""Merge goalkeeper's hooks and MCP server into Gemini CLI settings, and take exactly them out.

Gemini CLI 0.61.0 reads hooks from ``settings.json`` (``<project>/.gemini/`` or ``~/.gemini/``)
under ``"hooks"``: ``{"<Event>": [{"matcher": …, "hooks": [{"name", "type": "command",
"command", "timeout" (ms)}]}]}``, and MCP servers under ``"mcpServers"``. goalkeeper's handlers
are recognised by their command (the launcher's first line, ``# goalkeeper hook gemini``), so
installing twice changes nothing and a handler of another version is brought up to date. Other
hooks and settings are never touched. Pure: dictionaries in, dictionaries out.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from msgspec import Struct

from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.hosts.command_hooks.findings import (
    Finding,
    coverage,
    dig,
    handler_events,
    our_commands,
    stale_mcp,
)
from goalkeeper.hosts.command_hooks.json_doc import JsonFileError
from goalkeeper.hosts.command_hooks.settings_doc import drop_handlers, put_handler, put_hooks
from goalkeeper.hosts.gemini.hook import HOOK_EVENTS, OWN_TOOL_PREFIX
from goalkeeper.hosts.transport.launcher import is_goalkeeper_mcp, mcp_host

GeminiScope = Literal["project", "user"]
HOOK_NAME = "goalkeeper"
HOOK_TIMEOUT_MS = 60_000
SETTLE_TIMEOUT_MS = 600_000
"""AfterAgent may run the goal's verification (default 120 s per command)."""
BEFORE_TOOL_MATCHER = f"^({OWN_TOOL_PREFIX}.*|run_shell_command|write_file|replace|write_todos)$"
"""The tools goalkeeper judges before they run: its own (the session hand-over), the shell (by
its command line), the file writers and Gemini's own todo list (a completion there is refused:
completions go through goalkeeper's todo tool, with evidence). AfterTool has no matcher: every
call is counted."""
MCP_SERVER = "goalkeeper"
LAUNCHER_VAR = "GOALKEEPER_PYTHON"
TRUST_VAR = "GEMINI_CLI_TRUST_WORKSPACE"
GEMINI_EXCLUDED_DEFAULT = ("DEBUG", "DEBUG_MODE")
"""``advanced.excludedEnvVars``'s default in 0.61.0: the variables Gemini does not take from a
project's ``.env``. Install adds ``GOALKEEPER_PYTHON``: the launcher runs the interpreter it
names, and a ``.env`` in the project is the agent's to write (``hosts.gemini.env``)."""
_OURS = lazy_re(r"""(?:^|[\s/'"])goalkeeper['"]?\s+hook\s+gemini\b""")


class Receipt(Struct, frozen=True):
    """What install created besides its own entries, so uninstall removes exactly that."""

    created: tuple[str, ...] = ()
    """Top-level settings keys install created ("hooks", "mcpServers")."""
    mcp_server: bool = False
    """Install added the "goalkeeper" MCP server (it was not there)."""
    created_paths: tuple[str, ...] = ()
    """Files and folders install created (``~/…`` or relative to the project)."""
    excluded: str = ""
    """``created``: install wrote ``advanced.excludedEnvVars`` (Gemini's default and
    ``GOALKEEPER_PYTHON``); ``added``: it added ``GOALKEEPER_PYTHON`` to the user's list."""


def hook_command(python: str | None = None) -> str:
    """The hook command for Gemini CLI: the portable launcher (``hosts.transport.launcher``),
    with every ``$`` hidden. Gemini expands ``$NAME`` and ``${NAME}`` in every string of a settings
    file as it loads it (0.61.0 ``resolveEnvVarsInObject``), with the CLI's own environment: ``for d
    in $PATH`` became one literal word that no longer splits at ``:`` (the launcher found no
    goalkeeper on ``PATH``, seen end to end), and a variable of the script that the environment
    happens to hold would be replaced too. So the script goes in as ``printf %b`` octal escapes
    (``\0044`` for ``$``, also the backslash and the quote) and runs with ``eval``; the first line
    still names it (``is_goalkeeper_command``)."""
    from goalkeeper.hosts.transport.launcher import hook_command as launcher_hook_command

    head, _, script = launcher_hook_command("gemini", python).partition("\n")
    return f"{head}\n{hidden(script, bash=True)}"


def mcp_argv(python: str | None = None) -> list[str]:
    """The MCP server's argv for Gemini's ``mcpServers``: the launcher, hidden the same way."""
    from goalkeeper.hosts.transport.launcher import launcher_script

    return ["sh", "-c", hidden(launcher_script(python)), "goalkeeper", "mcp"]


HIDDEN_VAR = "__goalkeeper_launcher"
"""The one variable the hook command names: no environment holds it."""


def hidden(script: str, *, bash: bool = False) -> str:
    """``script`` as one shell command with no ``$NAME``, ``${…}``, backslash or single quote
    in it but ``HIDDEN_VAR`` (``$(`` is not a name Gemini expands). ``bash``: decoded with
    ``printf -v``, without the subshell ``$(…)`` forks (~1.3 ms a hook): Gemini runs hook
    commands with ``bash -c`` (0.61.0 ``getShellConfiguration``); an MCP server is started
    once, with ``sh``."""
    body = script.replace("\\", "\\0134").replace("$", "\\0044").replace("'", "\\0047")
    if bash:
        return f"printf -v {HIDDEN_VAR} '%b' '{body}' && eval \"${HIDDEN_VAR}\""
    return f"eval \"$(printf '%b' '{body}')\""


def settings_path(scope: GeminiScope, project: Path, home: Path) -> Path:
    return (home if scope == "user" else project) / ".gemini" / "settings.json"


def receipt_path(scope: GeminiScope, project: Path, home: Path) -> Path:
    """In goalkeeper's state folder (the project's, or the state home for ``--user``)."""
    from goalkeeper.store.locations import project_state_dir, state_home

    base = state_home() if scope == "user" else project_state_dir(project)
    return base / f"install-gemini-{scope}.json"


def is_goalkeeper_command(command: object) -> bool:
    return isinstance(command, str) and bool(_OURS.search(command))


def add_entries(
    settings: dict[str, Any], command: str, mcp_argv: list[str]
) -> tuple[dict[str, Any], Receipt, list[str]]:
    """A copy of ``settings`` with goalkeeper's hooks and MCP server; the receipt, and what
    changed (empty when all was in place). Raises ``JsonFileError`` for a shape it cannot
    safely change."""
    data = json.loads(json.dumps(settings))
    created = tuple(k for k in ("hooks", "mcpServers", "advanced") if k not in data)
    changes = put_hooks(
        data, HOOK_EVENTS, lambda event, groups: _ensure_handler(event, groups, command)
    )
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise JsonFileError("'mcpServers' in the settings is not an object; fix it first")
    wanted = {"command": mcp_argv[0], "args": mcp_argv[1:]}
    existing = servers.get(MCP_SERVER)
    if existing is not None and not is_goalkeeper_mcp(existing):
        raise JsonFileError(
            f"an MCP server named {MCP_SERVER!r} that goalkeeper did not write is in the "
            "settings; rename or remove it first"
        )
    if existing != wanted:
        servers[MCP_SERVER] = wanted
        changes.append(f"{'updated' if existing else 'added'} the {MCP_SERVER!r} MCP server")
    excluded = _exclude_launcher_var(data, changes)
    created = tuple(k for k in created if k != "advanced" or excluded == "created")
    return data, Receipt(created, mcp_server=existing is None, excluded=excluded), changes


def _exclude_launcher_var(data: dict[str, Any], changes: list[str]) -> str:
    """``GOALKEEPER_PYTHON`` in ``advanced.excludedEnvVars``: how install put it there."""
    advanced = data.setdefault("advanced", {})
    if not isinstance(advanced, dict):
        raise JsonFileError("'advanced' in the settings is not an object; fix it first")
    excluded = advanced.get("excludedEnvVars")
    if excluded is None:
        advanced["excludedEnvVars"] = [*GEMINI_EXCLUDED_DEFAULT, LAUNCHER_VAR]
    elif not isinstance(excluded, list):
        raise JsonFileError("'advanced.excludedEnvVars' is not a list; fix it first")
    elif LAUNCHER_VAR in excluded:
        return ""
    else:
        excluded.append(LAUNCHER_VAR)
    changes.append(f"kept {LAUNCHER_VAR} out of what Gemini reads from a project's .env")
    return "created" if excluded is None else "added"


def remove_entries(
    settings: dict[str, Any], receipt: Receipt | None
) -> tuple[dict[str, Any], list[str]]:
    """A copy of ``settings`` without goalkeeper's handlers and MCP server, and without the
    containers install created once they are empty."""
    data = json.loads(json.dumps(settings))
    changes: list[str] = []
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        changes += drop_handlers(hooks, is_goalkeeper_command)
        if not hooks and (receipt is None or "hooks" in receipt.created):
            del data["hooks"]
    advanced = data.get("advanced")
    excluded = advanced.get("excludedEnvVars") if isinstance(advanced, dict) else None
    if receipt is not None and receipt.excluded and isinstance(excluded, list):
        assert isinstance(advanced, dict)
        if receipt.excluded == "created" and excluded == [*GEMINI_EXCLUDED_DEFAULT, LAUNCHER_VAR]:
            del advanced["excludedEnvVars"]
            changes.append(f"removed {LAUNCHER_VAR} from advanced.excludedEnvVars")
        elif receipt.excluded == "added" and LAUNCHER_VAR in excluded:
            excluded.remove(LAUNCHER_VAR)
            changes.append(f"removed {LAUNCHER_VAR} from advanced.excludedEnvVars")
        if not advanced and "advanced" in receipt.created:
            del data["advanced"]
    servers = data.get("mcpServers")
    if isinstance(servers, dict) and is_goalkeeper_mcp(servers.get(MCP_SERVER)):
        del servers[MCP_SERVER]
        changes.append(f"removed the {MCP_SERVER!r} MCP server")
        if not servers and (receipt is None or "mcpServers" in receipt.created):
            del data["mcpServers"]
    return data, changes


def _ensure_handler(event: str, groups: list[Any], command: str) -> list[str]:
    """goalkeeper's handler for ``event`` in its own group, added or brought up to date."""
    timeout = SETTLE_TIMEOUT_MS if event == "AfterAgent" else HOOK_TIMEOUT_MS
    handler = {"name": HOOK_NAME, "type": "command", "command": command, "timeout": timeout}
    matcher = BEFORE_TOOL_MATCHER if event == "BeforeTool" else None
    return put_handler(event, groups, handler, matcher, is_goalkeeper_command)


def dump_receipt(receipt: Receipt) -> dict[str, Any]:
    return {
        "created": list(receipt.created),
        "mcp_server": receipt.mcp_server,
        "created_paths": list(receipt.created_paths),
        "excluded": receipt.excluded,
    }


def load_receipt(raw: dict[str, Any]) -> Receipt:
    def strings(value: object) -> tuple[str, ...]:
        return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()

    return Receipt(
        strings(raw.get("created")),
        raw.get("mcp_server") is True,
        strings(raw.get("created_paths")),
        str(raw.get("excluded")) if raw.get("excluded") in ("created", "added") else "",
    )


def folder_trust(
    user_settings: Mapping[str, Any],
    trusted_folders: Mapping[str, Any] | None,
    project: str,
    env: Mapping[str, str],
) -> Finding:
    """Whether Gemini CLI 0.61.0 trusts ``project`` (a real path), as ``checkPathTrust`` decides
    (packages/core/src/utils/trust.ts in the bundle): ``GEMINI_RESTRICTED_MODE=true`` or
    ``GEMINI_CLI_TRUST_WORKSPACE=false`` → no; ``GEMINI_CLI_TRUST_WORKSPACE=true`` → yes;
    ``security.folderTrust.enabled`` false in the user (or system) settings → yes (a project
    cannot switch it off for itself: the trust check merges user and system settings only);
    else the longest rule of ``trustedFolders.json`` that contains the folder (``TRUST_PARENT``
    stands for its rule's parent), ``DO_NOT_TRUST`` or no rule → no. Untrusted, Gemini registers
    no settings hooks at all (``hookRegistry.processHooksFromConfig``) and a headless run exits
    55 before any request."""
    fix = (
        f"trust the folder once: run `gemini` in {project} and choose to trust it (headless: "
        "--skip-trust or GEMINI_CLI_TRUST_WORKSPACE=true)"
    )
    if env.get("GEMINI_RESTRICTED_MODE") == "true" or env.get(TRUST_VAR) == "false":
        return Finding("gemini", "folder-trust", False, f"{TRUST_VAR}/restricted mode say no", fix)
    if env.get(TRUST_VAR) == "true":
        return Finding(
            "gemini", "folder-trust", True, f"{TRUST_VAR}=true in this environment", warn=True
        )
    if dig(user_settings, "security", "folderTrust", "enabled") is False:
        return Finding("gemini", "folder-trust", True, "folder trust is switched off")
    best, level = -1, None
    for rule, value in (trusted_folders or {}).items():
        if value not in ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"):
            continue
        base = os.path.realpath(os.path.dirname(rule) if value == "TRUST_PARENT" else rule)
        inside = project == base or project.startswith(base.rstrip("/") + "/")
        if inside and len(rule) > best:
            best, level = len(rule), value
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return Finding("gemini", "folder-trust", True, f"{project} is a trusted folder")
    why = "marked DO_NOT_TRUST" if level else "not a trusted folder"
    return Finding(
        "gemini",
        "folder-trust",
        False,
        f"{project} is {why}: Gemini CLI registers no settings hooks there (and a headless "
        "run exits 55)",
        fix,
    )


def layer_findings(
    layer: str,
    path: str,
    settings: Mapping[str, Any],
    seen_hooks: object,
) -> list[Finding]:
    """``goalkeeper doctor``'s findings for one settings file holding goalkeeper's hooks:
    all events present, the MCP server the hooks point the agent at (``mcp__goalkeeper__*``),
    ``GOALKEEPER_PYTHON`` in ``advanced.excludedEnvVars`` (else a project
    ``.env`` chooses the interpreter the launcher runs: ``hosts.gemini.env``). For the project
    layer, ``seen_hooks`` (``~/.gemini/trusted_hooks.json``'s list for this project, keys
    ``name:command``, ``TrustedHooksManager``): a hook not seen before makes Gemini print a
    warning once and run it anyway (docs/hooks/best-practices.md, "Project Hook Security")."""
    scope = " --user" if layer == "user" else ""
    reinstall = f"goalkeeper install gemini{scope}"
    found = handler_events(settings.get("hooks"), HOOK_EVENTS, is_goalkeeper_command)
    out = [coverage("gemini", f"{layer} {path}", found, HOOK_EVENTS, reinstall)]
    server = dig(settings, "mcpServers", MCP_SERVER)
    if is_goalkeeper_mcp(server) and mcp_host(server) != "gemini":
        out.append(stale_mcp("gemini", str(path), reinstall))
    elif is_goalkeeper_mcp(server):
        out.append(Finding("gemini", "mcp", True, f"'goalkeeper' MCP server in {path}"))
    else:
        out.append(
            Finding(
                "gemini",
                "mcp",
                False,
                f"no goalkeeper MCP server in {path}: the hooks point the agent at "
                "mcp__goalkeeper__* tools",
                reinstall,
            )
        )
    excluded = dig(settings, "advanced", "excludedEnvVars")
    if not (isinstance(excluded, list) and LAUNCHER_VAR in excluded):
        out.append(
            Finding(
                "gemini",
                "excluded-env",
                False,
                f"{LAUNCHER_VAR} is not in advanced.excludedEnvVars of {path}: a project .env "
                "could choose the interpreter goalkeeper's hooks run",
                reinstall,
            )
        )
    if layer == "project":
        seen = set(seen_hooks) if isinstance(seen_hooks, list) else set()
        commands = our_commands(settings.get("hooks"), is_goalkeeper_command)
        new = [c for c in commands if f"{HOOK_NAME}:{c}" not in seen]
        if new:
            out.append(
                Finding(
                    "gemini",
                    "new-project-hooks",
                    True,
                    "Gemini has not seen these project hooks yet: it prints a warning once, "
                    "then runs them",
                    warn=True,
                )
            )
    return out


def switch_findings(path: str, settings: Mapping[str, Any]) -> list[Finding]:
    """The switches of any settings file (user or project, whether it holds goalkeeper's hooks
    or not) that stop them: ``hooksConfig.enabled`` false (no hook runs at all) and
    ``hooksConfig.disabled`` naming goalkeeper's hook (docs/reference/configuration.md)."""
    out: list[Finding] = []
    if dig(settings, "hooksConfig", "enabled") is False:
        out.append(
            Finding(
                "gemini",
                "hooks-enabled",
                False,
                f"{path} sets hooksConfig.enabled to false: no hook runs",
                f'remove "hooksConfig": {{"enabled": false}} from {path}',
            )
        )
    disabled = dig(settings, "hooksConfig", "disabled")
    if isinstance(disabled, list) and HOOK_NAME in disabled:
        out.append(
            Finding(
                "gemini",
                "hooks-enabled",
                False,
                f"{path} lists {HOOK_NAME!r} in hooksConfig.disabled",
                f"remove {HOOK_NAME!r} from hooksConfig.disabled in {path}",
            )
        )
    return out
