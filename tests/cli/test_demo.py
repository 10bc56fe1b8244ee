"""`goalkeeper demo`, the main job, verifies its own story and exits 0."""

from __future__ import annotations

import json

import pytest

from goalkeeper.cli.app import run


def test_demo_refuses_early_then_closes(capsys: pytest.CaptureFixture[str]) -> None:
    """The scripted agent is refused with every gate named, then closed on evidence."""
    code = run(["demo", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["ok"] is True
    stops = [s for s in data["steps"] if s["event"] == "Stop"]
    assert [s["decision"] for s in stops] == ["continue", "continue", "continue", "close"]
    refusal = stops[1]["reason"]
    assert "Check gate" in refusal and "OKR gate" in refusal and "Map gate" in refusal
    assert "every gate passes" in stops[-1]["message"]


def test_the_workflow_demo_shows_only_legal_moves_and_an_explicit_finish(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Through the real MCP server and Stop hook: the illegal jump is refused with the legal
    moves, the open work item sends the stop back, completing it lets the agent go, and the
    user is told each lifecycle step."""
    code = run(["demo", "workflow", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["ok"] is True and data["scenario"] == "workflow"
    calls = [s for s in data["steps"] if s["event"] == "tool"]
    assert [c["error"] for c in calls] == [False, True, False, False]
    assert "Allowed next procedures: implement, code-review" in calls[1]["result"]
    stops = [s for s in data["steps"] if s["event"] == "stop"]
    assert [s["blocked"] for s in stops] == [True, False]
    assert "is still active" in stops[0]["reason"]
    assert "[goalkeeper] started · Reproducing & Diagnostics" in stops[0]["message"]
    assert stops[1]["message"].endswith("completed")


def test_an_unknown_scenario_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["demo", "nope"]) == 2
    assert "'nope' is not one of 'pdca', 'workflow'" in capsys.readouterr().err
