"""Gemini CLI host: hook JSON in, engine events through the Supervisor, hook JSON out.

Translation only (see ``../shared/reference/gemini-offline-e2e.md``; Gemini CLI 0.61.0):

- ``SessionStart`` and ``BeforeAgent`` carry context (``hookSpecificOutput.additionalContext``).
- ``BeforeAgent`` is the user's prompt, but it also fires for goalkeeper's own continuation,
  with ``prompt`` = the deny reason goalkeeper gave. That is not a user message: it must not
  reset the run's counts. goalkeeper remembers the continuation it sent (``host_state``) and
  the next ``BeforeAgent`` carrying exactly that text is recognised as it and passed over.
- ``BeforeTool`` may be refused (``decision: deny``, the reason goes to the model); for
  goalkeeper's own MCP tools it hands over the session id (``hookSpecificOutput.tool_input``
  merges into the call's arguments).
- ``AfterTool`` records how each call ended, for the settle's ``Activity``.
- ``AfterAgent`` is the settle: ``decision: deny`` forces a retry turn whose prompt is the
  reason. ``prompt_response`` holds the text of every model call for the prompt, so the part
  already settled is cut off (``host_state``) and the settle sees only the new text.
  With ``hookSpecificOutput.clearContext`` (``ClearContext``: the stuck rule's re-plan) Gemini
  starts a new chat (``resetChat``: system prompt and environment only; the screen keeps the
  turns) and sends the reason into it: the reason carries the goal's and the plan's anchors.
  That reason's ``BeforeAgent`` is then a ``SessionStart("clear")``: what the session's start
  said (the guidance, the todo rule, the workflow routes and procedure) was in the chat cleared.
- ``PreCompress`` fires before every model call, compressed or not (0.61.0): nothing to say.

A ``BeforeAgent`` prompt is taken as the user's unverified (issue 21): 0.61.0 fires the hook
before it writes the prompt to its own record (``transcript_path``, the chat file), so a
``BeforeAgent`` the agent pipes into ``goalkeeper hook gemini`` cannot be told from the user's.
The order and the source lines: ``tests/e2e/test_gemini_prompt_record.py``.

``answer_hook`` is the only broad ``except``: any failure answers ``{"systemMessage": …}`` and
lets the agent stop (fail open). stdout carries only the JSON answer.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct

from goalkeeper.config import Config
from goalkeeper.core.values import (
    Action,
    Activity,
    Advise,
    BeforeAgentStart,
    Block,
    Capability,
    ClearContext,
    Close,
    Continue,
    Event,
    Notify,
    Pause,
    SessionStart,
    Settled,
    ToolCall,
    ToolResult,
    ToolRun,
    UserPrompt,
)
from goalkeeper.hosts.command_hooks.fail_open import (
    add_start_notices,
    answer_failing_open,
    stored_host_state,
    unused_event,
)
from goalkeeper.hosts.command_hooks.wire import decode_payload
from goalkeeper.hosts.gemini.runs import dump_run, load_run, tool_run
from goalkeeper.store.safe_read import file_size

HOST = "gemini"
MAX_TOOL_TEXT = 40_000
"""Gemini CLI 0.61.0 truncates a tool result over ``truncateToolOutputThreshold`` (default
40,000 characters). A hook's ``additionalContext`` has no cap there (it is only escaped), so
the hooks declare none."""
CAPABILITIES: frozenset[Capability] = frozenset(
    {"continue", "advise", "block", "notify", "clear_context"}
)
"""``clear_context``: ``AfterAgent``'s ``clearContext`` with the continuation. No ``compact`` (no
hook asks Gemini to compress) and no ``follow_up``/``ask``."""
HOOK_EVENTS = ("SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent")
"""The events ``goalkeeper install gemini`` registers."""
DOCUMENTED_EVENTS = frozenset(
    (
        *HOOK_EVENTS,
        "SessionEnd",
        "PreCompress",
        "Notification",
        "BeforeModel",
        "AfterModel",
        "BeforeToolSelection",
    )
)
OWN_TOOL_PREFIX = "mcp_goalkeeper_"
"""goalkeeper's MCP tools as Gemini names them (``mcp_<server>_<tool>``, server "goalkeeper")."""
OWN_TOOLS = ("todo", "workflow", "workflow_active", "workflow_ask", "goal_approval")
TOOL_NAMES = {n: OWN_TOOL_PREFIX + n for n in OWN_TOOLS}
PROJECT_CONFIG = (".gemini/settings.json", ".gemini/.env")
USER_CONFIG = (
    ".gemini/settings.json",
    ".gemini/trusted_hooks.json",
    ".gemini/trustedFolders.json",
    ".gemini/.env",
    ".env",
)
"""Where Gemini CLI reads the hooks, the MCP servers and the environment it hands the hooks
(``hosts.gemini.env``), and records which hooks and folders the user trusts: the agent must not
write them."""
MAX_RUNS = 200
"""Tool calls kept per settle in the session's bookkeeping (the count goes on past it)."""

# host_state keys (the session's host bookkeeping)
RUNS, CALLS, SENT, SEEN = "gemini_runs", "gemini_calls", "gemini_continuation", "gemini_seen"
CLEARED = "gemini_cleared"  # the continuation sent cleared the chat


def host_files(project: Path | str, env: Mapping[str, str]) -> tuple[str, ...]:
    """Gemini CLI's configuration that runs goalkeeper, as absolute paths, and the user's as a
    shell line names them (``~/…``): the trust guard refuses the agent's writes to them."""
    home = env.get("GEMINI_CLI_HOME") or env.get("HOME") or os.path.expanduser("~")
    root = os.path.abspath(project)
    return (
        *(os.path.join(root, f) for f in PROJECT_CONFIG),
        *(os.path.join(home, f) for f in USER_CONFIG),
        *(f"~/{f}" for f in USER_CONFIG),
    )


class HookInput(Struct, frozen=True):
    """The fields of a Gemini hook payload goalkeeper uses; unknown keys are ignored."""

    event: str
    session_id: str
    cwd: str | None = None
    transcript_path: str | None = None
    source: str | None = None
    prompt: str | None = None
    prompt_response: str | None = None
    tool_name: str | None = None
    tool_input: dict[str, Any] | None = None
    tool_response: dict[str, Any] | None = None


def parse_input(raw: bytes) -> HookInput:
    """The payload as a value; raises ``HostInputError`` saying what is wrong with it."""
    payload = decode_payload(raw)

    def obj(key: str) -> dict[str, Any] | None:
        value = payload.get(key)
        return value if isinstance(value, dict) else None

    return HookInput(
        event=payload["hook_event_name"],
        session_id=payload["session_id"],
        cwd=_str(payload.get("cwd")),
        transcript_path=_str(payload.get("transcript_path")),
        source=_str(payload.get("source")),
        prompt=_str(payload.get("prompt")),
        prompt_response=_str(payload.get("prompt_response")),
        tool_name=_str(payload.get("tool_name")),
        tool_input=obj("tool_input"),
        tool_response=obj("tool_response"),
    )


def project_dir(hook: HookInput | None, env: Mapping[str, str], cwd: str) -> Path:
    """Gemini names the project in ``GEMINI_PROJECT_DIR`` (the hook's cwd); else the cwd."""
    return Path(env.get("GEMINI_PROJECT_DIR") or (hook.cwd if hook else None) or cwd)


def tool_names(env: Mapping[str, str]) -> dict[str, str]:
    """goalkeeper's tools as Gemini names them."""
    return TOOL_NAMES


def answer_hook(
    raw: bytes,
    env: Mapping[str, str],
    cwd: str,
    *,
    clock: Any = None,
    notes: Sequence[tuple[str, Mapping[str, object]]] = (),
) -> tuple[dict[str, Any], Config | None]:
    """One hook event in, one JSON answer out. Never raises; always lets the agent go on failure
    (``hosts.command_hooks.fail_open``, as for Claude Code). goalkeeper's settings are read
    without what the project's ``.env`` files put in the hook's environment (``env.user_env``)."""

    def settings_env(hook: HookInput, project: Path) -> Mapping[str, str]:
        from goalkeeper.hosts.gemini.env import user_env

        return user_env(env, project, hook.cwd or cwd)

    return answer_failing_open(
        raw,
        env,
        cwd,
        parse=parse_input,
        project_of=lambda hook: project_dir(hook, env, cwd),
        answer=lambda hook, project, config, env: _answer(hook, project, config, env, clock, notes),
        settings_env=settings_env,
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
    if hook.event == "BeforeTool" and (hook.tool_name or "").startswith(OWN_TOOL_PREFIX):
        return own_tool_handover(hook)

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
        events, host_state = to_events(hook, stored)
        if not events:  # goalkeeper's own continuation coming back: not the user's
            _save_state(supervisor, hook.session_id, host_state)
            return {}
        outcome = supervisor.handle(events, host_state=host_state)
        after = _after_answer(hook, outcome.actions, stored)
        if after:
            _save_state(supervisor, hook.session_id, after)
    finally:
        supervisor.store.close()
    answer = to_answer(hook.event, outcome.actions)
    if hook.event == "SessionStart":
        return add_start_notices(answer, config, notes, state_dir=supervisor.store.path.parent)
    return answer


def own_tool_handover(hook: HookInput) -> dict[str, Any]:
    """goalkeeper's own tools run in its MCP server, which cannot see the session id: hand it
    over in the call and let the call through (the server applies every gate). The whole input
    goes back with it: Gemini 0.61.0's scheduler builds the call from ``tool_input`` alone
    (``tool.build(modifiedInput)``), not merged into the model's arguments as its hook
    reference says, so a ``session``-only answer failed validation (seen end to end)."""
    updated = {**(hook.tool_input or {}), "session": hook.session_id}
    return {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": updated}}


def to_events(
    hook: HookInput, stored: Mapping[str, Any]
) -> tuple[tuple[Event, ...], dict[str, Any]]:
    """The engine events for a hook, and the host bookkeeping to store with them. No events:
    the hook is goalkeeper's own continuation coming back as a prompt."""
    sid = hook.session_id
    if hook.event == "SessionStart":
        source = hook.source if hook.source in ("startup", "resume", "clear") else "other"
        started = {RUNS: [], CALLS: 0, SENT: None, SEEN: None, CLEARED: None}
        return (SessionStart(sid, source),), started  # type: ignore[arg-type]
    if hook.event == "BeforeAgent":
        prompt = hook.prompt or ""
        if stored.get(SENT) is not None and prompt == stored.get(SENT):
            if stored.get(CLEARED):  # into a new chat: what the start said is gone with the old
                return (SessionStart(sid, "clear"),), {SENT: None, CLEARED: None}
            return (), {SENT: None}
        # a new prompt: its response starts afresh, and what ran before it is not this run's
        fresh: dict[str, Any] = {SENT: None, SEEN: None, RUNS: [], CALLS: 0, CLEARED: None}
        return (UserPrompt(sid, user_text(prompt)), BeforeAgentStart(sid)), fresh
    if hook.event == "BeforeTool":
        return (ToolCall(sid, hook.tool_name or "", dict(hook.tool_input or {})),), {}
    if hook.event == "AfterTool":
        run = tool_run(hook.tool_name or "", hook.tool_input or {}, hook.tool_response)
        runs = _runs(stored)
        runs = [*runs, dump_run(run)][-MAX_RUNS:]
        calls = _int(stored.get(CALLS)) + 1
        failed = run.outcome == "failed"
        return (ToolResult(sid, hook.tool_name or "", is_error=failed),), {RUNS: runs, CALLS: calls}
    # AfterAgent: the settle
    text, seen = new_response(hook.prompt_response or "", stored.get(SEEN))
    done = tuple(load_run(r) for r in _runs(stored))
    activity = Activity(
        tool_calls=_int(stored.get(CALLS)),
        session_bytes=file_size(hook.transcript_path),
        long_wait=any(r.kind == "shell" and r.outcome == "unfinished" for r in done),
        runs=done,
    )
    return (Settled(sid, text, activity=activity),), {RUNS: [], CALLS: 0, SEEN: seen}


def _after_answer(
    hook: HookInput, actions: Sequence[Action], stored: Mapping[str, Any]
) -> dict[str, Any]:
    """Bookkeeping that depends on the answer: the continuation goalkeeper sends (to know it
    when it comes back as a prompt), and a refused tool call as a run (no AfterTool follows)."""
    if hook.event == "AfterAgent":
        reason = _continuation(actions)
        cleared = any(isinstance(a, ClearContext) for a in actions)
        return {SENT: reason, CLEARED: cleared or None} if reason else {}
    if hook.event == "BeforeTool" and any(isinstance(a, Block) for a in actions):
        run = tool_run(hook.tool_name or "", hook.tool_input or {}, None)
        refused = ToolRun(run.kind, run.name, run.command, run.path, "refused")
        return {
            RUNS: [*_runs(stored), dump_run(refused)][-MAX_RUNS:],
            CALLS: _int(stored.get(CALLS)) + 1,
        }
    return {}


def to_answer(event: str, actions: Sequence[Action]) -> dict[str, Any]:
    """Gemini CLI's hook output for the merged actions of one event."""
    answer: dict[str, Any] = {}
    user = [a.text for a in actions if isinstance(a, Notify)]
    user += [a.reason for a in actions if isinstance(a, Pause)]
    user += [a.summary for a in actions if isinstance(a, Close)]
    if event in ("SessionStart", "BeforeAgent"):
        context = "\n\n".join(a.text for a in actions if isinstance(a, Advise))
        if context:
            answer["hookSpecificOutput"] = {"hookEventName": event, "additionalContext": context}
    elif event == "AfterAgent":
        reason = _continuation(actions)
        if reason:
            answer["decision"] = "deny"
            answer["reason"] = reason
            if any(isinstance(a, ClearContext) for a in actions):  # never without the reason
                answer["hookSpecificOutput"] = {"hookEventName": event, "clearContext": True}
    elif event == "BeforeTool":
        denials = [a.reason for a in actions if isinstance(a, Block)]
        if denials:
            answer["decision"] = "deny"
            answer["reason"] = "\n\n".join(denials)
    if user:
        answer["systemMessage"] = "\n".join(user)
    return answer


def _continuation(actions: Sequence[Action]) -> str:
    return "\n\n".join(a.text for a in actions if isinstance(a, Continue))


_CONTEXT_OPEN, _CONTEXT_CLOSE = "<hook_context>", "</hook_context>"


def user_text(prompt: str) -> str:
    """The user's words: headless Gemini puts the SessionStart context in front of the prompt
    (``<hook_context>…</hook_context>\\n\\n``); that is goalkeeper's own text, not the user's."""
    while prompt.startswith(_CONTEXT_OPEN):
        end = prompt.find(_CONTEXT_CLOSE)
        if end < 0:
            break
        prompt = prompt[end + len(_CONTEXT_CLOSE) :].lstrip("\n")
    return prompt


def new_response(response: str, seen: object) -> tuple[str, dict[str, Any]]:
    """The part of ``prompt_response`` not settled yet, and the mark to store: Gemini joins the
    text of every model call for a prompt, the continuations' too, so the second settle of a
    prompt would otherwise read the first one's ``[PDCA]`` line again."""
    mark = {"n": len(response), "tail": response[-64:]}
    if isinstance(seen, dict):
        n, tail = seen.get("n"), seen.get("tail")
        if isinstance(n, int) and isinstance(tail, str) and _settled(response, n, tail):
            return response[n:].lstrip(), mark
    return response, mark


def _settled(response: str, n: int, tail: str) -> bool:
    """``response`` goes on from the text settled before (its first ``n`` characters ended in
    ``tail``)."""
    return 0 < n <= len(response) and response[max(0, n - len(tail)) : n] == tail


def _runs(stored: Mapping[str, Any]) -> list[dict[str, Any]]:
    runs = stored.get(RUNS)
    return [r for r in runs if isinstance(r, dict)] if isinstance(runs, list) else []


def _save_state(supervisor: Any, session_id: str, updates: Mapping[str, Any]) -> None:
    """Merge ``updates`` into the session's host bookkeeping, in its own small transaction
    (what goes there depends on the answer the engine just gave)."""
    from msgspec.structs import replace

    from goalkeeper.store.sessions import get_session, save_session

    with supervisor.store.transaction() as conn:
        row = get_session(conn, session_id)
        if row is not None:
            save_session(conn, replace(row, host_state={**row.host_state, **updates}))


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None
