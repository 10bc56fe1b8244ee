"""``goalkeeper install claude --sandbox`` / ``uninstall claude --sandbox``: Claude Code's sandbox
as goalkeeper's wall, in the user's own settings (``hosts.claude.sandbox`` says what is written
and why).

Always the user's ``~/.claude/settings.json``, whatever scope the hooks go to: it lies outside
every project, so the agent's shell (which may write the project) cannot take the sandbox out,
and Claude Code lets a ``true`` there hold whatever a project's settings say. What install
changed is recorded beside the user-scope install record, so uninstall takes out exactly that.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from goalkeeper.cli.common import fail
from goalkeeper.core.messages import Lang, make_say
from goalkeeper.hosts.claude.sandbox import (
    SANDBOX,
    SandboxRecord,
    add_sandbox,
    dump_record,
    load_record,
    merge_records,
    remove_sandbox,
)
from goalkeeper.hosts.claude.settings import receipt_path, settings_path, write_json_atomic
from goalkeeper.hosts.command_hooks.findings import dig
from goalkeeper.hosts.command_hooks.json_doc import JsonFileError, read_document
from goalkeeper.hosts.command_hooks.own_folders import ensure_folders, goalkeeper_folders, inside

RECORD_NAME = "install-claude-sandbox.json"
LINUX_NEEDS = ("bwrap", "socat")
"""What Claude Code's sandbox runs on Linux (Debian packages bubblewrap and socat)."""


class SandboxResult(Struct, frozen=True):
    settings: str
    changes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)

    def echo(self, verb: str) -> None:
        """The changes under the settings path, then the problems and notes."""
        import click

        if self.changes:
            click.echo(f"{verb} {self.settings} (sandbox):")
        click.echo("".join(f"  - {line}\n" for line in self.changes), nl=False)
        for line in (*self.problems, *self.notes):
            click.echo(line)


def record_path(project: Path, home: Path) -> Path:
    """Beside the user-scope install record (wherever that lives)."""
    return receipt_path("user", project, home).with_name(RECORD_NAME)


def _lang(setting: str) -> Lang:
    return "zh" if setting == "zh" else "en"


def install_sandbox(project: Path, home: Path, lang: str, *, dry_run: bool) -> SandboxResult:
    """Turn the sandbox on in the user's settings with goalkeeper's folders denied to it (its
    messages in ``lang``, the config's setting). A settings file that cannot be changed safely
    is left as it was, and the command fails saying why."""
    try:
        return _install(project, home, _lang(lang), dry_run=dry_run)
    except JsonFileError as exc:
        raise fail(str(exc)) from exc


def uninstall_sandbox(project: Path, home: Path, lang: str) -> SandboxResult:
    """Take out of the user's settings exactly what ``cli.install.sandbox`` put in."""
    try:
        return _uninstall(project, home, _lang(lang))
    except JsonFileError as exc:
        raise fail(str(exc)) from exc


def _install(project: Path, home: Path, lang: Lang, *, dry_run: bool) -> SandboxResult:
    say = make_say(lang)
    path = settings_path("user", project, home)
    folders = list(goalkeeper_folders())
    before, style = read_document(path)
    after, record, changes = add_sandbox(before, folders)
    lines = [say(key, **fields) for key, fields in changes]
    if not dry_run:
        ensure_folders(folders)
        if changes:
            write_json_atomic(path, after, style)
            rpath = record_path(project, home)
            write_json_atomic(rpath, dump_record(merge_records(_load(rpath), record)))
    problems = socket_problems(after, folders, str(path), lang)
    notes = [say("sandbox.install.where", path=str(path))]
    missing = [name for name in LINUX_NEEDS if shutil.which(name) is None]
    if sys.platform.startswith("linux") and missing:
        notes.append(say("sandbox.install.missing", missing=", ".join(missing)))
    return SandboxResult(str(path), lines, problems, notes, folders)


def _uninstall(project: Path, home: Path, lang: Lang) -> SandboxResult:
    say = make_say(lang)
    path = settings_path("user", project, home)
    rpath = record_path(project, home)
    record = _load(rpath)
    if record is None:
        return SandboxResult(str(path))
    before, style = read_document(path)
    after, changes = remove_sandbox(before, record)
    if changes or after != before:
        write_json_atomic(path, after, style)
    rpath.unlink(missing_ok=True)
    return SandboxResult(str(path), [say(key, **fields) for key, fields in changes])


def socket_problems(
    settings: dict[str, Any], folders: list[str], path: str, lang: Lang
) -> list[str]:
    """The user's settings let the agent's Bash open unix sockets (all of them, or one under
    goalkeeper's folders): kept, since they are the user's, but said as a problem."""
    say = make_say(lang)
    what: list[str] = []
    if dig(settings, SANDBOX, "network", "allowAllUnixSockets") is True:
        what.append("sandbox.network.allowAllUnixSockets")
    listed = dig(settings, SANDBOX, "network", "allowUnixSockets")
    for item in listed if isinstance(listed, list) else ():
        if isinstance(item, str) and any(inside(item, f) for f in folders):
            what.append(f"sandbox.network.allowUnixSockets: {item}")
    return [say("sandbox.install.sockets", what=", ".join(what), path=path)] if what else []


def _load(path: Path) -> SandboxRecord | None:
    try:
        raw, _ = read_document(path)
    except JsonFileError:
        return None
    return load_record(raw) if raw else None
