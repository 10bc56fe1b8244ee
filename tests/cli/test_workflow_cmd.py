"""`goalkeeper workflow`: the routes from a shell, on an agent session, by the same rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goalkeeper.cli.app import run
from goalkeeper.config import Config
from goalkeeper.core.values import Advise, BeforeAgentStart, SessionStart
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES


def gk(capsys: pytest.CaptureFixture[str], project: Path, *args: str) -> tuple[int, str, str]:
    code = run(["-C", str(project), "workflow", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_routes_and_capabilities(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Five routes with their entry procedure; capabilities with who may run them."""
    code, out, _ = gk(capsys, tmp_path, "list", "--json")
    data = json.loads(out)
    assert code == 0
    assert [r["route"] for r in data["routes"]] == [
        "idea-to-ship", "hard-bug", "triage", "wayfinding", "architecture",
    ]  # fmt: skip
    assert data["routes"][1]["entry"] == "diagnosing-bugs"
    invocations = {c["id"]: c["invocation"] for c in data["capabilities"]}
    assert invocations["research"] == "model" and invocations["teach"] == "user"


def test_a_session_is_needed_and_routes_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without any agent session the command says so, with its own exit code 4 (seed003 D9:
    it was 2, like an unknown route); an unknown route is a usage error, 2."""
    for words in (("start", "hard-bug"), ("status",), ("complete",)):
        code, _, err = gk(capsys, tmp_path, *words)
        assert code == 4 and "no agent session here yet" in err, words
    code, _, err = gk(capsys, tmp_path, "start", "nope", "--session", "s")
    assert code == 2 and "unknown route 'nope'" in err


def test_start_transition_complete_then_the_agent_receives_the_procedure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user starts hard-bug from a shell; an illegal transition is refused (exit 1) with
    the allowed list; a legal one moves it; the agent's next run receives the procedure it has
    not seen, with the guidance; complete clears it."""
    agent = Supervisor(
        tmp_path, Config(no_plan="silent", lang="en"), host="test",
        capabilities=CLAUDE_CAPABILITIES,
    )  # fmt: skip
    agent.handle([SessionStart("s")])
    code, out, _ = gk(capsys, tmp_path, "start", "hard-bug", "fix", "login")
    assert code == 0 and "[goalkeeper] started · Reproducing & Diagnostics" in out
    code, _, err = gk(capsys, tmp_path, "transition", "handoff")  # the latest session: s
    assert code == 1 and "Allowed next procedures: implement, code-review" in err
    code, out, _ = gk(capsys, tmp_path, "transition", "implement", "--json")
    data = json.loads(out)
    assert code == 0 and data["workflow"]["procedure"] == "implement"

    texts = [a.text for a in agent.handle([BeforeAgentStart("s")]).actions if isinstance(a, Advise)]
    assert any('source="procedure/implement"' in t for t in texts), texts
    assert any("follow the loaded implement procedure" in t for t in texts)
    again = [a.text for a in agent.handle([BeforeAgentStart("s")]).actions if isinstance(a, Advise)]
    assert not any('source="procedure/implement"' in t for t in again)  # once

    code, out, _ = gk(capsys, tmp_path, "complete")
    assert code == 0 and "goalkeeper workflow completed" in out
    code, out, _ = gk(capsys, tmp_path, "status")
    assert code == 1 and "inactive" in out
