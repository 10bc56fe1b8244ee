"""Gather the facts a guard asked for with ``Inspect``: files named in evidence, evidence
commands re-run by goalkeeper itself, and a goal's verification.

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
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from goalkeeper.config import Config
from goalkeeper.core.values import CommandFact, Facts, FileFact, Inspect, VerifyRun

if TYPE_CHECKING:  # the rest loads only when a guard asks for facts: most events never do
    from goalkeeper.engine.ports import Completed, Runner
    from goalkeeper.store.test_baseline import Baseline


def gather_facts(
    request: Inspect,
    project: Path,
    config: Config,
    runner: Runner,
    baseline: Baseline | None = None,
) -> Facts:
    files = tuple(_file_fact(project, path) for path in request.files)
    if files:
        from goalkeeper.engine.git import read_changed_files

        changed = read_changed_files(project, [f.path for f in files], runner)
        if changed is not None:
            files = tuple(
                FileFact(f.path, f.exists, f.mtime, _resolved(project, f.path) in changed)
                for f in files
            )
    allowed = allowed_commands(project, config) if request.commands else ()
    commands = tuple(
        _command_fact(cmd, allowed, project, config, runner) for cmd in request.commands
    )
    verify: tuple[VerifyRun, ...] = ()
    tamper = None
    if request.verify:
        from goalkeeper.engine.goal_io import run_verification
        from goalkeeper.engine.replay import check_protected

        timeout = request.verify_timeout_s
        verify = run_verification(request.verify, project, runner, timeout, sandbox=config.sandbox)
        if request.tamper and verify and all(run.passed for run in verify):
            tamper = check_protected(
                project, baseline, request.verify, runner, timeout, sandbox=config.sandbox
            )
    return Facts(files, commands, verify, tamper)


def allowed_commands(project: Path, config: Config) -> tuple[str, ...]:
    """The commands goalkeeper may re-run as evidence (each with test-selection arguments)."""
    from goalkeeper.store.project import declared_test_commands

    declared = (config.test_command,) if config.test_command else declared_test_commands(project)
    return (*config.evidence_commands, *declared)


def run_project_command(
    argv: Sequence[str], project: Path, runner: Runner, timeout_s: float, sandbox: str
) -> Completed:
    """Run an approved command in the project folder: confined with bubblewrap when
    ``sandbox`` is ``auto`` and it can be, else as it is."""
    if sandbox != "auto":
        return runner.run(list(argv), cwd=project, timeout_s=timeout_s)
    import shutil
    import tempfile

    from goalkeeper.engine.sandbox import confine

    scratch = Path(tempfile.mkdtemp(prefix="goalkeeper-run-"))  # TMPDIR inside, this run's
    try:
        confined, _ = confine(argv, project=project, scratch=scratch)
        return runner.run(list(confined), cwd=project, timeout_s=timeout_s)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _file_fact(project: Path, path: str) -> FileFact:
    try:
        st = os.stat(_resolved(project, path))
    except (OSError, ValueError):  # ValueError: a NUL byte in the claimed path
        return FileFact(path, False)
    return FileFact(path, True, st.st_mtime)


def _command_fact(
    cmd: str, allowed: tuple[str, ...], project: Path, config: Config, runner: Runner
) -> CommandFact:
    from goalkeeper.core.argv import decide_rerun
    from goalkeeper.store.safe_read import resolves_within

    def inside(path: str) -> bool:  # a test path must resolve (symlinks too) in the project
        full = path if os.path.isabs(path) else os.path.join(project, path)
        return resolves_within(full, project)

    decision = decide_rerun(cmd, allowed, inside)
    if decision.argv is None:
        return CommandFact(cmd, allowed=False, refusal=decision.refusal, detail=decision.detail)
    done = run_project_command(
        decision.argv, project, runner, config.evidence_timeout_s, config.sandbox
    )
    return CommandFact(cmd, True, done.exit_code, done.output_tail, done.timed_out)


def _resolved(project: Path, path: str) -> str:
    p = Path(path)
    try:
        return str((p if p.is_absolute() else project / p).resolve())
    except (OSError, ValueError):
        return ""
