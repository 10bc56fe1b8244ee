"""Hidden acceptance tests (issue 22, item 5): the user's tests the agent never sees.

A visible test can be passed by special-casing its input (``return -1 if (a, b) == (2, 3)``);
no check of the files can see that. So the user may give tests with the goal
(``goalkeeper goal set TEXT --hidden-tests DIR``): goalkeeper keeps a copy of DIR in its own
state folder (``store.locations.hidden_tests_dir``), never in the project, and at each proof
lays that tree over a copy of the work tree and runs the goal's verify there too. The user's tree
is never touched. The copy is kept between proofs in the state folder and brought up to date
(``engine.scratch_tree``): rebuilding it cost far more than the verify. Runs outside the state
transaction, like every verification.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from goalkeeper.core.values import HiddenRun, VerifyRun

MAX_HIDDEN_FILES = 2_000
MAX_HIDDEN_BYTES = 64 * 1024 * 1024


def keep_hidden_tests(project: Path, source: Path) -> int:
    """Copy the user's ``source`` folder to goalkeeper's state folder for ``project`` (the
    previous copy replaced) and return how many files it holds. Only regular files and
    folders are copied: a symlink could point the proof at a file the agent writes. Raises
    ``ValueError`` for a folder that is missing, empty or too large."""
    from goalkeeper.store.locations import hidden_tests_dir

    if not source.is_dir():
        raise ValueError(f"{source} is not a folder")
    files: list[tuple[Path, str]] = []
    size = 0
    for folder, dirs, names in os.walk(source):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        for name in names:
            path = Path(folder, name)
            if path.is_symlink() or not path.is_file():
                continue
            size += path.stat().st_size
            files.append((path, os.path.relpath(path, source)))
            if len(files) > MAX_HIDDEN_FILES or size > MAX_HIDDEN_BYTES:
                raise ValueError(f"{source} is too large for hidden tests")
    if not files:
        raise ValueError(f"{source} holds no files")
    target = hidden_tests_dir(project)
    fresh = target.with_name(target.name + ".new")
    shutil.rmtree(fresh, ignore_errors=True)
    for path, rel in files:
        dest = fresh / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)
    drop_hidden_tests(project)
    fresh.rename(target)
    return len(files)


def drop_hidden_tests(project: Path) -> None:
    """Forget the hidden tests of ``project``'s previous goal (a new goal was set without),
    and the copy of the work tree they last ran in."""
    from goalkeeper.store.locations import hidden_run_dir, hidden_tests_dir

    shutil.rmtree(hidden_tests_dir(project), ignore_errors=True)
    shutil.rmtree(hidden_run_dir(project), ignore_errors=True)


def has_hidden_tests(project: Path) -> bool:
    """Whether the user gave hidden tests with ``project``'s goal."""
    from goalkeeper.store.locations import hidden_tests_dir

    return hidden_tests_dir(project).is_dir()


def run_hidden(project: Path, run: Callable[[Path], tuple[VerifyRun, ...]]) -> HiddenRun | None:
    """``run`` in a copy of ``project`` with the hidden tests laid over its root; None when the
    goal has none. The copy is kept between proofs and only brought up to date
    (``engine.scratch_tree``); a proof that finds it in use builds a throwaway one."""
    from goalkeeper.engine.scratch_tree import locked, sync_tree
    from goalkeeper.store.locations import hidden_run_dir, hidden_tests_dir

    hidden = hidden_tests_dir(project)
    if not hidden.is_dir():
        return None
    try:
        with locked(hidden_run_dir(project)) as home:
            if home is None:
                return _run_throwaway(project, hidden, run)
            try:
                tree = sync_tree(project, home, overlay=hidden)
            except (ValueError, OSError) as exc:
                return HiddenRun(problem=str(exc) or type(exc).__name__)
            return HiddenRun(run(tree))
    except OSError as exc:  # the state folder itself: the lock could not be taken
        return HiddenRun(problem=str(exc) or type(exc).__name__)


def _run_throwaway(
    project: Path, hidden: Path, run: Callable[[Path], tuple[VerifyRun, ...]]
) -> HiddenRun:
    """``run`` in a scratch copy built for this proof alone and removed after it."""
    from goalkeeper.engine.replay import copy_work_tree

    scratch = Path(tempfile.mkdtemp(prefix="goalkeeper-hidden-"))
    try:
        tree = scratch / project.name
        try:
            copy_work_tree(project, tree)
            _overlay(hidden, tree)
        except (ValueError, OSError) as exc:
            return HiddenRun(problem=str(exc) or type(exc).__name__)
        return HiddenRun(run(tree))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _overlay(hidden: Path, tree: Path) -> None:
    """Lay the files of ``hidden`` over ``tree``: what the agent put at the same path (a file,
    a folder, a symlink) is replaced."""
    for folder, _dirs, names in os.walk(hidden):
        rel = os.path.relpath(folder, hidden)
        for name in names:
            dest = tree / rel / name
            parent = dest.parent
            for anc in (*reversed(parent.relative_to(tree).parents), parent.relative_to(tree)):
                here = tree / anc
                if here.is_symlink() or (here.exists() and not here.is_dir()):
                    here.unlink()
            parent.mkdir(parents=True, exist_ok=True)
            if dest.is_symlink() or dest.is_file():
                dest.unlink()
            elif dest.is_dir():
                shutil.rmtree(dest)
            shutil.copyfile(Path(folder, name), dest)
