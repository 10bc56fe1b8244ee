"""``goalkeeper run [OPTIONS] -- AGENT_COMMAND…``: a headless agent under goalkeeper, for CI.

Nothing is installed into the project: Claude Code gets goalkeeper's hooks and MCP server for
this one run through ``--settings`` and ``--mcp-config`` temp files (built by the functions
``goalkeeper install claude`` uses), Pi gets goalkeeper's extension with ``-e`` and is driven
in RPC mode (``hosts/pi/rpc``). The exit status says what goalkeeper decided, never what the
agent said: it is read from goalkeeper's journal after the agent exits (``store/outcome``).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from goalkeeper.cli.common import App, echo_json
from goalkeeper.cli.run.agent import ERROR, RunError, program_name
from goalkeeper.store.journal import JournalEntry
from goalkeeper.store.outcome import AgentExit, RunOutcome


class _BadFlag(click.UsageError):
    exit_code = ERROR


class _RunCommand(click.Command):
    """A bad flag exits 3 here, not click's 2: 2 means "blocked on the user" to a CI job."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            raise _BadFlag(exc.message, exc.ctx) from exc


@click.command(
    "run",
    cls=_RunCommand,
    short_help="Run a headless agent with goalkeeper; the exit status says if it is proven.",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.option("--goal", "goal_text", help="Set this goal first, as `goalkeeper goal set` does.")
@click.option("--verify", multiple=True, help="The goal's verify command (repeatable).")
@click.option(
    "--max-minutes",
    type=click.FloatRange(0.05, 7 * 24 * 60),
    help="Stop the agent after this many minutes (exit 1).",
)
@click.option(
    "--max-turns",
    type=click.IntRange(1, 100_000),
    help="Claude Code: its --max-turns (model turns, goalkeeper's continuations included).",
)
@click.option("--prompt", help="Pi: the task (default: the message after Pi's -p, else stdin).")
@click.option(
    "--host",
    type=click.Choice(["claude", "pi", "gemini", "codex"]),
    help="Which agent AGENT_COMMAND starts, when its name does not tell (e.g. a wrapper).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (the agent's output "
              "goes to stderr).")  # fmt: skip
@click.argument(
    "agent", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- AGENT_COMMAND..."
)
@click.pass_context
def run_command(
    ctx: click.Context,
    goal_text: str | None,
    verify: tuple[str, ...],
    max_minutes: float | None,
    max_turns: int | None,
    prompt: str | None,
    host: str | None,
    as_json: bool,
    agent: tuple[str, ...],
) -> int:
    """Run AGENT_COMMAND (after `--`) headless with goalkeeper active, installing nothing into
    the project, and exit with what goalkeeper decided:

    \b
      0  done and proven: goalkeeper closed the work (every gate passed, or the
         goal's verification passed and the goal was archived; an agent cut off
         in the review round after the proof: the reason says "review not done")
      1  not done: paused at a cap, stuck, stopped early, cut by --max-turns or
         --max-minutes, or nothing that could prove it (no goal, no plan)
      2  blocked on you: a paused or held goal, tests only you can accept, a
         question for you, the agent honestly blocked
      3  error: the agent could not run, crashed, or failed on an API error;
         goalkeeper could not run (also a bad flag of this command)
      4  awaiting acceptance: closed, but on todo claims goalkeeper could not
         check (evidence of kind "effect", a review); check them, then
         `goalkeeper todo accept ID`

    The outcome comes from goalkeeper's own journal and the goal it recorded, never from the
    agent's text. --json prints one object: outcome, exit, reason, continuations, sessions and
    the proof (each command goalkeeper ran itself: argv, exit, seconds, output sha256).

    \b
    Examples:
      goalkeeper run --goal '`pytest -q` passes' -- claude -p 'Fix the failing test'
      goalkeeper run --json --max-minutes 30 -- pi --model sonnet -p 'Fix the failing test'

    Claude Code gets the hooks and the MCP server through --settings / --mcp-config temp files
    (an installed goalkeeper serves instead, when one is). A Claude Code turn that ends on an
    API error is retried: the session is resumed after 4 s, 8 s, … up to 10 min (10 retries
    ≈ 37 min), then the goal is blocked and you are told to change the strategy. Pi runs in RPC
    mode with goalkeeper's extension (-e). Gemini CLI takes no per-run settings: it runs with
    the hooks `goalkeeper install gemini` put in place. Codex runs as `codex exec …` with the
    hooks and the MCP server as -c options (their trust recorded once in
    $CODEX_HOME/config.toml), or with the hooks `goalkeeper install codex --trust` put in place.
    """
    app: App = ctx.obj
    try:
        kind = _host_of(list(agent), host, max_turns)
        if goal_text is not None:
            _set_goal(ctx, goal_text, verify, as_json)
        elif verify:
            raise RunError("--verify belongs to --goal; pass the goal too")
        outcome = supervise(app.project, kind, list(agent), prompt, max_turns, max_minutes, as_json)
    except RunError as exc:
        if not as_json:
            raise
        # a CI job reading --json gets JSON on every path, errors included
        echo_json({"outcome": "error", "exit": ERROR, "reason": exc.format_message()})
        return ERROR
    _report(outcome, kind, as_json)
    return outcome.exit_code


def _host_of(argv: list[str], host: str | None, max_turns: int | None) -> str:
    if argv[0].startswith("-"):
        raise RunError(f"no such option {argv[0]!r}; the agent's command comes after `--`")
    kind = host or detect_host(argv)
    if kind == "gemini" and max_turns is not None:
        raise RunError("--max-turns is Claude Code's; for Gemini, bound the run with --max-minutes")
    if kind == "pi" and max_turns is not None:
        raise RunError("--max-turns is Claude Code's; for Pi, bound the run with --max-minutes")
    if kind == "codex" and max_turns is not None:
        raise RunError("--max-turns is Claude Code's; for Codex, bound the run with --max-minutes")
    return kind


def supervise(
    project: Path,
    kind: str,
    argv: list[str],
    prompt: str | None,
    max_turns: int | None,
    max_minutes: float | None,
    as_json: bool,
) -> RunOutcome:
    """Run the agent and read what goalkeeper decided about this run: only the journal
    entries written after it started (of its session, when known) count."""
    from goalkeeper.store.outcome import decide, goal_status, last_entry_id, read_run

    mark = last_entry_id(project)
    limit_s = max_minutes * 60 if max_minutes is not None else None
    if kind == "claude":  # resumed after an API error, with back-off (seed 001 §5)
        from goalkeeper.cli.run.retry import run_claude_retrying

        exited, session = run_claude_retrying(project, argv, max_turns, limit_s, as_json)
    elif kind == "gemini":
        from goalkeeper.cli.run.gemini import run_gemini

        exited, session = run_gemini(project, argv, limit_s, as_json)
    elif kind == "codex":
        from goalkeeper.cli.run.codex import run_codex

        exited, session = run_codex(project, argv, limit_s, as_json)
    else:
        exited, session = run_pi_host(project, argv, prompt, limit_s, as_json)
    entries = read_run(project, mark, session)
    return decide(entries, goal_status(project), exited, _awaiting(project, entries))


def _awaiting(project: Path, entries: Sequence[JournalEntry]) -> list[str]:
    """The run's completed todos still awaiting the user's acceptance ("#3 subject")."""
    from goalkeeper.store.claims import awaiting
    from goalkeeper.store.db import Store

    sessions = dict.fromkeys(e.session_id for e in entries if e.session_id)
    store = Store(project)
    if not sessions or not store.exists():
        return []
    try:
        with store.transaction() as conn:
            return [f"#{c.task_id} {c.subject}" for s in sessions for c in awaiting(conn, s)]
    finally:
        store.close()


def detect_host(argv: Sequence[str]) -> str:
    """``claude`` or ``pi`` from the command's program (or the script a ``node`` runs);
    ``RunError`` for an agent goalkeeper does not supervise yet."""
    names = [program_name(argv[0])]
    if names[0] in ("node", "bun", "npx", "deno") and len(argv) > 1:
        script = argv[1].replace("\\", "/")
        names.append(
            "pi" if "pi-coding-agent" in script else "claude" if "claude-code" in script else ""
        )
        names.append(program_name(script))
    for name in names:
        if name in ("claude", "pi", "gemini", "codex"):
            return name
    raise RunError(
        f"cannot tell which agent {argv[0]!r} is: goalkeeper run supervises Claude Code "
        "(claude), Pi (pi), Codex CLI (codex) and Gemini CLI (gemini); pass --host "
        "claude|pi|codex|gemini for a wrapper"
    )


def _set_goal(ctx: click.Context, text: str, verify: tuple[str, ...], as_json: bool) -> None:
    """``goalkeeper goal set TEXT`` itself, so the goal is set with its semantics (trusted in
    the user's terminal, a proposal in an agent's shell); its words go to stderr with --json."""
    from goalkeeper.cli.goal.goal import set_command

    out = sys.stderr if as_json else sys.stdout
    if _goal_already_set(ctx.obj.project, text.strip(), verify):  # a CI job's second run
        click.echo(f"goalkeeper: the goal is already set ({text.strip()}); working on it", err=True)
        return
    with contextlib.redirect_stdout(out):
        code = ctx.invoke(
            set_command,
            text=text,
            verify=verify,
            rounds=None,
            timeout=None,
            replace=False,
            mode=None,
            as_json=False,
        )
    if code != 0:
        raise RunError("the goal was not set as asked (see above); the agent was not started")


def _goal_already_set(project: Path, objective: str, verify: tuple[str, ...]) -> bool:
    """The user approved this very goal already and it is still open: the promise in
    goalkeeper's store says so (GOAL.md is the agent's to edit, so it is not asked)."""
    from goalkeeper.store.db import Store
    from goalkeeper.store.trust import current_promise

    store = Store(project)
    if not store.exists():
        return False
    try:
        with store.transaction() as conn:
            promise = current_promise(conn, None)
    finally:
        store.close()
    if promise is None or not promise.open or promise.objective != objective:
        return False
    return not verify or promise.verify == verify


# -------------------------------------------------------------------------------------------
# Pi
# -------------------------------------------------------------------------------------------
def pi_task(argv: Sequence[str], prompt: str | None) -> tuple[list[str], str]:
    """Pi's command without its print-mode message, and the task: ``--prompt``, else the
    message of ``pi … -p MESSAGE`` (the usual headless form), else stdin."""
    args = list(argv)
    printing = [i for i, a in enumerate(args) if a in ("-p", "--print")]
    if printing:
        del args[printing[0]]
        if prompt is None and len(args) > printing[0] and not args[-1].startswith("-"):
            prompt = args.pop()
    task = prompt if prompt is not None else sys.stdin.read()
    if not task.strip():
        raise RunError("no task for Pi: pass `-p TEXT` to pi, --prompt TEXT, or give it on stdin")
    return args, task


def run_pi_host(
    project: Path, argv: Sequence[str], prompt: str | None, limit_s: float | None, as_json: bool
) -> tuple[AgentExit, str | None]:
    from goalkeeper.hosts.pi.rpc import PiRunError, PiTimeout

    head = 2 if program_name(argv[0]) in ("node", "bun", "deno") else 1
    args, task = pi_task(argv[head:], prompt)
    try:
        result = pi_session([*argv[:head]], args, task, project, limit_s or 7 * 24 * 3600, as_json)
    except PiTimeout as exc:
        return AgentExit(True, None, True, str(exc)), exc.session_id
    except PiRunError as exc:
        return AgentExit(False, None, error=str(exc)), exc.session_id
    return AgentExit(True, result.returncode), result.session_id


def pi_session(
    pi_argv: Sequence[str],
    pi_args: Sequence[str],
    task: str,
    project: Path,
    timeout: float,
    quiet: bool,
) -> Any:
    """One task through Pi in RPC mode with goalkeeper's extension loaded for it (``-e``):
    the runner ``goalkeeper run`` and the deprecated ``goalkeeper pi run`` share. The agent's
    replies are printed as they come (not with ``quiet``), goalkeeper's notices go to stderr.
    Returns ``hosts.pi.rpc.RunResult``; raises ``PiRunError``."""
    from goalkeeper.hosts.pi.install import bridge_argv, extension_text
    from goalkeeper.hosts.pi.rpc import run_pi

    with tempfile.TemporaryDirectory(prefix="goalkeeper-pi-") as tmp:
        extension = Path(tmp) / "goalkeeper.ts"
        extension.write_text(extension_text(bridge_argv()), encoding="utf-8")
        argv = [*pi_argv, "--mode", "rpc", "-e", str(extension), *pi_args]
        return run_pi(
            argv,
            task,
            project,
            dict(os.environ),
            timeout=timeout,
            native=None,
            on_text=(lambda _t: None) if quiet else (lambda t: click.echo(t)),
            on_notice=lambda n: click.echo(n, err=True),
        )


# -------------------------------------------------------------------------------------------
# The report
# -------------------------------------------------------------------------------------------
def _report(outcome: RunOutcome, host: str, as_json: bool) -> None:
    if as_json:
        echo_json({"host": host, **outcome.to_dict()})
        return
    words = {
        "done": "done and proven",
        "not_done": "not done",
        "blocked": "blocked on you",
        "awaiting": "awaiting your acceptance",
    }
    said = words.get(outcome.outcome, "error")
    reason = outcome.reason.removeprefix("goalkeeper: ")
    click.echo(f"goalkeeper: {said} (exit {outcome.exit_code}): {reason}", err=True)
    for run in outcome.proof:
        command = run.get("command") or " ".join(shlex.quote(a) for a in run.get("argv") or [])
        detail = f"exit {run['exit']}" if "exit" in run else str(run.get("verdict", ""))
        if "seconds" in run:
            detail += f", {run['seconds']:g} s"
        if run.get("output_sha256"):
            detail += f", output sha256 {str(run['output_sha256'])[:12]}…"
        click.echo(f"  proof ({run['source']}): `{command}` {detail}", err=True)
    if outcome.continuations:
        click.echo(f"  continuations: {outcome.continuations}", err=True)


COMMANDS = (run_command,)
