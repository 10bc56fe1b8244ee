"""Was this ``goalkeeper mcp`` started by the agent's host, or by the agent?

The approval form (``goal_approval``'s elicitation) is the user's answer only when the MCP
client showing it is the host, which shows it to the user. An agent can start its own
``goalkeeper mcp`` from its shell, be its MCP client and answer the form itself; the
registration a host reads (``.mcp.json`` …) is in files the agent can read, so no secret can
travel in it. A server therefore counts form answers only when both hold:

- **it can read goalkeeper's secret** (``hook_channel``: in the state home, created if need
  be). Hosts start MCP servers outside their sandbox; a sandboxed agent's shell is denied the
  state home (``install claude --sandbox``), so a server it starts fails here;
- **its parent process is an agent's program** (``claude``, ``codex``, ``gemini``, ``pi``, or
  ``node`` running one of them): hosts start MCP servers as their own children (the launcher's
  ``sh`` ``exec``s Python). A server started from the agent's shell has that shell (or the
  agent's own client) as its parent, and one detached by a double fork has ``init``.

Without a sandbox the second check is the only one (the agent can read the secret), and an
agent that replaces its shell by the server (``exec goalkeeper mcp`` with its own pipes) passes
it; such an agent can also write goalkeeper's state database directly. Only the sandbox closes
that: the README's security model says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping

from msgspec import Struct

from goalkeeper.hosts.hook_channel import ensure_secret, secret_path
from goalkeeper.hosts.transport.agent_shell import PROGRAMS

RUNTIMES = ("node", "nodejs", "bun")
"""Programs that run an agent's script (``node …/bin/claude``): the script names the agent."""


class Origin(Struct, frozen=True):
    """Whether the host started this server; when not, why (a catalog key and its fields)."""

    host: bool
    why: str = ""
    fields: dict[str, str] = {}


def origin(
    environ: Mapping[str, str] | None = None, *, parent: int | None = None, proc: str = "/proc"
) -> Origin:
    """Whether this process (a ``goalkeeper mcp``) was started by an agent's host. Never
    raises."""
    secret = ensure_secret(secret_path(os.environ if environ is None else environ))
    if not isinstance(secret, bytes):
        return Origin(False, "channel.why.no_secret")
    pid = os.getppid() if parent is None else parent
    argv = command_line(pid, proc)
    if host_program(argv) is None:
        shown = " ".join(argv[:2])[:80] or "?"
        return Origin(False, "channel.why.parent", {"parent": f"{pid} ({shown})"})
    return Origin(True)


def host_program(argv: list[str]) -> str | None:
    """The agent whose program ``argv`` runs (``agent_shell.PROGRAMS``), else None. A runtime
    (``node --flags script``) is looked through to its script; ``codex-<target>`` is Codex's
    native binary as its npm package starts it."""
    names = [os.path.basename(a) for a in argv]
    if names and names[0] in RUNTIMES:
        names = [n for n in names[1:] if not n.startswith("-")][:1]
    if not names:
        return None
    name = names[0].removesuffix(".js")
    found = PROGRAMS.get(name)
    if found is None and name.startswith("codex-"):
        found = PROGRAMS["codex"]
    return found


def command_line(pid: int, proc: str = "/proc") -> list[str]:
    """The argument vector of process ``pid``; empty when it cannot be read."""
    if pid <= 1:
        return []
    if sys.platform.startswith("linux"):
        try:
            with open(f"{proc}/{pid}/cmdline", "rb") as f:
                data = f.read(1 << 16)
        except OSError:
            return []
        return [a.decode("utf-8", "replace") for a in data.split(b"\0") if a]
    try:  # macOS and the BSDs: no /proc
        out = subprocess.run(
            ["ps", "-o", "command=", "-p", str(pid)],
            capture_output=True,
            timeout=5,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return out.decode("utf-8", "replace").split()
