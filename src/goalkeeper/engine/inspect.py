"""Gather the facts a guard asked for with ``Inspect``: files named in evidence (where they
resolve, their content digest, git's view), a snapshot of the project's files (the facts of
the project folder, taken when a todo is created), evidence commands re-run by goalkeeper
itself, and a goal's verification.

A claimed command is re-run only when it is an approved evidence command followed by arguments
that only select tests (``core.argv``): approved are ``evidence_commands`` and ``test_command``
from the user's configuration (a project file's only once the user allowed it), else the test
commands the project's files declare (``store.project.declared_test_commands``). It runs as an
argument vector in the project folder, with a timeout, confined where ``sandbox = "auto"``
can. Anything else is reported with the reason and never run: a hook must not execute a
command the model wrote.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec.structs import replace

from goalkeeper.config import Config
from goalkeeper.core.todos.evidence import PROJECT_FOLDER
from goalkeeper.core.values import CommandFact, Facts, FileFact, Inspect, TestReplay, VerifyRun
from goalkeeper.store.safe_read import sha256_of

if TYPE_CHECKING:  # the rest loads only when a guard asks for facts: most events never do
    from goalkeeper.engine.ports import Runner
    from goalkeeper.store.test_baseline import Baseline


def gather_facts(
    request: Inspect,
    project: Path,
    config: Config,
    runner: Runner,
    baseline: Baseline | None = None,
    kept: Baseline | None = None,
) -> Facts:
    """What ``request`` asks for. ``baseline``: the goal's protected tests, for a passing
    verify; ``kept``: the tests ``request.protect`` names, for a passing re-run."""
    files = tuple(_file_fact(project, path) for path in request.files)
    if files:
        from goalkeeper.engine.git import read_changed_files

        claimed = [f.path for f in files if f.rel]  # not the project folder, nothing outside
        changed = read_changed_files(project, claimed, runner) if claimed else None
        if changed is not None:
            files = tuple(
                replace(f, git_changed=_resolved(project, f.path) in changed) if f.rel else f
                for f in files
            )
    allowed = allowed_commands(project, config) if request.commands else ()
    commands = tuple(
        _command_fact(cmd, allowed, project, config, runner) for cmd in request.commands
    )
    if kept is not None:
        commands = tuple(_protected(fact, project, config, runner, kept) for fact in commands)
    verify: tuple[VerifyRun, ...] = ()
    tamper = None
    if request.verify:
        from goalkeeper.engine.commands import run_verification
        from goalkeeper.engine.replay import check_protected

        timeout = request.verify_timeout_s
        verify = run_verification(request.verify, project, runner, timeout, sandbox=config.sandbox)
        if request.tamper and verify and all(run.passed for run in verify):
            tamper = check_protected(
                project, baseline, request.verify, runner, timeout, sandbox=config.sandbox
            )
    hidden = None
    if request.hidden and verify and all(run.passed for run in verify):
        from goalkeeper.engine.commands import run_verification
        from goalkeeper.engine.hidden import run_hidden

        def run_in(tree: Path) -> tuple[VerifyRun, ...]:
            timeout = request.verify_timeout_s
            return run_verification(request.verify, tree, runner, timeout, sandbox=config.sandbox)

        hidden = run_hidden(project, run_in)
    kept_replay = None
    if request.replay_tests and kept is not None:
        kept_replay = _replay_test_command(project, config, runner, kept)
    return Facts(files, commands, verify, tamper, kept_replay, hidden)


def allowed_commands(project: Path, config: Config) -> tuple[str, ...]:
    """The commands goalkeeper may re-run as evidence (each with test-selection arguments)."""
    return (*config.evidence_commands, *test_commands(project, config))


def test_commands(project: Path, config: Config) -> tuple[str, ...]:
    """The project's test commands: the user's ``test-command``, else what its files declare."""
    from goalkeeper.store.project import project_tests

    return project_tests(project, config.test_command).accepted


def _file_fact(project: Path, path: str) -> FileFact:
    """What a claimed path is: where it resolves, whether it exists, and a regular file's
    content digest. The project folder itself (``PROJECT_FOLDER``) is a snapshot of every file
    in it. A path that resolves outside the project is only marked so: nothing there is read."""
    try:
        root = project.resolve()
    except (OSError, RuntimeError):
        return FileFact(path, False, outside=True)
    if path == PROJECT_FOLDER:
        return _snapshot(root)
    resolved = _resolved(project, path)
    rel = _relative_to(root, resolved) if resolved else None
    if rel is None:
        return FileFact(path, os.path.lexists(resolved) if resolved else False, outside=True)
    try:
        st = os.stat(resolved)
    except (OSError, ValueError):  # ValueError: a NUL byte in the claimed path
        return FileFact(path, False, rel=rel)
    if stat.S_ISDIR(st.st_mode):
        return FileFact(path, True, st.st_mtime, rel=rel, kind="folder")
    if not stat.S_ISREG(st.st_mode):
        return FileFact(path, True, st.st_mtime, rel=rel, kind="other")
    return FileFact(path, True, st.st_mtime, digest=sha256_of(resolved, MAX_CLAIM_BYTES), rel=rel)


MAX_CLAIM_BYTES = 64 << 20
"""A claimed file larger than this is not hashed: its content is left unknown."""
SNAPSHOT_SKIP = frozenset(
    {".git", ".goalkeeper", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__"}
    | {".tox", ".nox", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".cache", ".gradle"}
    | {"target", "dist", "build", ".next"}
)
"""Folders a snapshot does not read: version control, goalkeeper's state, dependencies,
caches and build output. A claim on a file inside one is judged by git and its modification
time only. Any folder holding ``pyvenv.cfg`` (a virtualenv of whatever name) is skipped too."""
MAX_SNAPSHOT_FILES = 10_000
MAX_SNAPSHOT_FILE_BYTES = 8 << 20
MAX_SNAPSHOT_BYTES = 256 << 20
MAX_SNAPSHOT_S = 2.0
"""Bounds of one snapshot (it runs when a todo is created; 500 files take about 25 ms): a
larger project gets a partial snapshot, and claims on the files it did not reach fall back to
git and mtime. 10,000 files are 280 KB of todo state (28 characters a file)."""


def _snapshot(root: Path) -> FileFact:
    """Every regular file under ``root`` (breadth first, symlinks not followed) with the
    sha256 of its content, within the bounds above."""
    import time
    from collections import deque

    entries: list[tuple[str, str]] = []
    skipped: list[str] = []
    budget = MAX_SNAPSHOT_BYTES
    deadline = time.monotonic() + MAX_SNAPSHOT_S
    complete = True
    folders: deque[str] = deque([""])
    while folders and complete:
        prefix = folders.popleft()
        try:
            with os.scandir(root / prefix if prefix else root) as listing:
                found = sorted(listing, key=lambda e: e.name)
        except OSError:
            if prefix:
                skipped.append(prefix)
            continue
        for entry in found:
            rel = f"{prefix}/{entry.name}" if prefix else entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name in SNAPSHOT_SKIP or os.path.lexists(
                        os.path.join(entry.path, "pyvenv.cfg")
                    ):
                        skipped.append(rel)
                    else:
                        folders.append(rel)
                    continue
                if not entry.is_file(follow_symlinks=False):
                    continue  # a symlink (its target is read where it lives) or a special file
                size = entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
            if len(entries) >= MAX_SNAPSHOT_FILES or time.monotonic() > deadline:
                complete = False
                break
            digest = ""
            if size <= min(MAX_SNAPSHOT_FILE_BYTES, budget):
                digest = sha256_of(entry.path, MAX_SNAPSHOT_FILE_BYTES) or ""
                budget -= size
            elif size <= MAX_SNAPSHOT_FILE_BYTES:
                complete = False  # the byte budget is spent: this file and the rest are unread
            entries.append((rel, digest))
    return FileFact(
        PROJECT_FOLDER,
        True,
        rel="",
        kind="folder",
        entries=tuple(entries),
        skipped=tuple(skipped),
        complete=complete and not folders,
    )


def _relative_to(root: Path, resolved: str) -> str | None:
    """``resolved`` relative to ``root`` (POSIX style), None when it is not inside."""
    try:
        rel = Path(resolved).relative_to(root).as_posix()
    except ValueError:
        return None
    return "" if rel == "." else rel


def _command_fact(
    cmd: str, allowed: tuple[str, ...], project: Path, config: Config, runner: Runner
) -> CommandFact:
    from goalkeeper.core.shell.argv import decide_rerun
    from goalkeeper.store.safe_read import resolves_within

    def inside(path: str) -> bool:  # a test path must resolve (symlinks too) in the project
        full = path if os.path.isabs(path) else os.path.join(project, path)
        return resolves_within(full, project)

    decision = decide_rerun(cmd, allowed, inside)
    if decision.argv is None:
        return CommandFact(
            cmd,
            allowed=False,
            refusal=decision.refusal,
            detail=decision.detail,
            approved=allowed,
        )
    import time

    from goalkeeper.engine.commands import run_project_command

    started = time.monotonic()
    done = run_project_command(
        decision.argv, project, runner, config.evidence_timeout_s, config.sandbox
    )
    return CommandFact(
        cmd,
        True,
        done.exit_code,
        done.output_tail,
        done.timed_out,
        argv=decision.argv,
        seconds=round(time.monotonic() - started, 3),
        approved=allowed,
    )


def _replay_test_command(
    project: Path, config: Config, runner: Runner, kept: Baseline
) -> TestReplay | None:
    """The project's test command (the user's ``test-command``, else the one its files declare)
    run against the kept tests, when the agent changed them; None when there is none."""
    from goalkeeper.engine.replay import check_protected

    command = next((c for c in test_commands(project, config) if c.strip()), None)
    if command is None:
        return None
    return check_protected(
        project, kept, [command], runner, config.evidence_timeout_s, sandbox=config.sandbox
    )


def _protected(
    fact: CommandFact, project: Path, config: Config, runner: Runner, kept: Baseline
) -> CommandFact:
    """A passing re-run, run again against the kept tests where the agent changed them."""
    if not fact.allowed or fact.exit_code != 0 or fact.timed_out or not fact.argv:
        return fact
    from goalkeeper.engine.replay import replay_argv

    replay = replay_argv(
        project, kept, fact.argv, runner, config.evidence_timeout_s, sandbox=config.sandbox
    )
    return replace(fact, replay=replay)


def _resolved(project: Path, path: str) -> str:
    p = Path(path)
    try:
        return str((p if p.is_absolute() else project / p).resolve())
    except (OSError, RuntimeError, ValueError):  # RuntimeError: a symlink loop
        return ""
