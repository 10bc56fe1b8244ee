"""workflow_ask (catalog spec §8.3) where the host can show a dialog (Pi): the dialog goalkeeper
asks for, and the text the model reads for each outcome. A pending decision never adopts the
recommendation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import Reply, ToolCall
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock

S = "s"


@pytest.fixture
def sup(tmp_path: Path) -> Supervisor:
    caps = CLAUDE_CAPABILITIES | {"ask"}
    supervisor = Supervisor(
        tmp_path, Config(no_plan="silent", lang="en"), host="test", capabilities=caps,
        clock=FakeClock(),
    )  # fmt: skip
    supervisor.handle([ToolCall(S, "workflow", {"mode": "workflow", "route": "hard-bug"})])
    return supervisor


def ask(sup: Supervisor, **args: Any) -> Reply:
    [reply] = [a for a in sup.handle([ToolCall(S, "workflow_ask", args)]).actions
               if isinstance(a, Reply)]  # fmt: skip
    return reply


QUESTION = {"question": "Which fix?", "options": ["Guard the redirect", "Drop the cookie"]}


@pytest.mark.parametrize(
    ("extra", "timeout"),
    [
        ({"recommended": "Guard the redirect", "timeout_seconds": 30}, 30_000),
        ({"recommended": "Guard the redirect"}, 60_000),
        ({}, None),
    ],
)
def test_the_dialog_times_out_only_when_a_recommendation_can_be_adopted(
    sup: Supervisor, extra: dict[str, Any], timeout: int | None
) -> None:
    """30 s as asked, 60 s by default with a recommendation, no timeout without one; the choices
    end with the custom answer; the title names the route and the phase."""
    dialog = ask(sup, **QUESTION, **extra).data["dialog"]
    assert dialog["timeoutMs"] == timeout  # type: ignore[index]
    assert dialog["choices"] == [  # type: ignore[index]
        "Guard the redirect", "Drop the cookie", "Type custom answer...",
    ]  # fmt: skip
    assert dialog["title"] == "Hard Bug Diagnosis · Reproducing & Diagnostics"  # type: ignore[index]


@pytest.mark.parametrize(
    ("outcome", "text", "pending"),
    [
        ({"source": "choice_selected", "answer": "Drop the cookie"},
         "User selected: Drop the cookie", False),
        ({"source": "timeout_recommended", "answer": "Guard the redirect"},
         "User selected (timeout default): Guard the redirect", False),
        ({"source": "custom_input", "answer": "Custom"}, "User answered (custom): Custom", False),
        ({"source": "cancelled"}, "[Pending user decision] No answer was selected.", True),
        ({"source": "custom_input_cancelled"},
         "[Pending user decision] No custom answer was provided.", True),
        ({"source": "no_ui"}, "[Pending user decision] No UI is available.", True),
    ],
)  # fmt: skip
def test_each_outcome_reads_as_the_spec_says(
    sup: Supervisor, outcome: dict[str, Any], text: str, pending: bool
) -> None:
    reply = ask(sup, **QUESTION, _outcome=outcome)
    assert reply.text is not None and reply.text.startswith(text)
    assert bool(reply.data.get("pending")) is pending
    if outcome["source"] == "custom_input":
        assert reply.data == {"answer": "Custom", "is_custom": True, "source": "custom_input"}


def test_without_a_dialog_the_decision_stays_pending(tmp_path: Path) -> None:
    """A host that cannot ask (MCP): pending, no UI."""
    supervisor = Supervisor(
        tmp_path, Config(no_plan="silent", lang="en"), host="test",
        capabilities=CLAUDE_CAPABILITIES, clock=FakeClock(),
    )  # fmt: skip
    supervisor.handle([ToolCall(S, "workflow", {"mode": "workflow", "route": "hard-bug"})])
    assert ask(supervisor, **QUESTION).data == {"pending": True, "source": "no_ui"}
