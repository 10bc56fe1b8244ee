"""``goalkeeper mcp``: goalkeeper's own tools over MCP (stdio), for any agent that speaks MCP.

Today one tool, ``todo``; the engine decides (gates, checked evidence) and performs it, in the
session the call belongs to. Which session: the ``session`` argument goalkeeper's PreToolUse
hook writes into the call (Claude Code), else ``CLAUDE_CODE_SESSION_ID`` from the server's
environment (Claude Code sets it for the MCP servers of a session), else ``GOALKEEPER_SESSION``,
else ``default``. Translation only; the official ``mcp`` SDK's low-level server is used so the
tool schema is exactly the one the engine declares.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from goalkeeper.config import load_config
from goalkeeper.core.messages import render
from goalkeeper.core.todos import TOOL_SCHEMA
from goalkeeper.core.values import Action, Advise, Block, Capability, Reply, ToolCall
from goalkeeper.store.db import Store

SERVER_NAME = "goalkeeper"
TOOL_NAME = "todo"
WORKFLOW_TOOLS = ("workflow", "workflow_active", "workflow_ask")
TOOL_NAMES = {n: f"mcp__{SERVER_NAME}__{n}" for n in (TOOL_NAME, *WORKFLOW_TOOLS)}
"""How Claude Code names this server's tools; the engine's texts use these names."""
CAPABILITIES: frozenset[Capability] = frozenset({"block", "advise"})


def session_of(arguments: Mapping[str, Any], env: Mapping[str, str]) -> str:
    value = arguments.get("session")
    if isinstance(value, str) and value.strip():
        return value.strip()
    return env.get("CLAUDE_CODE_SESSION_ID") or env.get("GOALKEEPER_SESSION") or "default"


def call_todo(
    project: Path,
    arguments: Mapping[str, Any],
    env: Mapping[str, str],
    store: Store | None = None,
    *,
    tool: str = TOOL_NAME,
) -> tuple[str, bool]:
    """One call of goalkeeper's ``tool`` (``todo`` or a workflow tool) through the engine: the
    text for the model, and whether it is an error.

    A long-lived server passes its ``store`` (one open connection; calls are serialised by the
    caller); otherwise a connection is opened and closed for this call."""
    from goalkeeper.engine.supervisor import Supervisor

    config = load_config(project, env)
    args = {k: v for k, v in arguments.items() if k != "session"}
    own = store is None
    supervisor = Supervisor(
        project, config, host="mcp", capabilities=CAPABILITIES, store=store, tool_names=TOOL_NAMES
    )
    try:
        outcome = supervisor.handle([ToolCall(session_of(arguments, env), tool, args)])
    except Exception as exc:  # the tool answers with an error; the agent goes on
        lang = config.lang if config.lang != "auto" else "en"
        return render(lang, "hook.internal_error", error=f"{type(exc).__name__}: {exc}"), True
    finally:
        if own:
            supervisor.store.close()
    return to_tool_result(outcome.actions)


def to_tool_result(actions: tuple[Action, ...]) -> tuple[str, bool]:
    blocks = [a.reason for a in actions if isinstance(a, Block)]
    if blocks:
        return "\n\n".join(blocks), True
    parts = [
        a.text if a.text is not None else json.dumps(a.data, ensure_ascii=False)
        for a in actions
        if isinstance(a, Reply)
    ]
    parts += [a.text for a in actions if isinstance(a, Advise)]
    return "\n\n".join(parts) or "{}", False


def tool_list(project: Path, env: Mapping[str, str]) -> list[Any]:
    """``todo`` and, when the workflow catalog loads, the three workflow tools."""
    import mcp_types as types

    from goalkeeper.core.messages import make_say

    lang = load_config(project, env).lang
    say = make_say("zh" if lang == "zh" else "en")
    tools = [
        types.Tool(
            name=TOOL_NAME, description=say("todo.tool.description"), input_schema=TOOL_SCHEMA
        )
    ]
    try:
        from goalkeeper.core.workflow_tools import workflow_tools
        from goalkeeper.store.catalog_files import load_catalog

        catalog = load_catalog(project, load_config(project, env).catalog).catalog
        specs = workflow_tools(catalog, say, TOOL_NAMES, session_field=True)
    except Exception:  # the todo tool must keep working whatever the catalog does
        return tools
    for spec, name in zip(specs, WORKFLOW_TOOLS, strict=True):
        tools.append(
            types.Tool(name=name, description=spec.described(), input_schema=spec.parameters)
        )
    return tools


def serve(project: Path) -> int:
    """Run the MCP server on stdin/stdout until the client closes it."""
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel.server import Server
    from mcp.server.stdio import stdio_server

    env = dict(os.environ)
    tools = tool_list(project, env)
    known = {t.name for t in tools}
    store = Store(project)  # one connection for the server's life; calls take turns on it
    turn = threading.Lock()

    def serialised(name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        with turn:
            return call_todo(project, arguments, env, store, tool=name)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in known:
            text, error = f"goalkeeper: no tool named {params.name!r}", True
        else:
            arguments = dict(params.arguments or {})
            # a re-run test may take minutes: keep the event loop free for the protocol
            text, error = await anyio.to_thread.run_sync(serialised, params.name, arguments)
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=error)

    server: Any = Server(SERVER_NAME, on_list_tools=list_tools, on_call_tool=call_tool)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
    return 0
