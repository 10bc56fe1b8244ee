"""``goalkeeper hook <host>``: answer one agent hook event (stdin JSON → stdout JSON).

The real work is dispatched in ``goalkeeper.__main__`` before click is imported; this command
exists so that ``goalkeeper hook --help`` explains it.
"""

from __future__ import annotations

import click


@click.command(
    "hook",
    short_help="Answer one agent hook event (stdin JSON → stdout JSON).",
    context_settings={"ignore_unknown_options": True},
)
@click.argument("host", type=click.Choice(["claude", "codex", "gemini"]))
def hook_command(host: str) -> int:
    """Answer one hook event from HOST (claude): the hook JSON on stdin, the answer on stdout.

    `goalkeeper install claude` registers this for SessionStart, UserPromptSubmit,
    PreToolUse, Stop, StopFailure and SubagentStop. It hands the event to a warm engine
    process when one runs (and starts one when not; GOALKEEPER_SERVER=off disables that).

    Exit status: always 0 with a JSON answer; on any problem the answer lets the agent
    go on and says why in "systemMessage".
    """
    from goalkeeper.hosts.hook_client import run_client

    return run_client([host])


COMMANDS = (hook_command,)
