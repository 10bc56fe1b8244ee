"""The Claude Code plugin's files, generated from the code they mirror, so that they cannot
drift from it: ``python -m goalkeeper.cli.plugin_files [--check] [ROOT]`` writes them under ROOT
(the repository: ``.claude-plugin/marketplace.json`` and ``plugins/goalkeeper/``), or lists the
stale ones and exits 1. A test runs the check on the committed files. What the files say and
why is ``goalkeeper.hosts.claude.plugin``'s business; this module only lays them out.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from goalkeeper.hosts.claude.hook import PLUGIN_COMMANDS
from goalkeeper.hosts.claude.plugin import hooks_json, marketplace_json, mcp_json, plugin_json
from goalkeeper.hosts.command_hooks.wire import PLUGIN_NAME

PLUGIN_DIR = f"plugins/{PLUGIN_NAME}"


def plugin_files(version: str | None = None) -> dict[str, str]:
    """Every generated file, as its path from the repository root → its text."""
    import goalkeeper
    from goalkeeper.hosts.claude.settings import command_text
    from goalkeeper.skills import skill_files

    version = version or goalkeeper.__version__
    files = {
        ".claude-plugin/marketplace.json": _json(marketplace_json(version)),
        f"{PLUGIN_DIR}/.claude-plugin/plugin.json": _json(plugin_json(version)),
        f"{PLUGIN_DIR}/hooks/hooks.json": _json(hooks_json()),
        f"{PLUGIN_DIR}/.mcp.json": _json(mcp_json()),
    }
    for name, command in PLUGIN_COMMANDS.items():
        files[f"{PLUGIN_DIR}/commands/{name}.md"] = command_text(command, "en")
    for rel, text in skill_files().items():
        files[f"{PLUGIN_DIR}/skills/{rel}"] = text
    return files


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def stale_files(root: Path) -> list[str]:
    """The generated files under ``root`` that are missing or differ from what this module
    writes (the plugin's own folder holds nothing else either: a leftover file is stale too)."""
    files = plugin_files()
    stale = [rel for rel, text in files.items() if _read(root / rel) != text]
    plugin = root / PLUGIN_DIR
    if plugin.is_dir():
        stale += sorted(
            rel
            for rel in (p.relative_to(root).as_posix() for p in plugin.rglob("*") if p.is_file())
            if rel not in files
        )
    return stale


def write_plugin_files(root: Path) -> list[str]:
    """Write the generated files under ``root``; the ones that changed."""
    changed = []
    for rel, text in plugin_files().items():
        path = root / rel
        if _read(path) == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        changed.append(rel)
    return changed


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def main(argv: list[str] | None = None) -> int:
    """``python -m goalkeeper.cli.plugin_files [--check] [ROOT]`` (ROOT: the current
    folder). Writes the plugin files, or with ``--check`` lists the stale ones and exits 1."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m goalkeeper.cli.plugin_files",
        description="Write the Claude Code plugin's files under ROOT, or list the stale ones.",
    )
    parser.add_argument("--check", action="store_true", help="list stale files; exit 1 if any")
    parser.add_argument("root", nargs="?", type=Path, default=None, help="default: this folder")
    args = parser.parse_args(argv)
    root: Path = args.root or Path.cwd()
    check: bool = args.check
    if check:
        stale = stale_files(root)
        for rel in stale:
            print(f"stale: {rel}")
        return 1 if stale else 0
    for rel in write_plugin_files(root):
        print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
