"""What the hosts' JSON-line logs have in common: the value a tail read gives, and one line.

Claude Code's transcript and Codex's rollout are both JSONL files that only grow; each host
reads its own format from the remembered offset (``hosts/claude/transcript.py``,
``hosts/codex/transcript.py``) and answers with a ``TranscriptTail``.
"""

from __future__ import annotations

import json

from msgspec import Struct

from goalkeeper.core.values import ToolRun


class TranscriptTail(Struct, frozen=True):
    tool_calls: int
    context_tokens: int | None
    size: int
    offset: int
    """Where the next read starts: just after the last complete line read."""
    long_wait: bool = False
    """A subagent, or a shell command in the background or with a timeout of a minute or more."""
    runs: tuple[ToolRun, ...] = ()
    """The tool calls, in the order they were made, with how each ended."""
    final_text: str = ""
    """The text blocks of the last assistant message (after its last tool call), joined:
    ``last_assistant_message`` holds only the last block, and a phase line may be in another."""


MAX_FINAL_TEXT = 64 * 1024
"""A final message longer than this is read from its end: the phase line is its last line."""


def json_entry(line: bytes) -> dict[str, object]:
    """One line of a host's JSONL log as an object; ``{}`` for anything else (a damaged or
    hostile line never stops the reading)."""
    try:
        entry = json.loads(line)
    except (ValueError, RecursionError):
        return {}
    return entry if isinstance(entry, dict) else {}
