"""Claude Code host: hook JSON in, engine events through the Supervisor, hook JSON out.

Translation only (see ``../shared/reference/claude-code-hooks.md``): SessionStart and
UserPromptSubmit carry context (``additionalContext``), Stop carries the settle decision
(``decision: block`` continues the agent; otherwise it stops and the user reads
``systemMessage``), StopFailure records an error. Tool activity since the previous stop comes
from the transcript's new tail. ``answer_hook`` is the only place with a broad ``except``: any
failure answers ``{"systemMessage": …}`` and lets the agent stop (fail open).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct

from goalkeeper.config import Config
from goalkeeper.core.messages import render
from goalkeeper.core.text.sanitize import scrub_json
from goalkeeper.core.values import (
    Action,
    Activity,
    Advise,
    BeforeAgentStart,
    Block,
    Capability,
    Close,
    Continue,
    Event,
    Notify,
    Pause,
    SessionStart,
    Settled,
    ToolCall,
    UserPrompt,
)
from goalkeeper.hosts.claude_plugin import PLUGIN_TOOL_PREFIX, plugin_prompt
from goalkeeper.hosts.fail_open import (
    HostInputError,
    add_start_notices,
    answer_failing_open,
    stored_host_state,
    unused_event,
)

HOST = "claude"
CAPABILITIES: frozenset[Capability] = frozenset(
    {"continue", "advise", "block", "notify", "subagents", "subagent_stop"}
)
MAX_HOOK_TEXT = 10_000
"""Claude Code caps a hook's output strings (``additionalContext``, ``reason``,
``systemMessage``) at 10,000 characters and gives the model a ~2 KB preview and a file path
instead (reference: claude-code-hooks.md §4.2; tests/e2e/test_claude_workflow.py saw the
user's request lost that way). Counted in UTF-8 bytes, never fewer than the characters."""
MAX_TOOL_TEXT = 25_000
"""An MCP tool result: Claude Code 2.1.332 keeps up to ``MAX_MCP_OUTPUT_TOKENS`` (default
25,000 tokens); a token covers at least one byte, so 25,000 bytes always fit."""
MUTE: frozenset[Capability] = frozenset()
"""At StopFailure: Claude Code ignores the hook's output, so nothing said there reaches the
user or the model. Declared as no capability, notices wait for the next answer that can show
them (SessionStart, UserPromptSubmit), instead of being lost."""
MAX_INPUT_BYTES = 16 * 1024 * 1024
DEFAULT_BLOCK_CAP = 8  # Claude Code ends a turn after this many Stop blocks in a row
HOOK_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "Stop",
    "StopFailure",
    "SubagentStop",
)
"""The events ``goalkeeper install claude`` registers."""
TODO_TOOL = "mcp__goalkeeper__todo"
"""goalkeeper's own todo tool as Claude Code names it (MCP server "goalkeeper", tool "todo")."""
OWN_TOOL_PREFIX = "mcp__goalkeeper__"
"""goalkeeper's MCP tools (todo, workflow, workflow_active, workflow_ask, goal_approval) as
Claude Code names them: the PreToolUse hook hands each the session id it belongs to."""
OWN_TOOL_PREFIXES = (OWN_TOOL_PREFIX, PLUGIN_TOOL_PREFIX)
"""The same tools served by the Claude Code plugin's MCP server (``claude_plugin``)."""
OWN_TOOLS = ("todo", "workflow", "workflow_active", "workflow_ask", "goal_approval")
TOOL_NAMES = {n: OWN_TOOL_PREFIX + n for n in OWN_TOOLS}
PLUGIN_TOOL_NAMES = {n: PLUGIN_TOOL_PREFIX + n for n in OWN_TOOLS}
"""The names the model sees when goalkeeper runs as the Claude Code plugin: its hooks run with
``CLAUDE_PLUGIN_ROOT`` set, and its MCP server's tools are ``mcp__plugin_<plugin>_<server>__…``."""


PROJECT_CONFIG = (".claude/settings.json", ".claude/settings.local.json", ".mcp.json")
USER_CONFIG = (".claude/settings.json", ".claude.json")
"""Where Claude Code reads the hooks, their environment and the MCP servers: in the project
and in the user's home folder."""


def host_files(project: Path | str, env: Mapping[str, str]) -> tuple[str, ...]:
    """Claude Code's configuration that runs goalkeeper, as absolute paths, and the user's as
    a shell line names them (``~/…``): the trust guard refuses the agent's writes to them."""
    home = env.get("HOME") or os.path.expanduser("~")
    root = os.path.abspath(project)
    return (
        *(os.path.join(root, f) for f in PROJECT_CONFIG),
        *(os.path.join(home, f) for f in USER_CONFIG),
        *(f"~/{f}" for f in USER_CONFIG),
    )


def tool_names(env: Mapping[str, str]) -> dict[str, str]:
    """goalkeeper's tools as this Claude Code session names them (plugin or settings install)."""
    return PLUGIN_TOOL_NAMES if env.get("CLAUDE_PLUGIN_ROOT") else TOOL_NAMES


NATIVE_TODO_TOOLS = ("TodoWrite", "TaskUpdate")
PRE_TOOL_MATCHER = (
    "^(mcp__goalkeeper__.*|TodoWrite|TaskUpdate|Write|Edit|MultiEdit|NotebookEdit|Bash)$"
)
"""The tools goalkeeper's PreToolUse hook is registered for (an anchored regular expression):
its own (the session hand-over), the native todo tools (completions refused), and the tools
that write files, which normal mode's question gate judges (Bash by its command line)."""
DOCUMENTED_EVENTS = frozenset(
    (
        "SessionStart",
        "Setup",
        "InstructionsLoaded",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "MessageDisplay",
        "PreToolUse",
        "PermissionRequest",
        "PermissionDenied",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "Notification",
        "SubagentStart",
        "SubagentStop",
        "TaskCreated",
        "TaskCompleted",
        "Stop",
        "StopFailure",
        "TeammateIdle",
        "ConfigChange",
        "CwdChanged",
        "DirectoryAdded",
        "FileChanged",
        "WorktreeCreate",
        "WorktreeRemove",
        "PreCompact",
        "PostCompact",
        "Elicitation",
        "ElicitationResult",
        "SessionEnd",
    )
)
_SOURCES = ("startup", "resume", "compact", "clear", "fork")


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


def project_dir(hook: HookInput | None, env: Mapping[str, str], cwd: str) -> Path:
    """Claude Code names the project in ``CLAUDE_PROJECT_DIR``; else the hook's cwd."""
    return Path(env.get("CLAUDE_PROJECT_DIR") or (hook.cwd if hook else None) or cwd)


def answer_hook(
    raw: bytes,
    env: Mapping[str, str],
    cwd: str,
    *,
    clock: Any = None,
    notes: Sequence[tuple[str, Mapping[str, object]]] = (),
) -> tuple[dict[str, Any], Config | None]:
    """One hook event in, one JSON answer out. Never raises; always lets the agent go on failure
    (``hosts.fail_open``).

    ``notes``: catalog messages (key, fields) for the user at SessionStart, such as why the hook
    transport answered in-process. Returns the answer and the config used (None when the input
    was unusable).
    """
    return answer_failing_open(
        raw,
        env,
        cwd,
        parse=parse_input,
        project_of=lambda hook: project_dir(hook, env, cwd),
        answer=lambda hook, project, config, env: _answer(hook, project, config, env, clock, notes),
    )


def _answer(
    hook: HookInput,
    project: Path,
    config: Config,
    env: Mapping[str, str],
    clock: Any,
    notes: Sequence[tuple[str, Mapping[str, object]]] = (),
) -> dict[str, Any]:
    unused = unused_event(hook.event, HOOK_EVENTS, DOCUMENTED_EVENTS)
    if unused is not None:
        return unused

    if hook.event == "PreToolUse" and (hook.tool_name or "").startswith(OWN_TOOL_PREFIXES):
        return pre_tool_use_plumbing(hook)
    if hook.event == "Stop" and hook.background:  # waiting for background work, not settled
        lang = config.lang if config.lang != "auto" else "en"
        return {"systemMessage": render(lang, "hook.background_wait", n=hook.background)}

    from goalkeeper.engine.supervisor import Supervisor

    caps = MUTE if hook.event == "StopFailure" else CAPABILITIES
    supervisor = Supervisor(
        project,
        config,
        host=HOST,
        capabilities=caps,
        clock=clock,
        tool_names=tool_names(env),
        host_files=host_files(project, env),
        max_text=MAX_HOOK_TEXT,
    )
    try:
        stored = stored_host_state(supervisor.store, hook.session_id)
        events, host_state = to_events(hook, stored, config, env)
        outcome = supervisor.handle(events, host_state=host_state)
    finally:
        supervisor.store.close()
    answer = to_answer(hook.event, outcome.actions)
    if hook.event == "SessionStart":  # things the user should know once per session
        return add_start_notices(
            answer,
            config,
            notes,
            _block_cap_warning(env, config),
            state_dir=supervisor.store.path.parent,
        )
    return answer


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


def to_events(
    hook: HookInput,
    stored: Mapping[str, Any],
    config: Config,
    env: Mapping[str, str] | None = None,
) -> tuple[tuple[Event, ...], dict[str, Any]]:
    """The engine events for a hook, and the host bookkeeping to store with them. ``env`` is
    the hook's environment (where the host keeps its records); this process's by default."""
    sid = hook.session_id
    if hook.event == "SessionStart":
        source = hook.source if hook.source in _SOURCES else "other"
        return (SessionStart(sid, source),), transcript_mark(hook.transcript_path)  # type: ignore[arg-type]
    if hook.event == "UserPromptSubmit":
        import os

        from goalkeeper.hosts.claude_transcript import user_prompt_shown

        raw = hook.prompt or ""
        records = os.environ if env is None else env
        shown = user_prompt_shown(hook.transcript_path, sid, raw, records)
        return (UserPrompt(sid, plugin_prompt(raw), shown), BeforeAgentStart(sid)), {}
    if hook.event == "PreToolUse":
        call = ToolCall(sid, hook.tool_name or "", dict(hook.tool_input or {}), hook.agent_id or "")
        return (call,), {}
    if hook.event == "SubagentStop":
        from goalkeeper.hosts.subagents import subagent_settled

        return (subagent_settled(hook, config),), {}
    if hook.event == "StopFailure":
        return (
            Settled(sid, hook.last_assistant_message or "", error=hook.error or "api error"),
        ), {}
    activity, host_state, final = _activity(hook, stored, config)
    last = hook.last_assistant_message or ""
    text = final if final and final.endswith(last.strip()) else last  # the whole final message
    return (Settled(sid, text, activity=activity),), host_state


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


def _activity(
    hook: HookInput, stored: Mapping[str, Any], config: Config
) -> tuple[Activity, dict[str, Any], str]:
    """What ran since the last stop, the transcript bookkeeping, and the final message's text
    as the transcript has it (all its text blocks; "" when unknown)."""
    if not hook.transcript_path:
        return Activity(), {}, ""
    from goalkeeper.hosts.claude_transcript import read_tail

    same_file = stored.get("transcript_path") == hook.transcript_path
    offset = stored.get("transcript_offset") if same_file else None
    tail = read_tail(
        hook.transcript_path,
        offset if isinstance(offset, int) else None,
        config.transcript_tail_kb * 1024,
    )
    if tail is None:  # named but missing, or not a regular file: what ran cannot be told
        return Activity(unreadable=True), {}, ""
    activity = Activity(
        tail.tool_calls, tail.context_tokens, tail.size, tail.long_wait, runs=tail.runs
    )
    state = {"transcript_path": hook.transcript_path, "transcript_offset": tail.offset}
    return activity, state, tail.final_text


def transcript_mark(path: str | None) -> dict[str, Any]:
    """At session start, remember where the transcript ends: older activity is not this run's."""
    if not path:
        return {}
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0
    return {"transcript_path": path, "transcript_offset": size}


def _block_cap_warning(env: Mapping[str, str], config: Config) -> str | None:
    """Claude Code ends a turn after ``CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`` Stop blocks in a row
    with no tool call in between (8 by default; 0 disables it; a tool call restarts the count,
    seen on 2.1.332). A working PDCA loop calls tools, so only goalkeeper's tool-less streak can
    meet the cap: say so when the cap in force is below it (not with the defaults, where the
    stuck rule pauses at exactly the 9th stop)."""
    raw = env.get("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "")
    try:
        cap = int(raw) if raw.strip() else DEFAULT_BLOCK_CAP
    except ValueError:
        cap = DEFAULT_BLOCK_CAP
    if cap == 0 or cap >= config.idle_streak:
        return None
    return render("en", "hook.block_cap_low", cap=cap, n=config.idle_streak)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None
