"""Where goalkeeper's Pi extension goes, and what the installed file holds.

The extension is a copy of ``extension.ts`` with the command that starts this goalkeeper
(``<this python> -m goalkeeper``) written in, so Pi finds the right installation whatever is on
``PATH``. Project scope: ``<project>/.pi/extensions/goalkeeper.ts``; user scope: the
``extensions`` folder of Pi's configuration (``PI_CODING_AGENT_DIR``, else ``~/.pi/agent``).
The first line carries a digest of the rest: a file whose digest does not match was changed by
someone, and neither install nor uninstall touches it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

PiScope = Literal["project", "user"]
FILE_NAME = "goalkeeper.ts"
_MARKER = "const INSTALLED_COMMAND: string[] | null = null;"
_SIGNATURE = "// installed by goalkeeper; sha256:"


def source_text() -> str:
    return (Path(__file__).with_name("extension.ts")).read_text(encoding="utf-8")


def bridge_argv(executable: str | None = None) -> list[str]:
    return [executable or sys.executable, "-m", "goalkeeper"]


def extension_text(argv: list[str]) -> str:
    """The extension with ``argv`` as the command that starts goalkeeper, signed with a digest
    of its own text, so a later install or uninstall can tell an untouched copy (of any
    goalkeeper version) from one a person changed."""
    text = source_text()
    if _MARKER not in text:  # the packaged file and this module disagree: a packaging bug
        raise RuntimeError(f"{FILE_NAME}: the install marker is missing")
    body = text.replace(_MARKER, f"const INSTALLED_COMMAND: string[] | null = {json.dumps(argv)};")
    return f"{_SIGNATURE}{_digest(body)}\n{body}"


def is_ours(text: str) -> bool:
    """Written by ``goalkeeper install pi`` (any version, any interpreter), unchanged since."""
    first, _, body = text.partition("\n")
    return first.startswith(_SIGNATURE) and first[len(_SIGNATURE) :] == _digest(body)


def _digest(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]


def agent_dir(env: Mapping[str, str]) -> Path:
    configured = env.get("PI_CODING_AGENT_DIR")
    if configured:
        return Path(configured).expanduser()
    return Path(env.get("HOME") or os.path.expanduser("~")) / ".pi" / "agent"


def host_files(project: Path, env: Mapping[str, str]) -> tuple[str, ...]:
    """Pi's configuration that runs goalkeeper (its extension in either scope, and the settings
    files that list extensions and packages), as absolute paths: the trust guard refuses the
    agent's writes to them, as it does Claude Code's settings."""
    agent = agent_dir(env)
    root = project.resolve() if project.exists() else project.absolute()
    files = (
        extension_path("project", root, env),
        extension_path("user", root, env),
        root / ".pi" / "settings.json",
        agent / "settings.json",
    )
    return tuple(str(f) for f in files)


def extension_path(scope: PiScope, project: Path, env: Mapping[str, str]) -> Path:
    base = agent_dir(env) if scope == "user" else project / ".pi"
    return base / "extensions" / FILE_NAME
