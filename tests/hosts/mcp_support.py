"""Starting ``goalkeeper mcp`` as a host does, or as an agent does, for tests.

A host starts its MCP servers as its own children (``hosts.mcp.origin``), and only then do the
server's approval forms count. ``as_host`` puts a stand-in for the host between the test's MCP
client and the server: a relay whose program name is ``claude`` (``exec -a``), which starts the
server with the relay's own stdin and stdout and waits for it. Without it the server's parent
is the test process, as it is the agent's process when the agent starts a server itself.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.client.stdio import StdioServerParameters

RELAY = "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))"


def server_params(project: Path, env: dict[str, str], *, as_host: bool) -> StdioServerParameters:
    """``goalkeeper -C <project> mcp`` with ``env`` (and ``PATH``; the state home of this test
    from ``XDG_STATE_HOME``), started by a stand-in host or by the test itself."""
    full = {
        "PATH": os.environ.get("PATH", ""),
        "XDG_STATE_HOME": os.environ.get("XDG_STATE_HOME", ""),
        **env,
    }
    server = [sys.executable, "-m", "goalkeeper", "-C", str(project), "mcp"]
    if not as_host:
        return StdioServerParameters(command=server[0], args=server[1:], env=full)
    script = 'c=$1; shift; exec -a claude "$0" -c "$c" "$@"'
    return StdioServerParameters(
        command="bash", args=["-c", script, sys.executable, RELAY, *server], env=full
    )
