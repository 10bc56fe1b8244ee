"""``goalkeeper install <host>``: Claude Code here, the other hosts in their modules beside it;
``uninstall`` is in ``uninstall.py``."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import msgspec
from msgspec.structs import replace

from goalkeeper.cli.common import App, ExitCode, echo_json, fail
from goalkeeper.cli.install.common import (
    _precompile,
    baked_python,
    launcher_finds,
    missing_paths,
)
from goalkeeper.config import load_config, relevant_env
from goalkeeper.hosts.claude.settings import (
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
    load_receipt,
    mcp_command,
    mcp_entry,
    mcp_location,
    missing_containers,
    receipt_path,
    save_receipt,
    settings_path,
    write_json_atomic,
)
from goalkeeper.hosts.command_hooks.json_doc import read_document
from goalkeeper.skills import install_skills

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


@click.command(
    "install", short_help="Register goalkeeper with an agent (claude, pi, codex, gemini)."
)
@click.argument("host", type=click.Choice(["claude", "pi", "codex", "gemini"]))
@scope_options
@click.option(
    "--trust",
    is_flag=True,
    help="codex: also record Codex's trust of the hooks written (Codex skips untrusted hooks "
    "without a word); without it, review them once in Codex's /hooks.",
)
@click.option(
    "--command",
    "command",
    help="Hook command to register (default: the portable launcher, which finds goalkeeper "
    "when the hook runs).",
)
@click.option(
    "--sandbox",
    is_flag=True,
    help="claude: also turn on Claude Code's sandbox for the agent's Bash, with goalkeeper's "
    "state, config and runtime folders denied to it (reading and writing) and no unix sockets: "
    "then the agent's shell cannot forge what goalkeeper trusts. Written to your user settings "
    "(~/.claude/settings.json) whatever the scope: outside the project, where the agent cannot "
    "switch it off.",
)
@click.option(
    "--sandbox-only",
    is_flag=True,
    help="claude: only the sandbox settings of --sandbox (for the plugin, which brings the hooks).",
)
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def install_command(
    app: App,
    host: str,
    scope: Scope,
    trust: bool,
    command: str | None,
    sandbox: bool,
    sandbox_only: bool,
    dry_run: bool,
    as_json: bool,
) -> int:
    """Register goalkeeper's hooks with HOST (claude): SessionStart, UserPromptSubmit,
    PreToolUse (goalkeeper's todo tool and the native todo tools), Stop, StopFailure and
    SubagentStop, merged into the settings without touching other hooks or settings.

    Also registers goalkeeper's MCP server (the `todo` tool): in the project's .mcp.json
    (approved in the settings) by default, in ~/.claude.json with --local (for this project
    only) or --user (every project), as `claude mcp add --scope local|user` would. It raises
    CLAUDE_CODE_STOP_HOOK_BLOCK_CAP in the settings' "env" above goalkeeper's own caps, so
    that Claude Code's limit of 8 Stop blocks in a row without a tool call never ends a loop
    before goalkeeper's rules do. Running it again changes nothing.

    The commands written name no path of this machine: a short POSIX shell launcher finds
    goalkeeper when it runs ($GOALKEEPER_PYTHON, then `goalkeeper` on PATH outside the
    project; --local and --user also name this Python) and, where there is none, tells the
    user in one line and lets the session go on. Files under the project are never run.

    HOST pi: writes goalkeeper's Pi extension to .pi/extensions/goalkeeper.ts (with --user:
    Pi's own extensions folder), which starts `goalkeeper bridge pi` for every Pi session.

    With --sandbox (claude): Claude Code's sandbox on in your user settings, failing instead of
    running unsandboxed where it cannot start, its escape hatch (dangerouslyDisableSandbox)
    shut, and goalkeeper's folders denied to it. Your own sandbox settings are kept (lists are
    merged); unix sockets your settings allow are reported as a problem. Needs bubblewrap and
    socat on Linux. `goalkeeper uninstall claude --sandbox` takes out exactly this.

    Exit status: 0 on success, 2 when a settings file cannot be changed safely.
    """
    if (sandbox or sandbox_only) and host != "claude":
        raise fail("--sandbox is for claude (Claude Code's sandbox); see `goalkeeper doctor`")
    if sandbox_only:
        from goalkeeper.cli.install.sandbox import install_sandbox

        lang = load_config(app.project, relevant_env()).lang
        only = install_sandbox(app.project, Path.home(), lang, dry_run=dry_run)
        if as_json:
            echo_json({"host": host, "sandbox": msgspec.to_builtins(only), "dry_run": dry_run})
        else:
            only.echo("Would change" if dry_run else "Changed")
        return int(ExitCode.OK)
    if host == "pi":
        from goalkeeper.cli.install.pi import install_pi

        return install_pi(app, scope, dry_run, as_json)
    if host == "codex":
        from goalkeeper.cli.install.codex import install_codex

        return install_codex(app, scope, dry_run, as_json, trust=trust)
    if host == "gemini":
        from goalkeeper.cli.install.gemini import install_gemini

        return install_gemini(app, scope, dry_run, as_json)
    home = Path.home()
    project = app.project
    path = settings_path(scope, project, home)
    config = load_config(project, relevant_env())
    cap = max(config.max_continuations, config.idle_streak) + BLOCK_CAP_HEADROOM
    python = baked_python(scope, project)
    hook = command or hook_command(python)
    mcp_path, mcp_keys = mcp_location(scope, project, home)
    argv = mcp_command(python)
    try:
        before, style = read_document(path)
        after, receipt, changes = add_hooks(before, hook, cap, enable_mcp=scope == "project")
        mcp_before, mcp_style = read_document(mcp_path)
        entry = mcp_entry(argv, in_claude_json=scope != "project")
        mcp_after, mcp_added, mcp_changes = add_mcp_server(mcp_before, argv, mcp_keys, entry)
    except SettingsError as exc:
        raise fail(str(exc)) from exc
    mcp_changes = [f"{change} in {mcp_path}" for change in mcp_changes]
    new_commands = [
        name for name in COMMAND_FILES if not command_path(scope, project, home, name).exists()
    ]
    rpath = receipt_path(scope, project, home)
    commands = [command_path(scope, project, home, name) for name in new_commands]
    to_create = [path, mcp_path, rpath, *commands]
    receipt = replace(
        receipt,
        mcp_server=mcp_added,
        mcp_file_created=mcp_added and not mcp_path.exists(),
        mcp_config=scope,
        mcp_created=missing_containers(mcp_before, mcp_keys) if mcp_added else 0,
        goal_command=GOAL_COMMAND_NAME in new_commands,
        commands=tuple(new_commands),
        created_paths=missing_paths(to_create, project, home),
    )
    changes += [f"added the /{name} command ({name}.md)" for name in new_commands]
    if not dry_run and (changes or mcp_changes):
        if changes:
            write_json_atomic(path, after, style)
        if mcp_changes:
            write_json_atomic(mcp_path, mcp_after, mcp_style)
        for name in new_commands:
            cpath = command_path(scope, project, home, name)
            cpath.parent.mkdir(parents=True, exist_ok=True)
            # "auto" follows the plan or the user's words; at install there are none yet
            cpath.write_text(
                command_text(name, "zh" if config.lang == "zh" else "en"), encoding="utf-8"
            )
        save_receipt(rpath, _merge_receipts(load_receipt(rpath), receipt))
    changes = changes + mcp_changes
    skills = install_skills(_skills_dir(scope, project, home), dry_run=dry_run)
    compiled = False if dry_run else _precompile()
    found = None if command else launcher_finds(project, python)
    boxed = None
    if sandbox:
        from goalkeeper.cli.install.sandbox import install_sandbox

        boxed = install_sandbox(project, home, config.lang, dry_run=dry_run)
    data = {
        "host": host,
        "scope": scope,
        "settings": str(path),
        "mcp_config": str(mcp_path),
        "changes": changes,
        "dry_run": dry_run,
        "command": hook,
        "goalkeeper_found": found,
        "bytecode_compiled": compiled,
        "skills": skills,
    }
    if boxed is not None:
        data["sandbox"] = msgspec.to_builtins(boxed)
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
    if boxed is not None:
        boxed.echo(verb)
    click.echo("".join(f"  - {line}\n" for line in skills), nl=False)
    if found is False:
        click.echo(
            "Note: the hooks find goalkeeper at run time, and from here they would not: put "
            "`goalkeeper` on PATH (uv tool install, pipx) or set GOALKEEPER_PYTHON="
            f'{shlex.quote(sys.executable)} in your environment or in the "env" of '
            "~/.claude/settings.json. Until then every hook says goalkeeper is not installed."
        )
    if not (project / config.plan_dir).is_dir():
        click.echo(f"Next: write {config.plan_dir}/<topic>.md (see README: the plan file format).")
    click.echo("Check it any time with: goalkeeper plan · goalkeeper status")
    return int(ExitCode.OK)


def _skills_dir(scope: Scope, project: Path, home: Path) -> Path:
    """Claude Code's skills folder beside the commands folder, where goalkeeper's skills go
    (``goalkeeper.skills``: written and removed there by their own rules)."""
    return command_path(scope, project, home).parent.parent / "skills"


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
        mcp_config=old.mcp_config or new.mcp_config,
        mcp_created=old.mcp_created or new.mcp_created,
        created_paths=tuple(dict.fromkeys((*old.created_paths, *new.created_paths))),
    )


COMMANDS = (install_command,)
