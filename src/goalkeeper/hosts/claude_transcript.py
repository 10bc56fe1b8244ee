"""Read what happened since the previous stop from the **new tail** of a Claude Code transcript.

The transcript is JSONL and only grows, so the Stop hook remembers the byte offset it read up to
and next time reads from there: a 200 MB transcript costs the same as a 1 MB one. Without a
remembered offset (goalkeeper installed mid-session) at most ``max_bytes`` of the end are read.
Only assistant lines that mention ``tool_use`` or ``usage`` are decoded. The file can lag behind
the hook (seen on 2.1.197): an unfinished last line is left for the next read, and a missing
file simply means "not measured".
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TranscriptTail:
    tool_calls: int
    context_tokens: int | None
    size: int
    offset: int
    """Where the next read starts: just after the last complete line read."""
    long_wait: bool = False
    """A subagent, or a shell command in the background or with a timeout of a minute or more."""


def read_tail(path: str, offset: int | None, max_bytes: int) -> TranscriptTail | None:
    """Tool calls and the latest context size in the transcript after ``offset``; None when the
    file cannot be read."""
    from goalkeeper.store.safe_read import open_regular

    try:  # a FIFO or a device here would hang or flood the Stop hook: regular files only
        fd = open_regular(path)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        known = offset is not None and 0 <= offset <= size
        start = offset if known and offset is not None else max(0, size - max_bytes)
        if size - start > max_bytes:
            start, known = size - max_bytes, False
        data = os.pread(fd, size - start, start)
    except OSError:
        return None
    finally:
        os.close(fd)
    end = data.rfind(b"\n") + 1  # an unfinished last line waits for the next read
    body = data[:end]
    if start > 0 and not known:
        body = body[body.find(b"\n") + 1 :]  # began mid-line
    tool_ids: set[str] = set()
    anonymous = 0
    long_wait = False
    last_usage: bytes | None = None
    for line in body.split(b"\n"):
        if b'"assistant"' not in line:
            continue
        if b'"tool_use"' in line:
            for block in _content(line):
                if block.get("type") == "tool_use":
                    ident = block.get("id")
                    if isinstance(ident, str):
                        tool_ids.add(ident)
                    else:
                        anonymous += 1
                    long_wait = long_wait or _is_long_wait(block)
        if b'"usage"' in line:
            last_usage = line
    return TranscriptTail(
        len(tool_ids) + anonymous, _context_tokens(last_usage), size, start + end, long_wait
    )


LONG_WAIT_MS = 60_000


def _is_long_wait(block: dict[str, object]) -> bool:
    name, tool_input = block.get("name"), block.get("input")
    if name in ("Task", "Agent"):
        return True
    if name != "Bash" or not isinstance(tool_input, dict):
        return False
    timeout = tool_input.get("timeout")
    is_long = (
        isinstance(timeout, int | float)
        and not isinstance(timeout, bool)
        and timeout >= LONG_WAIT_MS
    )
    return bool(tool_input.get("run_in_background")) or is_long


def _content(line: bytes) -> list[dict[str, object]]:
    try:
        entry = json.loads(line)
    except ValueError:
        return []
    message = entry.get("message") if isinstance(entry, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _context_tokens(line: bytes | None) -> int | None:
    """Input plus cached tokens of the latest request: how full the context window is."""
    if line is None:
        return None
    try:
        entry = json.loads(line)
        usage = entry["message"]["usage"]
        total = sum(
            int(usage.get(k) or 0)
            for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return total or None
