"""``goalkeeper mcp``: serve goalkeeper's tools over MCP (stdio)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from goalkeeper.cli.common import App


@click.command("mcp", short_help="Serve goalkeeper's tools over MCP (stdio).")
@click.option(
    "--host",
    type=click.Choice(["claude", "codex", "gemini"]),
    default="claude",
    show_default=True,
    help="The agent that starts the server: its texts name the tools as that agent does.",
)
@click.pass_obj
def mcp_command(app: App, host: str) -> int:
    """Serve goalkeeper's tools to an MCP client on stdin/stdout: `todo` (tasks that need
    evidence), `goal_approval` (ask the user to approve a changed goal) and, when the workflow
    catalog loads, `workflow`, `workflow_active` and `workflow_ask`.

    `goalkeeper install claude` registers it in the project's .mcp.json; `install codex` and
    `install gemini` register it with --host codex / --host gemini (Gemini CLI names the tools
    mcp_goalkeeper_todo, Claude Code and Codex mcp__goalkeeper__todo). With --host gemini the
    goalkeeper settings a project .env defines are not read (Gemini CLI loads that file into
    the server's environment). The project is CLAUDE_PROJECT_DIR when set, else the project
    folder. The session a call belongs to is
    the `session` argument goalkeeper's hook adds, else CLAUDE_CODE_SESSION_ID, else
    GOALKEEPER_SESSION, else "default".

    Exit status: 0 when the client closes the connection.
    """
    from goalkeeper.hosts.mcp.server import serve

    project = Path(os.environ.get("CLAUDE_PROJECT_DIR") or app.project)
    return serve(project, host)


COMMANDS = (mcp_command,)
