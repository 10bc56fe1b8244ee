"""The agent's tools as goalkeeper judges them: which write files, which run a shell, and the
path or command line a call names. One table for every guard that reads tool calls, so a host
that names its tools differently is added here once. Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

WRITE_TOOLS = frozenset(
    {"Write", "Edit", "MultiEdit", "NotebookEdit", "write", "edit", "apply_patch"}
    | {"write_file", "replace"}  # Gemini CLI
)
"""File-writing tools of Claude Code, Pi and Codex (whose translator hands a patch over as one
``apply_patch`` call per file it names, in ``file_path``)."""
SHELL_TOOLS = frozenset({"Bash", "bash", "shell", "pwsh", "run_shell_command"})  # last: Gemini
"""Shell tools of Claude Code, Codex (``Bash``) and Pi (and the names pi-todone knows): judged
by the command line they run."""


def tool_target(data: Mapping[str, Any]) -> str:
    """The file a write tool names (``file_path``, ``path`` or ``notebook_path``), or ""."""
    for key in ("file_path", "path", "notebook_path"):
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def shell_command(data: Mapping[str, Any]) -> str:
    """The command line a shell tool runs, or ""."""
    value = data.get("command")
    return value if isinstance(value, str) else ""


TODO_TOOL = "todo"
"""goalkeeper's own todo tool, by its neutral name (a host maps it: ``Context.tool_names``)."""
