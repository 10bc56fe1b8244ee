"""The proof of a session (``cli.report_data.session_proof``) and session-id prefixes, from a
session driven through the real engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from goalkeeper.cli.report_data import session_proof
from goalkeeper.store import journal
from goalkeeper.store.db import Store
from goalkeeper.store.sessions import SessionNotFound, resolve_session_id
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
    assert proof["continuations"]["sent_back"] == 1
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
