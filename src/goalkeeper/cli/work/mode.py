"""``goalkeeper mode``: run a task in quick or normal mode (seed 004 §3), from a shell."""

from __future__ import annotations

from typing import Any

import click

from goalkeeper.cli.common import App, ExitCode, echo_json
from goalkeeper.cli.work.workflow import as_prompt


@click.command("mode", short_help="Run a task in quick or normal mode; confirm facts; status.")
@click.argument("action", type=click.Choice(["quick", "normal", "status", "confirm", "off"]))
@click.argument("task", nargs=-1)
@click.option(
    "--session", "session_id", help="The agent session (default: the most recently active one)."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def mode_command(
    app: App, action: str, task: tuple[str, ...], session_id: str | None, as_json: bool
) -> int:
    """Choose how much ceremony the session's task gets. There is no default: a run starts only
    when you name the mode.

    quick TASK: no phases, no artifacts, no question gate; a reported completion closes the task
    without the plan's gates (a goal's verification still runs).

    normal TASK: discuss → plan → execute → verify, with PLAN.md, EXECUTION.md and VERIFY.md in
    .agents/runs/<run>/. In discuss and plan, tools that write code are refused until you have
    confirmed the business facts (`goalkeeper mode confirm`) and the plan exists.

    status shows the run; off ends it. The same works in the agent: /gk-mode (Claude Code) or
    /mode (Pi).

    Exit status: 0 when done, 1 when refused (nothing to confirm), 4 without an agent session.
    """
    session, notes, row = as_prompt(app, session_id, " ".join(("/gk-mode", action, *task)))
    state: Any = (row.guards.get("modes", {}) if row else {}) or {}
    refused = any(n.level != "info" for n in notes)
    if as_json:
        echo_json(
            {
                "ok": not refused,
                "session": session,
                "notices": [n.text for n in notes],
                "mode": state.get("mode"),
                "phase": state.get("phase"),
                "run_dir": state.get("run_dir"),
            }
        )
    else:
        for note in notes:
            click.echo(note.text, err=note.level != "info")
    return int(ExitCode.NOT_PASSED if refused else ExitCode.OK)


COMMANDS = (mode_command,)
