"""Run a passing goal verification again against the original tests (issue 11, protected tests).

When a protected file (``core.protected``) changed since the goal was set, the agent's tests
may pass only because the agent changed them (``assert True``, a deselect in ``addopts``, a
conftest that drops the failing test). So the verify runs once more in a scratch copy of the work
tree: the agent's code with the original protected files restored over its changes, and
without the test files it added (a new module can patch the code under test at import) unless
the approved verify names them. The user's tree is never touched. Dependency folders
(``node_modules``, ``.venv`` …) are linked, not copied; a tree too large to copy is reported,
and then the goal is not proven. Runs outside the state transaction, like every verification.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from goalkeeper.core.proof.protected import changed_tests, named_test_files
from goalkeeper.core.values import TestReplay, VerifyRun

if TYPE_CHECKING:
    from goalkeeper.engine.ports import Runner
    from goalkeeper.store.test_baseline import Baseline

LINKED = frozenset(
    {"node_modules", ".venv", "venv", "env", ".tox", ".nox", "target", "__pypackages__"}
)
"""Top-level folders a test run reads but that are too big to copy: linked into the copy."""
LEFT_OUT = frozenset({".git", ".goalkeeper", ".hg", ".svn", ".mypy_cache", ".pytest_cache"})
"""Never copied: version control, goalkeeper's own state, caches the run rebuilds."""
RUNNER_CHANGED = "runner changed"
"""The replay's problem when a pinned runner changed (its path is among the changes)."""
MAX_COPY_FILES = 50_000
MAX_COPY_BYTES = 1024 * 1024 * 1024


class _TooLarge(Exception):
    pass


def check_protected(
    project: Path,
    baseline: Baseline | None,
    commands: Sequence[str],
    runner: Runner,
    timeout_s: float,
    *,
    sandbox: str = "off",
) -> TestReplay | None:
    """The protected tests at a passing verify of ``commands``: None without a baseline;
    no changes, or the changes and the verify run against the original tests."""
    from goalkeeper.engine.commands import run_verification

    def run(tree: Path) -> tuple[VerifyRun, ...]:
        return run_verification(commands, tree, runner, timeout_s, sandbox=sandbox)

    return _replay(project, baseline, commands, run)


def replay_argv(
    project: Path,
    baseline: Baseline | None,
    argv: Sequence[str],
    runner: Runner,
    timeout_s: float,
    *,
    sandbox: str = "off",
) -> TestReplay | None:
    """``check_protected`` for one command goalkeeper re-ran as ``argv`` (a todo's test gate:
    an approved command with its test-selection arguments)."""
    import shlex

    from goalkeeper.engine.commands import run_argv

    label = shlex.join(argv)

    def run(tree: Path) -> tuple[VerifyRun, ...]:
        return (run_argv(label, argv, tree, runner, timeout_s, sandbox),)

    return _replay(project, baseline, [label], run)


def _replay(
    project: Path,
    baseline: Baseline | None,
    commands: Sequence[str],
    run: Callable[[Path], tuple[VerifyRun, ...]],
) -> TestReplay | None:
    """Copy the work tree, restore the baseline's files over it, leave out the files added
    since (but those ``commands`` name), and ``run`` there. A changed runner (``runner_pins``)
    is not replayed: the copy links ``.venv`` and ``node_modules``, so it would run there too."""
    if baseline is None:
        return None
    from goalkeeper.store.runner_pins import PIN_PREFIX
    from goalkeeper.store.test_baseline import current_state

    changes = changed_tests(baseline.digests, current_state(project, baseline, commands))
    if not changes:
        return TestReplay()
    if any(change.path.startswith(PIN_PREFIX) for change in changes):
        return TestReplay(changes, problem=RUNNER_CHANGED)
    keep = named_test_files(commands)
    scratch = Path(tempfile.mkdtemp(prefix="goalkeeper-replay-"))
    try:
        tree = scratch / project.name
        try:
            _copy_tree(project, tree)
        except (_TooLarge, OSError) as exc:
            return TestReplay(changes, problem=str(exc) or type(exc).__name__)
        for change in changes:
            target = tree / change.path
            if change.kind == "added":  # not there when the baseline was taken
                if change.path in keep:
                    continue
                if target.is_symlink() or target.exists():
                    _remove(target)
                continue
            original = baseline.contents.get(change.path)
            if original is None:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_symlink() or target.is_dir():
                _remove(target)
            target.write_bytes(original)
        return TestReplay(changes, run(tree))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def copy_work_tree(source: Path, target: Path) -> None:
    """``_copy_tree`` for another scratch run (hidden tests): ``ValueError`` past the bounds."""
    try:
        _copy_tree(source, target)
    except _TooLarge as exc:
        raise ValueError(str(exc)) from exc


def _copy_tree(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target``: symlinks as symlinks, ``LINKED`` folders linked back,
    ``LEFT_OUT`` folders left out; ``_TooLarge`` past the bounds."""
    seen = {"files": 0, "bytes": 0}
    top = os.fspath(source)

    def ignore(folder: str, names: list[str]) -> set[str]:
        skip = set(LEFT_OUT.intersection(names))
        if os.path.samefile(folder, top):
            skip |= LINKED.intersection(names)
        for name in names:
            if name in skip:
                continue
            try:
                st = os.lstat(os.path.join(folder, name))
            except OSError:
                skip.add(name)
                continue
            kind = stat.S_IFMT(st.st_mode)
            if kind not in (stat.S_IFREG, stat.S_IFDIR, stat.S_IFLNK):
                skip.add(name)  # a FIFO or a device: copying one would block or flood
                continue
            seen["files"] += 1
            seen["bytes"] += st.st_size
        if seen["files"] > MAX_COPY_FILES or seen["bytes"] > MAX_COPY_BYTES:
            raise _TooLarge(
                f"the work tree has more than {MAX_COPY_FILES} files or "
                f"{MAX_COPY_BYTES // 1024 // 1024} MB to copy"
            )
        return skip

    shutil.copytree(source, target, symlinks=True, ignore=ignore)
    for name in LINKED:
        if (source / name).is_dir():
            os.symlink(source / name, target / name, target_is_directory=True)


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    else:
        shutil.rmtree(path)
