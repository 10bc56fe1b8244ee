"""Where a path an agent wrote lies, read from its text: in the project (and where in it),
outside it, or somewhere the text cannot tell. Lexical: ``..``, ``.`` and repeated slashes are
resolved here; symlinks need the file system, which a guard asks the engine about
(``Inspect``, ``FileFact.rel``). Pure.
"""

from __future__ import annotations

import posixpath
from typing import Literal

Where = Literal["project", "outside", "unknown"]


def locate(path: str, root: str) -> tuple[Where, str]:
    """Where ``path`` (as a command or tool wrote it, run from the project's root) lies, read
    lexically (``..``, ``.`` and repeated slashes resolved; symlinks are the caller's, who can
    look): ("project", the project-relative path, "" for the root), ("outside", the normalised
    absolute path), or ("unknown", path) for what the text cannot place — a variable, ``~``,
    and a relative path that climbs out of the root (the shell's working directory may be
    elsewhere in the project: ``cd src`` persists between calls)."""
    if not path or path.startswith(("$", "~")) or "\0" in path:
        return "unknown", path
    norm = posixpath.normpath(path)
    if norm.startswith("//"):
        norm = "/" + norm.lstrip("/")
    if not norm.startswith("/"):
        if norm == ".." or norm.startswith("../"):
            return "unknown", path
        return "project", "" if norm == "." else norm
    top = posixpath.normpath(root) if root else ""
    if top and (norm == top or top == "/" or norm.startswith(top + "/")):
        return "project", norm[len(top) :].lstrip("/") if top != "/" else norm.lstrip("/")
    return "outside", norm


def in_project(path: str, root: str) -> bool:
    """Whether ``path`` is in the project at ``root`` as the text shows (``locate``): ``/tmp/x``,
    ``$TMPDIR/x``, ``~/x`` or ``../x`` are not (scratch space, or a place it cannot tell)."""
    return locate(path, root)[0] == "project"


def inside(rel: str, folder: str) -> bool:
    """Whether the project-relative ``rel`` is ``folder`` or under it (both normalised)."""
    folder = posixpath.normpath(folder.strip("/"))
    return rel == folder or rel.startswith(folder + "/")
