"""``goalkeeper install pi`` / ``goalkeeper uninstall pi``: the Pi extension file."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import click

from goalkeeper.cli.common import App, ExitCode, echo_json, fail
from goalkeeper.hosts.command_hooks.findings import Finding
from goalkeeper.hosts.command_hooks.json_doc import JsonFileError, read_text, write_text
from goalkeeper.hosts.pi.install import (
    PiScope,
    bridge_argv,
    extension_path,
    extension_text,
    is_ours,
)
from goalkeeper.skills import install_skills, remove_skills


def install_pi(app: App, scope: str, dry_run: bool, as_json: bool) -> int:
    pi_scope = _scope(scope)
    path = extension_path(pi_scope, app.project, os.environ)
    argv = bridge_argv()
    wanted = extension_text(argv)
    current = _read(path)
    if current is not None and current != wanted and not is_ours(current):
        raise fail(
            f"{path} exists and was not written by goalkeeper (or was edited); "
            "move it away first, then install again"
        )
    changes = [] if current == wanted else [f"{'updated' if current else 'added'} {path}"]
    if changes and not dry_run:
        write_text(path, wanted)
    skills = install_skills(_skills_dir(path), dry_run=dry_run)
    data = {
        "host": "pi",
        "scope": pi_scope,
        "extension": str(path),
        "changes": changes,
        "dry_run": dry_run,
        "command": argv,
        "skills": skills,
    }
    if as_json:
        echo_json(data)
        return int(ExitCode.OK)
    if changes:
        click.echo(f"{'Would install' if dry_run else 'Installed'} goalkeeper for Pi: {path}")
    else:
        click.echo(f"goalkeeper is already installed for Pi: {path}")
    for line in skills:
        click.echo(f"  - {line}")
    if pi_scope == "project":
        click.echo(
            "Pi ≥ 0.80 loads project extensions only in a trusted project: run `/trust` in Pi "
            "once, or pass --approve in print and RPC modes (or install with --user)."
        )
    click.echo("In Pi: /goal <what must be true> sets a goal; the todo tool needs evidence.")
    return int(ExitCode.OK)


def uninstall_pi(app: App, scope: str, as_json: bool) -> int:
    pi_scope = _scope(scope)
    path = extension_path(pi_scope, app.project, os.environ)
    current = _read(path)
    changes: list[str] = []
    kept: str | None = None
    if current is not None and is_ours(current):
        path.unlink()
        changes.append(f"removed {path}")
    elif current is not None:
        kept = f"{path} was changed since install; left in place"
    skills = remove_skills(_skills_dir(path))
    if as_json:
        echo_json(
            {"host": "pi", "scope": pi_scope, "changes": changes, "kept": kept, "skills": skills}
        )
        return int(ExitCode.OK)
    click.echo(changes[0] if changes else (kept or f"goalkeeper is not installed for Pi ({path})."))
    for line in skills:
        click.echo(f"  - {line}")
    return int(ExitCode.OK)


def _skills_dir(extension: Path) -> Path:
    """Pi's skills folder beside its extensions folder (``.pi/skills``, ``~/.pi/agent/skills``),
    where goalkeeper's skills go (``goalkeeper.skills``)."""
    return extension.parent.parent / "skills"


def _scope(scope: str) -> PiScope:
    if scope == "local":
        raise fail("Pi has no local scope: use --project (the default) or --user")
    return "user" if scope == "user" else "project"


def _read(path: Path) -> str | None:
    try:
        return read_text(path)
    except JsonFileError as exc:
        raise fail(str(exc)) from None


def pi_findings(
    layer: str,
    path: Path,
    text: str,
    trust: Mapping[str, object] | None,
    agent_settings: Mapping[str, object],
    project: Path,
) -> list[Finding]:
    """``goalkeeper doctor``'s findings for one installed Pi extension (``text``: the file).

    Pi loads ``.pi/extensions/*.ts`` (project) and ``<agent dir>/extensions`` (user); the
    extension starts the command install wrote into it (``INSTALLED_COMMAND``), which doctor
    reads but never runs (the project's copy is the agent's to write). Pi 1.6.0 loads the
    project's ``.pi/`` only in a trusted project and skips it silently in print, JSON and RPC
    modes (``/work/shared/reference/pi-host.md`` §2.3; ``core/trust-manager.js``): the nearest
    entry of ``<agent dir>/trust.json`` at or above the folder (``true``/``false``), else the
    global ``"defaultProjectTrust": "always"``."""
    import json
    import re

    scope = " --user" if layer == "user" else ""
    if not is_ours(text):
        return [
            Finding(
                "pi",
                "extension",
                False,
                f"{path} was not written by goalkeeper or was changed since",
                f"move it away, then goalkeeper install pi{scope}",
            )
        ]
    out = [Finding("pi", "extension", True, f"{layer} {path}")]
    match = re.search(r"const INSTALLED_COMMAND: string\[\] \| null = (\[.*\]);", text)
    try:
        argv = json.loads(match.group(1)) if match else None
    except ValueError:
        argv = None
    python = str(argv[0]) if isinstance(argv, list) and argv else ""
    if argv == bridge_argv():
        out.append(Finding("pi", "runnable", True, f"starts this goalkeeper ({python})"))
    elif not (os.path.isabs(python) and os.access(python, os.X_OK)):
        out.append(
            Finding(
                "pi",
                "runnable",
                False,
                f"the extension starts {python or 'nothing'}, which is not an interpreter here",
                f"goalkeeper install pi{scope}",
            )
        )
    else:
        out.append(
            Finding(
                "pi",
                "runnable",
                True,
                f"the extension starts {python}, not this goalkeeper's {bridge_argv()[0]} "
                "(not run: doctor does not start interpreters a file names)",
                f"goalkeeper install pi{scope} (from the goalkeeper you mean)",
                warn=True,
            )
        )
    if layer == "project":
        out.append(_pi_trust(trust or {}, agent_settings, project))
    return out


def _pi_trust(
    trust: Mapping[str, object], agent_settings: Mapping[str, object], project: Path
) -> Finding:
    folder = str(project)
    while True:
        decision = trust.get(folder)
        if decision is True:
            return Finding("pi", "project-trust", True, f"{folder} is trusted (trust.json)")
        if decision is False:
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    if decision is not False and agent_settings.get("defaultProjectTrust") == "always":
        return Finding("pi", "project-trust", True, 'defaultProjectTrust is "always"')
    why = "marked untrusted" if decision is False else "not trusted"
    return Finding(
        "pi",
        "project-trust",
        False,
        f"{project} is {why}: Pi (1.6.0) skips the project's .pi/extensions without a word in "
        "print, JSON and RPC modes",
        "run /trust in Pi once in this project (or pass --approve), or: goalkeeper install pi "
        "--user",
    )
