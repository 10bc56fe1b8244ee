"""Messages about where goalkeeper keeps what it trusts and who may speak to it (en): the state
folder outside the project, the channels that prove their origin, the host's sandbox."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- the state folder outside the project (issue 21 item 1) ---
    "state.moved": (
        "goalkeeper: this project's state (counters, todos, approvals, the journal) now "
        "lives in {state_dir}, outside the project, where the agent's shell cannot delete "
        "it. It was copied from {legacy}, which goalkeeper no longer reads: you can delete "
        "that folder."
    ),
    "state.fresh.link": (
        "goalkeeper: the old state in {legacy} is a symbolic link (not followed), so goalkeeper "
        "started this project's state afresh in {state_dir}, outside the project "
        "(approvals and counters from before are not carried over). goalkeeper no "
        "longer reads {legacy}: you can delete it."
    ),
    "state.fresh.not_file": (
        "goalkeeper: the old state in {legacy} is not a regular file (not read), so goalkeeper "
        "started this project's state afresh in {state_dir}, outside the project "
        "(approvals and counters from before are not carried over). goalkeeper no "
        "longer reads {legacy}: you can delete it."
    ),
    "state.fresh.too_large": (
        "goalkeeper: the old state in {legacy} is larger than {mb} MB (not read), so goalkeeper "
        "started this project's state afresh in {state_dir}, outside the project "
        "(approvals and counters from before are not carried over). goalkeeper no "
        "longer reads {legacy}: you can delete it."
    ),
    "state.fresh.unreadable": (
        "goalkeeper: the old state in {legacy} could not be read ({detail}), so goalkeeper "
        "started this project's state afresh in {state_dir}, outside the project "
        "(approvals and counters from before are not carried over). goalkeeper no "
        "longer reads {legacy}: you can delete it."
    ),
    "state.fresh.not_db": (
        "goalkeeper: the old state in {legacy} is not a goalkeeper state database in good order ({detail}), so goalkeeper "
        "started this project's state afresh in {state_dir}, outside the project "
        "(approvals and counters from before are not carried over). goalkeeper no "
        "longer reads {legacy}: you can delete it."
    ),
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
