"""What every host whose hooks speak Claude Code's shape shares: the payload in, the answer out.

Claude Code defined the shape; Codex CLI answers in it too, and Gemini CLI's payload carries
the same two required fields (``hook_event_name``, ``session_id``). So the parsing of a payload
(``decode_payload``, ``parse_input``), the answer for the merged actions (``to_answer``), the
hand-over of the session id to goalkeeper's own MCP tools (``pre_tool_use_plumbing``) and the
names those tools go by live here, not in one host's folder that the others would borrow from.
Translation only: no policy.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from msgspec import Struct

from goalkeeper.core.text.sanitize import scrub_json
from goalkeeper.core.values import (
    Action,
    Advise,
    Block,
    Close,
    Continue,
    Notify,
    Pause,
)
from goalkeeper.hosts.command_hooks.fail_open import HostInputError

MAX_INPUT_BYTES = 16 * 1024 * 1024
TODO_TOOL = "mcp__goalkeeper__todo"
"""goalkeeper's own todo tool as Claude Code names it (MCP server "goalkeeper", tool "todo")."""
OWN_TOOL_PREFIX = "mcp__goalkeeper__"
"""goalkeeper's MCP tools (todo, workflow, workflow_active, workflow_ask, goal_approval) as
Claude Code names them: the PreToolUse hook hands each the session id it belongs to."""
PLUGIN_NAME = "goalkeeper"
MCP_SERVER = "goalkeeper"
PLUGIN_TOOL_PREFIX = f"mcp__plugin_{PLUGIN_NAME}_{MCP_SERVER}__"
"""How Claude Code names the plugin's MCP tools: ``mcp__plugin_<plugin>_<server>__<tool>``."""
OWN_TOOL_PREFIXES = (OWN_TOOL_PREFIX, PLUGIN_TOOL_PREFIX)
"""The same tools served by the Claude Code plugin's MCP server (``hosts/claude/plugin.py``)."""
OWN_TOOLS = ("todo", "workflow", "workflow_active", "workflow_ask", "goal_approval")
TOOL_NAMES = {n: OWN_TOOL_PREFIX + n for n in OWN_TOOLS}
PLUGIN_TOOL_NAMES = {n: PLUGIN_TOOL_PREFIX + n for n in OWN_TOOLS}
"""The names the model sees when goalkeeper runs as the Claude Code plugin: its hooks run with
``CLAUDE_PLUGIN_ROOT`` set, and its MCP server's tools are ``mcp__plugin_<plugin>_<server>__…``."""


class HookInput(Struct, frozen=True):
    """The fields of a hook payload goalkeeper uses; unknown keys are ignored."""

    event: str
    session_id: str
    cwd: str | None = None
    transcript_path: str | None = None
    source: str | None = None
    prompt: str | None = None
    last_assistant_message: str | None = None
    error: str | None = None
    tool_name: str | None = None
    tool_input: dict[str, Any] | None = None
    turn_id: str | None = None
    """Codex's turn (its UserPromptSubmit names the turn the prompt starts)."""
    background: int = 0
    """Background work still running at a Stop (``background_tasks``): the agent is waiting
    for it, not settled."""
    agent_id: str | None = None
    """The subagent a tool event or a SubagentStop belongs to."""
    agent_type: str | None = None
    agent_transcript_path: str | None = None
    """A SubagentStop's own transcript (the subagent's run)."""
    stop_hook_active: bool = False


def parse_input(raw: bytes) -> HookInput:
    """The payload as a value, every lone surrogate and NUL in it replaced by U+FFFD; raises
    ``HostInputError`` saying what is wrong with it."""
    payload = decode_payload(raw)
    event, session_id = payload["hook_event_name"], payload["session_id"]
    return HookInput(
        event=event,
        session_id=session_id,
        cwd=_str(payload.get("cwd")),
        transcript_path=_str(payload.get("transcript_path")),
        source=_str(payload.get("source")),
        prompt=_str(payload.get("prompt")),
        last_assistant_message=_str(payload.get("last_assistant_message")),
        error=_str(payload.get("error")),
        tool_name=_str(payload.get("tool_name")),
        tool_input=payload.get("tool_input")
        if isinstance(payload.get("tool_input"), dict)
        else None,
        background=_running(payload.get("background_tasks")),
        turn_id=_str(payload.get("turn_id")),
        agent_id=_str(payload.get("agent_id")),
        agent_type=_str(payload.get("agent_type")),
        agent_transcript_path=_str(payload.get("agent_transcript_path")),
        stop_hook_active=payload.get("stop_hook_active") is True,
    )


def decode_payload(raw: bytes) -> dict[str, Any]:
    """A hook payload as a JSON object with a non-empty ``hook_event_name`` and
    ``session_id``, lone surrogates and NULs replaced by U+FFFD; raises ``HostInputError``
    saying what is wrong with it. Shared by every host whose hooks speak this shape (Claude
    Code, Gemini CLI)."""
    if len(raw) > MAX_INPUT_BYTES:
        raise HostInputError(f"hook input is larger than {MAX_INPUT_BYTES // 1024 // 1024} MB")
    if not raw.strip():
        raise HostInputError("hook input was empty (expected one JSON object on stdin)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HostInputError(f"hook input is not valid UTF-8 (byte {exc.start})") from None
    try:
        payload = json.loads(text)
    except RecursionError:
        raise HostInputError("hook input is nested too deeply") from None
    except ValueError as exc:
        raise HostInputError(f"hook input is not valid JSON ({exc})") from None
    # a lone surrogate or a NUL would fail the answer's encoding or a path: U+FFFD instead
    payload = scrub_json(payload, raw)
    if not isinstance(payload, dict):
        raise HostInputError("hook input is not a JSON object")
    event = payload.get("hook_event_name")
    if not isinstance(event, str) or not event:
        raise HostInputError("hook input has no 'hook_event_name'")
    session_id = payload.get("session_id")
    if not isinstance(session_id, str) or not session_id:
        raise HostInputError(f"{event} hook input has no 'session_id'")
    return payload


_IN_FLIGHT = frozenset({"running", "pending", "starting", "in_progress"})


def _running(tasks: object) -> int:
    """How many of the Stop's ``background_tasks`` are still in flight (bounded, never
    raises): a shell in the background, a subagent, a monitor."""
    if not isinstance(tasks, list):
        return 0
    return sum(
        1
        for task in tasks[:1000]
        if isinstance(task, dict) and str(task.get("status", "running")).lower() in _IN_FLIGHT
    )


def pre_tool_use_plumbing(hook: HookInput) -> dict[str, Any]:
    """goalkeeper's own todo tool runs in its MCP server, which cannot see the session id:
    hand it over in the call (``updatedInput``) and let the call through (the server applies
    every gate). Any other tool: no opinion."""
    if not (hook.tool_name or "").startswith(OWN_TOOL_PREFIXES):
        return {}
    updated = {**(hook.tool_input or {}), "session": hook.session_id}
    if hook.tool_name in (TOOL_NAMES["todo"], PLUGIN_TOOL_NAMES["todo"]):
        updated.pop("agent", None)  # the calling subagent is the host's to say, never the model's
        if hook.agent_id:
            updated["agent"] = hook.agent_id
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": updated,
        }
    }


def to_answer(event: str, actions: Sequence[Action]) -> dict[str, Any]:
    """Claude Code's hook output for the merged actions of one event."""
    answer: dict[str, Any] = {}
    user = [a.text for a in actions if isinstance(a, Notify)]
    user += [a.reason for a in actions if isinstance(a, Pause)]
    user += [a.summary for a in actions if isinstance(a, Close)]
    if event in ("SessionStart", "UserPromptSubmit"):
        context = "\n\n".join(a.text for a in actions if isinstance(a, Advise))
        if context:
            answer["hookSpecificOutput"] = {"hookEventName": event, "additionalContext": context}
    elif event in ("Stop", "SubagentStop"):
        reasons = [a.text for a in actions if isinstance(a, Continue)]
        if reasons:
            answer["decision"] = "block"
            answer["reason"] = "\n\n".join(reasons)
    elif event == "PreToolUse":
        denials = [a.reason for a in actions if isinstance(a, Block)]
        if denials:
            answer["hookSpecificOutput"] = {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "\n\n".join(denials),
            }
    if user and event != "StopFailure":
        answer["systemMessage"] = "\n".join(user)
    return answer


def transcript_mark(path: str | None) -> dict[str, Any]:
    """At session start, remember where the transcript ends: older activity is not this run's."""
    if not path:
        return {}
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0
    return {"transcript_path": path, "transcript_offset": size}


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None
