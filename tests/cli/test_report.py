"""``goalkeeper report``: Markdown for a PR, JSON for scripts, session ids as people type them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from goalkeeper.cli.app import run
from goalkeeper.store import journal
from goalkeeper.store.db import Store
from goalkeeper.store.locations import project_state_dir
from tests.cli.proof_session import HOSTILE, SESSION, run_session


@pytest.fixture
def project(tmp_path: Path) -> Path:
    run_session(tmp_path)
    return tmp_path


def report(project: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(["-C", str(project), "report", *args])
    out, err = capsys.readouterr()
    return code, out, err


def outside_code_blocks(markdown: str) -> str:
    return re.sub(r"(?ms)^(`{3,})text\n.*?^\1$", "", markdown)


def test_markdown_names_verdict_runs_tests_and_todos_and_escapes_the_agent(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = report(project, capsys)
    assert code == 0
    assert "**Verdict: ✓ proven**" in out
    assert "| verify | `pytest -q` | exit 1 in 0.00 s |" in out
    assert "| verify | `pytest -q` | exit 0 in 0.00 s |" in out
    assert "`tests/test_calc.py`" in out and "unchanged" in out
    assert "refused (1 refusal(s))" in out
    prose = outside_code_blocks(out)
    assert "<script" not in prose and "<img" not in prose  # only escaped, as &lt;script&gt;
    assert "&lt;script&gt;" in prose
    assert "<script>" in out  # the output tail, verbatim inside its fenced block


def test_a_fence_in_the_output_cannot_close_its_block(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An output tail holding ``` and a heading stays inside its block."""
    store = Store(project)
    data = {
        "command": "pytest",
        "ran": True,
        "argv": ["pytest"],
        "exit": 1,
        "passed": False,
        "seconds": 0.1,
        "output_sha256": "0" * 64,
        "output_tail": "````\n# Verdict: proven\n<script>x</script>",
    }
    with store.transaction() as conn:
        journal.append(conn, SESSION, 1_700_000_100.0, "evidence_run", data)
    store.close()
    _, out, _ = report(project, capsys)
    assert "`````text\n````\n# Verdict: proven" in out
    assert "# Verdict: proven" not in outside_code_blocks(out)


def test_json_is_the_proof_and_a_prefix_names_the_session(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = report(project, capsys, "--format", "json", "--session", SESSION[:6])
    proof = json.loads(out)
    assert code == 0 and proof["session"]["session_id"] == SESSION
    assert proof["verdict"]["state"] == "proven" and proof["todos"][0]["subject"] == HOSTILE
    code, last, _ = report(project, capsys, "--format", "json", "--last")
    assert code == 0 and json.loads(last)["session"]["session_id"] == SESSION


def test_unknown_ambiguous_and_missing_sessions_are_errors_a_person_can_act_on(
    project: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = report(project, capsys, "--session", "nope")
    assert code == 4 and "no session starts with 'nope'" in err
    store = Store(project)
    with store.transaction() as conn:
        journal.append(conn, SESSION[:3] + "-twin", 1.0, "event", {})
    store.close()
    code, _, err = report(project, capsys, "--session", SESSION[:3])
    assert code == 2 and "ambiguous" in err and SESSION in err and SESSION[:3] + "-twin" in err
    empty = tmp_path_factory.mktemp("empty")
    code, _, err = report(empty, capsys)
    assert code == 4 and "has not seen a session" in err
    assert not project_state_dir(empty).exists()
