"""The workflow_ask dialog as an MCP form, and the form's answer as the guard's outcome."""

from __future__ import annotations

from typing import Any

import pytest

from goalkeeper.hosts.mcp.elicit import form_of, outcome_of, timed_out, timeout_seconds

DIALOG: dict[str, Any] = {
    "title": "Hard Bug · Feedback Loop",
    "question": "Which fix first?",
    "choices": ["the parser", "the cache", "Type custom answer..."],
    "custom": "Type custom answer...",
    "placeholder": "Enter your answer...",
    "recommended": "the parser",
    "timeoutMs": 60_000,
}


def test_the_form_is_flat_with_the_choice_required_and_the_recommendation_preselected() -> None:
    message, schema = form_of(DIALOG)
    assert message == "Hard Bug · Feedback Loop\n\nWhich fix first?"
    assert schema["required"] == ["answer"]
    answer, own = schema["properties"]["answer"], schema["properties"]["own_answer"]
    assert answer["enum"] == DIALOG["choices"] and answer["default"] == "the parser"
    assert own == {"type": "string", "title": "Type custom answer...",
                   "description": "Enter your answer..."}  # fmt: skip
    assert all(p["type"] == "string" for p in schema["properties"].values())  # primitives only


def test_without_a_custom_choice_or_recommendation_the_form_has_neither() -> None:
    dialog = {**DIALOG, "choices": ["a", "b"], "recommended": None}
    _, schema = form_of(dialog)
    assert (
        list(schema["properties"]) == ["answer"] and "default" not in schema["properties"]["answer"]
    )


@pytest.mark.parametrize(
    ("action", "content", "expected"),
    [
        ("accept", {"answer": "the cache"}, {"source": "choice_selected", "answer": "the cache"}),
        ("accept", {"answer": "Type custom answer...", "own_answer": " neither "},
         {"source": "custom_input", "answer": "neither"}),
        ("accept", {"own_answer": "neither"}, {"source": "custom_input", "answer": "neither"}),
        ("accept", {"answer": "Type custom answer...", "own_answer": "  "},
         {"source": "custom_input_cancelled"}),
        ("accept", {"answer": "something else"}, {"source": "cancelled"}),
        ("accept", None, {"source": "cancelled"}),
        ("decline", {"answer": "the cache"}, {"source": "cancelled"}),
        ("cancel", None, {"source": "cancelled"}),
    ],
)  # fmt: skip
def test_what_the_user_did_becomes_the_outcome(
    action: str, content: dict[str, Any] | None, expected: dict[str, str]
) -> None:
    assert outcome_of(DIALOG, action, content) == expected


def test_only_a_recommendation_is_taken_when_nobody_answers() -> None:
    assert timed_out(DIALOG) == {"source": "timeout_recommended", "answer": "the parser"}
    assert timed_out({**DIALOG, "recommended": None}) == {"source": "cancelled"}
    assert timeout_seconds(DIALOG) == 60.0
    assert timeout_seconds({**DIALOG, "timeoutMs": None}) is None
    assert timeout_seconds({**DIALOG, "timeoutMs": True}) is None
