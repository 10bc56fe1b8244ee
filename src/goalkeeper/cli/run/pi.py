"""``goalkeeper pi run``: a task through Pi, headless, with goalkeeper's guards.

Deprecated: ``goalkeeper run -- pi …`` runs the same runner (``cli.run.command.pi_session``) and
says what was proven with the exit status every host shares. This alias stays, with its own JSON and
exit status, so the scripts that call it keep working; it says so on stderr."""

from __future__ import annotations

import os
import sys

import click

from goalkeeper.cli.common import App, ExitCode, echo_json, fail

DEPRECATED = (
    "goalkeeper: `goalkeeper pi run` is deprecated; use `goalkeeper run -- pi -p TASK` "
    "(exit 0 only when the work is proven)"
)


@click.group("pi", short_help="Run Pi headless with goalkeeper (deprecated: goalkeeper run).")
def pi_group() -> None:
    """Pi without a terminal (CI, scripts), supervised by goalkeeper."""


@pi_group.command(
    "run", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False}
)
@click.option("--prompt", "prompt", help="The task. Default: read from stdin.")
@click.option(
    "--pi",
    "pi_command",
    help="How to start Pi (e.g. 'node /path/cli.js'). Default: GOALKEEPER_PI_CMD, else `pi`.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(1, 86400),
    default=3600,
    show_default=True,
    help="Seconds until Pi must have settled for good.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object at the end.")
@click.argument("pi_args", nargs=-1, type=click.UNPROCESSED)
@click.pass_obj
def run_command(
    app: App,
    prompt: str | None,
    pi_command: str | None,
    timeout: float,
    as_json: bool,
    pi_args: tuple[str, ...],
) -> int:
    """Deprecated: use `goalkeeper run -- pi -p TASK`.

    Run one task through Pi in RPC mode with goalkeeper's guards, until Pi has settled and
    goalkeeper let it stop. Arguments after `--` go to Pi (e.g. `--model`, `--no-session`).

    goalkeeper's extension is loaded with -e for this run (an installed copy is used instead
    when one is loaded too; only one serves). The agent's replies are printed as they come,
    goalkeeper's notices go to stderr.

    Exit status: 0 when goalkeeper closed the task or the agent stopped without a plan or goal
    to hold it to, 1 when goalkeeper paused it (the reason is printed), 3 when Pi could not be
    run or did not settle in time.
    """
    import shlex

    from goalkeeper.cli.run.command import pi_session
    from goalkeeper.hosts.pi.rpc import PiRunError, default_pi_command

    click.echo(DEPRECATED, err=True)
    pi_argv = shlex.split(pi_command) if pi_command else default_pi_command(dict(os.environ))
    if not pi_argv:
        raise fail("Pi not found: put `pi` on PATH, or pass --pi 'node /path/to/cli.js'")
    task = prompt if prompt is not None else sys.stdin.read()
    if not task.strip():
        raise fail("no task: pass --prompt TEXT or give it on stdin")
    try:
        result = pi_session(pi_argv, pi_args, task, app.project, timeout, as_json)
    except PiRunError as exc:
        if as_json:
            echo_json({"outcome": "error", "reason": str(exc)})
        else:
            click.echo(f"goalkeeper: {exc}", err=True)
        return int(ExitCode.INTERNAL)
    if as_json:
        echo_json(result.to_dict())
    elif result.outcome == "paused":
        click.echo(f"goalkeeper: paused: {result.reason}", err=True)
    return int(ExitCode.NOT_PASSED if result.outcome == "paused" else ExitCode.OK)


COMMANDS = (pi_group,)
