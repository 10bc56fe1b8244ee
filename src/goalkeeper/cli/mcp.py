"""``goalkeeper mcp``: serve goalkeeper's tools over MCP (stdio)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from goalkeeper.cli.app import App


@click.command("mcp", short_help="Serve goalkeeper's tools over MCP (stdio).")
@click.pass_obj
def mcp_command(app: App) -> int:
    """Serve goalkeeper's tools to an MCP client on stdin/stdout: `todo` (tasks that need
    evidence), `goal_approval` (ask the user to approve a changed goal) and, when the workflow
    catalog loads, `workflow`, `workflow_active` and `workflow_ask`.

    `goalkeeper install claude` registers it in the project's .mcp.json. The project is
    CLAUDE_PROJECT_DIR when set, else the project folder. The session a call belongs to is
    the `session` argument goalkeeper's hook adds, else CLAUDE_CODE_SESSION_ID, else
    GOALKEEPER_SESSION, else "default".

    Exit status: 0 when the client closes the connection.
    """
    from goalkeeper.hosts.mcp_server import serve

    project = Path(os.environ.get("CLAUDE_PROJECT_DIR") or app.project)
    return serve(project)


COMMANDS = (mcp_command,)
