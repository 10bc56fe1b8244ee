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
from goalkeeper.engine.ports import Runner
from goalkeeper.store.documents import infer_test_commands

GIT_TIMEOUT_S = 10.0


def gather_facts(
    request: Inspect, project: Path, config: Config, runner: Runner, goal_id: str | None = None
) -> Facts:
    files = tuple(_file_fact(project, path) for path in request.files)
    if files:
        changed = _git_changed(project, [f.path for f in files], runner)
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


def _git_changed(project: Path, paths: list[str], runner: Runner) -> set[str] | None:
    """Resolved paths that git reports as changed (modified, added, renamed, untracked); None
    outside a git work tree."""
    done = runner.run(
        ["git", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths],
        cwd=project,
        timeout_s=GIT_TIMEOUT_S,
    )
    if done.exit_code != 0:
        return None
    top = runner.run(["git", "rev-parse", "--show-toplevel"], cwd=project, timeout_s=GIT_TIMEOUT_S)
    root = Path(top.output_tail.strip()) if top.exit_code == 0 else project
    changed: set[str] = set()
    fields = done.output_tail.split("\0")
    i = 0
    while i < len(fields):
        record = fields[i]
        if len(record) > 3:
            changed.add(str((root / record[3:]).resolve()))
        # a rename or copy record ("R  new") is followed by the old path as a field of its own
        i += 2 if record[:1] in ("R", "C") or record[1:2] in ("R", "C") else 1
    return changed


def _resolved(project: Path, path: str) -> str:
    p = Path(path)
    return str((p if p.is_absolute() else project / p).resolve())
