"""Commands that grant an approval are the user's: refuse them inside an agent's shell."""

from __future__ import annotations

from goalkeeper.cli.common import fail


def refuse_in_agent_shell(command: str) -> None:
    """Raise a usage error (exit 2) when this process runs inside an agent's shell tool: what
    ``command`` approves must come from the user, in their own terminal."""
    from goalkeeper.hosts.transport.agent_shell import find_agent_shell

    found = find_agent_shell()
    if found is None:
        return
    raise fail(
        f"`goalkeeper {command}` approves on the user's behalf, and this shell belongs to "
        f"{found.agent} ({found.evidence}); run it in your own terminal, not through the agent"
    )


def agent_shell_name() -> str | None:
    """The agent whose shell this is, for commands that work there but approve nothing."""
    from goalkeeper.hosts.transport.agent_shell import find_agent_shell

    found = find_agent_shell()
    return found.agent if found is not None else None
