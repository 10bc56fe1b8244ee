"""A scratch copy of the work tree kept between proofs and brought up to date, not rebuilt.

The hidden tests (``engine.hidden``) run the goal's verify in a copy of the work tree at every
proof. Rebuilding that copy costs one file creation per project file (≈ 0.2 ms each here: about
50 ms for a small project, far over the +10 ms a proof may cost). So the copy is kept in
goalkeeper's state folder (which a sandboxed host denies to the agent's reads, unlike ``/tmp``),
with a manifest beside it, and each proof copies only what changed.

What the agent may do meanwhile, and why it does not matter:

* **Edit the project**, even keeping size and mtime (``os.utime``): every project file is
  compared by inode, size, mtime *and* ctime, which no user process can set. A file changed
  within a clock tick of the last sync is never trusted (git's "racily clean" rule).
* **Change the copy from the code the verify ran there** (rewrite a hidden test for the next
  proof, plant a ``.pyc``, swap a folder for a symlink): the copy is compared with what
  goalkeeper wrote there by inode and ctime too; anything that differs, or that goalkeeper did
  not write (a cache the run left, a symlink), is removed before anything is copied, so no write
  goes through a link the run planted. The manifest lives outside the copy, where a confined
  verify cannot write.

The copy holds no hard link to anything: a write in it never reaches the project or the user's
hidden tests. Two proofs at once (two sessions) do not share it: the second one builds a
throwaway copy (``locked`` is None). Runs outside the state transaction, like every verification.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from goalkeeper.engine.replay import LEFT_OUT, LINKED, MAX_COPY_BYTES, MAX_COPY_FILES

MANIFEST = "manifest.json"
LOCK = "lock"
RACY_NS = 100_000_000
"""A project file whose ctime is this close to the sync is copied again next time: ext4 stamps
ctime with a coarse clock (≈ 4 ms), so a change in the same tick would leave it unchanged."""

Entry = list[int] | str
"""A file: [source ino, ctime, size, mtime, origin, copy ino, copy ctime]; a symlink: its
target. ``origin`` 1: the file comes from the overlay (the hidden tests), 0: the project."""
Stat = tuple[int, int, int, int, int]
"""A source file: inode, ctime, size, mtime (ns) and origin."""


@contextmanager
def locked(home: Path) -> Iterator[Path | None]:
    """Hold ``home``'s kept copy for one proof; None when another proof holds it."""
    import fcntl

    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(home / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield None
            return
        yield home
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def sync_tree(project: Path, home: Path, overlay: Path | None = None) -> Path:
    """Bring the copy at ``home/<project name>`` to ``project``'s current files with the files
    of ``overlay`` laid over its root (they replace whatever the project has at their paths)
    and return it. ``ValueError`` past the copy bounds (the copy is then dropped); ``OSError``
    as it comes."""
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    target = home / project.name
    manifest_path = home / MANIFEST
    old = _load(manifest_path)
    if not target.is_dir() or target.is_symlink():
        old = {}
    started = time.time_ns()
    try:
        files, links, dirs = _scan(project)
        if overlay is not None:
            _lay_over(_scan(overlay, origin=1)[0], files, links, dirs)
    except ValueError:
        shutil.rmtree(target, ignore_errors=True)
        raise
    kept: dict[str, Entry] = {}
    if old:
        fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            _prune(fd, "", files, links, dirs, old, kept)
        finally:
            os.close(fd)
    else:
        _remove(target)
        target.mkdir(mode=0o700)
    for rel in sorted(dirs):
        (target / rel).mkdir(exist_ok=True)
    for rel, where in links.items():
        if rel not in kept:
            os.symlink(where, target / rel)
        kept[rel] = where
    for rel, (ino, ctime, size, mtime, origin) in files.items():
        if rel in kept:
            continue
        dest = target / rel
        shutil.copyfile((overlay if origin and overlay else project) / rel, dest)
        st = os.lstat(dest)
        racy = ctime >= started - RACY_NS
        kept[rel] = [-1 if racy else ino, ctime, size, mtime, origin, st.st_ino, st.st_ctime_ns]
    if kept != old:
        _save(manifest_path, kept)
    return target


def _lay_over(
    laid: dict[str, Stat], files: dict[str, Stat], links: dict[str, str], dirs: set[str]
) -> None:
    """The overlay's files replace the project's at their paths: a file, link or folder there
    goes, and every folder above them is a real folder (a linked ``.venv`` included)."""
    for rel in laid:
        parts = rel.split("/")
        for i in range(1, len(parts)):
            above = "/".join(parts[:i])
            files.pop(above, None)
            links.pop(above, None)
            dirs.add(above)
        links.pop(rel, None)
        if rel in dirs:
            inside = rel + "/"
            dirs.difference_update({d for d in dirs if d == rel or d.startswith(inside)})
            for table in (files, links):
                for gone in [k for k in table if k.startswith(inside)]:
                    del table[gone]
    files.update(laid)


def _scan(root: Path, origin: int = 0) -> tuple[dict[str, Stat], dict[str, str], set[str]]:
    """The regular files (with their stats), symlinks and folders under ``root``, as
    ``replay._copy_tree`` copies them; a project's ``LINKED`` folders become links to it.
    ``origin`` 1: the overlay, whose files are all taken as they are."""
    files: dict[str, Stat] = {}
    links: dict[str, str] = {}
    dirs: set[str] = set()
    size = 0
    pending = [""]
    while pending:
        rel_dir = pending.pop()
        with os.scandir(root / rel_dir if rel_dir else root) as it:
            for entry in it:
                name = entry.name
                if name in LEFT_OUT and not origin:
                    continue
                rel = f"{rel_dir}/{name}" if rel_dir else name
                st = entry.stat(follow_symlinks=False)
                kind = stat.S_IFMT(st.st_mode)
                if not rel_dir and name in LINKED and kind == stat.S_IFDIR and not origin:
                    links[rel] = os.fspath(root / name)
                elif kind == stat.S_IFREG:
                    files[rel] = (st.st_ino, st.st_ctime_ns, st.st_size, st.st_mtime_ns, origin)
                    size += st.st_size
                elif kind == stat.S_IFDIR:
                    dirs.add(rel)
                    pending.append(rel)
                elif kind == stat.S_IFLNK and not origin:
                    links[rel] = os.readlink(entry.path)
                # a FIFO or a device: copying one would block or flood
        if len(files) + len(links) + len(dirs) > MAX_COPY_FILES or size > MAX_COPY_BYTES:
            raise ValueError(
                f"the work tree has more than {MAX_COPY_FILES} files or "
                f"{MAX_COPY_BYTES // 1024 // 1024} MB to copy"
            )
    return files, links, dirs


def _prune(
    dir_fd: int,
    rel_dir: str,
    files: dict[str, Stat],
    links: dict[str, str],
    dirs: set[str],
    old: dict[str, Entry],
    kept: dict[str, Entry],
) -> None:
    """Remove from the copy everything that is not, unchanged, what goalkeeper wrote there for
    the project as it is now; what stays goes into ``kept``. Works on folder descriptors opened
    with ``O_NOFOLLOW``: a folder swapped for a symlink is never walked into or emptied."""
    with os.scandir(dir_fd) as it:
        names = [entry.name for entry in it]
    for name in names:
        rel = f"{rel_dir}/{name}" if rel_dir else name
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        kind = stat.S_IFMT(st.st_mode)
        if kind == stat.S_IFDIR and rel in dirs:
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
            try:
                _prune(fd, rel, files, links, dirs, old, kept)
            finally:
                os.close(fd)
            continue
        was = old.get(rel)
        if was is not None and _unchanged(kind, st, rel, was, files, links, name, dir_fd):
            kept[rel] = was
            continue
        if kind == stat.S_IFDIR:
            shutil.rmtree(name, dir_fd=dir_fd)
        else:
            os.unlink(name, dir_fd=dir_fd)


def _unchanged(
    kind: int,
    st: os.stat_result,
    rel: str,
    was: Entry,
    files: dict[str, Stat],
    links: dict[str, str],
    name: str,
    dir_fd: int,
) -> bool:
    """Whether the copy's entry is what goalkeeper wrote for the project's entry as it is now."""
    if kind == stat.S_IFLNK:
        return rel in links and was == links[rel] and os.readlink(name, dir_fd=dir_fd) == was
    if kind != stat.S_IFREG or rel not in files or not isinstance(was, list) or len(was) != 7:
        return False
    return list(files[rel]) == was[:5] and [st.st_ino, st.st_ctime_ns] == was[5:]


def _remove(path: Path) -> None:
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def _load(path: Path) -> dict[str, Entry]:
    """The manifest of the last sync; anything unreadable means "rebuild the copy"."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save(path: Path, kept: dict[str, Entry]) -> None:
    """Written in place (a rename costs more than the whole sync here): a torn manifest does
    not parse, and then the next proof rebuilds the copy."""
    path.write_text(json.dumps(kept, separators=(",", ":")), "utf-8")
