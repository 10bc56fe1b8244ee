"""``goalkeeper install gemini`` / ``goalkeeper uninstall gemini``: Gemini CLI's settings.json.

``--project`` (the default) writes ``<project>/.gemini/settings.json`` with the portable
launcher (no path of this machine: the file may be committed); ``--user`` writes
``~/.gemini/settings.json`` and may name this interpreter as the launcher's fallback. Gemini
has no per-project private settings file, so ``--local`` is refused. A receipt beside
goalkeeper's state says what install created, so uninstall removes exactly that and leaves a
file the user had byte for byte as it was (its layout is kept: ``hosts.command_hooks.json_doc``).
"""

from __future__ import annotations

from pathlib import Path

import click

from goalkeeper.cli.common import App, ExitCode, echo_json, fail
from goalkeeper.cli.install.common import (
    _label,
    _remove_empty_folders,
    baked_python,
    missing_paths,
)
from goalkeeper.hosts.command_hooks.json_doc import (
    JsonFileError,
    is_empty,
    read_document,
    write_document,
)
from goalkeeper.hosts.gemini.settings import (
    GeminiScope,
    Receipt,
    add_entries,
    dump_receipt,
    hook_command,
    load_receipt,
    mcp_argv,
    receipt_path,
    remove_entries,
    settings_path,
)
from goalkeeper.hosts.transport.launcher import host_args

TRUST_NOTE = (
    "Gemini CLI runs hooks only in a trusted folder: trust this folder once in an interactive "
    "`gemini` (headless: --skip-trust or GEMINI_CLI_TRUST_WORKSPACE=true); it then lists the "
    "new project hooks once and runs them."
)


def install_gemini(app: App, scope: str, dry_run: bool, as_json: bool) -> int:
    gscope = _scope(scope)
    home, project = Path.home(), app.project
    path = settings_path(gscope, project, home)
    rpath = receipt_path(gscope, project, home)
    python = baked_python(gscope, project)
    command = hook_command(python)
    try:
        before, style = read_document(path)
        server = [*mcp_argv(python), *host_args("gemini")]  # its texts name mcp_goalkeeper_*
        after, receipt, changes = add_entries(before, command, server)
        old = _read_receipt(rpath)
    except JsonFileError as exc:
        raise fail(str(exc)) from exc
    if old is not None:  # a re-install keeps what the first one created
        receipt = Receipt(
            old.created,
            old.mcp_server or receipt.mcp_server,
            old.created_paths,
            old.excluded or receipt.excluded,
        )
    else:
        created = missing_paths([path, rpath], project, home)
        receipt = Receipt(receipt.created, receipt.mcp_server, created, receipt.excluded)
    if changes and not dry_run:
        write_document(path, after, style)
    if not dry_run and (changes or old is None):
        write_document(rpath, dump_receipt(receipt))
    data = {
        "host": "gemini",
        "scope": gscope,
        "settings": str(path),
        "changes": changes,
        "dry_run": dry_run,
        "command": command,
        "trust": TRUST_NOTE,
    }
    if as_json:
        echo_json(data)
        return int(ExitCode.OK)
    if changes:
        click.echo(f"{'Would change' if dry_run else 'Changed'} {path}:")
        for change in changes:
            click.echo(f"  - {change}")
    else:
        click.echo(f"goalkeeper is already installed in {path}.")
    click.echo(TRUST_NOTE)
    return int(ExitCode.OK)


def uninstall_gemini(app: App, scope: str, as_json: bool) -> int:
    gscope = _scope(scope)
    home, project = Path.home(), app.project
    path = settings_path(gscope, project, home)
    rpath = receipt_path(gscope, project, home)
    try:
        receipt = _read_receipt(rpath)
        before, style = read_document(path)
        after, changes = remove_entries(before, receipt)
    except JsonFileError as exc:
        raise fail(str(exc)) from exc
    created = set(receipt.created_paths) if receipt is not None else set()
    if changes and path.exists():
        if _label(path, project, home) in created and is_empty(after):
            path.unlink()
        else:
            write_document(path, after, style)
    try:
        rpath.unlink()
    except OSError:
        pass
    _remove_empty_folders(created, project, home)
    if as_json:
        echo_json({"host": "gemini", "scope": gscope, "settings": str(path), "changes": changes})
    elif changes:
        click.echo(f"Changed {path}:")
        for change in changes:
            click.echo(f"  - {change}")
    else:
        click.echo(f"goalkeeper was not installed in {path}.")
    return int(ExitCode.OK)


def _scope(scope: str) -> GeminiScope:
    if scope == "local":
        raise fail(
            "Gemini CLI has no private per-project settings file: use --project (the default, "
            ".gemini/settings.json) or --user (~/.gemini/settings.json)"
        )
    return "user" if scope == "user" else "project"


def _read_receipt(path: Path) -> Receipt | None:
    raw, style = read_document(path)
    return load_receipt(raw) if style is not None else None
