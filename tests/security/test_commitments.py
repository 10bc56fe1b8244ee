"""Commitments change only with the user (issue 11 item 3): "(cancelled: not needed)" on every
key result no longer closes the task, through the real Stop hook."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from goalkeeper.hosts.transport.agent_shell import find_agent_shell

from .conftest import run_hook, stop

PLAN = """## Objective
Users can export their report.

## Key Results
- [ ] KR1: export succeeds 0 → 1
- [ ] KR2: CSV opens in a spreadsheet 0 → 1
- [ ] KR3: export under 2 s 10 → 2
"""
ENV = {"GOALKEEPER_CHECK_NEEDS_TOOL": "false"}  # this file is about commitments, not checks


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "export.md").write_text(PLAN, "utf-8")
    prompt = {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": "do the plan"}
    run_hook(tmp_path, prompt, env=ENV)  # the user speaks: the cycle's commitments
    return tmp_path


def _plan(project: Path, text: str) -> None:
    (project / "plan" / "export.md").write_text(text, "utf-8")


def _close(project: Path) -> dict[str, object]:
    run_hook(project, stop(project, text="Checked.\n[PDCA] check"), env=ENV)
    return run_hook(project, stop(project, text="All done.\n[PDCA] complete"), env=ENV).answer


def _closed(answer: dict[str, object]) -> bool:
    return "every gate passes" in str(answer.get("systemMessage", ""))


def test_cancelling_every_commitment_with_reasons_does_not_close(project: Path) -> None:
    reasons = PLAN.replace(
        "- [ ] KR1: export succeeds 0 → 1",
        "- [-] KR1: export (cancelled: the export service is gone)",
    )
    reasons = reasons.replace(
        "- [ ] KR2", "- [-] KR2 (cancelled: spreadsheets are out of this release)"
    )
    reasons = reasons.replace("- [ ] KR3", "- [-] KR3 (cancelled: speed was never measured anyway)")
    _plan(project, reasons)
    answer = _close(project)
    assert not _closed(answer) and answer.get("decision") != "block"
    assert "dropped 3 of the 3 commitments" in str(answer.get("systemMessage")), answer
    if find_agent_shell() is None:
        accepted = subprocess.run(
            [sys.executable, "-m", "goalkeeper", "-C", str(project), "plan", "accept"],
            env={k: v for k, v in os.environ.items() if not k.startswith("GOALKEEPER_")},
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert accepted.returncode == 0, accepted.stderr
        assert _closed(_close(project))


def test_a_reason_that_says_nothing_is_sent_back(project: Path) -> None:
    done = PLAN.replace("- [ ]", "- [x]")
    kr3 = "- [x] KR3: export under 2 s 10 → 2"
    _plan(project, done.replace(kr3, "- [-] KR3: export under 2 s 10 → 2 (cancelled: not needed)"))
    answer = _close(project)
    assert answer.get("decision") == "block" and "say nothing" in str(answer.get("reason")), answer


def test_one_cancellation_with_a_reason_still_closes(project: Path) -> None:
    _plan(
        project,
        PLAN.replace("- [ ] KR1", "- [x] KR1")
        .replace("- [ ] KR2", "- [x] KR2")
        .replace("- [ ] KR3", "- [-] KR3 (cancelled: speed is out of scope for the first release)"),
    )
    assert _closed(_close(project))


def test_plan_accept_refuses_an_agent_shell(project: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(project), "plan", "accept"],
        env={**os.environ, "CLAUDECODE": "1"}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "your own terminal" in done.stderr
