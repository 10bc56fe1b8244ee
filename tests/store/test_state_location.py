"""Where a project's state lives (issue 21 item 1): in the user's state home, one folder per
project named by its real path, and a legacy ``.goalkeeper/state.db`` moved there once."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from goalkeeper.store import journal
from goalkeeper.store.db import Store, connect, state_path
from goalkeeper.store.legacy import NOTICE_NAME, take_notice
from goalkeeper.store.locations import legacy_state_dir, project_key, project_state_dir
from goalkeeper.store.trust import approve_config, config_approvals


def _project(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "README.md").write_text("a project\n", "utf-8")
    return path


def _write(project: Path, kind: str = "note") -> None:
    store = Store(project)
    with store.transaction() as conn:
        journal.append(conn, "s1", 1.0, kind, {"n": 1})
    store.close()


def _kinds(project: Path) -> list[str]:
    store = Store(project)
    try:
        return [e.kind for e in journal.recent(store.connection(), 100, None)]
    finally:
        store.close()


def _legacy(project: Path, *, keep_open: bool = False) -> sqlite3.Connection | None:
    """A ``.goalkeeper/state.db`` as an older goalkeeper left it: an approval and an entry.
    With ``keep_open``, its last commit stays in the WAL (the connection is returned)."""
    path = legacy_state_dir(project) / "state.db"
    path.parent.mkdir()
    (path.parent / ".gitignore").write_text("*\n", "utf-8")
    conn = connect(path)
    conn.execute("BEGIN IMMEDIATE")
    approve_config(conn, {".goalkeeper.toml": "abc123"}, 1.0)
    journal.append(conn, "old", 1.0, "legacy", {})
    conn.execute("COMMIT")
    if keep_open:
        return conn
    conn.close()
    return None


def test_state_lands_in_the_state_home_and_nothing_in_the_project(tmp_path: Path) -> None:
    """The database is under $XDG_STATE_HOME/goalkeeper/projects/<key>, each folder of
    goalkeeper's mode 0700, and the project holds what it held before."""
    project = _project(tmp_path / "p")
    _write(project)
    home = tmp_path / "xdg-state" / "goalkeeper"
    assert state_path(project) == home / "projects" / project_key(project) / "state.db"
    assert state_path(project).is_file()
    assert sorted(p.name for p in project.iterdir()) == ["README.md"]
    for folder in (home, home / "projects", state_path(project).parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder


def test_a_wider_state_folder_is_narrowed_when_the_database_is_made(tmp_path: Path) -> None:
    """An install receipt written first may have made the folder 0755; the store's first
    database makes it the user's alone."""
    project = _project(tmp_path / "p")
    folder = project_state_dir(project)
    folder.mkdir(parents=True, mode=0o755)
    os.chmod(folder, 0o755)
    _write(project)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_asking_about_state_creates_nothing(tmp_path: Path) -> None:
    """``exists()`` of a project goalkeeper never saw makes no folder anywhere."""
    project = _project(tmp_path / "p")
    assert not Store(project).exists()
    assert not (tmp_path / "xdg-state").exists()


def test_two_projects_never_share_a_folder_and_a_symlink_shares_its_target(
    tmp_path: Path,
) -> None:
    """The key is the real path's digest: a second spelling of a folder (a symlink, ``..``)
    is the same project; another folder, even of the same name, is not."""
    one = _project(tmp_path / "a" / "proj")
    two = _project(tmp_path / "b" / "proj")
    link = tmp_path / "link"
    link.symlink_to(one)
    assert project_state_dir(one) != project_state_dir(two)
    assert project_state_dir(link) == project_state_dir(one)
    assert project_state_dir(one / ".." / "proj") == project_state_dir(one)
    _write(link, "through the link")
    assert _kinds(one) == ["through the link"]
    assert _kinds(two) == []


def test_the_key_is_the_sha256_of_the_real_path(tmp_path: Path) -> None:
    """Whichever module computes it on the hook's path, the digest is SHA-256's."""
    project = _project(tmp_path / "p")
    real = os.fsencode(os.path.realpath(project))
    assert project_key(project) == hashlib.sha256(real).hexdigest()[:32]


def test_a_legacy_database_is_moved_once_with_one_notice(tmp_path: Path) -> None:
    """Approvals and the journal come along; the notice is said once; the legacy folder is
    left where it was, and what is written there later is never read."""
    project = _project(tmp_path / "p")
    _legacy(project)
    store = Store(project)
    assert store.exists()
    with store.transaction() as conn:
        assert config_approvals(conn) == {".goalkeeper.toml": "abc123"}
    store.close()
    assert _kinds(project) == ["legacy"]
    notice = take_notice(store.path.parent)
    assert notice == (
        "state.moved",
        {"state_dir": str(store.path.parent), "legacy": str(legacy_state_dir(project))},
    )
    assert take_notice(store.path.parent) is None
    assert (legacy_state_dir(project) / "state.db").is_file()  # the user's to delete
    later = connect(legacy_state_dir(project) / "state.db")
    journal.append(later, "old", 2.0, "written after the move", {})
    later.commit()
    later.close()
    _write(project, "new")
    assert _kinds(project) == ["legacy", "new"]
    assert not [p for p in store.path.parent.iterdir() if p.name.startswith(".legacy-")]


def test_the_last_commits_in_the_legacy_wal_come_along(tmp_path: Path) -> None:
    """A legacy database whose last commit is still in its WAL (never checkpointed) is moved
    with it."""
    project = _project(tmp_path / "p")
    conn = _legacy(project, keep_open=True)
    assert conn is not None
    try:
        assert (legacy_state_dir(project) / "state.db-wal").stat().st_size > 0
        assert _kinds(project) == ["legacy"]
    finally:
        conn.close()


_MIGRATE = """
import sys
from pathlib import Path
from goalkeeper.store import journal
from goalkeeper.store.db import Store
store = Store(Path(sys.argv[1]))
with store.transaction() as conn:
    journal.append(conn, sys.argv[2], 2.0, "hook", {})
store.close()
"""


def test_processes_that_migrate_at_once_move_it_once(tmp_path: Path) -> None:
    """Eight processes open a legacy project's store together: one database holds the legacy
    entry once and every process's own entry, one notice is left, no staging is left."""
    project = _project(tmp_path / "p")
    _legacy(project)
    procs = [
        subprocess.Popen([sys.executable, "-c", _MIGRATE, str(project), f"p{i}"]) for i in range(8)
    ]
    assert [p.wait(timeout=60) for p in procs] == [0] * 8
    kinds = _kinds(project)
    assert sorted(kinds) == ["hook"] * 8 + ["legacy"]
    folder = state_path(project).parent
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith("state.db")) == [
        NOTICE_NAME
    ]


def _garbage(project: Path) -> None:
    (legacy_state_dir(project) / "state.db").write_bytes(b"not a database " * 200)


def _fifo(project: Path) -> None:
    os.mkfifo(legacy_state_dir(project) / "state.db")


def _link_out(project: Path) -> None:
    """A link to a real goalkeeper database outside the project: never followed."""
    outside = project.parent / "elsewhere.db"
    conn = connect(outside)
    journal.append(conn, "x", 1.0, "outside", {})
    conn.commit()
    conn.close()
    (legacy_state_dir(project) / "state.db").symlink_to(outside)


def _folder_link(project: Path) -> None:
    elsewhere = project.parent / "elsewhere"
    elsewhere.mkdir()
    conn = connect(elsewhere / "state.db")
    journal.append(conn, "x", 1.0, "outside", {})
    conn.commit()
    conn.close()
    legacy_state_dir(project).rmdir()
    legacy_state_dir(project).symlink_to(elsewhere)


def _a_folder(project: Path) -> None:
    (legacy_state_dir(project) / "state.db").mkdir()


def _foreign(project: Path) -> None:
    conn = sqlite3.connect(legacy_state_dir(project) / "state.db")
    conn.execute("CREATE TABLE other (x)")
    conn.commit()
    conn.close()


def _newer(project: Path) -> None:
    conn = connect(legacy_state_dir(project) / "state.db")
    conn.execute("PRAGMA user_version = 999")
    conn.close()


def _huge(project: Path) -> None:
    with open(legacy_state_dir(project) / "state.db", "wb") as f:
        f.truncate(300 * 1024 * 1024)  # sparse: costs no disk


HOSTILE = {
    "garbage": (_garbage, "state.fresh.not_db"),
    "fifo": (_fifo, "state.fresh.not_file"),
    "symlink out": (_link_out, "state.fresh.link"),
    "folder symlink": (_folder_link, "state.fresh.link"),
    "a folder": (_a_folder, "state.fresh.not_file"),
    "not goalkeeper's": (_foreign, "state.fresh.not_db"),
    "newer schema": (_newer, "state.fresh.not_db"),
    "too large": (_huge, "state.fresh.too_large"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_legacy_file_starts_fresh_and_says_why(tmp_path: Path, case: str) -> None:
    """Whatever stands at .goalkeeper/state.db, the store opens at once with fresh state,
    nothing outside is read, the legacy thing is left as it was, and the user is told once.
    (A child process, so a FIFO that blocked would fail the test by its timeout.)"""
    project = _project(tmp_path / "p")
    legacy_state_dir(project).mkdir()
    make, key = HOSTILE[case]
    make(project)
    before = sorted(os.listdir(legacy_state_dir(project)))
    subprocess.run([sys.executable, "-c", _MIGRATE, str(project), "fresh"], timeout=30, check=True)
    assert _kinds(project) == ["hook"]  # fresh: nothing from the legacy side or outside
    assert sorted(os.listdir(legacy_state_dir(project))) == before
    notice = take_notice(state_path(project).parent)
    assert notice is not None and notice[0] == key
    assert take_notice(state_path(project).parent) is None


def test_a_project_with_state_never_reads_a_legacy_folder(tmp_path: Path) -> None:
    """A .goalkeeper/state.db planted after the project has state (the agent's shell can
    write it) changes nothing and says nothing."""
    project = _project(tmp_path / "p")
    _write(project, "mine")
    _legacy(project)
    assert _kinds(project) == ["mine"]
    assert take_notice(state_path(project).parent) is None
