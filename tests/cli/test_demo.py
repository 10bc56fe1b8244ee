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
