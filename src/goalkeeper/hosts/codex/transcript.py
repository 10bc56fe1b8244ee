"""Read what happened since the previous stop from the **new tail** of a Codex rollout file.

Codex 0.171.0 writes each session to ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-….jsonl`` (the
hook's ``transcript_path``). Each line is ``{"timestamp", "ordinal", "type", "payload"}``; the
lines read here (observed on a real run, see ``codex-offline-e2e.md``):

* ``response_item`` / ``function_call`` (``name: exec_command``, ``arguments: '{"cmd": …}'``,
  ``call_id``) and ``custom_tool_call`` (``name: apply_patch``, ``input``: the patch text);
* ``response_item`` / ``function_call_output`` / ``custom_tool_call_output`` (``call_id``,
  ``output``): ``Process exited with code N`` for the shell, ``Exit code: N`` for a patch,
  ``Command blocked by PreToolUse hook: …`` for a call a hook denied, ``Process running with
  session ID`` for one still running;
* ``response_item`` / ``message`` with ``role: assistant``: the final text;
* ``event_msg`` / ``token_count``: ``info.last_token_usage.input_tokens`` and
  ``info.model_context_window``.

Like the Claude Code reader (``hosts/claude/transcript.py``), only the bytes after the remembered
offset are read, an unfinished last line is left for the next read, and a missing file means "could
not be read". The result is the same ``TranscriptTail`` value.
"""

from __future__ import annotations

import json

from goalkeeper.core.values import RUN_TAIL_CHARS, RunOutcome, ToolRun
from goalkeeper.hosts.command_hooks.jsonl import MAX_FINAL_TEXT, TranscriptTail, json_entry

SHELL_CALLS = frozenset({"exec_command", "shell_command", "shell", "local_shell"})
"""Codex's shell tools as the model calls them (0.171.0 offers ``exec_command``)."""
PATCH_CALLS = frozenset({"apply_patch"})


class CodexTail(TranscriptTail, frozen=True):
    """A rollout tail: what ``TranscriptTail`` says, plus the model's context window."""

    context_window: int | None = None


def read_tail(path: str, offset: int | None, max_bytes: int) -> CodexTail | None:
    """Tool calls, context size and final text in the rollout after ``offset``; None when the
    file cannot be read."""
    from goalkeeper.store.safe_read import read_new_lines

    read = read_new_lines(path, offset, max_bytes)
    if read is None:
        return None
    return _parse(read.body, read.size, read.offset)


def _parse(body: bytes, size: int, offset: int) -> CodexTail:
    calls: dict[str, ToolRun] = {}
    outputs: dict[str, str] = {}
    texts: list[str] = []
    tokens: int | None = None
    window: int | None = None
    for line in body.split(b"\n"):
        if not line or (b'"response_item"' not in line and b'"token_count"' not in line):
            continue
        entry = json_entry(line)
        payload = entry.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = payload.get("type")
        if entry.get("type") == "event_msg" and kind == "token_count":
            tokens, window = _usage(payload, tokens, window)
        elif entry.get("type") != "response_item":
            continue
        elif kind in ("function_call", "custom_tool_call"):
            texts = []
            ident = payload.get("call_id")
            key = ident if isinstance(ident, str) else f"#{len(calls)}"
            calls.setdefault(key, _call(payload))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            ident, output = payload.get("call_id"), payload.get("output")
            if isinstance(ident, str):
                outputs[ident] = output if isinstance(output, str) else ""
        elif kind == "message" and payload.get("role") == "assistant":
            texts += _texts(payload.get("content"))
        elif kind == "message" and payload.get("role") == "user":
            texts = []
    runs = tuple(_ended(run, outputs.get(key)) for key, run in calls.items())
    final = "\n".join(texts)[-MAX_FINAL_TEXT:]
    return CodexTail(len(runs), tokens, size, offset, False, runs, final, window)


def _call(payload: dict[str, object]) -> ToolRun:
    """One call in host-neutral terms, named as Codex's hooks name it (``Bash``,
    ``apply_patch``), so the check gate reads the same command line the hook saw."""
    name = payload.get("name")
    name = name if isinstance(name, str) else ""
    if name in SHELL_CALLS:
        return ToolRun("shell", "Bash", _command(payload.get("arguments")))
    if name in PATCH_CALLS:
        from goalkeeper.hosts.codex.patch import patch_targets

        raw = payload.get("input")
        targets = patch_targets(raw if isinstance(raw, str) else "")
        return ToolRun("edit", name, path=targets[0] if targets else "")
    return ToolRun("other", name)


def _command(arguments: object) -> str:
    try:
        data = json.loads(arguments) if isinstance(arguments, str) else None
    except (ValueError, RecursionError):
        return ""
    value = data.get("cmd") if isinstance(data, dict) else None
    if isinstance(value, list):  # the older shell tool: an argv
        return " ".join(str(v) for v in value)
    return value if isinstance(value, str) else ""


_BLOCKED = "Command blocked by PreToolUse hook"
_SHELL_EXIT = "Process exited with code "
_PATCH_EXIT = "Exit code: "


def _ended(run: ToolRun, output: str | None) -> ToolRun:
    """How a call ended, from the output the model got (no output in the tail: unfinished)."""
    if output is None:
        return _with(run, "unfinished", "")
    outcome: RunOutcome = "unknown"
    head = output[:400]
    if output.startswith(_BLOCKED):
        outcome = "refused"
    elif "Process running with session ID" in head:
        outcome = "unfinished"
    else:
        for marker in (_SHELL_EXIT, _PATCH_EXIT):
            at = head.find(marker)
            if at >= 0:
                code = head[at + len(marker) :].split("\n", 1)[0].strip()
                outcome = "passed" if code == "0" else "failed"
                break
    body = output.split("\nOutput:\n", 1)[-1]
    return _with(run, outcome, body[-RUN_TAIL_CHARS:])


def _with(run: ToolRun, outcome: RunOutcome, tail: str) -> ToolRun:
    return ToolRun(run.kind, run.name, run.command, run.path, outcome, tail)


def _usage(
    payload: dict[str, object], tokens: int | None, window: int | None
) -> tuple[int | None, int | None]:
    info = payload.get("info")
    if not isinstance(info, dict):
        return tokens, window
    last = info.get("last_token_usage")
    seen = last.get("input_tokens") if isinstance(last, dict) else None
    size = info.get("model_context_window")
    return (
        seen if isinstance(seen, int) and seen > 0 else tokens,
        size if isinstance(size, int) and size > 0 else window,
    )


def _texts(content: object) -> list[str]:
    if not isinstance(content, list):
        return []
    return [
        str(b.get("text"))
        for b in content
        if isinstance(b, dict) and b.get("type") == "output_text" and isinstance(b.get("text"), str)
    ]


def turn_just_started(
    transcript_path: str | None, session_id: str, turn_id: str, home: str
) -> bool:
    """Whether Codex's own record shows a prompt hook's turn as one the user just started: the
    rollout under ``$CODEX_HOME/sessions`` for this session holds ``task_started`` for
    ``turn_id`` and nothing the model did after it. Codex 0.171.0 writes the prompt itself
    after the UserPromptSubmit hook (measured: not there a second into the hook), but the
    turn's ``task_started`` before it; an event the agent makes from its shell names a turn in
    which the model already called a tool (or a turn that does not exist). Never raises."""
    import os

    try:
        root = os.path.realpath(os.path.join(home, "sessions")) + os.sep
        real = os.path.realpath(transcript_path or "")
    except (OSError, ValueError):
        return False
    name = os.path.basename(real)
    if not turn_id or not real.startswith(root) or not name.endswith(f"{session_id}.jsonl"):
        return False
    from goalkeeper.store.safe_read import read_new_lines

    read = read_new_lines(real, None, 256 * 1024)
    if read is None:
        return False
    started = False
    for line in read.body.split(b"\n"):
        if b'"task_started"' in line:
            payload = json_entry(line).get("payload")
            turn = _turn_of(payload)
            started = turn == turn_id
        elif started and b'"response_item"' in line:
            payload = json_entry(line).get("payload")
            if isinstance(payload, dict) and (
                payload.get("role") == "assistant" or "call" in str(payload.get("type"))
            ):
                started = False  # the model already acted in this turn
    return started


def _turn_of(payload: object) -> str | None:
    if not isinstance(payload, dict):
        return None
    turn = payload.get("turn_id")
    attribution = payload.get("turn_attribution")
    if turn is None and isinstance(attribution, dict):
        turn = attribution.get("turn_id")
    return turn if isinstance(turn, str) else None
