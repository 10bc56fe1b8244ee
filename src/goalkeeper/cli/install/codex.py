"""``goalkeeper install codex`` / ``goalkeeper uninstall codex``.

``--project`` (the default) writes ``<repo>/.codex/hooks.json`` (committed: the portable
launcher, no path of this machine) and the MCP server in ``<repo>/.codex/config.toml``;
``--user`` writes ``$CODEX_HOME/hooks.json`` and ``$CODEX_HOME/config.toml`` (``~/.codex``).
Codex has no "local" layer. Codex 0.171.0 runs a hook only once it is trusted, and skips an
untrusted one without a word: ``--trust`` (the user's own terminal, so the user's own
decision) records the trust of goalkeeper's handlers, and of the project, in
``$CODEX_HOME/config.toml``; without it, install says how to review them. A receipt
(``install-codex-<scope>.json`` in goalkeeper's state folder: the project's, or the state home
for ``--user``) says what install created, so uninstall takes away exactly that and leaves the
user's bytes as they were.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from goalkeeper.cli.common import App, ExitCode, echo_json, fail
from goalkeeper.hosts.codex import config as cc
from goalkeeper.hosts.codex.hook import HOOK_EVENTS, codex_home
from goalkeeper.hosts.command_hooks.json_doc import (
    JsonFileError,
    is_empty,
    read_document,
    read_text,
    write_document,
    write_text,
)

REVIEW = (
    "Codex runs these hooks only once you trust them: review them in Codex's /hooks (codex exec "
    "needs them trusted; `goalkeeper install codex --trust` records that trust for you)."
)


def install_codex(app: App, scope: str, dry_run: bool, as_json: bool, *, trust: bool) -> int:
    from goalkeeper.cli.install.common import baked_python
    from goalkeeper.hosts.transport.launcher import hook_command, mcp_argv

    scope = _scope(scope)
    project = Path(os.path.realpath(app.project))
    home = Path(codex_home(os.environ))
    hooks_path, mcp_path = _paths(scope, project, home)
    user_toml = home / "config.toml"
    python = baked_python(scope, project)  # type: ignore[arg-type]
    rpath = _receipt_path(scope, project)
    receipt = _load_receipt(rpath)
    try:
        before, style = read_document(hooks_path)
        after, changes = cc.add_hooks(before, hook_command("codex", python))
    except (JsonFileError, ValueError) as exc:
        raise fail(f"{hooks_path}: {exc}") from exc
    created = set(receipt.get("created", ()))
    if not hooks_path.exists():
        created.add("file")
    if "hooks" not in before:
        created.add("hooks")
    created |= {e for e in HOOK_EVENTS if e not in (before.get("hooks") or {})}
    label = "user" if scope == "user" else f"project {project}"
    # the block in the user's config.toml names the project; the project's own file no path
    labels = {mcp_path: "user" if scope == "user" else "project", user_toml: label}
    notes: list[str] = []
    blocks: dict[Path, dict[str, Any]] = {}
    mcp_tables = _read_toml(mcp_path, labels[mcp_path])
    if "goalkeeper" in (mcp_tables.get("mcp_servers") or {}):
        notes.append(f"{mcp_path} already names an MCP server 'goalkeeper'; left as it is")
        argv = None
    else:
        argv = mcp_argv(python, host="codex")
    blocks[mcp_path] = {"mcp": argv, "records": [], "project": None}
    if trust:
        records = cc.trust_records(str(hooks_path), after)
        user = _read_toml(user_toml, label) if user_toml != mcp_path else mcp_tables
        projects = user.get("projects") or {}
        wanted = None
        if scope == "project" and str(project) not in projects:
            wanted = str(project)
            notes.append(f'recorded [projects."{project}"] trust_level = "trusted" in {user_toml}')
        entry = blocks.setdefault(user_toml, {"mcp": None, "records": [], "project": None})
        entry["records"], entry["project"] = records, wanted
    tomls: dict[str, dict[str, Any]] = dict(receipt.get("toml", {}))
    writes: list[tuple[Path, str]] = []
    for path, parts in blocks.items():
        mark = labels[path]
        block = cc.toml_block(mark, parts["mcp"], parts["records"], parts["project"])
        old = _text(path)
        prior = tomls.get(str(path), {})
        rest = cc.without_block(old or "", mark, bool(prior.get("separated")))
        new, separated = cc.with_block(rest, block)
        try:
            cc.check_toml(new)
        except ValueError as exc:
            raise fail(f"{path} {exc}") from exc
        if new != (old or ""):
            writes.append((path, new))
            changes.append(
                f"{'updated' if cc.split_block(old or '', mark)[1] else 'added'} "
                f"goalkeeper's tables in {path}"
            )
        if block:
            tomls[str(path)] = {
                "separated": separated,
                "created": bool(prior.get("created")) or old is None,
                "label": mark,
            }
    dirs = list(receipt.get("dirs", ()))
    for folder in {hooks_path.parent, mcp_path.parent, rpath.parent}:
        if not folder.exists() and str(folder) not in dirs:
            dirs.append(str(folder))
    if not dry_run:
        if after != before or not hooks_path.exists():
            write_document(hooks_path, after, style)
        for path, text in writes:
            write_text(path, text)
        data = {
            "hooks_file": str(hooks_path),
            "created": sorted(created),
            "toml": tomls,
            "dirs": dirs,
            "label": label,
        }
        write_text(rpath, json.dumps(data, indent=1) + "\n")
    from goalkeeper.cli.install.common import launcher_finds

    found = launcher_finds(project, python)
    if as_json:
        echo_json(
            {
                "host": "codex",
                "scope": scope,
                "hooks_file": str(hooks_path),
                "changes": changes,
                "notes": notes,
                "trusted": trust,
                "dry_run": dry_run,
                "goalkeeper_found": found,
            }
        )
        return int(ExitCode.OK)
    if changes:
        click.echo(f"{'Would change' if dry_run else 'Changed'} Codex's configuration:")
        click.echo("".join(f"  - {c}\n" for c in changes), nl=False)
    else:
        click.echo(f"goalkeeper is already installed for Codex in {hooks_path}.")
    click.echo("".join(f"  - {n}\n" for n in notes), nl=False)
    if not found:
        click.echo(
            "Note: the hooks find goalkeeper at run time, and from here they would not: put "
            "`goalkeeper` on PATH (uv tool install, pipx) or set GOALKEEPER_PYTHON="
            f"{shlex.quote(sys.executable)} in the environment you start Codex from."
        )
    if trust:
        click.echo(f"Recorded your trust of goalkeeper's hooks in {user_toml}.")
    else:
        click.echo(REVIEW)
    click.echo("In Codex: /gk-goal <what must be true> sets goalkeeper's goal (/goal is Codex's).")
    return int(ExitCode.OK)


def uninstall_codex(app: App, scope: str, as_json: bool) -> int:
    scope = _scope(scope)
    project = Path(os.path.realpath(app.project))
    home = Path(codex_home(os.environ))
    hooks_path, mcp_path = _paths(scope, project, home)
    rpath = _receipt_path(scope, project)
    receipt = _load_receipt(rpath)
    created = tuple(receipt.get("created", ()))
    changes: list[str] = []
    try:
        before, style = read_document(hooks_path)
    except JsonFileError as exc:
        raise fail(str(exc)) from exc
    after, removed = cc.remove_hooks(before, created)
    if removed:
        changes += removed
        if "file" in created and is_empty(after):
            hooks_path.unlink()
        else:
            write_document(hooks_path, after, style)
    user = "user" if scope == "user" else f"project {project}"
    tomls = receipt.get("toml") or {
        str(mcp_path): {"label": "user" if scope == "user" else "project"},
        str(home / "config.toml"): {"label": user},
    }
    for name, info in tomls.items():
        path, label = Path(name), str(info.get("label") or user)
        old = _text(path)
        if old is None or not cc.split_block(old, label)[1]:
            continue
        new = cc.without_block(old, label, bool(info.get("separated")))
        if info.get("created") and not new.strip():
            path.unlink()
        else:
            write_text(path, new)
        changes.append(f"removed goalkeeper's tables from {path}")
    if scope == "user":  # the trust `goalkeeper run -- codex exec` recorded (cli/run/codex)
        config = home / "config.toml"
        old = _text(config)
        if old is not None and cc.split_block(old, "run")[1]:
            write_text(config, cc.without_block(old, "run", False))
            changes.append(f"removed goalkeeper run's trust records from {config}")
    if rpath.exists():
        rpath.unlink()
    for folder in sorted(receipt.get("dirs", ()), key=len, reverse=True):
        try:
            os.rmdir(folder)  # only when empty
        except OSError:
            pass
    if as_json:
        echo_json({"host": "codex", "scope": scope, "changes": changes})
        return int(ExitCode.OK)
    if changes:
        click.echo("".join(f"  - {c}\n" for c in changes), nl=False)
    else:
        click.echo(f"goalkeeper is not installed for Codex ({hooks_path}).")
    return int(ExitCode.OK)


def _scope(scope: str) -> str:
    if scope == "local":
        raise fail("Codex has no local scope: use --project (the default) or --user")
    return "user" if scope == "user" else "project"


def _paths(scope: str, project: Path, home: Path) -> tuple[Path, Path]:
    """The hooks file and the ``config.toml`` that names the MCP server, for ``scope``."""
    if scope == "user":
        return home / "hooks.json", home / "config.toml"
    return project / ".codex" / "hooks.json", project / ".codex" / "config.toml"


def _receipt_path(scope: str, project: Path) -> Path:
    """In goalkeeper's state folder (the project's, or the state home for ``--user``)."""
    from goalkeeper.store.locations import project_state_dir, state_home

    base = state_home() if scope == "user" else project_state_dir(project)
    return base / f"install-codex-{scope}.json"


def _load_receipt(path: Path) -> dict[str, Any]:
    text = _text(path)
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _read_toml(path: Path, label: str) -> dict[str, Any]:
    try:
        return cc.user_tables(_text(path) or "", label)
    except ValueError as exc:
        raise fail(f"{path} {exc}; fix it first") from exc


def _text(path: Path) -> str | None:
    try:
        return read_text(path)
    except JsonFileError as exc:
        raise fail(str(exc)) from None
