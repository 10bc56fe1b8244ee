"""Read and write the user's config files (JSON ones without re-formatting them).

``install`` and ``uninstall`` edit files people read and commit (``.claude/settings.json``,
``.mcp.json``) and Claude Code's own ``~/.claude.json``. A change must show as the keys it
touched, not as a re-indented file: so a file is written back in the style it was read in
(indentation, or one line with or without spaces after ``:`` and ``,``; a final newline or not)
with its keys in their order, and with its permission bits (``~/.claude.json`` is 0600).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from msgspec import Struct

MAX_BYTES = 16 * 1024 * 1024


class JsonFileError(Exception):
    """The file cannot be changed safely; it is left as it was."""


class Style(Struct, frozen=True):
    """How a JSON file was laid out; ``Style()`` is what goalkeeper writes for a new file."""

    indent: str | None = "  "
    item_sep: str = ", "
    key_sep: str = ": "
    final_newline: bool = True


def style_of(text: str, data: object = None) -> Style:
    """The layout of ``text`` (a JSON object; ``data``, when given, is what it parses to): the
    style that reproduces it exactly when there is one, else the nearest ``json.dumps`` can do
    (read from the first key, since strings may hold anything)."""
    final_newline = text.endswith("\n")
    body = text.strip()
    match = re.match(r"[\[{]\s*?\n([ \t]+)\S", body)
    if match:
        return Style(match.group(1), ",", ": ", final_newline)
    if "\n" in body or len(body) <= 2:  # empty, or a layout json.dumps cannot reproduce
        return Style(final_newline=final_newline or not body)
    if isinstance(data, dict):
        for item_sep, key_sep in ((", ", ": "), (",", ":"), (",", ": "), (", ", ":")):
            style = Style(None, item_sep, key_sep, final_newline)
            if dumps(data, style) == text:
                return style
    first = re.match(r'\{\s*"(?:[^"\\]|\\.)*"\s*:(\s?)', body)
    spaced = bool(first and first.group(1))
    return Style(None, ", " if spaced else ",", ": " if spaced else ":", final_newline)


def dumps(data: dict[str, Any], style: Style) -> str:
    if style.indent is None:
        text = json.dumps(data, ensure_ascii=False, separators=(style.item_sep, style.key_sep))
    else:
        text = json.dumps(data, ensure_ascii=False, indent=style.indent)
    return text + ("\n" if style.final_newline else "")


def read_document(path: Path) -> tuple[dict[str, Any], Style | None]:
    """The file's JSON object and its style; ``({}, None)`` when it does not exist. Raises
    ``JsonFileError`` for anything that is not a JSON object, so a file we cannot parse is never
    overwritten."""
    text = read_text(path)
    if text is None:
        return {}, None
    if not text.strip():
        return {}, style_of(text)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise JsonFileError(f"{path} is not valid JSON ({exc}); fix it first") from exc
    if not isinstance(data, dict):
        raise JsonFileError(f"{path} does not hold a JSON object; fix it first")
    return data, style_of(text, data)


def write_document(path: Path, data: dict[str, Any], style: Style | None = None) -> None:
    """Replace ``path`` atomically with ``data`` in ``style`` (goalkeeper's default for a new
    file), keeping the old file's permission bits (a new one gets the umask's)."""
    write_text(path, dumps(data, style or Style()))


def read_text(path: Path) -> str | None:
    """The UTF-8 text of a config file; None when it does not exist. Raises ``JsonFileError``
    for one goalkeeper may not read (never a FIFO or a device: ``install`` must not hang on a
    planted file; never more than ``MAX_BYTES``) or that is not UTF-8."""
    from goalkeeper.store.safe_read import UnsafeFile, read_capped

    try:
        return read_capped(path, MAX_BYTES).decode("utf-8")
    except UnsafeFile as exc:
        if exc.kind == "missing":
            return None
        raise JsonFileError(f"{path} {exc.reason}; fix it first") from None
    except UnicodeDecodeError as exc:
        raise JsonFileError(f"cannot read {path}: {exc}") from exc


def write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically (a temporary file renamed over it), keeping
    the old file's permission bits (a new one gets the umask's)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    try:
        os.chmod(tmp, os.stat(path).st_mode & 0o7777)
    except FileNotFoundError:
        pass
    os.replace(tmp, path)


def is_empty(data: object) -> bool:
    """Nothing but empty objects and lists: what a file install created holds once uninstall
    took its entries out, so the file can go."""
    if isinstance(data, dict):
        return all(is_empty(v) for v in data.values())
    if isinstance(data, list):
        return not data
    return False
