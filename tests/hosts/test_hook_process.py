"""`goalkeeper hook claude` as Claude Code runs it: a fresh process, bad input included."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from goalkeeper.hosts.hook_channel import ensure_secret, secret_path, socket_path
from goalkeeper.hosts.hook_client import ask_server, encode_request, seal_request
from goalkeeper.hosts.transport.hook_server import (
    WATCH_EVERY_S,
    HookServer,
    SourceWatcher,
    server_pid,
)

from ..hook_answers import assert_no_internal_error


def hook(
    project: Path, payload: bytes, *args: str, **env: str
) -> subprocess.CompletedProcess[bytes]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GOALKEEPER_")}
    environ.update({"CLAUDE_PROJECT_DIR": str(project), "GOALKEEPER_SERVER": "off", **env})
    return subprocess.run(
        [sys.executable, "-m", "goalkeeper", "hook", *(args or ("claude",))],
        input=payload,
        capture_output=True,
        cwd=project,
        env=environ,
        timeout=60,
        check=False,
    )


def stop(text: str = "[PDCA] do") -> bytes:
    return json.dumps(
        {"hook_event_name": "Stop", "session_id": "s", "last_assistant_message": text}
    ).encode()


def answer_of(proc: subprocess.CompletedProcess[bytes]) -> dict[str, object]:
    assert proc.returncode == 0
    assert b"Traceback" not in proc.stderr
    value = json.loads(proc.stdout)
    assert isinstance(value, dict)
    assert_no_internal_error(value)
    return value


def write_plan(project: Path, data: bytes) -> None:
    (project / "plan").mkdir(exist_ok=True)
    (project / "plan" / "topic.md").write_bytes(data)


def test_binary_plan_never_blocks(tmp_path: Path) -> None:
    """A binary plan file: the agent may stop, the user is told why."""
    write_plan(tmp_path, b"\x00\x01\x02PNG\x00" * 1000)
    answer = answer_of(hook(tmp_path, stop("[PDCA] complete")))
    assert "decision" not in answer
    assert "binary file" in str(answer["systemMessage"])


def test_ten_megabyte_plan_never_blocks(tmp_path: Path) -> None:
    """A 10 MB plan file is refused as a plan with a clear message, quickly."""
    write_plan(tmp_path, b"- [ ] item\n" * (1024 * 1024))
    started = time.monotonic()
    answer = answer_of(hook(tmp_path, stop("[PDCA] complete")))
    assert time.monotonic() - started < 10
    assert "decision" not in answer
    assert "larger than the 4 MB" in str(answer["systemMessage"])


def test_invalid_utf8_plan_is_used_with_a_notice(tmp_path: Path) -> None:
    """Invalid UTF-8: the plan still counts (its open KR holds the gate), and the user is told."""
    write_plan(tmp_path, b"## Key Results\n- [ ] KR1: caf\xe9 0 \xe2\x86\x92 1\n")
    answer = answer_of(hook(tmp_path, stop("[PDCA] complete")))
    assert answer["decision"] == "block" and "KR1: caf" in str(answer["reason"])
    assert "invalid UTF-8 at byte" in str(answer["systemMessage"])


@pytest.mark.parametrize("payload", [b"", b"{", b"\xff\xfe\x00", b"null", b"[]"])
def test_malformed_input_is_answered_not_crashed(tmp_path: Path, payload: bytes) -> None:
    """Malformed hook input: exit 0, one JSON answer with a systemMessage, no traceback."""
    answer = answer_of(hook(tmp_path, payload))
    assert set(answer) == {"systemMessage"}


def test_unknown_host_is_a_non_blocking_error(tmp_path: Path) -> None:
    """A wrong host name exits 1 (never 2, which would block the agent) and says why."""
    proc = hook(tmp_path, stop(), "vscode")
    assert proc.returncode == 1 and proc.stdout == b""
    assert b"unknown hook host 'vscode'" in proc.stderr


def test_the_first_hook_starts_a_warm_engine_that_answers_the_next(tmp_path: Path) -> None:
    """With server = auto the first event is handled in-process and starts the engine; the next
    events are answered by it with the same answers."""
    write_plan(tmp_path, b"## Key Results\n- [ ] KR1: one 0 -> 1\n")
    env = {"GOALKEEPER_SERVER": "auto", "GOALKEEPER_SERVER_IDLE_S": "20"}
    try:
        first = answer_of(hook(tmp_path, stop(), **env))
        deadline = time.monotonic() + 20
        while server_pid(tmp_path) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server_pid(tmp_path) is not None
        second = answer_of(hook(tmp_path, stop(), **env))
        assert first["reason"] == second["reason"]
        status = subprocess.run(
            [sys.executable, "-m", "goalkeeper", "-C", str(tmp_path), "status", "--json"],
            capture_output=True,
            check=True,
            timeout=60,
        )
        data = json.loads(status.stdout)
        assert data["server"]["running"] is True
        assert data["sessions"][0]["round"] == 2
    finally:
        subprocess.run(
            [sys.executable, "-m", "goalkeeper", "-C", str(tmp_path), "server", "stop"],
            timeout=60,
            check=False,
        )
    assert server_pid(tmp_path) is None
    assert not os.path.exists(socket_path(sys.prefix, str(tmp_path)))


def test_source_watcher_notices_changed_code(tmp_path: Path) -> None:
    """A running engine notices when goalkeeper's files change, so it never serves stale code."""
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    watcher = SourceWatcher(tmp_path)
    watcher.checked = 0.0
    assert not watcher.changed()
    (tmp_path / "a.py").write_text("x = 2\n", encoding="utf-8")
    os.utime(tmp_path / "a.py", ns=(1, 1))
    watcher.checked = 0.0
    assert watcher.changed()


def test_the_engine_leaves_when_its_code_changes_with_no_request_needed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine looks at goalkeeper's files while idle and after an answer, never while a hook
    waits: changed files stop it by themselves, and a request meanwhile gets ``STALE``."""
    monkeypatch.setenv("GOALKEEPER_RUNTIME_DIR", str(tmp_path / "rt"))
    monkeypatch.setattr("goalkeeper.store.db.POOL", None)  # the server's pool ends with the test
    project = tmp_path / "p"
    (project / "plan").mkdir(parents=True)
    sources = tmp_path / "src"
    sources.mkdir()
    (sources / "a.py").write_text("x = 1\n", encoding="utf-8")
    server = HookServer(project, idle_s=60)
    server.watcher = SourceWatcher(sources)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not os.path.exists(server.path + ".pid") and time.monotonic() < deadline:
        time.sleep(0.02)
    start = b'{"hook_event_name":"SessionStart","session_id":"s1","source":"startup"}'
    request = encode_request("claude", str(project), {"CLAUDE_PROJECT_DIR": str(project)}, start)
    secret = ensure_secret(secret_path(os.environ))
    assert isinstance(secret, bytes)
    assert ask_server(server.path, request, secret, 30) is not None  # served
    os.utime(sources / "a.py", ns=(1, 1))
    thread.join(timeout=WATCH_EVERY_S + 10)
    assert not thread.is_alive()  # gone without another request
    assert not os.path.exists(server.path)
    ours, theirs = socket.socketpair()  # a request that comes once the files have changed
    with ours, theirs:
        theirs.sendall(seal_request(secret, request, os.urandom(16), time.time() + 60))
        theirs.shutdown(socket.SHUT_WR)
        assert server._take(ours) is None  # not taken: the client answers it itself
        assert theirs.recv(100) == b"STALE\n"
