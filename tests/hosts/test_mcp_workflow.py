"""The workflow tools over MCP for a client without goalkeeper's hooks (seed003 D4): a new
connection is a new conversation, so its first workflow call restores the active work item
(validated, its context delivered in full) instead of saying "delivered earlier"."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def state_env() -> dict[str, str]:
    """goalkeeper's state folder as this test set it (tests/conftest.py): a server started
    with a bare environment must not write into the user's own state home."""
    return {"XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]}


async def _connection(project: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """One server process and one client session: each call's text, in order."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "goalkeeper", "-C", str(project), "mcp"],
        env={
            "PATH": os.environ.get("PATH", ""),
            **state_env(),
            "GOALKEEPER_SESSION": "s-plain",
            "GOALKEEPER_LANG": "en",
        },
    )
    texts: list[str] = []
    async with stdio_client(params) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            text = result.content[0].text  # type: ignore[union-attr]
            assert not result.is_error, text
            texts.append(text)
    return texts


def connection(project: Path, *calls: tuple[str, dict[str, Any]]) -> list[str]:
    return anyio.run(_connection, project, list(calls))


def move(target: str) -> tuple[str, dict[str, Any]]:
    return ("workflow_active", {"action": "transition", "target": target})


def test_a_new_connection_gets_the_workflow_context_again(tmp_path: Path) -> None:
    """hard-bug → implement → code-review, then a new server and client: going back to
    implement delivers the restored code-review context and implement's own text, where it
    used to deliver only the already-delivered sentence."""
    start = ("workflow", {"mode": "workflow", "route": "hard-bug"})
    first = connection(tmp_path, start, move("implement"), move("code-review"), move("implement"))
    assert 'source="procedure/implement"' not in first[-1]  # the same conversation: a delta
    assert "delivered earlier in this session" in first[-1]
    again, next_call = connection(tmp_path, move("code-review"), move("implement"))
    assert "Synchronous action: restored workflow" in again
    assert 'source="procedure/implement"' in again  # the restored step
    assert again.count('source="procedure/code-review"') == 1
    assert "restored workflow" not in next_call  # once per connection
    assert "delivered earlier in this session" in next_call


def test_a_hooked_client_is_not_restored_by_the_server(tmp_path: Path) -> None:
    """With a ``session`` argument (goalkeeper's PreToolUse hook wrote it) the SessionStart
    hook owns the restore: the server does not deliver it again."""
    start = ("workflow", {"mode": "workflow", "route": "hard-bug", "session": "s-hook"})
    connection(tmp_path, start)
    (text,) = connection(
        tmp_path,
        ("workflow_active", {"action": "transition", "target": "implement", "session": "s-hook"}),
    )
    assert "restored workflow" not in text
