"""The ``goalkeeper`` command group: for people and for scripts.

Every command prints readable text, or one documented JSON value with ``--json``. Errors print
``goalkeeper: <what>; <what to do>`` without a traceback (unless ``--verbose``).
"""

from __future__ import annotations

from pathlib import Path

import click

import goalkeeper
from goalkeeper.cli.common import App, ExitCode

PROJECT_MARKERS = (".goalkeeper", "plan", ".git", ".claude")  # .goalkeeper/: legacy state
HOST_COMMANDS = frozenset({"hook", "mcp", "bridge", "server", "serve"})
"""Commands a host runs, not the user: they never print a notice meant for the user."""


def find_project(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding plan/, .goalkeeper/, .git or .claude/."""
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return start


@click.group(
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog="Example: goalkeeper install claude && goalkeeper plan",
)
@click.version_option(goalkeeper.__version__, prog_name="goalkeeper")
@click.option(
    "-C",
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    help="Project folder. Default: the nearest folder up from here with plan/, .goalkeeper/, "
    ".git or .claude/.",
)
@click.option("--verbose", is_flag=True, help="Show tracebacks on internal errors.")
@click.pass_context
def cli(ctx: click.Context, project: Path | None, verbose: bool) -> None:
    """goalkeeper keeps AI coding agents working until the goal is proven done.

    It continues the agent when it settles with work left, re-feeds the plan
    (plan/<topic>.md) every turn, and refuses "done" while a gate is open:
    the check gate, the OKR gate and the story-map gate.
    """
    root = project.resolve() if project else find_project(Path.cwd())
    ctx.obj = App(root, verbose)
    if ctx.invoked_subcommand not in HOST_COMMANDS:
        ctx.call_on_close(lambda: say_state_moved(root))


def say_state_moved(project: Path) -> None:
    """After a command the user ran: once, where the project's state was moved from its legacy
    ``.goalkeeper/`` (``store.legacy``), on stderr. Not in an agent's shell, where the agent
    and not the user would read it (a session start tells the user there)."""
    from goalkeeper.store.legacy import NOTICE_NAME, take_notice
    from goalkeeper.store.locations import project_state_dir

    folder = project_state_dir(project)
    if not (folder / NOTICE_NAME).exists():  # nearly always: one stat
        return
    from goalkeeper.cli.trusted import agent_shell_name
    from goalkeeper.config import load_config
    from goalkeeper.core.messages import render

    if agent_shell_name() is not None:
        return
    moved = take_notice(folder)
    if moved is not None:
        lang = load_config(project).lang
        click.echo(render("zh" if lang == "zh" else "en", moved[0], **moved[1]), err=True)


def run(args: list[str]) -> int:
    """Run the CLI and turn every outcome into an exit status; never shows a traceback
    unless --verbose."""
    _register_commands()
    try:
        result = cli.main(args, prog_name="goalkeeper", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("goalkeeper: aborted", err=True)
        return int(ExitCode.USAGE)
    except click.UsageError as exc:
        if exc.ctx is not None:
            click.echo(exc.ctx.get_usage(), err=True)
        click.echo(f"goalkeeper: {exc.format_message()}; see --help", err=True)
        return int(exc.exit_code)
    except click.ClickException as exc:
        click.echo(f"goalkeeper: {exc.format_message()}", err=True)
        return int(exc.exit_code)
    except Exception as exc:
        if "--verbose" in args:
            raise
        click.echo(
            f"goalkeeper: {type(exc).__name__}: {exc}; rerun with --verbose for details", err=True
        )
        return int(ExitCode.INTERNAL)
    return int(result) if isinstance(result, int) else int(ExitCode.OK)


def _register_commands() -> None:
    if cli.commands:
        return
    from goalkeeper.cli.config import allow, config
    from goalkeeper.cli.demo import demo
    from goalkeeper.cli.doctor import doctor
    from goalkeeper.cli.goal import gates, goal, goal_decide, goal_tests, marker, plan
    from goalkeeper.cli.hosted import bridge, hook, mcp, server
    from goalkeeper.cli.install import command as install
    from goalkeeper.cli.install import uninstall
    from goalkeeper.cli.report import report, status, watch
    from goalkeeper.cli.run import command as run_cmd
    from goalkeeper.cli.run import pi as pi_cmd
    from goalkeeper.cli.work import catalog as catalog_cmd
    from goalkeeper.cli.work import mode as mode_cmd
    from goalkeeper.cli.work import todo
    from goalkeeper.cli.work import workflow as workflow_cmd

    for module in (
        plan,
        gates,
        marker,
        status,
        report,
        goal,
        goal_decide,
        goal_tests,
        todo,
        workflow_cmd,
        mode_cmd,
        install,
        uninstall,
        hook,
        mcp,
        bridge,
        pi_cmd,
        run_cmd,
        demo,
        server,
        config,
        allow,
        catalog_cmd,
        doctor,
        watch,
    ):
        for command in module.COMMANDS:
            cli.add_command(command)
