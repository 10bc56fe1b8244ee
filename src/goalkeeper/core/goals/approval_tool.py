"""``goal_approval``: the tool through which the agent asks the *user* to approve a held goal.

The agent cannot approve its own change to GOAL.md, but it can ask: where the host shows a form
(an MCP client with elicitation, as Claude Code is), the user sees what changed and accepts or
keeps their goal; the answer comes from the host, never from the tool's arguments. Elsewhere
the reply tells the agent to ask the user to run ``goalkeeper goal approve``. Pure.
"""

from __future__ import annotations

from typing import Any

from goalkeeper.core.messages import Say

NAME = "goal_approval"


def schema(*, session_field: bool = False) -> dict[str, Any]:
    """No arguments (the change is GOAL.md's); ``session_field``: the Claude Code hook adds the
    session it belongs to."""
    properties: dict[str, Any] = {}
    if session_field:
        properties["session"] = {"type": "string", "description": "filled in by goalkeeper"}
    return {"type": "object", "properties": properties}


def description(say: Say) -> str:
    return say("trust.goal.tool.description")
