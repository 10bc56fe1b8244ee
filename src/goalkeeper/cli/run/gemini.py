"""``goalkeeper run -- gemini …``: Gemini CLI under an installed goalkeeper, its exit status
what goalkeeper decided.

Unlike Claude Code (``--settings``) and Pi (``-e``), Gemini CLI 0.61.0 takes no settings for one
run. Its system settings file can be moved (``GEMINI_CLI_SYSTEM_SETTINGS_PATH``), but the CLI
skips one that is not owned by root or that lies under a folder writable by group or others
(``checkPosixStatsSecurity``: seen skipping a temp file under ``/tmp``), so a user cannot hand it
a temp file; a temp ``GEMINI_CLI_HOME`` would hide the user's credentials and trust. So the run
uses the hooks ``goalkeeper install gemini`` put in the project's or the user's settings, and
refuses, saying how to install, when there are none.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import click

from goalkeeper.cli.run.agent import RunError, run_process, runs_goalkeeper_hooks
from goalkeeper.store.outcome import AgentExit


def installed_gemini_settings(project: Path, home: Path) -> Path | None:
    """The settings file that runs goalkeeper's hooks, if any."""
    from goalkeeper.hosts.command_hooks.json_doc import JsonFileError, read_document
    from goalkeeper.hosts.gemini.settings import is_goalkeeper_command, settings_path

    for scope in ("project", "user"):
        path = settings_path(scope, project, home)
        try:
            settings = read_document(path)[0]
        except JsonFileError:
            continue
        if runs_goalkeeper_hooks(settings, is_goalkeeper_command):
            return path
    return None


def run_gemini(
    project: Path, argv: Sequence[str], limit_s: float | None, as_json: bool
) -> tuple[AgentExit, str | None]:
    env = dict(os.environ)
    home = Path(env.get("GEMINI_CLI_HOME") or env.get("HOME") or Path.home())
    installed = installed_gemini_settings(project, home)
    if installed is None:
        raise RunError(
            "Gemini CLI takes no settings for one run: install goalkeeper's hooks first with "
            "`goalkeeper install gemini` (this project) or `goalkeeper install gemini --user`"
        )
    click.echo(f"goalkeeper: using the goalkeeper installed in {installed}", err=True)
    return run_process(list(argv), project, env, limit_s, as_json), None
