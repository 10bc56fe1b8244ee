"""``goalkeeper mcp --host …``: the server started by Codex or Gemini CLI names goalkeeper's tools
as that host exposes them to its model, and, for Gemini, reads no goalkeeper setting from the
project's ``.env`` (Gemini loads that file into the server's environment)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from goalkeeper.hosts.transport.launcher import is_goalkeeper_mcp, mcp_argv


def state_env() -> dict[str, str]:
    """goalkeeper's state folder as this test set it (tests/conftest.py): a server started
    with a bare environment must not write into the user's own state home."""
    return {"XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]}


EXPOSED = {
    "claude": "mcp__goalkeeper__",  # Claude Code's settings install
    "codex": "mcp__goalkeeper__",  # Codex 0.171.0: its hooks and its own texts name MCP tools so
    "gemini": "mcp_goalkeeper_",  # Gemini CLI 0.61.0: mcp_<server>_<tool> (its model sees it)
}
"""How each host's model sees goalkeeper's tools (checked end to end: tests/e2e)."""
TOOL_MENTION = re.compile(r"\bmcp_\w+")
FALSE_CLAIM = {"kind": "state", "evidence": [{"type": "file", "path": "nothere.py", "op": "edit"}]}


async def _session(
    project: Path, host: str, env: dict[str, str], calls: list[tuple[str, dict[str, Any]]]
) -> tuple[str, list[tuple[str, bool]]]:
    """One server as ``host``'s registration starts it: the tool descriptions it lists, and
    each call's text and whether it is an error."""
    args = ["-m", "goalkeeper", "-C", str(project), "mcp", "--host", host]
    base = {
        "PATH": os.environ.get("PATH", ""),
        **state_env(),
        "GOALKEEPER_SESSION": "s1",
        "GOALKEEPER_LANG": "en",
    }
    params = StdioServerParameters(
        command=sys.executable, args=args, env={**base, **env}, cwd=str(project)
    )
    async with stdio_client(params) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        listed = await session.list_tools()
        described = "\n".join(t.description or "" for t in listed.tools)
        results = []
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            results.append((result.content[0].text, bool(result.is_error)))  # type: ignore[union-attr]
    return described, results


def session(
    project: Path, host: str, *calls: tuple[str, dict[str, Any]], **env: str
) -> tuple[str, list[tuple[str, bool]]]:
    return anyio.run(_session, project, host, env, list(calls))


def git_project(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


@pytest.mark.parametrize("host", ["codex", "gemini"])
def test_every_tool_the_server_names_is_one_the_host_exposes(tmp_path: Path, host: str) -> None:
    """The tool descriptions and a refused call name goalkeeper's tools as ``host`` does; the
    server used Claude Code's names for every host (``mcp__goalkeeper__workflow`` is no tool
    Gemini's model has)."""
    project = git_project(tmp_path)
    described, results = session(
        project, host, ("workflow", {"mode": "workflow", "route": "hard-bug"}),
        ("workflow_active", {"action": "jump"}),
    )  # fmt: skip
    (_, start_error), (refused, error) = results
    assert not start_error and error
    mentioned = set(TOOL_MENTION.findall(described + "\n" + refused))
    prefix = EXPOSED[host]
    assert f"{prefix}workflow" in mentioned, mentioned
    assert refused.startswith(f"{prefix}workflow_active: "), refused
    assert all(name.startswith(prefix) for name in mentioned), mentioned


def test_a_projects_env_file_cannot_switch_off_geminis_evidence_check(tmp_path: Path) -> None:
    """Gemini CLI hands its MCP server the project's ``.env`` in the environment: there
    ``GOALKEEPER_EVIDENCE_CHECK=off`` let a todo complete on a claimed edit of a file that does
    not exist. The server started by Gemini reads no setting that file defines."""
    project = git_project(tmp_path)
    (project / ".env").write_text("GOALKEEPER_EVIDENCE_CHECK=off\n", "utf-8")
    create = ("todo", {"action": "create", "subject": "x"})
    complete = ("todo", {"action": "update", "id": 1, "status": "completed",
                         "metadata": {"evidence": FALSE_CLAIM}})  # fmt: skip
    _, results = session(project, "gemini", create, complete, GOALKEEPER_EVIDENCE_CHECK="off")
    text, error = results[1]
    assert error and "nothere.py" in text and "no such file" in text, text


def test_the_users_own_setting_still_counts_for_gemini(tmp_path: Path) -> None:
    """Only the names the project's env file defines are dropped: the same setting from the
    user's own environment is the user's choice."""
    project = git_project(tmp_path)
    create = ("todo", {"action": "create", "subject": "x"})
    complete = ("todo", {"action": "update", "id": 1, "status": "completed",
                         "metadata": {"evidence": FALSE_CLAIM}})  # fmt: skip
    _, results = session(project, "gemini", create, complete, GOALKEEPER_EVIDENCE_CHECK="off")
    assert results[1][1] is False, results[1]


def test_a_registration_with_its_host_is_still_goalkeepers() -> None:
    """install and uninstall recognise the entry they wrote, with or without ``--host``; a
    host argument that is not one word is not goalkeeper's."""
    for argv in (mcp_argv("/opt/py/bin/python", host="codex"), mcp_argv()):
        assert is_goalkeeper_mcp({"command": argv[0], "args": argv[1:]}), argv
    assert mcp_argv(host="gemini")[-3:] == ["mcp", "--host", "gemini"]
    forged = ["goalkeeper", "mcp", "--host", "x; rm -rf ~"]
    assert not is_goalkeeper_mcp({"command": forged[0], "args": forged[1:]})
    with pytest.raises(ValueError):
        mcp_argv(host="a b")


async def _listed(project: Path, host: str) -> list[str]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "goalkeeper", "-C", str(project), "mcp", "--host", host],
        env={"PATH": os.environ.get("PATH", ""), **state_env(), "GOALKEEPER_SESSION": "s1"},
    )
    async with stdio_client(params) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        return [t.name for t in (await session.list_tools()).tools]


def test_codex_which_never_lists_again_sees_the_phase_tools_from_the_start(
    tmp_path: Path,
) -> None:
    """Codex 0.171.0 takes no tools/list_changed: a phase tool listed only once a workflow is
    active was never callable there ("unsupported call", seen end to end). Gemini re-lists,
    so it keeps the progressive list."""
    project = git_project(tmp_path)
    assert {"workflow_active", "workflow_ask"} <= set(anyio.run(_listed, project, "codex"))
    assert "workflow_active" not in anyio.run(_listed, project, "gemini")
