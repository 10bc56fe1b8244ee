"""Gather the facts a guard asked for with ``Inspect``: files named in evidence, and evidence
commands re-run by goalkeeper itself.

A command is re-run only if it is an allowed evidence command (``evidence_commands``, the
declared ``test_command``, else the test commands the project files declare), as an argument
vector in the project folder, with a timeout. Anything else is reported as "not allowed" and
never run: a hook must not execute a command the model wrote.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from goalkeeper.config import Config
from goalkeeper.core.evidence import is_allowed_command
from goalkeeper.core.values import CommandFact, Facts, FileFact, Inspect, VerifyRun
from goalkeeper.engine.git import read_changed_files
from goalkeeper.engine.ports import Runner
from goalkeeper.store.documents import infer_test_commands


def gather_facts(
    request: Inspect, project: Path, config: Config, runner: Runner, goal_id: str | None = None
) -> Facts:
    files = tuple(_file_fact(project, path) for path in request.files)
    if files:
        changed = read_changed_files(project, [f.path for f in files], runner)
        if changed is not None:
            files = tuple(
                FileFact(f.path, f.exists, f.mtime, _resolved(project, f.path) in changed)
                for f in files
            )
    allowed = allowed_commands(project, config)
    commands = tuple(
        _command_fact(cmd, allowed, project, config, runner) for cmd in request.commands
    )
    verify: tuple[VerifyRun, ...] = ()
    tamper = None
    if request.verify:
        from goalkeeper.engine.goal_io import run_verification, tamper_findings

        verify = run_verification(request.verify, project, runner, request.verify_timeout_s)
        if request.tamper and verify and all(run.passed for run in verify):
            tamper = tamper_findings(project, goal_id)
    return Facts(files, commands, verify, tamper)


def allowed_commands(project: Path, config: Config) -> tuple[str, ...]:
    declared = (config.test_command,) if config.test_command else infer_test_commands(project)
    return (*config.evidence_commands, *declared)


def _file_fact(project: Path, path: str) -> FileFact:
    try:
        st = os.stat(_resolved(project, path))
    except OSError:
        return FileFact(path, False)
    return FileFact(path, True, st.st_mtime)


def _command_fact(
    cmd: str, allowed: tuple[str, ...], project: Path, config: Config, runner: Runner
) -> CommandFact:
    if not is_allowed_command(cmd, allowed):
        return CommandFact(cmd, allowed=False)
    done = runner.run(shlex.split(cmd), cwd=project, timeout_s=config.evidence_timeout_s)
    return CommandFact(cmd, True, done.exit_code, done.output_tail, done.timed_out)


def _resolved(project: Path, path: str) -> str:
    p = Path(path)
    return str((p if p.is_absolute() else project / p).resolve())
