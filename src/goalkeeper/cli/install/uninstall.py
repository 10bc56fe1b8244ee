"""``goalkeeper uninstall <host>``: remove exactly what install added (the receipt says what)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import msgspec

from goalkeeper.cli.common import App, ExitCode, echo_json, fail
from goalkeeper.cli.install.command import _skills_dir, scope_options
from goalkeeper.cli.install.common import (
    _label,
    _remove_empty_folders,
)
from goalkeeper.config import load_config, relevant_env
from goalkeeper.hosts.claude.settings import (
    COMMAND_FILES,
    MCP_FILE,
    Scope,
    SettingsError,
    command_path,
    is_command_text,
    load_receipt,
    mcp_location,
    receipt_path,
    remove_hooks,
    remove_mcp_server,
    settings_path,
    write_json_atomic,
)
from goalkeeper.hosts.command_hooks.json_doc import Style, is_empty, read_document
from goalkeeper.skills import remove_skills


@click.command("uninstall", short_help="Remove exactly what install added.")
@click.argument("host", type=click.Choice(["claude", "pi", "codex", "gemini"]))
@scope_options
@click.option(
    "--sandbox",
    is_flag=True,
    help="claude: also take out of your user settings what `install claude --sandbox` put in.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def uninstall_command(app: App, host: str, scope: Scope, sandbox: bool, as_json: bool) -> int:
    """Remove exactly what `goalkeeper install HOST` added: its hooks, its MCP server and
    its approval, and the env value it set (the previous value is restored). Other hooks and
    settings stay, each file keeps its layout, and a file or folder install created is
    removed once nothing else is in it.

    The sandbox settings of `install claude --sandbox` stay unless --sandbox is given.

    Exit status: 0 on success (also when nothing was installed), 2 when the settings file
    cannot be changed safely.
    """
    if sandbox and host != "claude":
        raise fail("--sandbox is for claude (Claude Code's sandbox)")
    if host == "pi":
        from goalkeeper.cli.install.pi import uninstall_pi

        return uninstall_pi(app, scope, as_json)
    if host == "codex":
        from goalkeeper.cli.install.codex import uninstall_codex

        return uninstall_codex(app, scope, as_json)
    if host == "gemini":
        from goalkeeper.cli.install.gemini import uninstall_gemini

        return uninstall_gemini(app, scope, as_json)
    home = Path.home()
    project = app.project
    path = settings_path(scope, project, home)
    rpath = receipt_path(scope, project, home)
    receipt = load_receipt(rpath)
    mcp_path: Path
    mcp_keys: tuple[str, ...]
    if receipt is not None and not receipt.mcp_config:  # older versions: always .mcp.json
        mcp_path, mcp_keys = project / MCP_FILE, ("mcpServers",)
    else:
        mcp_path, mcp_keys = mcp_location(scope, project, home)
    mcp_changes: list[str] = []
    try:
        before, style = read_document(path)
        after, changes = remove_hooks(before, receipt)
        if receipt is not None and receipt.mcp_server:
            mcp_before, mcp_style = read_document(mcp_path)
            mcp_after, mcp_changes = remove_mcp_server(mcp_before, mcp_keys, receipt.mcp_created)
    except SettingsError as exc:
        raise fail(str(exc)) from exc
    created = set(receipt.created_paths) if receipt is not None else set()
    if receipt is not None and receipt.mcp_file_created:
        created.add(_label(mcp_path, project, home))
    if changes and path.exists():
        _write_or_remove(path, after, style, _label(path, project, home) in created)
    if mcp_changes:
        _write_or_remove(mcp_path, mcp_after, mcp_style, _label(mcp_path, project, home) in created)
        mcp_changes = [f"{change} from {mcp_path}" for change in mcp_changes]
    for name in COMMAND_FILES:
        cpath = command_path(scope, project, home, name)
        ours = receipt is not None and receipt.wrote(name) and cpath.is_file()
        if ours and is_command_text(name, _text(cpath)):  # unchanged
            cpath.unlink()
            mcp_changes.append(f"removed the /{name} command")
    changes = changes + mcp_changes
    skills = remove_skills(_skills_dir(scope, project, home))
    try:
        rpath.unlink()
    except OSError:
        pass
    _remove_empty_folders(created, project, home)
    boxed = None
    if sandbox:
        from goalkeeper.cli.install.sandbox import uninstall_sandbox

        boxed = uninstall_sandbox(project, home, load_config(project, relevant_env()).lang)
    if as_json:
        done = {"host": host, "scope": scope, "settings": str(path), "changes": changes}
        extra = {"sandbox": msgspec.to_builtins(boxed)} if boxed is not None else {}
        echo_json({**done, "skills": skills, **extra})
    elif changes:
        click.echo(f"Changed {path}:")
        for change in changes:
            click.echo(f"  - {change}")
    else:
        click.echo(f"goalkeeper was not installed in {path}.")
    if not as_json:
        click.echo("".join(f"  - {line}\n" for line in skills), nl=False)
        if boxed is not None and boxed.changes:
            boxed.echo("Changed")
    return int(ExitCode.OK)


def _write_or_remove(path: Path, data: dict[str, Any], style: Style | None, created: bool) -> None:
    """A file install created goes once nothing is left in it; any other keeps its layout."""
    if created and is_empty(data):
        path.unlink(missing_ok=True)
    else:
        write_json_atomic(path, data, style)


def _text(path: Path) -> str:
    """A command file's text, or "" when it is not a regular file we can read (then it is not
    ours to remove)."""
    from goalkeeper.store.safe_read import read_capped

    try:
        return read_capped(path, 1024 * 1024).decode("utf-8", "replace")
    except OSError:
        return ""


COMMANDS = (uninstall_command,)
