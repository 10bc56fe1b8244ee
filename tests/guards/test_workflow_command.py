"""The /workflow command (catalog spec §11) through the engine: what the user controls directly.
The user's task reaches the agent with the step; it is never part of a record."""

from __future__ import annotations

from pathlib import Path

import pytest

from goalkeeper.core.values import Advise, Notify, UserPrompt
from goalkeeper.engine.supervisor import Supervisor

from .test_workflow import S, begin, make_sup, of, records, send


@pytest.fixture
def sup(tmp_path: Path) -> Supervisor:
    return make_sup(tmp_path)


def command(sup: Supervisor, text: str) -> tuple[list[str], list[str]]:
    """What the agent reads with the prompt, and what the user is told."""
    actions = send(sup, UserPrompt(S, f"/workflow {text}".strip()))
    return [a.text for a in of(actions, Advise)], [a.text for a in of(actions, Notify)]


def test_a_route_with_a_task_starts_and_delivers_the_step_with_the_task(sup: Supervisor) -> None:
    """`/workflow hard-bug fix the login redirect`: started, the procedure and the task go to
    the agent with the prompt, the record holds no task."""
    advice, notes = command(sup, "hard-bug fix the login redirect")
    [step] = [a for a in advice if "# goalkeeper workflow procedure" in a]
    assert 'source="procedure/diagnosing-bugs"' in step
    assert "User target/request:\nfix the login redirect" in step
    assert notes == ["[goalkeeper] started · Reproducing & Diagnostics"]
    [record] = records(sup)
    assert record["route"] == "hard-bug" and "fix the login" not in str(record)


def test_status_transition_complete(sup: Supervisor) -> None:
    """status names route and phase titles; transition moves along a legal edge; complete
    clears the work item (and a second complete says there is none)."""
    assert command(sup, "status")[1] == ["goalkeeper workflow: inactive"]
    work_item = begin(sup, "architecture")["workItemId"]
    assert command(sup, "status")[1] == [
        f"goalkeeper workflow: Codebase Architecture · Architecture Survey · {work_item}"
    ]
    refused = command(sup, "transition research")[1]
    assert "Allowed next procedures: codebase-design, implement, code-review" in refused[0]
    advice, _ = command(sup, "transition implement")
    assert "transitioned to implement" in advice[0]
    assert command(sup, "complete")[1] == [f"goalkeeper workflow completed: {work_item}"]
    assert [r["status"] for r in records(sup)] == ["active", "active", "completed"]
    assert command(sup, "complete")[1] == ["No active goalkeeper workflow."]


def test_cancel_with_and_without_a_reason(sup: Supervisor) -> None:
    """cancel keeps the user's reason; without one, the default names the command."""
    begin(sup, "wayfinding")
    command(sup, "cancel shifting scope from the user")
    begin(sup, "triage")
    command(sup, "end")
    reasons = [r.get("reason") for r in records(sup) if r["status"] == "cancelled"]
    assert reasons == ["shifting scope from the user", "Cancelled by user with /workflow end."]


def test_a_capability_runs_without_state_and_user_only_ones_are_allowed(sup: Supervisor) -> None:
    """The user may run any standalone capability, user-only ones included; no record."""
    advice, _ = command(sup, "teach the borrow checker")
    assert advice and 'source="procedure/teach"' in advice[0]
    assert "User target/request:\nthe borrow checker" in advice[0]
    assert records(sup) == []


def test_free_text_is_routed_and_supersedes_an_active_workflow(sup: Supervisor) -> None:
    """Anything else asks the agent to route the request; an active workflow is cancelled."""
    begin(sup, "hard-bug")
    advice, _ = command(sup, "aaaa\nzzzz")
    assert advice[0].startswith("Route and execute this request through the relevant goalkeeper")
    assert "aaaa\nzzzz" in advice[0]
    assert "The previous active workflow has been cancelled" in advice[0]
    assert records(sup)[-1]["reason"] == "Superseded by a new /workflow routing request."


def test_bare_command_gives_the_usage(sup: Supervisor) -> None:
    assert command(sup, "")[1][0].startswith("Usage: /workflow <route | capability>")
