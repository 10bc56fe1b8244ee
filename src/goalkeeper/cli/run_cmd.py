"""``goalkeeper run [OPTIONS] -- AGENT_COMMAND…``: a headless agent under goalkeeper, for CI.

Nothing is installed into the project: Claude Code gets goalkeeper's hooks and MCP server for
this one run through ``--settings`` and ``--mcp-config`` temp files (built by the functions
``goalkeeper install claude`` uses), Pi gets goalkeeper's extension with ``-e`` and is driven
in RPC mode (``hosts/pi_rpc``). The exit status says what goalkeeper decided, never what the
agent said: it is read from goalkeeper's journal after the agent exits (``store/outcome``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from goalkeeper.cli.app import App, echo_json
from goalkeeper.store.outcome import AgentExit, RunOutcome

ERROR = 3
NOT_HOSTS = {"codex": "Codex CLI", "gemini": "Gemini CLI"}
_CLAUDE_SESSION_FLAGS = ("--session-id", "-r", "--resume", "-c", "--continue", "--fork-session")
_TERM_GRACE_S = 10.0


class RunError(click.ClickException):
    """goalkeeper could not run the agent at all: exit status 3, like every run error."""

    exit_code = ERROR


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
    type=click.Choice(["claude", "pi"]),
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
         goal's verification passed and the goal was archived)
      1  not done: paused at a cap, stuck, stopped early, cut by --max-turns or
         --max-minutes, or nothing that could prove it (no goal, no plan)
      2  blocked on you: a paused or held goal, tests only you can accept, a
         question for you, the agent honestly blocked
      3  error: the agent could not run, crashed, or failed on an API error;
         goalkeeper could not run (also a bad flag of this command)

    The outcome comes from goalkeeper's own journal and the goal it recorded, never from the
    agent's text. --json prints one object: outcome, exit, reason, continuations, sessions and
    the proof (each command goalkeeper ran itself: argv, exit, seconds, output sha256).

    \b
    Examples:
      goalkeeper run --goal '`pytest -q` passes' -- claude -p 'Fix the failing test'
      goalkeeper run --json --max-minutes 30 -- pi --model sonnet -p 'Fix the failing test'

    Claude Code gets the hooks and the MCP server through --settings / --mcp-config temp files
    (an installed goalkeeper serves instead, when one is). Pi runs in RPC mode with goalkeeper's
    extension (-e). Codex and Gemini are not goalkeeper hosts yet.
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
    if kind == "pi" and max_turns is not None:
        raise RunError("--max-turns is Claude Code's; for Pi, bound the run with --max-minutes")
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
    if kind == "claude":
        exited, session = run_claude(project, argv, max_turns, limit_s, as_json)
    else:
        exited, session = run_pi_host(project, argv, prompt, limit_s, as_json)
    entries = read_run(project, mark, session)
    return decide(entries, goal_status(project), exited)


def detect_host(argv: Sequence[str]) -> str:
    """``claude`` or ``pi`` from the command's program (or the script a ``node`` runs);
    ``RunError`` for an agent goalkeeper does not supervise yet."""
    names = [_program_name(argv[0])]
    if names[0] in ("node", "bun", "npx", "deno") and len(argv) > 1:
        script = argv[1].replace("\\", "/")
        names.append(
            "pi" if "pi-coding-agent" in script else "claude" if "claude-code" in script else ""
        )
        names.append(_program_name(script))
    for name in names:
        if name in ("claude", "pi"):
            return name
        if name in NOT_HOSTS:
            raise RunError(
                f"not supported yet: {NOT_HOSTS[name]} is not a goalkeeper host yet; "
                "goalkeeper run supervises Claude Code (claude) and Pi (pi)"
            )
    raise RunError(
        f"cannot tell which agent {argv[0]!r} is: goalkeeper run supervises Claude Code "
        "(claude) and Pi (pi); pass --host claude|pi for a wrapper"
    )


def _program_name(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    for suffix in (".exe", ".cmd", ".js", ".mjs"):
        name = name.removesuffix(suffix)
    return name


def _set_goal(ctx: click.Context, text: str, verify: tuple[str, ...], as_json: bool) -> None:
    """``goalkeeper goal set TEXT`` itself, so the goal is set with its semantics (trusted in
    the user's terminal, a proposal in an agent's shell); its words go to stderr with --json."""
    from goalkeeper.cli.goal import set_command

    out = sys.stderr if as_json else sys.stdout
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


# -------------------------------------------------------------------------------------------
# Claude Code
# -------------------------------------------------------------------------------------------
def claude_settings(project: Path, home: Path, user_settings: dict[str, Any]) -> dict[str, Any]:
    """The settings of this run: the user's ``--settings`` (if any) with goalkeeper's hooks,
    its block cap and its MCP tools allowed; without the hooks when an installed goalkeeper
    already serves (two sets of hooks would count every stop twice)."""
    from goalkeeper.config import load_config, relevant_env
    from goalkeeper.hosts.claude_settings import BLOCK_CAP_HEADROOM, add_hooks, hook_command

    data: dict[str, Any]
    if installed_claude_settings(project, home) is not None:
        data = json.loads(json.dumps(user_settings))
    else:
        config = load_config(project, relevant_env())
        cap = max(config.max_continuations, config.idle_streak) + BLOCK_CAP_HEADROOM
        # the temp file is never committed: the absolute interpreter is what this run uses
        data, _, _ = add_hooks(user_settings, hook_command(sys.executable), cap)
    permissions = data.setdefault("permissions", {})
    if isinstance(permissions, dict):
        allow = permissions.setdefault("allow", [])
        if isinstance(allow, list) and "mcp__goalkeeper" not in allow:
            allow.append("mcp__goalkeeper")
    return data


def installed_claude_settings(project: Path, home: Path) -> Path | None:
    """The settings file that already runs goalkeeper's hooks (an install), if any."""
    from goalkeeper.hosts.claude_settings import (
        Scope,
        SettingsError,
        is_goalkeeper_command,
        read_json_object,
        settings_path,
    )

    scopes: tuple[Scope, ...] = ("local", "project", "user")
    for scope in scopes:
        path = settings_path(scope, project, home)
        try:
            hooks = read_json_object(path).get("hooks")
        except SettingsError:
            continue
        groups = hooks.values() if isinstance(hooks, dict) else ()
        for group in (g for groups_ in groups if isinstance(groups_, list) for g in groups_):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else ():
                if isinstance(handler, dict) and is_goalkeeper_command(handler.get("command")):
                    return path
    return None


def claude_argv(
    argv: Sequence[str], settings_file: Path, mcp_file: Path, max_turns: int | None
) -> tuple[list[str], str | None]:
    """The command with goalkeeper's options right after the program (``--mcp-config`` takes
    several values, so ``--settings`` follows it to end them), a ``--session-id`` of our own
    unless the user chose the session, and the session id when it is known."""
    head = 2 if _program_name(argv[0]) in ("node", "bun", "deno") else 1
    rest = _without_option(list(argv[head:]), "--settings")
    ours = ["--mcp-config", str(mcp_file), "--settings", str(settings_file)]
    session: str | None = None
    if not any(a.split("=", 1)[0] in _CLAUDE_SESSION_FLAGS for a in rest):
        session = str(uuid.uuid4())
        ours += ["--session-id", session]
    else:
        session = _option_value(rest, "--session-id")
    if max_turns is not None and _option_value(rest, "--max-turns") is None:
        ours += ["--max-turns", str(max_turns)]
    return [*argv[:head], *ours, *rest], session


def run_claude(
    project: Path,
    argv: Sequence[str],
    max_turns: int | None,
    limit_s: float | None,
    as_json: bool,
) -> tuple[AgentExit, str | None]:
    from goalkeeper.cli.install import mcp_argv
    from goalkeeper.hosts.claude_settings import (
        BLOCK_CAP_VAR,
        SettingsError,
        add_mcp_server,
        read_json_object,
    )

    home = Path(os.environ.get("HOME") or Path.home())
    try:
        given = _option_value(list(argv[1:]), "--settings")
        user_settings = _settings_value(given, read_json_object) if given is not None else {}
        settings = claude_settings(project, home, user_settings)
        mcp, _, _ = add_mcp_server({}, mcp_argv())
    except SettingsError as exc:
        raise RunError(str(exc)) from exc
    installed = installed_claude_settings(project, home)
    if installed is not None:
        click.echo(f"goalkeeper: using the goalkeeper installed in {installed}", err=True)
    env = dict(os.environ)
    cap = (settings.get("env") or {}).get(BLOCK_CAP_VAR)
    if cap is not None:  # also in the process: the settings' env is the user's to override
        env[BLOCK_CAP_VAR] = str(cap)
    with tempfile.TemporaryDirectory(prefix="goalkeeper-run-") as tmp:
        settings_file, mcp_file = Path(tmp) / "settings.json", Path(tmp) / "mcp.json"
        settings_file.write_text(json.dumps(settings, indent=2), encoding="utf-8")
        mcp_file.write_text(json.dumps(mcp, indent=2), encoding="utf-8")
        command, session = claude_argv(argv, settings_file, mcp_file, max_turns)
        return run_process(command, project, env, limit_s, as_json), session


def _settings_value(value: str, read: Any) -> dict[str, Any]:
    """``--settings`` takes a file or a JSON string, as Claude Code does."""
    if value.lstrip().startswith("{"):
        try:
            data = json.loads(value)
        except ValueError as exc:
            raise RunError(f"--settings is not valid JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise RunError("--settings does not hold a JSON object")
        return data
    found: dict[str, Any] = read(Path(value))
    return found


def _option_value(args: Sequence[str], name: str) -> str | None:
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def _without_option(args: list[str], name: str) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == name:
            skip = True
        elif not arg.startswith(name + "="):
            out.append(arg)
    return out


def run_process(
    argv: Sequence[str], cwd: Path, env: dict[str, str], limit_s: float | None, as_json: bool
) -> AgentExit:
    """Run the agent in its own process group (so a time limit ends its children too), its
    output passed through (to stderr with --json, so stdout holds only goalkeeper's JSON)."""
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=env,
            stdout=sys.stderr.fileno() if as_json else None,
            start_new_session=True,
        )
    except OSError as exc:
        return AgentExit(False, None, error=f"cannot start {argv[0]}: {exc.strerror or exc}")
    try:
        return AgentExit(True, proc.wait(limit_s))
    except subprocess.TimeoutExpired:
        _stop_group(proc)
        minutes = (limit_s or 0) / 60
        return AgentExit(True, proc.returncode, True, f"stopped after {minutes:g} minutes")
    except KeyboardInterrupt:
        _stop_group(proc)
        return AgentExit(True, proc.returncode, error="interrupted")


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGTERM, _TERM_GRACE_S), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


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
    from goalkeeper.hosts.pi_rpc import PiRunError, PiTimeout

    head = 2 if _program_name(argv[0]) in ("node", "bun", "deno") else 1
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
    Returns ``hosts.pi_rpc.RunResult``; raises ``PiRunError``."""
    from goalkeeper.hosts.pi_install import bridge_argv, extension_text
    from goalkeeper.hosts.pi_rpc import run_pi

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
    words = {"done": "done and proven", "not_done": "not done", "blocked": "blocked on you"}
    said = words.get(outcome.outcome, "error")
    click.echo(f"goalkeeper: {said} (exit {outcome.exit_code}): {outcome.reason}", err=True)
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
