"""Run the project's approved commands: a goal's verification, one argument vector, confined
with bubblewrap where ``sandbox = "auto"`` can.

Shared by the applier (``apply``: a new goal's first check), the facts a guard asked for
(``inspect``) and the protected-test replay (``replay``), so none of them imports another for it.
Callers pass only commands the user approved; each runs without a shell unless its text needs one.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from goalkeeper.core.values import VerifyRun

if TYPE_CHECKING:
    from goalkeeper.core.proof.test_summary import TestSummary
    from goalkeeper.engine.ports import Completed, Runner


def run_verification(
    commands: Sequence[str],
    project: Path,
    runner: Runner,
    timeout_s: float,
    *,
    sandbox: str = "off",
) -> tuple[VerifyRun, ...]:
    """Run the goal's commands in order, stopping at the first failure; a timeout is a
    failure. Callers pass only commands the user approved: each runs as an argument vector,
    and through ``/bin/sh -c`` only when its text needs a shell (``cd web && npm test``)."""
    from goalkeeper.core.shell.argv import command_argv

    runs: list[VerifyRun] = []
    for command in commands:
        run = run_argv(command, command_argv(command), project, runner, timeout_s, sandbox)
        runs.append(run)
        if not run.passed:
            break
    return tuple(runs)


def run_argv(
    label: str,
    argv: Sequence[str],
    project: Path,
    runner: Runner,
    timeout_s: float,
    sandbox: str,
) -> VerifyRun:
    """Run one approved argument vector in ``project`` as a verification named ``label``."""
    from goalkeeper.core.proof.test_summary import parse_test_summary

    started = time.monotonic()
    done = run_project_command(argv, project, runner, timeout_s, sandbox)
    summary = parse_test_summary(done.output_tail)
    return VerifyRun(
        label,
        done.exit_code,
        done.output_tail,
        done.timed_out,
        time.monotonic() - started,
        no_tests=done.exit_code == 0 and _shows_no_test(argv, summary),
    )


def _shows_no_test(argv: Sequence[str], summary: TestSummary) -> bool:
    """A passing exit that proves nothing: the runner's summary says no test ran, or the
    command runs pytest and prints no pytest summary at all (a ``pytest.py`` in the project
    that exits 0, code that ends the run early): pytest always prints one, or with ``-qq`` its
    progress up to ``[100%]``, which ``parse_test_summary`` reads."""
    from goalkeeper.core.shell.argv import runner_of

    if summary.known:
        return summary.executed == 0
    return runner_of(argv) == "pytest"


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
