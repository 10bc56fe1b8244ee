"""Messages about where goalkeeper keeps what it trusts and who may speak to it (en): the state
folder outside the project, the channels that prove their origin, the host's sandbox."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- the state folder outside the project (issue 21 item 1) ---
    # (end of the state folder's messages)
    #
    #
    # --- channels that prove their origin (issue 21 item 2) ---
    "channel.secret_unsafe": (
        "goalkeeper: {path}, the secret that proves goalkeeper's hooks to its engine, is not a "
        "file only you can read (owner {owner}, mode {mode}), so the warm engine is off and "
        "every hook runs in its own process; delete it and goalkeeper makes a new one."
    ),
    "channel.mcp_unproven": (
        "This goalkeeper MCP server was not started by the agent's host ({why}), so no form "
        "it shows can approve anything."
    ),
    "channel.why.no_secret": "it cannot read goalkeeper's secret",
    "channel.why.parent": "its parent process is {parent}, not the host's program",
    # (end of the channels' messages)
    #
    #
    # --- the host's sandbox, set up and checked (issue 21 item 3) ---
    # (end of the sandbox's messages)
}
