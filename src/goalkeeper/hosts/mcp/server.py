"""``goalkeeper mcp``: goalkeeper's own tools over MCP (stdio), for any agent that speaks MCP.

The tools are ``todo`` and the three workflow tools; the engine decides (gates, checked
evidence, legal transitions) and performs each call, in the session the call belongs to.
``workflow_ask`` puts its question to the user as an elicitation form where the client declares
forms (Claude Code does), as a server request or, on 2026-07-28 connections, in the result.

Which host: ``goalkeeper mcp --host codex|gemini`` as ``install codex`` / ``install gemini``
write it into the host's MCP registration (Claude Code's passes none). The texts name the tools
as that host does (``tool_names``), and Gemini's project ``.env`` is kept out of the settings
(``server_env``). The registration is one of the host files the trust guard keeps the agent
from writing; and the host only picks names and drops settings, it widens nothing.

Which session: the ``session`` argument goalkeeper's PreToolUse hook writes into the call
(Claude Code, Codex, Gemini), else ``CLAUDE_CODE_SESSION_ID`` from the server's environment
(Claude Code sets it for the MCP servers of a session), else ``GOALKEEPER_SESSION``, else
``default``.

Which origin: the approval form counts only on a server the host started (``hosts.mcp.origin``:
it can read goalkeeper's secret and its parent is the agent's program). On a server the agent
started itself, ``goal_approval`` shows no form and takes no form answer; it says why.

Translation only; the official ``mcp`` SDK's low-level server is used so the tool schema is
exactly the one the engine declares.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goalkeeper.config import load_config
from goalkeeper.core.goals.approval_tool import NAME as GOAL_APPROVAL
from goalkeeper.core.messages import render
from goalkeeper.core.text.sanitize import scrub_json
from goalkeeper.core.todos.tree import TOOL_SCHEMA
from goalkeeper.core.values import Action, Advise, Block, Capability, Reply, ToolCall
from goalkeeper.store.db import Store

if TYPE_CHECKING:
    from mcp_types import InputRequiredResult

SERVER_NAME = "goalkeeper"
TOOL_NAME = "todo"
WORKFLOW_TOOLS = ("workflow", "workflow_active", "workflow_ask")
"""The server's tools; how the client names them is the host's ``tool_names``, which the
engine's texts use."""
DEFAULT_HOST = "claude"
CAPABILITIES: frozenset[Capability] = frozenset({"block", "advise"})
ASK: frozenset[Capability] = frozenset({"ask"})
"""Added for a client that can show a form (MCP elicitation): ``workflow_ask`` asks the user."""


def tool_names(host: str, env: Mapping[str, str]) -> dict[str, str]:
    """goalkeeper's tools as the model of ``host`` sees them (its host module's
    ``tool_names``: Claude Code's settings install or plugin, Codex, Gemini CLI)."""
    import importlib

    from goalkeeper.hosts.hook_channel import HOSTS

    names: dict[str, str] = importlib.import_module(HOSTS[host]).tool_names(env)
    return names


MAX_TOOL_TEXT = 10_000
"""A tool result's cap for a client whose own is not known: Codex's, the smallest known."""


def max_tool_text(host: str) -> int:
    """The most UTF-8 bytes one tool result of ``host`` carries whole (its host module's
    ``MAX_TOOL_TEXT``): the workflow guard splits longer procedure texts into parts."""
    import importlib

    from goalkeeper.hosts.hook_channel import HOSTS

    module = importlib.import_module(HOSTS[host]) if host in HOSTS else None
    cap = getattr(module, "MAX_TOOL_TEXT", MAX_TOOL_TEXT)
    return cap if isinstance(cap, int) else MAX_TOOL_TEXT


def server_env(host: str, env: Mapping[str, str], project: Path, cwd: str) -> dict[str, str]:
    """The environment the server reads goalkeeper's settings from. Gemini CLI 0.61.0 starts
    an MCP server with its own environment (``createTransport``: ``process.env``, redacted of
    secrets only), into which it loaded the project's ``.env``: the agent's file, so a
    ``GOALKEEPER_EVIDENCE_CHECK=off`` there would let a todo complete on false evidence. Those
    names are dropped, as for Gemini's hooks (``hosts.gemini.env.user_env``)."""
    if host != "gemini":
        return dict(env)
    from goalkeeper.hosts.gemini.env import user_env

    return user_env(env, project, cwd)


def session_of(arguments: Mapping[str, Any], env: Mapping[str, str]) -> str:
    value = arguments.get("session")
    if isinstance(value, str) and value.strip():
        return value.strip()
    return env.get("CLAUDE_CODE_SESSION_ID") or env.get("GOALKEEPER_SESSION") or "default"


def _agent(arguments: Mapping[str, Any]) -> str:
    """The subagent that made the call, as goalkeeper's PreToolUse hook wrote it ("" for the
    main agent)."""
    value = arguments.get("agent")
    return value.strip()[:200] if isinstance(value, str) else ""


def call_todo(
    project: Path,
    arguments: Mapping[str, Any],
    env: Mapping[str, str],
    store: Store | None = None,
    *,
    tool: str = TOOL_NAME,
    host: str = DEFAULT_HOST,
) -> tuple[str, bool]:
    """One call of goalkeeper's ``tool`` (``todo`` or a workflow tool) through the engine: the
    text for the model, and whether it is an error."""
    return to_tool_result(run_call(project, arguments, env, store, tool=tool, host=host))


def run_call(
    project: Path,
    arguments: Mapping[str, Any],
    env: Mapping[str, str],
    store: Store | None = None,
    *,
    tool: str = TOOL_NAME,
    outcome: Mapping[str, str] | None = None,
    dialogs: bool = False,
    restore: bool = False,
    host: str = DEFAULT_HOST,
) -> tuple[Action, ...]:
    """The engine's actions for one call. ``dialogs``: the client can show a form (so
    ``workflow_ask`` may ask the user); ``outcome``: what the user answered to that form;
    ``restore``: this workflow call is the first of a conversation no session-start hook saw
    (the workflow guard restores the active work item first); ``host``: whose tool names the
    texts use. ``_outcome`` and ``_restore`` in
    the model's own arguments are dropped: only the host sets them.

    A long-lived server passes its ``store`` (one open connection; calls are serialised by the
    caller); otherwise a connection is opened and closed for this call."""
    from goalkeeper.engine.supervisor import Supervisor

    config = load_config(project, env)
    drop = ("session", "agent", "_outcome", "_restore")
    args = {k: v for k, v in arguments.items() if k not in drop}
    if outcome is not None:
        args["_outcome"] = dict(outcome)
    if restore and tool in WORKFLOW_TOOLS:
        args["_restore"] = True
    own = store is None
    caps = CAPABILITIES | ASK if dialogs else CAPABILITIES
    names = tool_names(host, env)
    supervisor = Supervisor(
        project,
        config,
        host="mcp",
        capabilities=caps,
        store=store,
        tool_names=names,
        max_text=max_tool_text(host),
    )
    try:
        call = ToolCall(session_of(arguments, env), tool, args, _agent(arguments))
        return supervisor.handle([call]).actions
    except Exception as exc:  # the tool answers with an error; the agent goes on
        lang = config.lang if config.lang != "auto" else "en"
        return (Block(render(lang, "hook.internal_error", error=f"{type(exc).__name__}: {exc}")),)
    finally:
        if own:
            supervisor.store.close()


def dialog_of(actions: tuple[Action, ...]) -> Mapping[str, Any] | None:
    """The question the engine wants put to the user, if any."""
    for a in actions:
        found = a.data.get("dialog") if isinstance(a, Reply) else None
        if isinstance(found, Mapping):
            return found
    return None


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


def tool_list(project: Path, env: Mapping[str, str], host: str = DEFAULT_HOST) -> list[Any]:
    """``todo``, ``goal_approval`` and, when the workflow catalog loads, the three workflow
    tools (whose descriptions name each other as ``host`` does)."""
    import mcp_types as types

    from goalkeeper.core.messages import make_say

    lang = load_config(project, env).lang
    say = make_say("zh" if lang == "zh" else "en")
    from goalkeeper.core.goals import approval_tool as goal_tool

    tools = [
        types.Tool(
            name=TOOL_NAME, description=say("todo.tool.description"), input_schema=TOOL_SCHEMA
        ),
        types.Tool(
            name=GOAL_APPROVAL,
            description=goal_tool.description(say),
            input_schema=goal_tool.schema(session_field=True),
        ),
    ]
    try:
        from goalkeeper.core.workflows.tools import workflow_tools
        from goalkeeper.store.catalog_files import load_catalog

        catalog = load_catalog(project, load_config(project, env).catalog).catalog
        specs = workflow_tools(catalog, say, tool_names(host, env), session_field=True)
    except Exception:  # the todo tool must keep working whatever the catalog does
        return tools
    for spec, name in zip(specs, WORKFLOW_TOOLS, strict=True):
        tools.append(
            types.Tool(name=name, description=spec.described(), input_schema=spec.parameters)
        )
    return tools


ACTIVE_ONLY = ("workflow_active", "workflow_ask")
"""Listed only while the session has an active workflow (catalog spec §8, seed003 D5)."""
LISTED_ONCE = frozenset({"codex"})
"""Hosts that never list the tools again: Codex 0.171.0 takes no ``tools/list_changed`` (after
one, its ``tool_search`` still found no ``workflow_active`` and a call of it was an
"unsupported call": seen end to end), so they are given every tool from the start."""


def listed_tools(tools: list[Any], active: bool) -> list[Any]:
    """The tools a client sees now: the active-only workflow tools only with a workflow."""
    return tools if active else [t for t in tools if t.name not in ACTIVE_ONLY]


def has_active_workflow(store: Store, session_id: str) -> bool:
    """Whether ``session_id`` has an active work item (its workflow guard's state)."""
    from goalkeeper.store.sessions import get_session

    if not store.exists():
        return False
    row = get_session(store.connection(), session_id)
    state = row.guards.get("workflow") if row is not None else None
    return isinstance(state, Mapping) and bool(state.get("active"))


async def announce_tools_changed(ctx: Any, bus: Any) -> None:
    """``notifications/tools/list_changed``: on a handshake-era connection straight on it; on
    a 2026-07-28 one through the subscription bus (delivered on ``subscriptions/listen``
    streams, the only way that era allows). A client that cannot take it misses nothing but
    the refresh: a hidden tool still answers."""
    from mcp.server.subscriptions import ToolsListChanged

    try:
        if is_modern(ctx):
            await bus.publish(ToolsListChanged())
        else:
            await ctx.session.send_tool_list_changed()
    except Exception:  # a closed channel: the next tools/list is right anyway
        return


def can_elicit(ctx: Any) -> bool:
    """The client declared form elicitation (a bare ``elicitation: {}`` means form, per spec)."""
    try:
        caps = ctx.session.client_capabilities
        found = caps.elicitation if caps is not None else None
        return found is not None and (found.form is not None or found.url is None)
    except AttributeError:
        return False


async def elicit(ctx: Any, dialog: Mapping[str, Any]) -> dict[str, str]:
    """Ask the user through the client's form; the outcome the guard reads. A client that
    fails the request leaves the decision pending (``no_ui``), never a guessed answer."""
    import anyio

    from goalkeeper.hosts.mcp.elicit import form_of, outcome_of, timed_out, timeout_seconds

    message, schema = form_of(dialog)
    try:
        with anyio.fail_after(timeout_seconds(dialog)):
            got = await ctx.session.elicit_form(message, schema, ctx.request_id)
    except TimeoutError:
        return timed_out(dialog)
    except Exception:  # the client could not ask (an error answer, a closed channel)
        return {"source": "no_ui"}
    return outcome_of(dialog, str(got.action), got.content)


FORM_KEY = "goalkeeper-ask"
"""The key of the one input request a ``workflow_ask`` result carries (2026-07-28)."""


def is_modern(ctx: Any) -> bool:
    """A per-request-envelope connection (2026-07-28): the server cannot send requests, so a
    form travels in an ``InputRequiredResult`` and the answer in the client's retry."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return getattr(ctx, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS


ASKED_AT = "askedAt"
"""When the form was sent (in the echoed request state): the timed default needs it."""


def input_required(dialog: Mapping[str, Any], now: float | None = None) -> InputRequiredResult:
    import mcp_types as types

    from goalkeeper.hosts.mcp.elicit import form_of

    message, schema = form_of(dialog)
    form = types.ElicitRequestFormParams(message=message, requested_schema=schema)
    state = {**dialog, ASKED_AT: time.time() if now is None else now}
    return types.InputRequiredResult(
        input_requests={FORM_KEY: types.ElicitRequest(params=form)},
        request_state=json.dumps(state, ensure_ascii=False),
    )


def answered_form(params: Any, now: float | None = None) -> dict[str, str] | None:
    """The outcome carried by the client's retry (its form answer and the echoed dialog), or
    None when this is not such a retry. A form the client cancelled after the dialog's timeout
    is the timed default (``retry_outcome``)."""
    from goalkeeper.hosts.mcp.elicit import retry_outcome

    responses = getattr(params, "input_responses", None) or {}
    answer = responses.get(FORM_KEY)
    try:
        dialog = json.loads(params.request_state or "")
    except (TypeError, ValueError):
        return None
    if answer is None or not isinstance(dialog, dict):
        return None
    action = getattr(answer, "action", None)
    content = getattr(answer, "content", None)
    asked = dialog.get(ASKED_AT)
    current = time.time() if now is None else now
    waited = 0.0
    if isinstance(asked, int | float) and not isinstance(asked, bool):
        waited = max(0.0, current - float(asked))
    found = content if isinstance(content, Mapping) else None
    return retry_outcome(dialog, str(action), found, waited)


def unproven_note(
    project: Path, env: Mapping[str, str], why: str, fields: Mapping[str, str]
) -> str:
    """Why this server's forms approve nothing (``hosts.mcp.origin``), in the user's language."""
    from goalkeeper.core.messages import make_say

    say = make_say("zh" if load_config(project, env).lang == "zh" else "en")
    return say("channel.mcp_unproven", why=say(why, **fields))


def serve(project: Path, host: str = DEFAULT_HOST) -> int:
    """Run the MCP server for ``host`` on stdin/stdout until the client closes it."""
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel.server import NotificationOptions, Server
    from mcp.server.stdio import stdio_server
    from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

    from goalkeeper.hosts.mcp.origin import origin

    env = server_env(host, os.environ, project, os.getcwd())
    started = origin(env)  # did the host start this server? (its forms approve only then)
    tools = tool_list(project, env, host)
    known = {t.name for t in tools}
    store = Store(project)  # one connection for the server's life; calls take turns on it
    turn = threading.Lock()
    bus = InMemorySubscriptionBus()
    session = [session_of({}, env)]  # the session of the latest call: whose tools are listed
    shown: list[bool | None] = [None]  # the active state the client last had listed

    def active_now() -> bool:
        with turn:
            return has_active_workflow(store, session[0])

    hooked = bool(env.get("CLAUDE_CODE_SESSION_ID"))  # Claude Code's SessionStart hook restores
    every_tool = hooked or host in LISTED_ONCE  # no progressive list (see list_tools)
    restored: set[str] = set()  # sessions whose workflow context this connection delivered

    def serialised(
        name: str, arguments: dict[str, Any], outcome: dict[str, str] | None, dialogs: bool
    ) -> tuple[Action, ...]:
        who = session_of(arguments, env)
        fresh = not hooked and not arguments.get("session") and who not in restored
        with turn:
            actions = run_call(
                project,
                arguments,
                env,
                store,
                tool=name,
                outcome=outcome,
                dialogs=dialogs,
                restore=fresh,
                host=host,
            )
        if name in WORKFLOW_TOOLS and not any(isinstance(a, Block) for a in actions):
            restored.add(who)
        return actions

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        # Claude Code (its hooks guide the model) sees every tool at once: a tool listed only
        # after list_changed can be called before the client has re-listed, and fail. So
        # does a client that never re-lists (LISTED_ONCE).
        active = every_tool or await anyio.to_thread.run_sync(active_now)
        shown[0] = active
        return types.ListToolsResult(tools=listed_tools(tools, active))

    async def call_tool(
        ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        if params.name not in known:
            text, error = f"goalkeeper: no tool named {params.name!r}", True
            return types.CallToolResult(content=[types.TextContent(text=text)], is_error=error)
        arguments = scrub_json(dict(params.arguments or {}))  # no lone surrogate, no NUL
        forms = started.host or params.name != GOAL_APPROVAL  # the agent's own server: no form
        dialogs = forms and can_elicit(ctx)
        outcome = answered_form(params) if forms else None  # a retry whose form was shown
        # a re-run test may take minutes: keep the event loop free for the protocol
        actions = await anyio.to_thread.run_sync(
            serialised, params.name, arguments, outcome, dialogs
        )
        dialog = dialog_of(actions) if outcome is None else None
        if dialog is not None:  # workflow_ask: the user answers in a form
            if is_modern(ctx):  # 2026-07-28: no server requests; the form goes in the result
                return input_required(dialog)
            outcome = await elicit(ctx, dialog)
            actions = await anyio.to_thread.run_sync(
                serialised, params.name, arguments, outcome, dialogs
            )
        session[0] = session_of(arguments, env)
        if params.name in WORKFLOW_TOOLS and not every_tool:  # the active-only tools come and go
            active = await anyio.to_thread.run_sync(active_now)
            if active != shown[0]:
                shown[0] = active
                await announce_tools_changed(ctx, bus)
        text, error = to_tool_result(actions)
        if not forms:
            text += "\n\n" + unproven_note(project, env, started.why, started.fields)
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=error)

    server: Any = Server(
        SERVER_NAME,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=ListenHandler(bus),
    )
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, options)

    anyio.run(main)
    return 0
