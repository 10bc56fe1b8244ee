"""Codex CLI host: hook JSON in, engine events through the Supervisor, hook JSON out.

Translation only (Codex CLI 0.171.0, see ``../shared/reference/codex-offline-e2e.md``). Codex's
hook answers have Claude Code's shape, so ``claude_code.to_answer`` writes them: SessionStart
and UserPromptSubmit carry context (``additionalContext``, a developer message), PreToolUse
denies (``permissionDecision: deny``: the model gets the reason as the tool's output), Stop
continues the agent with ``decision: block`` (the reason comes back as a user message in the
same turn). What differs:

* Tool names: the shell is ``Bash`` with ``tool_input.command``; ``apply_patch`` carries the
  patch text in ``tool_input.command``. A patch becomes one ``ToolCall`` per file it touches
  (``apply_patch`` is a write tool in ``core/tools``), so the question gate and the trust guard
  judge every target; a patch naming no file is judged as a write to an unknown file.
* Tool activity comes from the rollout file's new tail (``codex_transcript``).
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
from goalkeeper.hosts.claude_code import (
    OWN_TOOL_PREFIX,
    TOOL_NAMES,
    HookInput,
    parse_input,
    pre_tool_use_plumbing,
    to_answer,
    transcript_mark,
)
from goalkeeper.hosts.fail_open import (
    add_start_notices,
    answer_failing_open,
    stored_host_state,
    unused_event,
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
PATCH_TOOL = "apply_patch"
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
    (``hosts.fail_open``, as for Claude Code)."""
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
        from goalkeeper.hosts.codex_transcript import turn_just_started

        home = codex_home(os.environ if env is None else env)
        shown = turn_just_started(hook.transcript_path, sid, hook.turn_id or "", home)
        return (UserPrompt(sid, own_prompt(hook.prompt or ""), shown), BeforeAgentStart(sid)), {}
    if hook.event == "PreToolUse":
        return tool_calls(sid, hook.tool_name or "", hook.tool_input or {}), {}
    if hook.event == "SubagentStop":
        from goalkeeper.hosts.codex_transcript import read_tail
        from goalkeeper.hosts.subagents import subagent_settled

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


def tool_calls(sid: str, name: str, tool_input: Mapping[str, Any]) -> tuple[ToolCall, ...]:
    """A Codex tool call as goalkeeper's guards read it: a patch is one write per file. Codex
    also applies a patch the shell tool names (``apply_patch <<'EOF' …``: its hook sees
    ``Bash``, the file is written; seen on 0.171.0), so such a command is judged as the shell
    command *and* as the patch's writes."""
    command = tool_input.get("command")
    command = command if isinstance(command, str) else ""
    if name == PATCH_TOOL:
        targets = patch_targets(command) or ("",)
    elif name == "Bash" and _SHELL_PATCH.search(command):
        found = patch_targets(command) or ("",)
        joined = (_joined(folder, t) for folder in cd_folders(command) for t in found if t)
        targets = tuple(dict.fromkeys((*found, *joined)))
    else:
        return (ToolCall(sid, name, dict(tool_input)),)
    writes = tuple(ToolCall(sid, PATCH_TOOL, {"file_path": t, "command": command}) for t in targets)
    return writes if name == PATCH_TOOL else (ToolCall(sid, name, dict(tool_input)), *writes)


_SHELL_PATCH = lazy_re(r"(?:^|[\s;&|(`'\"])(?:apply_patch|applypatch)\b")
_CD = lazy_re(r"(?:^|[\s;&|(`])(?:cd|pushd)\s+(['\"]?)([^\s'\";&|()`]+)\1")


def cd_folders(command: str) -> tuple[str, ...]:
    """Every folder a patch after the ``cd`` commands of ``command`` may run in, from the session's
    folder: each ``cd`` alone and each chain of them in order (``cd a && cd b`` gives ``a``,
    ``a/b`` and ``b``). A patch's path is judged from each (and as it is): judging one more
    path than it writes refuses nothing honest, while one ``cd`` too few let ``cd a && cd b
    && apply_patch`` write ``../../.codex/hooks.json`` unjudged. A folder only known when the
    command runs (``cd "$(mktemp -d)"``) is beyond what a reading of the text can place."""
    folders: dict[str, None] = {}
    chain = ""
    for match in _CD.finditer(command):
        folder = match.group(2)
        chain = folder if folder.startswith(("/", "~")) or not chain else _joined(chain, folder)
        folders.setdefault(folder, None)
        folders.setdefault(chain, None)
    return tuple(folders)


def _joined(folder: str, path: str) -> str:
    """``path`` as a patch run after ``cd folder`` names it, from the session's folder."""
    return path if path.startswith("/") else f"{folder.rstrip('/')}/{path}"


_FILE_LINES = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")


def patch_targets(patch: str) -> tuple[str, ...]:
    """Every file an ``apply_patch`` text adds, changes, deletes or moves to, in order, once."""
    found: dict[str, None] = {}
    for line in patch.splitlines():
        for head in _FILE_LINES:
            if line.startswith(head):
                path = line[len(head) :].strip()
                if path:
                    found.setdefault(path, None)
    return tuple(found)


def _activity(
    hook: HookInput, stored: Mapping[str, Any], config: Config
) -> tuple[Activity, dict[str, Any], str]:
    if not hook.transcript_path:
        return Activity(), {}, ""
    from goalkeeper.hosts.codex_transcript import read_tail

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
