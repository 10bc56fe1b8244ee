"""``goalkeeper status`` as a person watches it: ids that work as --session, readable lines
(no Python reprs), one session on one screen, colour only on a terminal, and --follow."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from goalkeeper.cli.app import run
from goalkeeper.core.values import Activity, Settled
from goalkeeper.store import journal
from goalkeeper.store.db import Store
from tests.cli.proof_session import SESSION, run_session


@pytest.fixture
def project(tmp_path: Path) -> Path:
    run_session(tmp_path)
    return tmp_path


def status(project: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(["-C", str(project), "status", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_shown_id_works_as_session_and_lines_are_readable(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Audit §4: the printed prefix found nothing, and reprs showed through."""
    code, out, _ = status(project, capsys)
    assert code == 0
    shown = SESSION[:12]
    assert f"  {shown}  claude" in out
    code, only, _ = status(project, capsys, "--session", shown, "--json")
    data = json.loads(only)
    assert code == 0 and data["recent"] and {e["session_id"] for e in data["recent"]} == {SESSION}
    for bad in ("aborted=False", "error=None", "'None'", "['", "{'"):
        assert bad not in out
    assert 'agent stopped after 2 tool call(s): "fixed"' in out
    assert "verify pytest -q → exit 1" in out


def test_one_screen_shows_goal_todos_workflow_mode_and_verdict(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = status(project, capsys)
    lines = {
        line.split()[0]: line for line in out.splitlines() if line.startswith("  ") and line.split()
    }
    assert "`pytest -q` passes — complete, verify: pytest -q" in lines["Goal"]
    assert "1 pending" in lines["Todos"] and "refused: #1" in lines["Todos"]
    assert lines["Workflow"].split()[1:] == ["none"] and lines["Mode"].split()[1:] == ["off"]
    assert "proven" in lines["Verdict"]
    _, raw, _ = status(project, capsys, "--json")
    focus = json.loads(raw)["session"]
    assert focus["session_id"] == SESSION and focus["verdict"]["state"] == "proven"


def test_an_ambiguous_or_unknown_prefix_is_an_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(project)
    with store.transaction() as conn:
        journal.append(conn, SESSION[:2] + "-twin", 1.0, "event", {})
    store.close()
    code, _, err = status(project, capsys, "--session", SESSION[:2])
    assert code == 2 and SESSION in err and SESSION[:2] + "-twin" in err
    code, _, err = status(project, capsys, "--session", "nope")
    assert code == 4 and "no session starts with 'nope'" in err


def test_agent_control_characters_never_reach_the_terminal(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(project)
    with store.transaction() as conn:
        journal.append(
            conn, SESSION, 2e9, "event", {"type": "UserPrompt", "text_head": "a\x1b[2Jb"}
        )
    store.close()
    _, out, _ = status(project, capsys)
    assert "\x1b" not in out and "a\ufffd[2Jb" in out


def goalkeeper(project: Path, *args: str, **kw: object) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    env.update(kw.pop("env", {}))  # type: ignore[arg-type]
    return subprocess.Popen(
        [sys.executable, "-m", "goalkeeper", "-C", str(project), "status", *args],
        env=env,
        **kw,  # type: ignore[arg-type]
    )


def on_a_terminal(project: Path, env: dict[str, str]) -> bytes:
    leader, follower = pty.openpty()
    proc = goalkeeper(project, stdout=follower, stderr=follower, env={**env, "TERM": "xterm"})
    os.close(follower)
    out = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 20)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    proc.wait(20)
    os.close(leader)
    return out


def test_colour_on_a_terminal_and_never_with_no_color_or_a_pipe(project: Path) -> None:
    assert b"\x1b[" in on_a_terminal(project, {})
    assert b"\x1b[" not in on_a_terminal(project, {"NO_COLOR": "1"})
    piped = goalkeeper(project, stdout=subprocess.PIPE)
    out, _ = piped.communicate(timeout=30)
    assert b"\x1b[" not in out and b"Verdict" in out


def read_lines(proc: subprocess.Popen[bytes], want: int, timeout: float = 20) -> list[str]:
    """Whole lines from the process's stdout, read unbuffered: two lines that arrive in one
    chunk are both returned (a buffered ``readline`` after ``select`` would hide the second)."""
    assert proc.stdout is not None
    fd, pending, lines = proc.stdout.fileno(), b"", []
    deadline = time.monotonic() + timeout
    while len(lines) < want and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.2)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            pending += chunk
            *done, pending = pending.split(b"\n")
            lines += [d.decode() for d in done]
    return lines


def test_follow_prints_new_entries_as_they_happen_and_stops_on_ctrl_c(project: Path) -> None:
    """--follow --json: one JSON object a line for each entry written after it started."""
    proc = goalkeeper(project, "--follow", "--json", "--limit", "1", stdout=subprocess.PIPE)
    try:
        first = read_lines(proc, 1)
        assert json.loads(first[0])["kind"] == "decision"  # the last one, then live
        time.sleep(0.3)
        from goalkeeper.config import Config
        from goalkeeper.engine.supervisor import Supervisor
        from goalkeeper.testing import CLAUDE_CAPABILITIES

        sup = Supervisor(
            project,
            Config(no_plan="silent", lang="en"),
            host="claude",
            capabilities=CLAUDE_CAPABILITIES,
        )
        sup.handle([Settled(SESSION, "more <b>work</b>", activity=Activity(tool_calls=1))])
        sup.store.close()
        live = [json.loads(line) for line in read_lines(proc, 2)]
        assert live[0]["kind"] == "event" and "more <b>work</b>" in live[0]["text"]
        assert all(e["session_id"] == SESSION for e in live)
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(20)
    assert code == 0
