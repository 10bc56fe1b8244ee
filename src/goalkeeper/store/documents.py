"""Documents the user and the model own, read through one small layer with an mtime cache.

The plan is the newest-modified ``plan/*.md`` other than ``plan.md`` (seed 000 §4), parsed once
per (path, mtime, size). When ``plan/`` holds no plan file, the cache for that folder is dropped,
so no stale OKR or map is ever used. goalkeeper never writes a plan.
"""

from __future__ import annotations

import os
from pathlib import Path

from goalkeeper.core.cadence.plan import PlanDoc, parse_plan

MAX_PLAN_BYTES = 4 * 1024 * 1024  # a real plan is a few hundred KB; beyond this it is not a plan
_cache: dict[str, tuple[tuple[int, int], PlanDoc]] = {}


def find_plan(project: Path, plan_dir: str = "plan") -> Path | None:
    """The newest-modified Markdown file in ``plan_dir`` other than ``plan.md``; ties by name."""
    folder = project / plan_dir
    best: tuple[int, str, str] | None = None
    try:
        entries = os.scandir(folder)
    except OSError:
        return None
    with entries:
        for entry in entries:
            name = entry.name
            if not name.lower().endswith(".md") or name.lower() == "plan.md":
                continue
            if name.startswith((".", "~", "#")):  # editor lock and swap files
                continue
            try:
                if not entry.is_file():
                    continue
                mtime = entry.stat().st_mtime_ns
            except OSError:
                continue
            key = (mtime, name, entry.path)
            if best is None or key > best:
                best = key
    return Path(best[2]) if best else None


def load_plan(project: Path, plan_dir: str = "plan") -> PlanDoc | None:
    """The current plan, or None when there is no plan file. Never raises."""
    path = find_plan(project, plan_dir)
    folder = str(project / plan_dir)
    if path is None:
        for key in [k for k in _cache if k.startswith(folder + os.sep)]:
            del _cache[key]
        return None
    shown = _relative(path, project)
    try:
        st = path.stat()
    except OSError as exc:
        return PlanDoc(shown, None, problem=f"cannot read it: {exc.strerror}")
    stamp = (st.st_mtime_ns, st.st_size)
    cached = _cache.get(str(path))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    doc = _read(path, shown, st.st_size, project)
    _cache[str(path)] = (stamp, doc)
    return doc


def _read(path: Path, shown: str, size: int, project: Path) -> PlanDoc:
    from goalkeeper.store.safe_read import UnsafeFile, read_capped

    if size > MAX_PLAN_BYTES:
        limit = MAX_PLAN_BYTES // 1024 // 1024
        problem = f"{size / 1024 / 1024:.1f} MB is larger than the {limit} MB a plan may have"
        return PlanDoc(shown, None, problem=problem)
    try:  # a plan may be planted as a FIFO, a device or a symlink out of the project
        raw = read_capped(path, MAX_PLAN_BYTES, within=project)
    except UnsafeFile as exc:
        return PlanDoc(shown, None, problem=f"it {exc.reason}")
    if b"\x00" in raw[:8192]:
        return PlanDoc(shown, None, problem="it is a binary file, not Markdown text")
    try:
        text = raw.decode("utf-8")
        note = None
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8", "replace")
        note = f"invalid UTF-8 at byte {exc.start}; read with replacement characters"
    return PlanDoc(shown, parse_plan(text), note=note)


def _relative(path: Path, project: Path) -> str:
    try:
        return path.relative_to(project).as_posix()
    except ValueError:
        return str(path)
