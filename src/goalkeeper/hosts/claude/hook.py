"""Claude Code host: hook JSON in, engine events through the Supervisor, hook JSON out.

Translation only (see ``../shared/reference/claude-code-hooks.md``): SessionStart and
UserPromptSubmit carry context (``additionalContext``), Stop carries the settle decision
(``decision: block`` continues the agent; otherwise it stops and the user reads
``systemMessage``), StopFailure records an error. Tool activity since the previous stop comes
from the transcript's new tail. ``answer_hook`` is the only place with a broad ``except``: any
failure answers ``{"systemMessage": …}`` and lets the agent stop (fail open).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from goalkeeper.config import Config
from goalkeeper.core.messages import render
from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.values import (
    Activity,
    BeforeAgentStart,
    Capability,
    Event,
    SessionStart,
    Settled,
    ToolCall,
    UserPrompt,
)
from goalkeeper.hosts.command_hooks.fail_open import (
    add_start_notices,
    answer_failing_open,
    stored_host_state,
    unused_event,
)
from goalkeeper.hosts.command_hooks.wire import (
    OWN_TOOL_PREFIXES,
    PLUGIN_NAME,
    PLUGIN_TOOL_NAMES,
    TOOL_NAMES,
    HookInput,
    parse_input,
    pre_tool_use_plumbing,
    to_answer,
    transcript_mark,
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


PLUGIN_COMMANDS = {"goal": "gk-goal", "mode": "gk-mode", "workflow": "workflow"}
"""The plugin's commands (``/goalkeeper:<key>``) and the command of a settings install each
one is (``COMMAND_FILES``): the namespace already says whose they are."""
_PLUGIN_COMMAND = lazy_re(
    rf"\A(\s*)/{PLUGIN_NAME}:({'|'.join(PLUGIN_COMMANDS)})(?=\s|\Z)", re.IGNORECASE
)


def plugin_prompt(prompt: str) -> str:
    """A prompt as goalkeeper's prompt hook reads it: a plugin command at its start
    (``/goalkeeper:goal …``, as Claude Code hands it over) becomes the command it stands for
    (``/gk-goal …``). Anything else is returned as it is."""
    return _PLUGIN_COMMAND.sub(lambda m: f"{m[1]}/{PLUGIN_COMMANDS[m[2].lower()]}", prompt, count=1)


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
    (``hosts.command_hooks.fail_open``).

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

        from goalkeeper.hosts.claude.transcript import user_prompt_shown

        raw = hook.prompt or ""
        records = os.environ if env is None else env
        shown = user_prompt_shown(hook.transcript_path, sid, raw, records)
        return (UserPrompt(sid, plugin_prompt(raw), shown), BeforeAgentStart(sid)), {}
    if hook.event == "PreToolUse":
        call = ToolCall(sid, hook.tool_name or "", dict(hook.tool_input or {}), hook.agent_id or "")
        return (call,), {}
    if hook.event == "SubagentStop":
        from goalkeeper.hosts.claude.transcript import read_tail
        from goalkeeper.hosts.command_hooks.subagents import subagent_settled

        return (subagent_settled(hook, config, read_tail),), {}
    if hook.event == "StopFailure":
        return (
            Settled(sid, hook.last_assistant_message or "", error=hook.error or "api error"),
        ), {}
    activity, host_state, final = _activity(hook, stored, config)
    last = hook.last_assistant_message or ""
    text = final if final and final.endswith(last.strip()) else last  # the whole final message
    return (Settled(sid, text, activity=activity),), host_state


def _activity(
    hook: HookInput, stored: Mapping[str, Any], config: Config
) -> tuple[Activity, dict[str, Any], str]:
    """What ran since the last stop, the transcript bookkeeping, and the final message's text
    as the transcript has it (all its text blocks; "" when unknown)."""
    if not hook.transcript_path:
        return Activity(), {}, ""
    from goalkeeper.hosts.claude.transcript import read_tail

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
