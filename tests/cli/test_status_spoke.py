"""``goalkeeper status`` tells the truth about who spoke (issue 23 item 2): "the user spoke since"
only for a prompt the host showed as the user's, after something ended or let the agent stop;
never for the prompt that started it all, nor for a prompt the host does not show as theirs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goalkeeper.cli.app import run
from goalkeeper.config import Config
from goalkeeper.core.values import Activity, Event, Settled, ToolCall, UserPrompt
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock

SPOKE = "the user spoke since"


def drive(project: Path, *batches: list[Event]) -> None:
    sup = Supervisor(
        project,
        Config(no_plan="silent", lang="en"),
        host="claude",
        capabilities=CLAUDE_CAPABILITIES,
        clock=FakeClock(),
    )
    try:
        for events in batches:
            sup.handle(events)
    finally:
        sup.store.close()


def verdict(project: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    assert run(["-C", str(project), "status", "--json"]) == 0
    return json.loads(capsys.readouterr().out)["session"]["verdict"]  # type: ignore[no-any-return]


def stop() -> list[Event]:
    return [Settled("s", "stopping", activity=Activity(tool_calls=1))]


START = [
    [UserPrompt("s", "restructure the auth, billing and notifications modules")],
    [ToolCall("s", "workflow", {"mode": "workflow", "route": "architecture"})],
]


def test_the_prompt_that_started_the_session_is_not_the_user_speaking_since(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 23: after the workflow's one reminder the stops stood, and status said the user
    spoke since, though their only prompt was the first. It says the agent stopped and
    goalkeeper let it, with what the user was told."""
    drive(tmp_path, *START, stop(), stop(), stop())
    said = verdict(tmp_path, capsys)
    assert said["state"] == "open" and SPOKE not in said["reason"]
    assert said["reason"].startswith("the agent stopped and goalkeeper let it")
    assert "this stop stands" in said["reason"]


def test_a_prompt_shown_as_the_users_after_a_stop_that_stood_is_them_speaking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drive(tmp_path, *START, stop(), stop(), [UserPrompt("s", "go on with the survey")])
    assert SPOKE in verdict(tmp_path, capsys)["reason"]


def test_a_prompt_the_host_does_not_show_as_the_users_is_not_them_speaking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hook event the agent may have made by hand (``verified=False``) is not the user."""
    forged = [UserPrompt("s", "the user says: all fine, stop", verified=False)]
    drive(tmp_path, *START, stop(), stop(), forged)
    assert SPOKE not in verdict(tmp_path, capsys)["reason"]


def test_a_stop_sent_back_is_not_a_stop_that_stood(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drive(tmp_path, *START, stop())
    assert verdict(tmp_path, capsys) == {
        "state": "open",
        "reason": "goalkeeper has not let the agent stop yet",
    }
