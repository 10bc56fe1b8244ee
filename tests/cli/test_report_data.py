"""The proof of a session (``cli.report.data.session_proof``) and session-id prefixes, from a
session driven through the real engine."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.cli.app import run
from goalkeeper.cli.report.data import close_summary, session_proof
from goalkeeper.config import Config
from goalkeeper.core.values import ToolCall
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.store import journal
from goalkeeper.store.db import Store
from goalkeeper.store.sessions import SessionNotFound, latest_session_id, resolve_session_id
from goalkeeper.testing import CLAUDE_CAPABILITIES
from tests.cli.proof_session import FAILED, HOSTILE, SESSION, run_session


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    run_session(tmp_path)
    s = Store(tmp_path)
    yield s
    s.close()


def test_every_verify_run_is_journaled_with_argv_exit_digest_and_tail(store: Store) -> None:
    """The engine records what it ran: the failing verify's tail, the passing one, in order."""
    proof = session_proof(store, SESSION)
    runs = proof["runs"]
    assert [(r["kind"], r["argv"], r["exit"], r["passed"]) for r in runs] == [
        ("verify", ["pytest", "-q"], 1, False),
        ("verify", ["pytest", "-q"], 0, True),
    ]
    assert runs[0]["output_tail"] == FAILED
    assert len(runs[0]["output_sha256"]) == 64 and "seconds" in runs[0]


def test_the_proof_says_proven_and_names_goal_tests_and_todos(store: Store) -> None:
    """Verdict, goal, protected test files, the refused todo, the continuation it took."""
    proof = session_proof(store, SESSION)
    assert proof["verdict"]["state"] == "proven"
    assert proof["goal"]["verify"] == ["pytest -q"] and proof["goal"]["failed_rounds"] == 1
    assert proof["protected_tests"]["files"] == ["tests/test_calc.py"]
    assert proof["protected_tests"]["at_proof"] == "unchanged"
    (todo,) = proof["todos"]
    assert todo["subject"] == HOSTILE and todo["evidence"] == "refused"
    assert proof["continuations"]["sent_back"] == 2  # the failure, then the review round
    kinds = [t["kind"] for t in proof["timeline"]]
    assert kinds.index("verify_run") < kinds.index("goal_failed") < kinds.index("goal_complete")


def test_a_unique_prefix_names_a_session_and_an_ambiguous_one_lists_them(store: Store) -> None:
    """The shortened id status prints works as --session; a shared prefix is an error."""
    conn = store.connection()
    assert resolve_session_id(conn, SESSION[:8]) == SESSION
    assert resolve_session_id(conn, SESSION) == SESSION
    journal.append(conn, SESSION[:4] + "-other", 1.0, "event", {})  # known to the journal only
    with pytest.raises(SessionNotFound) as ambiguous:
        resolve_session_id(conn, SESSION[:4])
    assert set(ambiguous.value.candidates) == {SESSION, SESSION[:4] + "-other"}
    assert "ambiguous" in str(ambiguous.value)
    with pytest.raises(SessionNotFound, match="no session starts with 'zzz'"):
        resolve_session_id(conn, "zzz")
    with pytest.raises(SessionNotFound):
        resolve_session_id(conn, "%")  # no LIKE wildcards: a prefix is literal


PYTEST = f"{sys.executable} -m pytest"


def todo(project: Path, config: Config, tool_input: dict[str, Any]) -> None:
    sup = Supervisor(project, config, host="test", capabilities=CLAUDE_CAPABILITIES)
    try:
        sup.handle([ToolCall("ev", "todo", tool_input)])
    finally:
        sup.store.close()


def claim(cmd: str) -> dict[str, Any]:
    evidence = {"kind": "runnable", "evidence": [{"type": "cmd", "cmd": cmd, "exit": 0}]}
    return {"action": "update", "id": 1, "status": "completed", "metadata": {"evidence": evidence}}


def test_an_evidence_rerun_and_a_refused_command_are_in_the_proof(tmp_path: Path) -> None:
    """A test-gated todo: a command off the allow list is recorded as not run (and provably
    was not), the approved re-run with its argv, exit and output; the todo is verified."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "test_ok.py").write_text("def test_ok():\n    assert True\n", encoding="utf-8")
    config = Config(evidence_commands=(PYTEST,))
    todo(
        tmp_path,
        config,
        {"action": "create", "subject": "tests pass", "metadata": {"gate": "test"}},
    )
    marker = tmp_path / "ran.txt"
    todo(tmp_path, config, claim(f"{sys.executable} -c open('{marker}','w').write('x')"))
    todo(tmp_path, config, claim(f"{PYTEST} -q"))
    store = Store(tmp_path)
    proof = session_proof(store, "ev")
    store.close()
    refused, ran = [r for r in proof["runs"] if r["kind"] == "evidence"]
    assert refused["ran"] is False and refused["refusal"] and not marker.exists()
    assert ran["argv"] == [sys.executable, "-m", "pytest", "-q"] and ran["exit"] == 0
    assert "1 passed" in ran["output_tail"] and ran["seconds"] > 0
    (task,) = proof["todos"]
    assert task["status"] == "completed" and task["evidence"] == "verified"


def test_a_plan_session_lists_each_close_attempt_with_its_gates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo's session: a close refused with three open gates, then one that passed, and
    what it rested on (the check round and the command the agent ran in it)."""
    assert run(["demo", "--keep", "--json"]) == 0
    folder = Path(json.loads(capsys.readouterr().out)["project"])
    try:
        store = Store(folder / "project")
        conn = store.connection()
        session = latest_session_id(conn)
        assert session is not None
        proof = session_proof(store, session)
        store.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    refused, closed = proof["close_attempts"]
    assert refused["outcome"] == "refused" and refused["gates"] == ["check", "okr", "map"]
    assert closed["outcome"] == "closed" and closed["check"]["status"] == "passed"
    assert "check round 3: passed (the agent ran: pytest -q passed)" in close_summary(closed)
    assert proof["verdict"]["state"] == "closed"
