"""A SubagentStop as the engine reads it, for the hosts whose SubagentStop has Claude Code's
shape (Claude Code, Codex): the subagent's answer and its own run. Translation only; what the
stop is worth is ``guards.subagent_stop``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from goalkeeper.core.values import Activity, SubagentSettled

if TYPE_CHECKING:
    from goalkeeper.config import Config
    from goalkeeper.hosts.command_hooks.wire import HookInput


def subagent_settled(
    hook: HookInput, config: Config, read_tail: Callable[[str, int, int], Any]
) -> SubagentSettled:
    """A SubagentStop as the engine reads it (Claude Code's and Codex's have one shape): the
    subagent's answer, and its run from its own transcript (read whole, up to the configured
    tail, by the host's ``read_tail``), so a ``[PDCA] complete`` in it is judged on what it
    ran. No transcript named: no run reported."""
    activity, final = Activity(), ""
    path = hook.agent_transcript_path
    if path:
        tail = read_tail(path, 0, config.transcript_tail_kb * 1024)
        if tail is None:
            activity = Activity(unreadable=True)
        else:
            activity = Activity(tail.tool_calls, tail.context_tokens, tail.size, runs=tail.runs)
            final = tail.final_text
    last = hook.last_assistant_message or ""
    return SubagentSettled(
        hook.session_id,
        hook.agent_id or "",
        final if final and final.endswith(last.strip()) else last,
        agent_type=hook.agent_type or "",
        continued=hook.stop_hook_active,
        activity=activity,
    )
