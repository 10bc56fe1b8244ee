"""``goalkeeper install pi`` / ``goalkeeper uninstall pi``: the Pi extension file."""

from __future__ import annotations

import os
from pathlib import Path

import click

from goalkeeper.cli.app import App, ExitCode, echo_json, fail
from goalkeeper.hosts.pi_install import (
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
        _write_atomic(path, wanted)
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
    from goalkeeper.store.safe_read import UnsafeFile, read_capped

    try:
        return read_capped(path, 16 * 1024 * 1024).decode("utf-8")
    except UnsafeFile as exc:
        if exc.kind == "missing":
            return None
        raise fail(f"{path} {exc.reason}") from None
    except UnicodeDecodeError as exc:
        raise fail(f"cannot read {path}: {exc}") from exc


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
