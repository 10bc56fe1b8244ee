"""``goalkeeper run -- claude …``: Claude Code with goalkeeper's hooks and MCP server for one
run, through ``--settings`` / ``--mcp-config`` temp files built by the functions ``goalkeeper
install claude`` uses, so nothing is written into the project."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from goalkeeper.cli.run.agent import RunError, program_name, run_process, runs_goalkeeper_hooks
from goalkeeper.store.outcome import AgentExit

_SESSION_FLAGS = ("--session-id", "-r", "--resume", "-c", "--continue", "--fork-session")


def claude_settings(project: Path, home: Path, user_settings: dict[str, Any]) -> dict[str, Any]:
    """The settings of this run: the user's ``--settings`` (if any) with goalkeeper's hooks,
    its block cap and its MCP tools allowed; without the hooks when an installed goalkeeper
    already serves (two sets of hooks would count every stop twice)."""
    from goalkeeper.config import load_config, relevant_env
    from goalkeeper.hosts.claude.settings import BLOCK_CAP_HEADROOM, add_hooks, hook_command

    data: dict[str, Any]
    if installed_claude_settings(project, home) is not None:
        data = json.loads(json.dumps(user_settings))
    else:
        config = load_config(project, relevant_env())
        cap = max(config.max_continuations, config.idle_streak) + BLOCK_CAP_HEADROOM
        # the temp file is never committed: the absolute interpreter is what this run uses
        data, _, _ = add_hooks(user_settings, hook_command(sys.executable), cap)
    permissions = data.setdefault("permissions", {})
    if isinstance(permissions, dict):
        allow = permissions.setdefault("allow", [])
        if isinstance(allow, list) and "mcp__goalkeeper" not in allow:
            allow.append("mcp__goalkeeper")
    return data


def plugin_enabled(settings: dict[str, Any]) -> bool:
    """Whether these settings enable goalkeeper's Claude Code plugin (from any marketplace)."""
    from goalkeeper.hosts.command_hooks.wire import PLUGIN_NAME

    plugins = settings.get("enabledPlugins")
    return isinstance(plugins, dict) and any(
        str(key).startswith(f"{PLUGIN_NAME}@") and value is True for key, value in plugins.items()
    )


def installed_claude_settings(project: Path, home: Path) -> Path | None:
    """The settings file that already runs goalkeeper's hooks (a settings install, or the
    Claude Code plugin enabled there: ``enabledPlugins["goalkeeper@<marketplace>"]``), if any."""
    from goalkeeper.hosts.claude.settings import (
        Scope,
        SettingsError,
        is_goalkeeper_command,
        read_json_object,
        settings_path,
    )

    scopes: tuple[Scope, ...] = ("local", "project", "user")
    for scope in scopes:
        path = settings_path(scope, project, home)
        try:
            settings = read_json_object(path)
        except SettingsError:
            continue
        if plugin_enabled(settings) or runs_goalkeeper_hooks(settings, is_goalkeeper_command):
            return path
    return None


def claude_argv(
    argv: Sequence[str], settings_file: Path, mcp_file: Path, max_turns: int | None
) -> tuple[list[str], str | None]:
    """The command with goalkeeper's options right after the program (``--mcp-config`` takes
    several values, so ``--settings`` follows it to end them), a ``--session-id`` of our own
    unless the user chose the session, and the session id when it is known."""
    head = 2 if program_name(argv[0]) in ("node", "bun", "deno") else 1
    rest = without_option(list(argv[head:]), "--settings")
    ours = ["--mcp-config", str(mcp_file), "--settings", str(settings_file)]
    session: str | None = None
    if not any(a.split("=", 1)[0] in _SESSION_FLAGS for a in rest):
        session = str(uuid.uuid4())
        ours += ["--session-id", session]
    else:
        session = _option_value(rest, "--session-id")
    if max_turns is not None and _option_value(rest, "--max-turns") is None:
        ours += ["--max-turns", str(max_turns)]
    return [*argv[:head], *ours, *rest], session


def run_claude(
    project: Path,
    argv: Sequence[str],
    max_turns: int | None,
    limit_s: float | None,
    as_json: bool,
) -> tuple[AgentExit, str | None]:
    from goalkeeper.cli.install.common import mcp_argv
    from goalkeeper.hosts.claude.settings import (
        BLOCK_CAP_VAR,
        SettingsError,
        add_mcp_server,
        read_json_object,
    )

    home = Path(os.environ.get("HOME") or Path.home())
    try:
        given = _option_value(list(argv[1:]), "--settings")
        user_settings = _settings_value(given, read_json_object) if given is not None else {}
        settings = claude_settings(project, home, user_settings)
        installed = installed_claude_settings(project, home)
        # the plugin serves its own MCP tools: a second server would offer every tool twice
        by_plugin = installed is not None and plugin_enabled(read_json_object(installed))
        mcp = {"mcpServers": {}} if by_plugin else add_mcp_server({}, mcp_argv())[0]
    except SettingsError as exc:
        raise RunError(str(exc)) from exc
    if installed is not None:
        click.echo(f"goalkeeper: using the goalkeeper installed in {installed}", err=True)
    env = dict(os.environ)
    cap = (settings.get("env") or {}).get(BLOCK_CAP_VAR)
    if cap is not None:  # also in the process: the settings' env is the user's to override
        env[BLOCK_CAP_VAR] = str(cap)
    with tempfile.TemporaryDirectory(prefix="goalkeeper-run-") as tmp:
        settings_file, mcp_file = Path(tmp) / "settings.json", Path(tmp) / "mcp.json"
        settings_file.write_text(json.dumps(settings, indent=2), encoding="utf-8")
        mcp_file.write_text(json.dumps(mcp, indent=2), encoding="utf-8")
        command, session = claude_argv(argv, settings_file, mcp_file, max_turns)
        return run_process(command, project, env, limit_s, as_json), session


def _settings_value(value: str, read: Any) -> dict[str, Any]:
    """``--settings`` takes a file or a JSON string, as Claude Code does."""
    if value.lstrip().startswith("{"):
        try:
            data = json.loads(value)
        except ValueError as exc:
            raise RunError(f"--settings is not valid JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise RunError("--settings does not hold a JSON object")
        return data
    found: dict[str, Any] = read(Path(value))
    return found


def _option_value(args: Sequence[str], name: str) -> str | None:
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def without_option(args: list[str], name: str) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == name:
            skip = True
        elif not arg.startswith(name + "="):
            out.append(arg)
    return out
