"""Parallel hook processes on one session: no lost update, no "database is locked"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from goalkeeper.store.db import Store
from goalkeeper.store.sessions import get_session

N = 20
PLAN = "## Key Results\n- [ ] KR1: one 0 → 1\n"


def start_hooks(project: Path, env: dict[str, str]) -> list[subprocess.Popen[bytes]]:
    payload = json.dumps(
        {
            "hook_event_name": "Stop",
            "session_id": "shared",
            "last_assistant_message": "[PDCA] do",
            "cwd": str(project),
        }
    ).encode()
    procs = []
    for _ in range(N):
        proc = subprocess.Popen(
            [sys.executable, "-m", "goalkeeper", "hook", "claude"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=project,
            env=env,
        )
        procs.append(proc)
    for proc in procs:  # all started before any is fed: they really run at once
        assert proc.stdin is not None
        proc.stdin.write(payload)
        proc.stdin.close()
        proc.stdin = None
    return procs


def check_outcome(project: Path, procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        answer = json.loads(out)
        assert answer.get("decision") == "block", answer  # every one continued, none failed open
        assert b"locked" not in err and b"Traceback" not in err
    row = get_session(Store(project).connection(), "shared")
    assert row is not None
    assert row.events == N
    assert row.guards["cadence"]["round"] == N


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "t.md").write_text(PLAN, encoding="utf-8")
    return tmp_path


def hook_env(project: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GOALKEEPER_")}
    env.update(CLAUDE_PROJECT_DIR=str(project), GOALKEEPER_MAX_CONTINUATIONS="100", **extra)
    return env


def test_twenty_in_process_hooks_lose_no_update(project: Path) -> None:
    """20 fresh hook processes, each with its own database connection, serialise cleanly."""
    check_outcome(project, start_hooks(project, hook_env(project, GOALKEEPER_SERVER="off")))


def test_twenty_hooks_through_the_warm_engine_lose_no_update(project: Path) -> None:
    """The same through the engine process: its request threads serialise the same way."""
    env = hook_env(project, GOALKEEPER_SERVER="auto")
    server = subprocess.Popen(
        [sys.executable, "-m", "goalkeeper", "serve", "--project", str(project), "--idle", "30"],
        env=env,
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        from goalkeeper.hosts.transport.hook_server import server_pid

        deadline = time.monotonic() + 20
        while server_pid(project) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server_pid(project) == server.pid
        check_outcome(project, start_hooks(project, env))
        from goalkeeper.hosts.hook_channel import socket_path

        # no client fell back to in-process handling (it would have spawned an engine)
        assert not os.path.exists(socket_path(sys.prefix, str(project)) + ".spawn")
    finally:
        server.terminate()
        server.wait(10)
    from goalkeeper.hosts.transport.hook_server import server_pid

    assert server_pid(project) is None  # it cleaned up its socket and pid file
