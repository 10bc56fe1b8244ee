"""Where goalkeeper's Pi extension goes, and what the installed file holds.

The extension is a copy of ``pi_extension.ts`` with the command that starts this goalkeeper
(``<this python> -m goalkeeper``) written in, so Pi finds the right installation whatever is on
``PATH``. Project scope: ``<project>/.pi/extensions/goalkeeper.ts``; user scope: the
``extensions`` folder of Pi's configuration (``PI_CODING_AGENT_DIR``, else ``~/.pi/agent``).
A file that differs from what install would write was changed by someone: uninstall keeps it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

PiScope = Literal["project", "user"]
FILE_NAME = "goalkeeper.ts"
_MARKER = "const INSTALLED_COMMAND: string[] | null = null;"


def source_text() -> str:
    return (Path(__file__).with_name("pi_extension.ts")).read_text(encoding="utf-8")


def bridge_argv(executable: str | None = None) -> list[str]:
    return [executable or sys.executable, "-m", "goalkeeper"]


def extension_text(argv: list[str]) -> str:
    """The extension with ``argv`` as the command that starts goalkeeper."""
    text = source_text()
    if _MARKER not in text:  # the packaged file and this module disagree: a packaging bug
        raise RuntimeError(f"{FILE_NAME}: the install marker is missing")
    return text.replace(_MARKER, f"const INSTALLED_COMMAND: string[] | null = {json.dumps(argv)};")


def agent_dir(env: Mapping[str, str]) -> Path:
    configured = env.get("PI_CODING_AGENT_DIR")
    if configured:
        return Path(configured).expanduser()
    return Path(env.get("HOME") or os.path.expanduser("~")) / ".pi" / "agent"


def extension_path(scope: PiScope, project: Path, env: Mapping[str, str]) -> Path:
    base = agent_dir(env) if scope == "user" else project / ".pi"
    return base / "extensions" / FILE_NAME


def is_ours(text: str) -> bool:
    """Written by some ``goalkeeper install pi`` (any interpreter) and not changed since."""
    try:
        line = next(ln for ln in text.splitlines() if ln.startswith("const INSTALLED_COMMAND"))
        argv = json.loads(line.split("=", 1)[1].split(";", 1)[0])
    except (StopIteration, IndexError, ValueError):
        return False
    return isinstance(argv, list) and text == extension_text([str(a) for a in argv])
