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
    # `goalkeeper install claude --sandbox`: one line per change to the user's settings
    "sandbox.install.enabled": "turned on Claude Code's sandbox for the agent's Bash "
    "(sandbox.enabled)",
    "sandbox.install.failIfUnavailable": "where the sandbox cannot start, Claude Code now stops "
    "instead of running commands unsandboxed (sandbox.failIfUnavailable)",
    "sandbox.install.allowUnsandboxedCommands": "shut the sandbox's escape hatch: the Bash "
    "tool's dangerouslyDisableSandbox is ignored (sandbox.allowUnsandboxedCommands: false)",
    "sandbox.install.denyRead": "the agent's Bash may not read goalkeeper's folders "
    "(sandbox.filesystem.denyRead): {folders}",
    "sandbox.install.denyWrite": "the agent's Bash may not write goalkeeper's folders "
    "(sandbox.filesystem.denyWrite): {folders}",
    "sandbox.install.where": "The sandbox settings are in your user settings ({path}): outside "
    "every project, where the agent cannot switch them off (a true there holds whatever a "
    "project's .claude/settings*.json say). Hooks and MCP servers run outside the sandbox; the "
    "agent's Bash cannot reach goalkeeper's state, config or sockets.",
    "sandbox.install.sockets": "Problem: your Claude Code settings let the agent's Bash open "
    "unix sockets ({what}): it can talk to goalkeeper's engine as if it were a hook. Remove "
    "it from {path}.",
    "sandbox.install.missing": "Note: Claude Code's sandbox needs {missing} on this machine "
    "(Debian, Ubuntu: sudo apt-get install bubblewrap socat). Until then Claude Code refuses "
    "to start (sandbox.failIfUnavailable).",
    "sandbox.uninstall.restored": "restored sandbox.{key}",
    "sandbox.uninstall.removed": "removed sandbox.{key}",
    "sandbox.uninstall.denied": "took goalkeeper's folders out of sandbox.filesystem.{list}",
    # `goalkeeper doctor`: Claude Code's sandbox
    "sandbox.fix": "goalkeeper install claude --sandbox",
    "sandbox.fix_sockets": "remove sandbox.network.allowAllUnixSockets (and any socket of "
    "goalkeeper's in allowUnixSockets) from your Claude Code settings",
    "sandbox.off": "Claude Code's sandbox is off: the agent's Bash runs as you, unconfined; "
    "goalkeeper's text checks refuse the cheap forgeries, not a determined agent",
    "sandbox.weak": "Claude Code's sandbox is on in the {layer} settings only, which are in "
    "the project: put it in your user settings, where the agent cannot switch it off",
    "sandbox.on": "Claude Code's sandbox is on ({layer} settings)",
    "sandbox.may_fall_back": "where the sandbox cannot start (no bubblewrap or socat), Claude "
    "Code runs the commands unsandboxed with a warning (sandbox.failIfUnavailable is not true)",
    "sandbox.not_denied": "goalkeeper's folders are not in sandbox.filesystem.{list}: {folders}",
    "sandbox.denied": "goalkeeper's state, config and runtime folders are denied to the "
    "agent's Bash for reading and writing",
    "sandbox.sockets_open": "the agent's Bash may open unix sockets ({paths}): it can talk to "
    "goalkeeper's engine as if it were a hook",
    "sandbox.escape": "the agent may ask to run a command outside the sandbox "
    "(dangerouslyDisableSandbox; sandbox.allowUnsandboxedCommands is not false): one approval "
    "and it reaches goalkeeper's state",
    "sandbox.excluded": "these commands run outside the sandbox (sandbox.excludedCommands): "
    "{commands}; one that can start another program reopens everything",
    # `goalkeeper doctor`: per host, whether the agent's shell is confined
    "sandbox.shell.confined": "the agent's shell is confined: it cannot read or write "
    "goalkeeper's state, config or sockets, so forged hook events, disguised approvals, its own "
    "MCP server, settings from its environment, a stand-in engine and deleting the state all "
    "fail (README: Security model)",
    "sandbox.shell.writes_confined": "the agent's shell cannot write goalkeeper's folders (its "
    "state, sockets and baselines cannot be deleted or replaced) but can read them and, where "
    "the host allows, open unix sockets: forged events and approvals rest on goalkeeper's "
    "checks (README: Security model)",
    "sandbox.shell.not_confined": "the agent's shell is not confined: goalkeeper's text checks refuse "
    "the cheap forgeries, but an agent set on cheating can still reach goalkeeper's state and "
    "sockets (README: Security model)",
    "sandbox.codex.full_access": "Codex runs the agent's shell with sandbox_mode = "
    '"danger-full-access" ({where}): unconfined',
    "sandbox.codex.fix_full_access": 'use sandbox_mode = "workspace-write" (and never '
    "--yolo / --dangerously-bypass-approvals-and-sandbox with goalkeeper)",
    "sandbox.codex.writable": "goalkeeper's folder {folder} is inside a folder Codex's "
    "workspace-write lets the agent's shell write ({root})",
    "sandbox.codex.fix_writable": "take {root} out of [sandbox_workspace_write] writable_roots, "
    "or point GOALKEEPER_STATE_HOME / XDG_STATE_HOME elsewhere",
    "sandbox.codex.ok": "Codex's {mode} keeps goalkeeper's folders out of the agent's shell's "
    "writable roots (the project, /tmp, $TMPDIR, writable_roots); a run with --yolo or "
    "--dangerously-bypass-approvals-and-sandbox is not confined",
    "sandbox.codex.reads": "Codex's sandbox lets the agent's shell read every file, "
    "goalkeeper's folders included, and its network setting decides unix sockets: the state "
    "cannot be written or deleted, but a secret kept there is not secret from the agent",
    "sandbox.gemini": "Gemini CLI's sandbox (--sandbox, GEMINI_SANDBOX, tools.sandbox: docker, "
    "podman or macOS seatbelt) runs the whole CLI inside it, hooks included: there is no wall "
    "between the agent's shell and goalkeeper's hooks; goalkeeper runs on its text checks",
    "sandbox.pi": "Pi has no sandbox: the agent's shell runs as you; goalkeeper runs on its "
    "text checks",
    # (end of the sandbox's messages)
}
