"""``goalkeeper install claude`` / ``goalkeeper uninstall claude``."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from goalkeeper.cli.app import App, ExitCode, echo_json, fail
from goalkeeper.config import load_config, relevant_env
from goalkeeper.hosts.claude_settings import (
    BLOCK_CAP_HEADROOM,
    COMMAND_FILES,
    GOAL_COMMAND_NAME,
    Receipt,
    Scope,
    SettingsError,
    add_hooks,
    add_mcp_server,
    command_path,
    command_text,
    hook_command,
    is_command_text,
    load_receipt,
    read_json_object,
    receipt_path,
    remove_hooks,
    remove_mcp_server,
    save_receipt,
    settings_path,
    write_json_atomic,
)

_scope_options = [
    click.option(
        "--user", "scope", flag_value="user", help="Your ~/.claude/settings.json (every project)."
    ),
    click.option(
        "--local",
        "scope",
        flag_value="local",
        help="This project's .claude/settings.local.json (not committed).",
    ),
    click.option(
        "--project",
        "scope",
        flag_value="project",
        default=True,
        help="This project's .claude/settings.json (the default).",
    ),
]


def scope_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(_scope_options):
        fn = option(fn)
    return fn


@click.command("install", short_help="Register goalkeeper with an agent (claude, pi).")
@click.argument("host", type=click.Choice(["claude", "pi"]))
@scope_options
@click.option(
    "--command",
    "command",
    help="Hook command to register (default: this Python running goalkeeper).",
)
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def install_command(
    app: App, host: str, scope: Scope, command: str | None, dry_run: bool, as_json: bool
) -> int:
    """Register goalkeeper's hooks with HOST (claude): SessionStart, UserPromptSubmit,
    PreToolUse (goalkeeper's todo tool and the native todo tools), Stop and StopFailure,
    merged into the settings without touching other hooks or settings.

    Also registers goalkeeper's MCP server (the `todo` tool) in the project's .mcp.json and
    approves it in the settings (not with --user: see the printed note), and raises
    CLAUDE_CODE_STOP_HOOK_BLOCK_CAP in the settings' "env" above goalkeeper's own caps, so
    that Claude Code's limit of 8 Stop blocks in a row without a tool call never ends a loop
    before goalkeeper's rules do. Running it again changes nothing.

    HOST pi: writes goalkeeper's Pi extension to .pi/extensions/goalkeeper.ts (with --user:
    Pi's own extensions folder), which starts `goalkeeper bridge pi` for every Pi session.

    Exit status: 0 on success, 2 when a settings file cannot be changed safely.
    """
    if host == "pi":
        from goalkeeper.cli.install_pi import install_pi

        return install_pi(app, scope, dry_run, as_json)
    home = Path.home()
    path = settings_path(scope, app.project, home)
    mcp_path = app.project / ".mcp.json"
    config = load_config(app.project, relevant_env())
    cap = max(config.max_continuations, config.idle_streak) + BLOCK_CAP_HEADROOM
    with_mcp = scope != "user"
    try:
        before = read_json_object(path)
        after, receipt, changes = add_hooks(
            before, command or hook_command(), cap, enable_mcp=with_mcp
        )
        mcp_before = read_json_object(mcp_path) if with_mcp else {}
        mcp_after, mcp_added, mcp_changes = (
            add_mcp_server(mcp_before, mcp_argv()) if with_mcp else ({}, False, [])
        )
    except SettingsError as exc:
        raise fail(str(exc)) from exc
    new_commands = [
        name for name in COMMAND_FILES if not command_path(scope, app.project, home, name).exists()
    ]
    receipt = replace(
        receipt,
        mcp_server=mcp_added,
        mcp_file_created=mcp_added and not mcp_path.exists(),
        goal_command=GOAL_COMMAND_NAME in new_commands,
        commands=tuple(new_commands),
    )
    changes += [f"added the /{name} command ({name}.md)" for name in new_commands]
    rpath = receipt_path(scope, app.project, home)
    if not dry_run and (changes or mcp_changes):
        if changes:
            write_json_atomic(path, after)
        if mcp_changes:
            write_json_atomic(mcp_path, mcp_after)
        for name in new_commands:
            cpath = command_path(scope, app.project, home, name)
            cpath.parent.mkdir(parents=True, exist_ok=True)
            # "auto" follows the plan or the user's words; at install there are none yet
            cpath.write_text(
                command_text(name, "zh" if config.lang == "zh" else "en"), encoding="utf-8"
            )
        save_receipt(rpath, _merge_receipts(load_receipt(rpath), receipt))
    changes = changes + mcp_changes
    compiled = False if dry_run else _precompile()
    data = {
        "host": host,
        "scope": scope,
        "settings": str(path),
        "changes": changes,
        "dry_run": dry_run,
        "command": command or hook_command(),
        "bytecode_compiled": compiled,
    }
    if as_json:
        echo_json(data)
        return int(ExitCode.OK)
    verb = "Would change" if dry_run else "Changed"
    if changes:
        click.echo(f"{verb} {path}:")
        for change in changes:
            click.echo(f"  - {change}")
    else:
        click.echo(f"goalkeeper is already installed in {path}.")
    if not with_mcp:
        argv = " ".join(shlex.quote(a) for a in mcp_argv())
        click.echo(
            f"For the todo tool in every project: claude mcp add --scope user goalkeeper -- {argv}"
        )
    if not (app.project / config.plan_dir).is_dir():
        click.echo(f"Next: write {config.plan_dir}/<topic>.md (see README: the plan file format).")
    click.echo("Check it any time with: goalkeeper plan · goalkeeper status")
    return int(ExitCode.OK)


@click.command("uninstall", short_help="Remove exactly what install added.")
@click.argument("host", type=click.Choice(["claude", "pi"]))
@scope_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def uninstall_command(app: App, host: str, scope: Scope, as_json: bool) -> int:
    """Remove exactly what `goalkeeper install HOST` added: its hooks, its MCP server and
    its approval, and the env value it set (the previous value is restored). Other hooks and
    settings stay.

    Exit status: 0 on success (also when nothing was installed), 2 when the settings file
    cannot be changed safely.
    """
    if host == "pi":
        from goalkeeper.cli.install_pi import uninstall_pi

        return uninstall_pi(app, scope, as_json)
    home = Path.home()
    path = settings_path(scope, app.project, home)
    rpath = receipt_path(scope, app.project, home)
    mcp_path = app.project / ".mcp.json"
    receipt = load_receipt(rpath)
    try:
        before = read_json_object(path)
        after, changes = remove_hooks(before, receipt)
        mcp_changes: list[str] = []
        if receipt is not None and receipt.mcp_server:
            mcp_after, mcp_changes = remove_mcp_server(read_json_object(mcp_path))
    except SettingsError as exc:
        raise fail(str(exc)) from exc
    if changes and path.exists():
        write_json_atomic(path, after)
    if mcp_changes and receipt is not None:
        if receipt.mcp_file_created and mcp_after == {"mcpServers": {}}:
            mcp_path.unlink()
        else:
            write_json_atomic(mcp_path, mcp_after)
    for name in COMMAND_FILES:
        cpath = command_path(scope, app.project, home, name)
        ours = receipt is not None and receipt.wrote(name) and cpath.is_file()
        if ours and is_command_text(name, _text(cpath)):  # unchanged
            cpath.unlink()
            mcp_changes.append(f"removed the /{name} command")
    changes = changes + mcp_changes
    try:
        rpath.unlink()
    except OSError:
        pass
    if as_json:
        echo_json({"host": host, "scope": scope, "settings": str(path), "changes": changes})
    elif changes:
        click.echo(f"Changed {path}:")
        for change in changes:
            click.echo(f"  - {change}")
    else:
        click.echo(f"goalkeeper was not installed in {path}.")
    return int(ExitCode.OK)


def _merge_receipts(old: Receipt | None, new: Receipt) -> Receipt:
    """A re-install keeps what the first install recorded (the values before goalkeeper)."""
    if old is None:
        return new
    return Receipt(
        {**old.env_set, **new.env_set},
        {**new.env_previous, **old.env_previous},
        old.created or new.created,
        enabled_mcp=old.enabled_mcp or new.enabled_mcp,
        mcp_server=old.mcp_server or new.mcp_server,
        mcp_file_created=old.mcp_file_created or new.mcp_file_created,
        goal_command=old.goal_command or new.goal_command,
        commands=tuple(dict.fromkeys((*old.commands, *new.commands))),
    )


def mcp_argv() -> list[str]:
    """How Claude Code starts goalkeeper's MCP server: this Python, so it finds this install."""
    return [sys.executable, "-m", "goalkeeper", "mcp"]


def _precompile() -> bool:
    """Write goalkeeper's bytecode now, so hook processes start from it even where
    PYTHONDONTWRITEBYTECODE is set (as it is in many agent sandboxes)."""
    import compileall

    import goalkeeper

    try:
        return bool(compileall.compile_dir(Path(goalkeeper.__file__).parent, quiet=1))
    except OSError:
        return False


def _text(path: Path) -> str:
    """A command file's text, or "" when it is not a regular file we can read (then it is not
    ours to remove)."""
    from goalkeeper.store.safe_read import read_capped

    try:
        return read_capped(path, 1024 * 1024).decode("utf-8", "replace")
    except OSError:
        return ""


COMMANDS = (install_command, uninstall_command)
