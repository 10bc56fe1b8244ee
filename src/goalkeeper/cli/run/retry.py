"""``goalkeeper run -- claude …`` after a turn that ended on an API error: the session is
resumed after the back-off of ``core.goals.retry`` (seed 001 §5).

Claude Code fires StopFailure instead of Stop on an API error and ignores the hook's answer, so
no hook can make the session retry. The process that started the session can: it waits the
attempt's delay, resumes the same session (``--resume``) with a short prompt (the goal guard
adds "resume from the last completed step" to it), and stops when a turn ends without an API
error, the goal is blocked (the goal guard blocks it at the error after its 10 retries, with
the strategy prompt), the time limit would be spent, or its own 10 retries are used, when it
tells the user the strategy prompt itself.

The session to resume is the one goalkeeper gave the run (``--session-id``), else, when the
user chose it (``--resume``, ``--continue``, ``--fork-session``), the one the run's own hook
events were recorded under: a run whose first event is the failure is retried the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

import click

from goalkeeper.cli.run.agent import program_name
from goalkeeper.cli.run.claude import run_claude, without_option
from goalkeeper.store.outcome import AgentExit

RunClaude = Callable[
    [Path, Sequence[str], int | None, float | None, bool], tuple[AgentExit, str | None]
]

_STOPPED = ("blocked", "held")
"""Goal states after which only the user moves the work on: retrying would only spend turns."""


def run_claude_retrying(
    project: Path,
    argv: Sequence[str],
    max_turns: int | None,
    limit_s: float | None,
    as_json: bool,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    run: RunClaude = run_claude,
) -> tuple[AgentExit, str | None]:
    """``cli.run.claude``, then up to ``RETRIES`` resumed runs while the session's last turn ends
    on an API error; the last run's exit and the session id (``run`` starts the agent: Claude
    Code, or a test's stand-in)."""
    from goalkeeper.config import load_config, relevant_env
    from goalkeeper.core.goals.retry import RETRIES, retry_delay_s
    from goalkeeper.core.messages import make_say, resolve_lang
    from goalkeeper.store.outcome import goal_status, last_entry_id

    config = load_config(project, relevant_env())
    say = make_say(resolve_lang(config.lang, _prompt_of(argv)))
    started, waited = clock(), 0.0
    mark = last_entry_id(project)
    exited, session = run(project, argv, max_turns, limit_s, as_json)
    session = session or run_session(project, mark)
    error = _api_error(project, mark, session)
    for n in range(1, RETRIES + 1):
        if not error or session is None or exited.timed_out or goal_status(project) in _STOPPED:
            return exited, session
        delay = retry_delay_s(n, config.retry_base_ms)
        left = None if limit_s is None else limit_s - (clock() - started) - delay
        if left is not None and left <= 0:
            return exited, session
        note = say(
            "goal.run_retry", error=error, n=n, max=RETRIES, session=session, delay=f"{delay:g}"
        )
        click.echo(note, err=True)
        sleep(delay)
        waited += delay
        mark = last_entry_id(project)
        again = resume_argv(argv, session, say("goal.run_retry_prompt"))
        exited, _ = run(project, again, max_turns, left, as_json)
        error = _api_error(project, mark, session)
    if error and goal_status(project) not in _STOPPED:
        minutes = f"{waited / 60:.0f}"
        said = say(
            "goal.run_retries_exhausted", max=RETRIES, minutes=minutes, error=error, session=session
        )
        click.echo(said, err=True)
    return exited, session


def resume_argv(argv: Sequence[str], session: str, prompt: str) -> list[str]:
    """The command that resumes ``session``: the user's options kept, their session choice
    replaced by ``--resume SESSION``, and the task after ``-p`` replaced by ``prompt`` (a task
    given otherwise, on stdin or elsewhere on the line, is sent again as it was)."""
    head = 2 if program_name(argv[0]) in ("node", "bun", "deno") else 1
    rest = list(argv[head:])
    for name in ("--session-id", "--resume", "-r"):
        rest = without_option(rest, name)
    rest = [a for a in rest if a not in ("-c", "--continue", "--fork-session")]
    for i, arg in enumerate(rest[:-1]):
        if arg in ("-p", "--print") and not rest[i + 1].startswith("-"):
            rest[i + 1] = prompt
            break
    return [*argv[:head], "--resume", session, *rest]


def _prompt_of(argv: Sequence[str]) -> str | None:
    """The task after ``-p`` (for the language of goalkeeper's words), if there is one."""
    args = list(argv)
    for i, arg in enumerate(args[:-1]):
        if arg in ("-p", "--print") and not args[i + 1].startswith("-"):
            return args[i + 1]
    return None


def run_session(project: Path, mark: int) -> str | None:
    """The session the run's hook events were recorded under (entries after ``mark``), when
    the user chose it and so goalkeeper could not name it: None when no event came, or when
    several sessions wrote (another session in the same project is not this run's to resume)."""
    from goalkeeper.store.outcome import read_run

    sessions = {e.session_id for e in read_run(project, mark, None) if e.session_id}
    return sessions.pop() if len(sessions) == 1 else None


def _api_error(project: Path, mark: int, session: str | None) -> str:
    """The API error the session's last turn since ``mark`` ended on ("" for none)."""
    from goalkeeper.store.outcome import last_turn_error, read_run

    return last_turn_error(read_run(project, mark, session)) if session is not None else ""
