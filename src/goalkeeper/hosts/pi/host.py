"""Pi host: what goalkeeper declares to its Pi extension, and how Pi's events and goalkeeper's
actions translate (``../shared/reference/pi-host.md``; DESIGN.md's event and action tables).

Translation only, no policy. Pi gives more than a hook host: a run can be continued from
inside (``agent_before_settle`` on Pi ≥ 0.80.6, else a follow-up message that starts a turn),
advice can be steered into the running conversation or queued for the next turn, compaction
is real, and the system prompt can carry the static guidance on every run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct, field
from msgspec.structs import replace

from goalkeeper.config import Config
from goalkeeper.core.messages import Lang, render
from goalkeeper.core.values import (
    RUN_TAIL_CHARS,
    Action,
    Activity,
    Advise,
    Ask,
    Block,
    Capability,
    Close,
    Compact,
    Continue,
    Notify,
    Pause,
    Record,
    Reply,
    Retry,
    RunOutcome,
    SessionSource,
    Settled,
    ToolRun,
)
from goalkeeper.hosts.pi.protocol import PROTOCOL, PiContext
from goalkeeper.store.safe_read import file_size

HOST = "pi"
CAPABILITIES: frozenset[Capability] = frozenset(
    {"continue", "advise", "follow_up", "block", "notify", "compact", "schedule", "ask"}
)
TODO_TOOL = "todo"
OWN_TOOLS = (TODO_TOOL, "workflow", "workflow_active", "workflow_ask")
ACTIVE_ONLY_TOOLS = ("workflow_active", "workflow_ask")
"""In the model's tool list only while a workflow is active."""
"""Tools the extension registers for goalkeeper: their calls run in the engine when executed,
so their ``tool_call`` is not sent to it a second time."""
GOAL_COMMAND = "goal"
WORKFLOW_COMMAND = "workflow"
MODE_COMMAND = "mode"
CUSTOM_TYPE = "goalkeeper"
"""The ``customType`` of every message goalkeeper puts into a Pi session."""
FORWARD = (
    "session_start",
    "session_compact",
    "session_before_compact",
    "session_shutdown",
    "input",
    "before_agent_start",
    "agent_start",
    "agent_end",
    "agent_before_settle",
    "agent_settled",
    "turn_end",
    "tool_call",
    "tool_result",
)
"""Pi's events goalkeeper wants. The extension also sends ``choice`` events of its own: the
user's answer to an ``ask`` action."""
MILESTONES = frozenset({"closed", "capped", "goal_complete", "goal_blocked", "goal_choice"})
"""Journal records also written into the Pi session (``appendEntry``, never sent to the model),
so the session file itself tells when goalkeeper closed, paused or resumed the work."""
_SOURCES: dict[str, SessionSource] = {
    "startup": "startup",
    "reload": "resume",
    "resume": "resume",
    "new": "clear",
    "fork": "fork",
}


def _workflow_specs(project: Path | None, config: Config, lang: Lang) -> tuple[Any, ...]:
    """The workflow tools from the catalog; none when it cannot be loaded (todo still works)."""
    try:
        from goalkeeper.core.messages import make_say
        from goalkeeper.core.workflows.tools import workflow_tools
        from goalkeeper.store.catalog_files import load_catalog

        catalog = load_catalog(project or Path.cwd(), config.catalog).catalog
        return workflow_tools(catalog, make_say(lang), {})
    except Exception:
        return ()


def declaration(config: Config, lang: Lang, project: Path | None = None) -> dict[str, Any]:
    """The hello reply: the tools and commands the extension registers (schemas from here, so a
    new tool needs no TypeScript), the events to forward, and how long to wait for each
    answer. A settle may run the goal's verification, so it gets the verify timeout and more."""
    from goalkeeper.core.todos.tree import TOOL_SCHEMA

    schema = dict(TOOL_SCHEMA)
    schema["properties"] = {
        k: v for k, v in TOOL_SCHEMA["properties"].items() if k not in ("session", "agent")
    }
    settle_ms = int((max(config.evidence_timeout_s, 120.0) * 4 + 60) * 1000)
    tools: list[dict[str, Any]] = [
        {
            "name": TODO_TOOL,
            "label": "Todo (goalkeeper)",
            "description": render(lang, "todo.tool.description"),
            "promptSnippet": render(lang, "todo.tool.snippet"),
            "parameters": schema,
            "timeoutMs": int((config.evidence_timeout_s + 60) * 1000),
        }
    ]
    tools += [
        {
            "name": spec.name,
            "label": spec.label,
            "description": spec.description,
            "promptSnippet": spec.snippet,
            "promptGuidelines": list(spec.guidelines),
            "parameters": spec.parameters,
            "timeoutMs": 30_000,
        }
        for spec in _workflow_specs(project, config, lang)
    ]
    return {
        "protocol": PROTOCOL,
        "host": HOST,
        "tools": tools,
        "commands": [
            {"name": GOAL_COMMAND, "description": render(lang, "goal.pi.command")},
            {"name": WORKFLOW_COMMAND, "description": render(lang, "workflow.command.description")},
            {"name": MODE_COMMAND, "description": render(lang, "mode.command.description")},
        ],
        "forward": list(FORWARD),
        "awaited": {
            "before_agent_start": 15_000,
            "tool_call": 15_000,
            "agent_before_settle": settle_ms,
        },
        "commandTimeoutMs": 60_000,
    }


def session_source(reason: object) -> SessionSource:
    return _SOURCES.get(reason, "other") if isinstance(reason, str) else "other"


def settled_event(
    session_id: str,
    last_text: str,
    *,
    outcome: str,
    error: str | None,
    ctx: PiContext,
    runs: Sequence[ToolRun] = (),
) -> Settled:
    """``outcome``: ``completed``, ``aborted`` or ``error`` (Pi's words, also for a 0.73.x
    ``agent_end`` stop reason: ``stop``/``length``/``toolUse`` count as completed). ``runs``:
    the run's tool calls (every ``tool_call`` event since the previous settle, in order)."""
    return Settled(
        session_id,
        last_text,
        aborted=outcome == "aborted",
        error=(error or "error") if outcome == "error" else None,
        activity=Activity(
            tool_calls=len(runs),
            context_tokens=ctx.context_tokens,
            session_bytes=file_size(ctx.session_file),
            context_window=ctx.context_window,
            runs=tuple(runs),
        ),
    )


SHELL_TOOLS = frozenset({"bash"})
EDIT_TOOLS = frozenset({"edit", "write"})


def tool_run(tool: str, args: Mapping[str, Any]) -> ToolRun:
    """A Pi ``tool_call`` in host-neutral terms. Pi says how a call ended only in its
    ``tool_result`` event, so until one arrives the outcome is ``unknown`` (it was let through;
    an aborted run pauses anyway)."""
    if tool in SHELL_TOOLS:
        command = args.get("command")
        return ToolRun("shell", tool, command if isinstance(command, str) else "")
    if tool in EDIT_TOOLS:
        path = args.get("path") or args.get("file_path")
        return ToolRun("edit", tool, path=path if isinstance(path, str) else "")
    return ToolRun("other", tool)


def finished(run: ToolRun, data: Mapping[str, Any]) -> ToolRun:
    """The call as its ``tool_result`` (``isError``, ``content``) says it ended."""
    content = data.get("content")
    if isinstance(content, list):
        parts = [c.get("text") for c in content if isinstance(c, dict)]
        content = "\n".join(p for p in parts if isinstance(p, str))
    tail = content[-RUN_TAIL_CHARS:] if isinstance(content, str) else ""
    outcome: RunOutcome = "failed" if data.get("isError") is True else "passed"
    return replace(run, outcome=outcome, tail=tail)


def outcome_of(stop_reason: str) -> str:
    if stop_reason == "aborted":
        return "aborted"
    return "error" if stop_reason == "error" else "completed"


class Answer(Struct, frozen=True):
    """Actions in Pi's terms: what to return to an awaited event, and what to send on."""

    result: dict[str, Any] | None = None
    actions: tuple[dict[str, Any], ...] = ()
    advice: tuple[str, ...] = ()
    """Advice for the conversation that this event could not carry (kept for the next run)."""
    static: str | None = None
    """Static guidance (for every run's system prompt)."""
    retry: Retry | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def translate(event: str, actions: Sequence[Action], *, can_continue: bool) -> Answer:
    """Pi's answer to ``event`` for the merged actions.

    ``can_continue``: the answer goes back to ``agent_before_settle``, which may request one more
    turn itself; otherwise a continuation is a message that starts a turn."""
    result: dict[str, Any] = {}
    out: list[dict[str, Any]] = []
    advice: list[str] = []
    static: str | None = None
    retry: Retry | None = None
    compact = next((a for a in actions if isinstance(a, Compact)), None)
    for action in actions:
        if isinstance(action, Block):
            result = {"block": True, "reason": action.reason}
        elif isinstance(action, Advise) and action.static:
            static = action.text
        elif isinstance(action, Advise) and action.when == "next_turn":
            out.append(_message(action.text, "nextTurn"))
        elif isinstance(action, Advise):
            if event in ("tool_call", "turn_end"):
                out.append(_message(action.text, "steer"))
            else:
                advice.append(action.text)
        elif isinstance(action, Continue):
            if compact is not None:  # compact first, then continue (Pi compacts in the background)
                out.append(
                    {"action": "compact", "instructions": compact.instructions, "then": action.text}
                )
            elif can_continue:
                result = {"continue": action.text}
            else:
                out.append({"action": "continue", "text": action.text})
        elif isinstance(action, Notify):
            out.append({"action": "notify", "text": action.text, "level": action.level})
        elif isinstance(action, Pause):
            out.append({"action": "notify", "text": action.reason, "level": "warning"})
        elif isinstance(action, Close):
            out.append({"action": "notify", "text": action.summary, "level": "info"})
        elif isinstance(action, Retry):
            retry = action
        elif isinstance(action, Record) and action.kind in MILESTONES:
            out.append(
                {
                    "action": "appendEntry",
                    "customType": CUSTOM_TYPE,
                    "data": {action.kind: action.data},
                }
            )
        elif isinstance(action, Ask):
            out.append(
                {
                    "action": "ask",
                    "key": action.key,
                    "title": action.title,
                    "answers": [answer for answer, _ in action.options],
                    "labels": [label for _, label in action.options],
                    "default": action.default,
                    "timeoutMs": int(action.timeout_s * 1000),
                }
            )
    return Answer(result or None, tuple(out), tuple(advice), static, retry)


def tool_result(actions: Sequence[Action]) -> dict[str, Any]:
    """The result of one of goalkeeper's own tools: the same text the MCP server gives, whether
    it is an error, and the reply's data as the result's ``details`` (kept in the session)."""
    from goalkeeper.hosts.mcp.server import to_tool_result

    text, is_error = to_tool_result(tuple(actions))
    details = next((a.data for a in actions if isinstance(a, Reply)), {})
    return {"text": text, "isError": is_error, "details": {} if is_error else details}


def _message(text: str, deliver_as: str) -> dict[str, Any]:
    return {"action": "message", "text": text, "deliverAs": deliver_as}
