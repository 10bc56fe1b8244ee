"""The protected tests of a goal (or of a session, for todo test gates) on disk and in the
state database.

``snapshot`` reads the project's test files and test configuration (``core.protected``) as they
are now; ``save_baseline`` keeps them with the goal, in the state database outside the project
where the agent's tools may not write; ``current_digests`` tells what they are at a later stop.
Files are read through ``safe_read`` (regular files in the project, size-capped) and the walk
skips tool, dependency and build folders, so a planted FIFO or a vendored tree costs nothing.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from goalkeeper.core.proof.protected import is_protected, protected_digest

MAX_FILES = 2000
MAX_FILE_BYTES = 1_000_000
MAX_TOTAL_BYTES = 64 * 1024 * 1024
"""A test suite larger than this is not written by hand; what is beyond it is not protected."""


class Baseline(Struct, frozen=True):
    """The protected files of a goal: their content and change digest, by relative path."""

    goal_id: str
    contents: dict[str, bytes]
    digests: dict[str, str]


def snapshot(project: Path) -> dict[str, bytes]:
    """The protected files of ``project`` now, by relative POSIX path (bounded; never raises)."""
    from goalkeeper.store.project import walk_files
    from goalkeeper.store.safe_read import UnsafeFile, read_capped

    out: dict[str, bytes] = {}
    total = 0
    for rel, path in walk_files(project):
        if not is_protected(rel):
            continue
        try:
            data = read_capped(path, MAX_FILE_BYTES, within=project)
        except UnsafeFile:
            continue
        total += len(data)
        if total > MAX_TOTAL_BYTES or len(out) >= MAX_FILES:
            break
        out[rel] = data
    return out


_digests: dict[str, tuple[tuple[int, int, int], str]] = {}
_RACY_NS = 2_000_000_000


def current_digests(project: Path) -> dict[str, str]:
    """The change digest of every protected file now, computed again only for files whose
    (mtime, size, inode) moved: this runs at every passing verify of an active goal."""
    import time

    from goalkeeper.store.project import walk_files
    from goalkeeper.store.safe_read import UnsafeFile, read_capped

    out: dict[str, str] = {}
    for rel, path in walk_files(project):
        if not is_protected(rel):
            continue
        try:
            st = os.stat(path)
        except OSError:
            continue
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        cached = _digests.get(path)
        if cached is not None and cached[0] == stamp:
            out[rel] = cached[1]
            continue
        try:
            digest = protected_digest(rel, read_capped(path, MAX_FILE_BYTES, within=project))
        except UnsafeFile:
            continue
        out[rel] = digest
        if time.time_ns() - st.st_mtime_ns > _RACY_NS:  # a file written just now may change
            _digests[path] = (stamp, digest)
        if len(out) >= MAX_FILES:
            break
    return out


def current_state(
    project: Path, baseline: Baseline, commands: Sequence[str] = ()
) -> dict[str, str]:
    """What to compare ``baseline.digests`` with: the protected files now, and the runners
    pinned with them (``runner_pins``) or that ``commands`` now resolve to in the project."""
    from goalkeeper.store.runner_pins import current_pins

    return current_digests(project) | current_pins(project, baseline.digests, commands)


def save_baseline(conn: sqlite3.Connection, goal_id: str, contents: dict[str, bytes]) -> None:
    """Keep ``contents`` as the protected tests of ``goal_id`` (replacing what was kept)."""
    conn.execute("DELETE FROM test_baselines WHERE goal_id = ?", (goal_id,))
    conn.executemany(
        "INSERT INTO test_baselines (goal_id, path, digest, content) VALUES (?, ?, ?, ?)",
        [(goal_id, p, protected_digest(p, c), c) for p, c in contents.items()],
    )


def load_baseline(conn: sqlite3.Connection, goal_id: str) -> Baseline | None:
    """The protected tests kept for ``goal_id``; None when none were kept."""
    rows = conn.execute(
        "SELECT path, digest, content FROM test_baselines WHERE goal_id = ?", (goal_id,)
    ).fetchall()
    marker = conn.execute(
        "SELECT 1 FROM test_baseline_goals WHERE goal_id = ?", (goal_id,)
    ).fetchone()
    if marker is None:
        return None
    return Baseline(
        goal_id,
        {str(p): bytes(c) for p, _, c in rows},
        {str(p): str(d) for p, d, _ in rows},
    )


def mark_baseline(conn: sqlite3.Connection, goal_id: str, now: float) -> None:
    """Record that ``goal_id`` has a baseline (an empty one too: a project without tests)."""
    conn.execute(
        "INSERT OR REPLACE INTO test_baseline_goals (goal_id, taken_at) VALUES (?, ?)",
        (goal_id, now),
    )


def take_baseline(
    conn: sqlite3.Connection,
    goal_id: str,
    project: Path,
    now: float,
    *,
    backup: bool = False,
    commands: Sequence[str] | None = None,
) -> int:
    """Snapshot the project's protected files as ``goal_id``'s baseline, with the runners
    inside the project that ``commands`` (or the known runners) resolve to; how many.
    ``backup``: also keep a copy outside the state database (a goal's, for when that record is
    lost)."""
    from goalkeeper.store.runner_pins import pin

    contents = snapshot(project) | pin(project, commands)
    save_baseline(conn, goal_id, contents)
    mark_baseline(conn, goal_id, now)
    if backup:
        from goalkeeper.store.baseline_backup import save_backup

        save_backup(project, goal_id, contents)
    return len(contents)


def restore_baseline(
    conn: sqlite3.Connection, goal_id: str, project: Path, now: float
) -> int | None:
    """Put back ``goal_id``'s baseline from its copy outside the project; how many files, or
    None when there is no copy."""
    from goalkeeper.store.baseline_backup import load_backup

    contents = load_backup(project, goal_id)
    if contents is None:
        return None
    save_baseline(conn, goal_id, contents)
    mark_baseline(conn, goal_id, now)
    return len(contents)


KEPT_SESSIONS = 8
"""Session baselines kept (``keep_tests``); older ones are dropped when a new one is taken."""


def keep_tests(conn: sqlite3.Connection, key: str, project: Path, now: float) -> bool:
    """Take ``key``'s baseline unless one is kept already; whether it was taken now. Only the
    newest ``KEPT_SESSIONS`` session baselines stay: each holds the test files' content."""
    if conn.execute("SELECT 1 FROM test_baseline_goals WHERE goal_id = ?", (key,)).fetchone():
        return False
    take_baseline(conn, key, project, now)
    old = conn.execute(
        "SELECT goal_id FROM test_baseline_goals WHERE goal_id LIKE 'session:%' "
        "ORDER BY taken_at DESC, rowid DESC LIMIT -1 OFFSET ?",
        (KEPT_SESSIONS,),
    ).fetchall()
    for (stale,) in old:
        conn.execute("DELETE FROM test_baselines WHERE goal_id = ?", (stale,))
        conn.execute("DELETE FROM test_baseline_goals WHERE goal_id = ?", (stale,))
    return True


def session_keys(conn: sqlite3.Connection) -> list[str]:
    """The session baselines kept (``keep_tests``), newest first."""
    rows = conn.execute(
        "SELECT goal_id FROM test_baseline_goals WHERE goal_id LIKE 'session:%' "
        "ORDER BY taken_at DESC, rowid DESC"
    ).fetchall()
    return [str(key) for (key,) in rows]
