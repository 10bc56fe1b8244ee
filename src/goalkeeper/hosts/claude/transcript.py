"""Read what happened since the previous stop from the **new tail** of a Claude Code transcript.

The transcript is JSONL and only grows, so the Stop hook remembers the byte offset it read up to
and next time reads from there: a 200 MB transcript costs the same as a 1 MB one. Without a
remembered offset (goalkeeper installed mid-session) at most ``max_bytes`` of the end are read.
Only assistant lines that mention ``tool_use`` or ``usage`` and user lines that mention
``tool_result`` are decoded. The file can lag behind the hook (seen on 2.1.197): an unfinished
last line is left for the next read, and a missing file means "could not be read".

Each tool call becomes a ``ToolRun`` in the host-neutral terms the check gate judges. How a Bash
call ended, as 2.1.332 records it (observed): the ``tool_result`` block's ``is_error`` is the
exit status (``false`` for exit 0; ``true`` with content ``"Exit code N\n…"`` otherwise); a
timeout is ``is_error: true`` with ``"Exit code 143\nCommand timed out after …"``; a denied
call is ``is_error: true`` and its line carries ``toolDenialKind``; a background run is
``is_error: false`` with ``toolUseResult.backgroundTaskId``; an interrupted one has
``toolUseResult.interrupted: true``. A call with no result in the tail did not finish.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from goalkeeper.core.values import RUN_TAIL_CHARS, RunOutcome, ToolRun
from goalkeeper.hosts.command_hooks.jsonl import MAX_FINAL_TEXT, TranscriptTail, json_entry

SHELL_TOOLS = frozenset({"Bash"})
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})


def read_tail(path: str, offset: int | None, max_bytes: int) -> TranscriptTail | None:
    """Tool calls and the latest context size in the transcript after ``offset``; None when the
    file cannot be read."""
    from goalkeeper.store.safe_read import read_new_lines

    read = read_new_lines(path, offset, max_bytes)
    if read is None:
        return None
    body = read.body
    calls: dict[str, dict[str, object]] = {}
    anonymous: list[dict[str, object]] = []
    results: dict[str, list[tuple[dict[str, object], dict[str, object]]]] = {}
    long_wait = False
    last_usage: bytes | None = None
    texts: list[str] = []  # the final message so far: reset by a tool call or a user line
    for line in body.split(b"\n"):
        if b'"tool_result"' in line and b'"assistant"' not in line:
            texts = []
            entry = json_entry(line)
            for block in _blocks(entry):
                ident = block.get("tool_use_id")
                if block.get("type") == "tool_result" and isinstance(ident, str):
                    results.setdefault(ident, []).append((block, entry))
            continue
        if b'"assistant"' not in line:
            if b'"user"' in line:
                texts = []
            continue
        if b'"text"' in line and b'"tool_use"' not in line:
            texts += [
                str(b.get("text"))
                for b in _blocks(json_entry(line))
                if b.get("type") == "text" and isinstance(b.get("text"), str)
            ]
        if b'"tool_use"' in line:
            texts = []
            for block in _blocks(json_entry(line)):
                if block.get("type") == "tool_use":
                    ident = block.get("id")
                    if isinstance(ident, str):
                        calls.setdefault(ident, block)
                    else:
                        anonymous.append(block)
                    long_wait = long_wait or _is_long_wait(block)
        if b'"usage"' in line:
            last_usage = line
    runs = tuple(_run(block, results.get(ident, [])) for ident, block in calls.items())
    runs += tuple(_run(block, []) for block in anonymous)
    return TranscriptTail(
        len(calls) + len(anonymous),
        _context_tokens(last_usage),
        read.size,
        read.offset,
        long_wait,
        runs,
        "\n".join(texts)[-MAX_FINAL_TEXT:],
    )


def _run(
    call: dict[str, object], results: list[tuple[dict[str, object], dict[str, object]]]
) -> ToolRun:
    """One tool call in host-neutral terms: its kind, command or file, and how it ended. A call
    has one result; if the tail holds several (lines the agent appended while it ran), the
    worst one is believed."""
    raw_name, raw_input = call.get("name"), call.get("input")
    name = raw_name if isinstance(raw_name, str) else ""
    tool_input = raw_input if isinstance(raw_input, dict) else {}
    if name in SHELL_TOOLS:
        command = tool_input.get("command")
        kind, text, path = "shell", command if isinstance(command, str) else "", ""
    elif name in EDIT_TOOLS:
        target = tool_input.get("file_path") or tool_input.get("notebook_path")
        kind, text, path = "edit", "", target if isinstance(target, str) else ""
    else:
        kind, text, path = "other", "", ""
    ended = [_outcome(r) for r in results] or [("unfinished", "")]
    outcome, tail = min(ended, key=lambda e: _WORST_FIRST.index(e[0]))
    return ToolRun(kind, name, text, path, outcome, tail)  # type: ignore[arg-type]


_WORST_FIRST: tuple[RunOutcome, ...] = ("refused", "unfinished", "failed", "unknown", "passed")


def _outcome(result: tuple[dict[str, object], dict[str, object]]) -> tuple[RunOutcome, str]:
    block, entry = result
    text = _result_text(block.get("content"))
    detail = entry.get("toolUseResult")
    detail = detail if isinstance(detail, dict) else {}
    failed = block.get("is_error") is True
    if entry.get("toolDenialKind") or (failed and text.startswith(_REFUSED)):
        return "refused", text[-RUN_TAIL_CHARS:]
    if detail.get("interrupted") is True or detail.get("backgroundTaskId"):
        return "unfinished", text[-RUN_TAIL_CHARS:]
    head = text[:200]
    if head.startswith("Exit code ") and "\nCommand timed out after" in head:
        return "unfinished", text[-RUN_TAIL_CHARS:]
    return ("failed" if failed else "passed"), text[-RUN_TAIL_CHARS:]


_REFUSED = (
    "PreToolUse:",  # a hook denied it (2.1.332: "PreToolUse:Bash hook error: …")
    "This command requires approval",
    "Permission to use ",
    "The user doesn't want to proceed",
    "Claude requested permissions",
)


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text")) for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


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


def _blocks(entry: dict[str, object]) -> list[dict[str, object]]:
    message = entry.get("message")
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


# ---------------------------------------------------------------------------------------------
# Whose prompt is it: the user's only if Claude Code's own record shows it
# ---------------------------------------------------------------------------------------------

PROMPT_WAIT_S = 0.6
"""How long a prompt hook waits for Claude Code to write the prompt: 2.1.332 writes its
``queue-operation`` line about 50 ms into the hook (measured), never the ``user`` line."""
PROMPT_TAIL_BYTES = 256 * 1024


def user_prompt_shown(
    transcript_path: str | None, session_id: str, prompt: str, environ: Mapping[str, str]
) -> bool:
    """Whether Claude Code's own record shows ``prompt`` as the user's latest message: the
    transcript under its own folder (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``:
    ``projects/…/<session>.jsonl``) holds, after its last assistant line, a ``user`` line
    (not a hook's ``isMeta`` feedback) or an enqueued prompt with exactly that text. A session
    with no transcript yet (its first prompt: 2.1.332 writes the file after the hook) counts
    when a live Claude Code process registered that session (``sessions/<pid>.json``). A
    hand-made event (a made-up or copied path, an agent-written file elsewhere, the agent's
    own session whose last lines are its tool calls) does not. Never raises."""
    import os

    home = environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    try:
        root = os.path.realpath(home)
        real = os.path.realpath(transcript_path or "")
    except (OSError, ValueError):
        return False
    projects = os.path.join(root, "projects") + os.sep
    if not real.startswith(projects) or os.path.basename(real) != f"{session_id}.jsonl":
        return False
    if not os.path.exists(real):
        return _live_session(root, session_id)
    import time

    deadline = time.monotonic() + PROMPT_WAIT_S
    while True:
        if _latest_prompt_is(real, prompt):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def _latest_prompt_is(path: str, prompt: str) -> bool:
    from goalkeeper.store.safe_read import read_new_lines

    read = read_new_lines(path, None, PROMPT_TAIL_BYTES)
    if read is None:
        return False
    shown = False
    for line in read.body.split(b"\n"):
        if b'"assistant"' in line and json_entry(line).get("type") == "assistant":
            shown = False
            continue
        if b'"user"' not in line and b'"queue-operation"' not in line:
            continue
        entry = json_entry(line)
        kind = entry.get("type")
        if kind == "queue-operation" and entry.get("operation") == "enqueue":
            shown = shown or entry.get("content") == prompt
        elif kind == "user" and not entry.get("isMeta"):
            shown = shown or _user_text(entry) == prompt
    return shown


def _user_text(entry: dict[str, object]) -> str | None:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(b, dict) and b.get("type") == "text" for b in content
    ):
        return "".join(str(b.get("text", "")) for b in content)
    return None


def _live_session(root: str, session_id: str) -> bool:
    """A running Claude Code process registered ``session_id`` (``sessions/<pid>.json``, which
    2.1.332 writes at start and removes at exit)."""
    import os

    folder = os.path.join(root, "sessions")
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    for name in names[:256]:
        pid = name.removesuffix(".json")
        if not pid.isdigit() or not name.endswith(".json"):
            continue
        entry = _small_json(os.path.join(folder, name))
        if entry.get("sessionId") == session_id and entry.get("pid") == int(pid):
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                continue
            except OSError:
                pass  # alive, another user's: not ours, but alive
            return True
    return False


def _small_json(path: str) -> dict[str, object]:
    from goalkeeper.store.safe_read import UnsafeFile, read_capped

    try:
        return json_entry(read_capped(path, 64 * 1024))
    except (UnsafeFile, OSError):
        return {}
