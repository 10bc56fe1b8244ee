"""``workflow_ask`` over MCP: the engine's dialog as an elicitation form, the answer as its outcome.

The workflow guard describes a question for the user (``Reply{"dialog": …}``) where the host can
ask one; the host asks and reports the outcome back through the same tool (``_outcome``), as the
Pi extension does with its select and input boxes. An MCP client that declares form elicitation
(Claude Code does since 2.1.76) shows a form instead: one required choice among the suggestions
(the recommended one preselected) and a free-text field for an answer of the user's own.

Pure translation, no MCP import: the server does the asking (``hosts.mcp.server.serve``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ANSWER = "answer"
OWN = "own_answer"


def form_of(dialog: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The elicitation's message and its requested schema (flat, primitive properties only, as
    the MCP specification restricts forms)."""
    choices = [str(c) for c in dialog.get("choices") or ()]
    question = str(dialog.get("question") or "")
    title = str(dialog.get("title") or "")
    answer: dict[str, Any] = {"type": "string", "title": question, "enum": choices}
    recommended = dialog.get("recommended")
    if isinstance(recommended, str) and recommended in choices:
        answer["default"] = recommended
    properties: dict[str, Any] = {ANSWER: answer}
    custom = dialog.get("custom")
    if isinstance(custom, str) and custom in choices:
        properties[OWN] = {
            "type": "string",
            "title": custom,
            "description": str(dialog.get("placeholder") or ""),
        }
    schema = {"type": "object", "properties": properties, "required": [ANSWER]}
    message = f"{title}\n\n{question}" if title else question
    return message, schema


def outcome_of(
    dialog: Mapping[str, Any], action: str, content: Mapping[str, Any] | None
) -> dict[str, str]:
    """What the user did, in the outcome vocabulary the guard reads (the Pi extension's too)."""
    if action != "accept":
        return {"source": "cancelled"}
    content = content or {}
    picked = content.get(ANSWER)
    own = content.get(OWN)
    own_text = own.strip() if isinstance(own, str) else ""
    if picked == dialog.get("custom") or (picked is None and own_text):
        if own_text:
            return {"source": "custom_input", "answer": own_text}
        return {"source": "custom_input_cancelled"}
    choices = [str(c) for c in dialog.get("choices") or ()]
    if isinstance(picked, str) and picked in choices:
        return {"source": "choice_selected", "answer": picked}
    return {"source": "cancelled"}


def timed_out(dialog: Mapping[str, Any]) -> dict[str, str]:
    """Nobody answered in time: only a recommendation may be taken (the guard says so)."""
    recommended = dialog.get("recommended")
    if isinstance(recommended, str) and recommended:
        return {"source": "timeout_recommended", "answer": recommended}
    return {"source": "cancelled"}


def timeout_seconds(dialog: Mapping[str, Any]) -> float | None:
    """How long the form may wait: set only when a recommendation can be adopted."""
    ms = dialog.get("timeoutMs")
    if isinstance(ms, int | float) and not isinstance(ms, bool) and ms > 0:
        return float(ms) / 1000.0
    return None


def retry_outcome(
    dialog: Mapping[str, Any], action: str, content: Mapping[str, Any] | None, waited: float
) -> dict[str, str]:
    """The answer a 2026-07-28 client brings back ``waited`` seconds after the form was sent.
    There the client holds the form, so the server cannot time it out itself: a form the
    client gave up on (``cancel``) after the deadline counts as nobody answering in time, and
    only the recommendation may be taken (seed003 D6). A ``decline`` is the user's own no,
    whenever it comes."""
    limit = timeout_seconds(dialog)
    if action == "cancel" and limit is not None and waited >= limit:
        return timed_out(dialog)
    return outcome_of(dialog, action, content)
