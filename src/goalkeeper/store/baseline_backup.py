"""A copy of each goal's protected tests beside the state database, for when its record is lost.

The project's state folder deleted, or a legacy ``.goalkeeper/`` that could not be moved out
(``store.legacy``; before that move, ``git clean -fdx`` in the project did it), leave GOAL.md's
goal with no record: it shows as a goal nobody approved. When the user approves it again,
goalkeeper restores the tests it kept when the goal was set from this copy, rather than taking
the tests as they are then (which the agent may have weakened first). The copy lives in the
user's state folder (``state_home``), one zip per goal under a folder named by the project's
real path; the trust guard refuses tool calls that write there. It is only as safe as the user's
home folder: an agent that may run any program as the user can find and delete it too. Best
effort: a copy that cannot be written is not an error (the state database stays the record).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from goalkeeper.store.locations import state_home

MAX_BACKUP_BYTES = 64 * 1024 * 1024
"""As ``test_baseline.MAX_TOTAL_BYTES``: what is beyond it was not kept in the first place."""
KEPT_PER_PROJECT = 20
"""Goals whose tests are kept per project; older copies are removed when one is written."""


def backup_path(project: Path, goal_id: str) -> Path:
    import hashlib

    folder = hashlib.sha256(os.fsencode(os.path.realpath(project))).hexdigest()[:16]
    name = hashlib.sha256(goal_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return state_home() / "baselines" / folder / f"{name}.zip"


def save_backup(project: Path, goal_id: str, contents: Mapping[str, bytes]) -> bool:
    """Write the copy of ``goal_id``'s tests (replacing an older one); whether it was written."""
    import tempfile
    import zipfile

    target = backup_path(project, goal_id)
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, temp = tempfile.mkstemp(prefix=".backup-", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as raw, zipfile.ZipFile(raw, "w") as archive:
                for path, data in sorted(contents.items()):
                    archive.writestr(path, data)
            os.replace(temp, target)
        except BaseException:
            os.unlink(temp)
            raise
    except OSError:
        return False
    _prune(target.parent)
    return True


def load_backup(project: Path, goal_id: str) -> dict[str, bytes] | None:
    """The copy of ``goal_id``'s tests for ``project``; None when there is none or it cannot be
    read whole (bounded; names must be project-relative)."""
    import zipfile

    target = backup_path(project, goal_id)
    out: dict[str, bytes] = {}
    total = 0
    try:
        with zipfile.ZipFile(target) as archive:
            for info in archive.infolist():
                name = info.filename
                if name.startswith("/") or ".." in name.split("/") or info.is_dir():
                    return None
                total += info.file_size
                if total > MAX_BACKUP_BYTES:
                    return None
                out[name] = archive.read(info)
    except (OSError, zipfile.BadZipFile, ValueError, RuntimeError):
        return None
    return out


def _prune(folder: Path) -> None:
    try:
        copies = sorted(folder.glob("*.zip"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in copies[KEPT_PER_PROJECT:]:
            old.unlink()
    except OSError:
        pass
