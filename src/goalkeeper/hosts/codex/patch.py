"""A Codex tool call as goalkeeper's guards read it: an ``apply_patch`` is one write per file.

Codex's patch tool carries the patch text in ``tool_input.command``, and Codex also applies a
patch that a shell command names (``apply_patch <<'EOF' …``). Each file such a patch adds,
changes, deletes or moves to becomes its own ``ToolCall``, so the question gate and the trust
guard judge every target. Read by the hook translator (``hook.tool_calls``) and by the rollout
reader (``transcript``), which names a patch run by its first file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.values import ToolCall

PATCH_TOOL = "apply_patch"


def tool_calls(sid: str, name: str, tool_input: Mapping[str, Any]) -> tuple[ToolCall, ...]:
    """A Codex tool call as goalkeeper's guards read it: a patch is one write per file. Codex
    also applies a patch the shell tool names (``apply_patch <<'EOF' …``: its hook sees
    ``Bash``, the file is written; seen on 0.171.0), so such a command is judged as the shell
    command *and* as the patch's writes."""
    command = tool_input.get("command")
    command = command if isinstance(command, str) else ""
    if name == PATCH_TOOL:
        targets = patch_targets(command) or ("",)
    elif name == "Bash" and _SHELL_PATCH.search(command):
        found = patch_targets(command) or ("",)
        joined = (_joined(folder, t) for folder in cd_folders(command) for t in found if t)
        targets = tuple(dict.fromkeys((*found, *joined)))
    else:
        return (ToolCall(sid, name, dict(tool_input)),)
    writes = tuple(ToolCall(sid, PATCH_TOOL, {"file_path": t, "command": command}) for t in targets)
    return writes if name == PATCH_TOOL else (ToolCall(sid, name, dict(tool_input)), *writes)


_SHELL_PATCH = lazy_re(r"(?:^|[\s;&|(`'\"])(?:apply_patch|applypatch)\b")
_CD = lazy_re(r"(?:^|[\s;&|(`])(?:cd|pushd)\s+(['\"]?)([^\s'\";&|()`]+)\1")


def cd_folders(command: str) -> tuple[str, ...]:
    """Every folder a patch after the ``cd`` commands of ``command`` may run in, from the session's
    folder: each ``cd`` alone and each chain of them in order (``cd a && cd b`` gives ``a``,
    ``a/b`` and ``b``). A patch's path is judged from each (and as it is): judging one more
    path than it writes refuses nothing honest, while one ``cd`` too few let ``cd a && cd b
    && apply_patch`` write ``../../.codex/hooks.json`` unjudged. A folder only known when the
    command runs (``cd "$(mktemp -d)"``) is beyond what a reading of the text can place."""
    folders: dict[str, None] = {}
    chain = ""
    for match in _CD.finditer(command):
        folder = match.group(2)
        chain = folder if folder.startswith(("/", "~")) or not chain else _joined(chain, folder)
        folders.setdefault(folder, None)
        folders.setdefault(chain, None)
    return tuple(folders)


def _joined(folder: str, path: str) -> str:
    """``path`` as a patch run after ``cd folder`` names it, from the session's folder."""
    return path if path.startswith("/") else f"{folder.rstrip('/')}/{path}"


_FILE_LINES = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")


def patch_targets(patch: str) -> tuple[str, ...]:
    """Every file an ``apply_patch`` text adds, changes, deletes or moves to, in order, once."""
    found: dict[str, None] = {}
    for line in patch.splitlines():
        for head in _FILE_LINES:
            if line.startswith(head):
                path = line[len(head) :].strip()
                if path:
                    found.setdefault(path, None)
    return tuple(found)
