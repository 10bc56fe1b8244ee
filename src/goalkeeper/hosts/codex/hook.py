"""Codex CLI host: hook JSON in, engine events through the Supervisor, hook JSON out.

Translation only (Codex CLI 0.171.0, see ``../shared/reference/codex-offline-e2e.md``). Codex's
hook answers have Claude Code's shape, so ``command_hooks.wire.to_answer`` writes them: SessionStart
and UserPromptSubmit carry context (``additionalContext``, a developer message), PreToolUse
denies (``permissionDecision: deny``: the model gets the reason as the tool's output), Stop
continues the agent with ``decision: block`` (the reason comes back as a user message in the
same turn). What differs:

* Tool names: the shell is ``Bash`` with ``tool_input.command``; ``apply_patch`` carries the
  patch text in ``tool_input.command``. A patch becomes one ``ToolCall`` per file it touches
  (``apply_patch`` is a write tool in ``core/tools``; see ``patch.py``), so the question gate
  and the trust guard judge every target; a patch naming no file is judged as a write to an
  unknown file.
* Tool activity comes from the rollout file's new tail (``transcript.py``).
* **No loop limit on Stop blocks** in Codex: goalkeeper's own caps (the stuck rule's
  ``idle_streak``, the plan's budgets) are what end a blocked streak.
* Codex runs matching hooks **concurrently** (parallel tool calls): each event is one
  Supervisor transaction (``BEGIN IMMEDIATE``), so no update is lost.
* Codex's own ``/goal`` (its create_goal/update_goal tools) is left to Codex: only
  ``/gk-goal`` is goalkeeper's goal command here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from goalkeeper.config import Config
from goalkeeper.core.values import (
    Activity,
    BeforeAgentStart,
    Capability,
    Event,
    SessionStart,
    Settled,
    UserPrompt,
)
from goalkeeper.hosts.codex.patch import tool_calls
from goalkeeper.hosts.command_hooks.fail_open import (
    add_start_notices,
    answer_failing_open,
    stored_host_state,
    unused_event,
)
from goalkeeper.hosts.command_hooks.wire import (
    OWN_TOOL_PREFIX,
    TOOL_NAMES,
    HookInput,
    parse_input,
    pre_tool_use_plumbing,
    to_answer,
    transcript_mark,
)

HOST = "codex"
MAX_TOOL_TEXT = 10_000
"""Codex keeps the head and tail of a tool result over 10,000 bytes (the default model
family's ``TruncationPolicy::Bytes(10_000)``; ``tool_output_token_limit`` overrides it), MCP
results included. No cap on a hook's ``additionalContext`` was found (it becomes a developer
message), so the hooks declare none."""
CAPABILITIES: frozenset[Capability] = frozenset(
    {"continue", "advise", "block", "notify", "subagents", "subagent_stop"}
)
"""Stop ``decision: block`` continues (SubagentStop's keeps the subagent working);
``additionalContext`` advises; PreToolUse denies; ``systemMessage`` is for the user (Codex
parses it; ``codex exec`` 0.171.0 does not print it, the interactive terminal was not
checked). Codex has no compaction request and no question to the user from a hook."""
HOOK_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "SubagentStop")
"""The events ``goalkeeper install codex`` registers."""
PRE_TOOL_MATCHER = "^(Bash|apply_patch|mcp__goalkeeper__.*)$"
"""The tools goalkeeper's PreToolUse hook is registered for (a regular expression, as Codex
reads any matcher with characters other than ``[A-Za-z0-9_|]``): the shell and patches, which
the question gate and the trust guard judge, and goalkeeper's own MCP tools, which Codex's
hooks name as Claude Code does (``mcp__goalkeeper__todo``; seen on 0.171.0)."""
DOCUMENTED_EVENTS = frozenset(
    (
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "PreCompact",
        "PostCompact",
        "SessionStart",
        "UserPromptSubmit",
        "SubagentStart",
        "SubagentStop",
        "Stop",
    )
)
_SOURCES = ("startup", "resume", "compact", "clear")

PROJECT_CONFIG = (".codex/hooks.json", ".codex/config.toml")
USER_CONFIG = ("hooks.json", "config.toml")
"""Where Codex reads hooks, their trust and the MCP servers: ``<repo>/.codex/`` and
``$CODEX_HOME`` (``~/.codex`` by default)."""


def tool_names(env: Mapping[str, str]) -> dict[str, str]:
    """goalkeeper's tools as Codex names them: ``mcp__goalkeeper__todo``, as Claude Code's
    settings install does. Its hooks see that name, and Codex's own model texts name MCP tools
    so (``mcp__codex_apps__…``); the model calls it as ``todo`` in the ``mcp__goalkeeper``
    namespace that ``tool_search`` returns (seen on 0.171.0)."""
    return TOOL_NAMES


def codex_home(env: Mapping[str, str]) -> str:
    """``$CODEX_HOME``, else ``~/.codex``."""
    home = env.get("HOME") or os.path.expanduser("~")
    return env.get("CODEX_HOME") or os.path.join(home, ".codex")


def host_files(project: Path | str, env: Mapping[str, str]) -> tuple[str, ...]:
    """Codex's configuration that runs and trusts goalkeeper's hooks, as absolute paths and
    as a shell line names them (``~/.codex/…``): the trust guard refuses the agent's writes."""
    root = os.path.abspath(project)
    home = codex_home(env)
    return (
        *(os.path.join(root, f) for f in PROJECT_CONFIG),
        *(os.path.join(home, f) for f in USER_CONFIG),
        *(f"~/.codex/{f}" for f in USER_CONFIG),
    )


def project_dir(hook: HookInput | None, cwd: str) -> Path:
    """Codex names no project variable: the session's cwd is the project."""
    return Path((hook.cwd if hook else None) or cwd)


def answer_hook(
    raw: bytes,
    env: Mapping[str, str],
    cwd: str,
    *,
    clock: Any = None,
    notes: Sequence[tuple[str, Mapping[str, object]]] = (),
) -> tuple[dict[str, Any], Config | None]:
    """One hook event in, one JSON answer out. Never raises; always lets the agent go on failure
    (``hosts.command_hooks.fail_open``, as for Claude Code)."""
    return answer_failing_open(
        raw,
        env,
        cwd,
        parse=parse_input,
        project_of=lambda hook: project_dir(hook, cwd),
        answer=lambda hook, project, config, env: _answer(hook, project, config, env, clock, notes),
    )


def _answer(
    hook: HookInput,
    project: Path,
    config: Config,
    env: Mapping[str, str],
    clock: Any,
    notes: Sequence[tuple[str, Mapping[str, object]]],
) -> dict[str, Any]:
    unused = unused_event(hook.event, HOOK_EVENTS, DOCUMENTED_EVENTS)
    if unused is not None:
        return unused

    if hook.event == "PreToolUse" and (hook.tool_name or "").startswith(OWN_TOOL_PREFIX):
        # goalkeeper's MCP server cannot see the session: the call carries it (updatedInput,
        # which Codex 0.171.0's PreToolUse output takes, as Claude Code's does)
        return pre_tool_use_plumbing(hook)

    from goalkeeper.engine.supervisor import Supervisor

    supervisor = Supervisor(
        project,
        config,
        host=HOST,
        capabilities=CAPABILITIES,
        clock=clock,
        tool_names=tool_names(env),
        host_files=host_files(project, env),
    )
    try:
        stored = stored_host_state(supervisor.store, hook.session_id)
        events, host_state = to_events(hook, stored, config, env)
        outcome = supervisor.handle(events, host_state=host_state)
    finally:
        supervisor.store.close()
    answer = to_answer(hook.event, outcome.actions)
    if hook.event == "SessionStart":
        return add_start_notices(answer, config, notes, state_dir=supervisor.store.path.parent)
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
        from goalkeeper.hosts.codex.transcript import turn_just_started

        home = codex_home(os.environ if env is None else env)
        shown = turn_just_started(hook.transcript_path, sid, hook.turn_id or "", home)
        return (UserPrompt(sid, own_prompt(hook.prompt or ""), shown), BeforeAgentStart(sid)), {}
    if hook.event == "PreToolUse":
        return tool_calls(sid, hook.tool_name or "", hook.tool_input or {}), {}
    if hook.event == "SubagentStop":
        from goalkeeper.hosts.codex.transcript import read_tail
        from goalkeeper.hosts.command_hooks.subagents import subagent_settled

        return (subagent_settled(hook, config, read_tail),), {}
    activity, host_state, final = _activity(hook, stored, config)
    last = hook.last_assistant_message or ""
    text = final if final and final.endswith(last.strip()) else last
    return (Settled(sid, text, activity=activity),), host_state


def own_prompt(prompt: str) -> str:
    """The prompt as goalkeeper's command detection reads it. Codex's own ``/goal`` is Codex's
    (its goal tools); goalkeeper answers ``/gk-goal`` only. A word joiner before the slash
    keeps ``/goal …`` from reading as goalkeeper's command, and changes nothing else."""
    stripped = prompt.lstrip()
    head = stripped[:6].lower()
    if head.startswith("/goal") and (len(head) == 5 or head[5].isspace()):
        return "\u2060" + stripped
    return prompt


def _activity(
    hook: HookInput, stored: Mapping[str, Any], config: Config
) -> tuple[Activity, dict[str, Any], str]:
    if not hook.transcript_path:
        return Activity(), {}, ""
    from goalkeeper.hosts.codex.transcript import read_tail

    same_file = stored.get("transcript_path") == hook.transcript_path
    offset = stored.get("transcript_offset") if same_file else None
    tail = read_tail(
        hook.transcript_path,
        offset if isinstance(offset, int) else None,
        config.transcript_tail_kb * 1024,
    )
    if tail is None:
        return Activity(unreadable=True), {}, ""
    activity = Activity(
        tail.tool_calls,
        tail.context_tokens,
        tail.size,
        tail.long_wait,
        context_window=tail.context_window,
        runs=tail.runs,
    )
    state = {"transcript_path": hook.transcript_path, "transcript_offset": tail.offset}
    return activity, state, tail.final_text
