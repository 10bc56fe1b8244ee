"""``goalkeeper watch`` on a real terminal: started in a tmux pane, it redraws when a real
engine event is journaled (``capture-pane`` shows the new state), and Ctrl-C ends it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import ToolCall
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES
from tests.cli.proof_session import SESSION, run_session

pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)"
)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Callable[..., str]]:
    """``tmux(*args)`` against a private server (its own socket), killed afterwards."""
    socket = str(tmp_path / "tmux.sock")

    def call(*args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", socket, "-f", os.devnull, *args],
            capture_output=True,
            text=True,
            timeout=20,
        )
        return done.stdout if done.returncode == 0 else f"<exit {done.returncode}>"

    yield call
    call("kill-server")


def screen_with(tmux: Callable[..., str], text: str, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    shown = ""
    while time.monotonic() < deadline:
        shown = tmux("capture-pane", "-p", "-t", "watch")
        if text in shown:
            return shown
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; the pane shows:\n{shown}")


def test_watch_redraws_when_the_engine_journals_and_ctrl_c_stops_it(
    tmp_path: Path, tmux: Callable[..., str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    run_session(project)
    command = [
        "env",
        f"XDG_STATE_HOME={os.environ['XDG_STATE_HOME']}",
        f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}",
        "GOALKEEPER_SERVER=off",
        "TERM=xterm-256color",
        sys.executable,
        "-m",
        "goalkeeper",
        "-C",
        str(project),
        "watch",
    ]
    tmux("new-session", "-d", "-s", "watch", "-x", "140", "-y", "40", " ".join(command))
    tmux("set-option", "-t", "watch", "remain-on-exit", "on")
    first = screen_with(tmux, f"session {SESSION[:12]}")
    assert "1 pending" in first and "(Ctrl-C stops)" in first

    sup = Supervisor(
        project,
        Config(no_plan="silent", lang="en"),
        host="claude",
        capabilities=CLAUDE_CAPABILITIES,
    )
    try:
        sup.handle([ToolCall(SESSION, "todo", {"action": "create", "subject": "ship the watch"})])
    finally:
        sup.store.close()
    after = screen_with(tmux, "ship the watch")
    assert "2 pending" in after

    tmux("send-keys", "-t", "watch", "C-c")
    deadline = time.monotonic() + 20
    while tmux("display-message", "-p", "-t", "watch", "#{pane_dead}").strip() != "1":
        assert time.monotonic() < deadline, "watch did not stop on Ctrl-C"
        time.sleep(0.2)
    status = tmux("display-message", "-p", "-t", "watch", "#{pane_dead_status}").strip()
    assert status == "0"
