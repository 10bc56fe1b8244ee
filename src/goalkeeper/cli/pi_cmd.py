"""``goalkeeper pi run``: a task through Pi, headless, with goalkeeper's guards."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import click

from goalkeeper.cli.app import App, ExitCode, echo_json, fail


@click.group("pi", short_help="Run Pi headless with goalkeeper (RPC mode).")
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
    """Run one task through Pi in RPC mode with goalkeeper's guards, until Pi has settled and
    goalkeeper let it stop. Arguments after `--` go to Pi (e.g. `--model`, `--no-session`).

    goalkeeper's extension is loaded with -e for this run (an installed copy is used instead
    when one is loaded too; only one serves). The agent's replies are printed as they come,
    goalkeeper's notices go to stderr.

    Exit status: 0 when goalkeeper closed the task or the agent stopped without a plan or goal
    to hold it to, 1 when goalkeeper paused it (the reason is printed), 3 when Pi could not be
    run or did not settle in time.
    """
    import shlex

    from goalkeeper.hosts.pi_install import bridge_argv, extension_text
    from goalkeeper.hosts.pi_rpc import PiRunError, default_pi_command, run_pi

    env = dict(os.environ)
    pi_argv = shlex.split(pi_command) if pi_command else default_pi_command(env)
    if not pi_argv:
        raise fail("Pi not found: put `pi` on PATH, or pass --pi 'node /path/to/cli.js'")
    task = prompt if prompt is not None else sys.stdin.read()
    if not task.strip():
        raise fail("no task: pass --prompt TEXT or give it on stdin")
    with tempfile.TemporaryDirectory(prefix="goalkeeper-pi-") as tmp:
        extension = Path(tmp) / "goalkeeper.ts"
        extension.write_text(extension_text(bridge_argv()), encoding="utf-8")
        argv = [*pi_argv, "--mode", "rpc", "-e", str(extension), *pi_args]
        echo_text = (lambda _t: None) if as_json else (lambda t: click.echo(t))
        try:
            result = run_pi(
                argv,
                task,
                app.project,
                env,
                timeout=timeout,
                native=None,
                on_text=echo_text,
                on_notice=lambda n: click.echo(n, err=True),
            )
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
