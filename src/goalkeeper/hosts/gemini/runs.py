"""Gemini CLI's tool calls in host-neutral terms (``ToolRun``): which kind each is, how it
ended as ``AfterTool``'s ``tool_response`` tells, and the form kept in the session's host
bookkeeping between hooks (each hook is its own process). Pure; no I/O."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from goalkeeper.core.tools import SHELL_TOOLS, WRITE_TOOLS, shell_command, tool_target
from goalkeeper.core.values import RUN_TAIL_CHARS, RunOutcome, ToolRun


def tool_run(name: str, args: Mapping[str, Any], response: Mapping[str, Any] | None) -> ToolRun:
    """A Gemini tool call in host-neutral terms, ended as ``response`` says (``AfterTool``'s
    ``tool_response``: ``llmContent``, optional ``error``); None: not run yet."""
    if name in SHELL_TOOLS:
        kind, command, path = "shell", shell_command(args), ""
    elif name in WRITE_TOOLS:
        kind, command, path = "edit", "", tool_target(args)
    else:
        kind, command, path = "other", "", ""
    if response is None:
        return ToolRun(kind, name, command, path)  # type: ignore[arg-type]
    text = _content_text(response.get("llmContent"))
    outcome: RunOutcome = "passed"
    if response.get("error"):
        outcome = "failed"
    elif kind == "shell":
        outcome = _shell_outcome(text, args)
    return ToolRun(kind, name, command, path, outcome, text[-RUN_TAIL_CHARS:])  # type: ignore[arg-type]


def _shell_outcome(text: str, args: Mapping[str, Any]) -> RunOutcome:
    """``run_shell_command`` says ``Exit Code: N`` when a command fails; a background start is
    not a finished run."""
    if args.get("is_background") is True:
        return "unfinished"
    for line in text.splitlines():
        head, _, value = line.partition(":")
        if head.strip() == "Exit Code":
            return "passed" if value.strip() == "0" else "failed"
        if head.strip() == "Signal":
            return "failed"
    return "passed"


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") if isinstance(p, dict) else p for p in content]
        return "\n".join(p for p in parts if isinstance(p, str))
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return str(content["text"])
    return ""


def dump_run(run: ToolRun) -> dict[str, str]:
    return {
        "kind": run.kind,
        "name": run.name,
        "command": run.command[:2000],
        "path": run.path[:1000],
        "outcome": run.outcome,
        "tail": run.tail,
    }


_KINDS = ("shell", "edit", "other")
_OUTCOMES = ("passed", "failed", "unfinished", "refused", "unknown")


def load_run(data: Mapping[str, Any]) -> ToolRun:
    kind = data.get("kind") if data.get("kind") in _KINDS else "other"
    outcome = data.get("outcome") if data.get("outcome") in _OUTCOMES else "unknown"
    return ToolRun(
        kind,  # type: ignore[arg-type]
        str(data.get("name", "")),
        str(data.get("command", "")),
        str(data.get("path", "")),
        outcome,  # type: ignore[arg-type]
        str(data.get("tail", "")),
    )
