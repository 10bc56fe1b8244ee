"""The journal as a stream for machines: versioned JSON lines from ``status --follow --json``,
and the follower that reads what other processes append, each entry once."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from goalkeeper.cli.report.stream import PAGE, STREAM_VERSION, JournalFollower
from goalkeeper.config import Config
from goalkeeper.core.values import Activity, Settled
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.store import journal
from goalkeeper.store.db import Store
from goalkeeper.testing import CLAUDE_CAPABILITIES
from tests.cli.proof_session import SESSION, run_session
from tests.cli.test_status import goalkeeper, read_lines


@pytest.fixture
def project(tmp_path: Path) -> Path:
    run_session(tmp_path)
    return tmp_path


def settle(project: Path, text: str) -> None:
    """One real engine event, as a hook would deliver it."""
    sup = Supervisor(
        project,
        Config(no_plan="silent", lang="en"),
        host="claude",
        capabilities=CLAUDE_CAPABILITIES,
    )
    try:
        sup.handle([Settled(SESSION, text, activity=Activity(tool_calls=3))])
    finally:
        sup.store.close()


def test_follow_json_lines_are_versioned_stream_records(project: Path) -> None:
    """Each line is one object with the stream version and the documented fields."""
    proc = goalkeeper(project, "--follow", "--json", "--limit", "2", stdout=subprocess.PIPE)
    try:
        backlog = read_lines(proc, 2)
        time.sleep(0.3)
        settle(project, "one more round")
        live = read_lines(proc, 1)
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0
    records = [json.loads(line) for line in backlog + live]
    assert len(backlog) == 2 and live
    for r in records:
        assert r["v"] == STREAM_VERSION == 1
        assert set(r) == {"v", "id", "at", "session_id", "kind", "text", "data"}
    assert [r["id"] for r in records] == sorted(r["id"] for r in records)
    assert records[2]["kind"] == "event" and "one more round" in records[2]["text"]


def test_status_json_recent_entries_have_the_stream_shape(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from goalkeeper.cli.app import run

    assert run(["-C", str(project), "status", "--json"]) == 0
    recent = json.loads(capsys.readouterr().out)["recent"]
    assert recent and all(r["v"] == STREAM_VERSION for r in recent)


def test_the_follower_returns_each_new_entry_once(project: Path) -> None:
    """Entries another writer appends after ``start`` come back once, oldest first."""
    store = Store(project)
    start = journal.last_id(store.connection())
    store.close()
    follower = JournalFollower(Store(project), start)
    assert follower.poll() == []
    settle(project, "again")
    fresh = follower.poll()
    assert fresh and fresh[0].kind == "event" and fresh[0].id == start + 1
    assert all(e.session_id == SESSION for e in fresh)
    assert follower.poll() == []
    settle(project, "and again")
    assert follower.poll()[0].id == fresh[-1].id + 1


def test_a_burst_longer_than_a_page_is_read_whole(project: Path) -> None:
    store = Store(project)
    start = journal.last_id(store.connection())
    with store.transaction() as conn:
        for n in range(PAGE + 7):
            journal.append(conn, SESSION, 1.0, "usage", {"n": n})
    store.close()
    fresh = JournalFollower(Store(project), start).poll()
    assert [e.data["n"] for e in fresh] == list(range(PAGE + 7))


def test_one_session_only_and_no_database_yet(tmp_path: Path) -> None:
    """Before goalkeeper ever ran here there is nothing to read, and nothing is created."""
    store = Store(tmp_path)
    follower = JournalFollower(store, 0, SESSION)
    assert follower.poll() == [] and not store.exists()
    run_session(tmp_path)
    with store.transaction() as conn:
        journal.append(conn, "someone-else", 1.0, "event", {})
    store.close()
    fresh = follower.poll()
    assert fresh and {e.session_id for e in fresh} == {SESSION}
