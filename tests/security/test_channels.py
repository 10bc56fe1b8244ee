"""Issue 21, item 2: channels that prove their origin.

The agent has a shell running as the same user. It may put its own listener where the warm
engine's socket is (answering ``{}`` to switch goalkeeper off, or never answering to make every
hook wait), talk to the engine itself with a forged event, or start its own ``goalkeeper mcp``
and answer the approval form. Each forgery fails here; each has a control in which the same
step, taken by the host (or the user), works.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from goalkeeper.hosts.hook_client import (
    OK_GRACE_S,
    OK_WAIT_S,
    decode_reply,
    encode_request,
    seal_request,
)
from goalkeeper.store.db import Store
from goalkeeper.store.sessions import get_session
from tests.bwrap_support import require_bwrap
from tests.hosts.mcp_support import RELAY
from tests.hosts.test_hook_transport import (
    STOP,
    clean_env,
    run_hook,
    sock_path,
    stop_engine,
    the_secret,
    warm_server,
)
from tests.hosts.test_mcp_server import _approve, _held, _held_goal, accept

pytestmark = [
    pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux peer credentials"),
]


class StandIn:
    """The agent's listener at the engine's socket path: answers every connection with
    ``reply``, or with nothing at all, holding the connection open (``reply=None``)."""

    def __init__(self, path: Path, reply: bytes | None) -> None:
        self.reply = reply
        self.held: list[socket.socket] = []
        self.served = 0
        path.unlink(missing_ok=True)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        self.listener.listen(16)
        self.listener.settimeout(0.1)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.served += 1
            if self.reply is None:
                self.held.append(conn)  # never a word, never closed
                continue
            with conn:
                conn.settimeout(10)
                try:
                    while conn.recv(65536):
                        pass
                    conn.sendall(self.reply)
                except OSError:
                    pass

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=10)
        self.listener.close()
        for conn in self.held:
            conn.close()


def stop(session: str) -> bytes:
    """A Stop of ``session``, whose answer is goalkeeper's continuation (a first Stop)."""
    return STOP.replace(b'"s"', json.dumps(session).encode())


def project_and_runtime(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "p"
    (project / "plan").mkdir(parents=True)
    runtime = tmp_path / "rt"
    runtime.mkdir(mode=0o700)
    return project, runtime


def timed_hook(project: Path, env: dict[str, str], payload: bytes) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    answer = run_hook(project, env, payload, timeout=120)
    return answer, time.monotonic() - started


# -- a stand-in listener --------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        b"{}",
        b"OK\n2\n{}",  # the previous protocol's framing
        b"OK " + b"ab" * 32 + b"\n2 " + b"cd" * 32 + b"\n{}",  # this one's, without the secret
    ],
    ids=["bare", "old-ok", "unproven-ok"],
)
def test_a_stand_in_answering_empty_does_not_switch_goalkeeper_off(
    tmp_path: Path, reply: bytes
) -> None:
    """The stand-in answers ``{}``: the hook still gives goalkeeper's own answer to the Stop
    (the continuation), handled in-process. Control: the genuine engine gives that answer."""
    project, runtime = project_and_runtime(tmp_path)
    env = clean_env(project, runtime)
    with warm_server(project, env, tmp_path / "engine.log"):
        genuine, _ = timed_hook(project, env, stop("control"))
        assert not Path(f"{sock_path(runtime, project)}.spawn").exists()  # the engine answered
    stand_in = StandIn(sock_path(runtime, project), reply)
    try:
        answer, elapsed = timed_hook(project, env, stop("stand-in"))
    finally:
        stand_in.close()
        time.sleep(0.5)
        stop_engine(project, env)
    assert stand_in.served >= 1  # the hook did ask it
    assert genuine.get("decision") == "block"
    assert answer.get("decision") == "block" and answer != {}
    assert answer["reason"] == genuine["reason"]
    assert elapsed < 30


def test_a_stand_in_that_never_answers_costs_a_hook_at_most_the_ok_wait(tmp_path: Path) -> None:
    """The stand-in takes the connection and says nothing. The Stop hook (whose answer may
    take 590 s once the engine has said OK) waits for OK only ``OK_WAIT_S`` (+ grace), then
    answers in-process with goalkeeper's real answer."""
    project, runtime = project_and_runtime(tmp_path)
    env = clean_env(project, runtime)
    the_secret()
    stand_in = StandIn(sock_path(runtime, project), None)
    try:
        answer, elapsed = timed_hook(project, env, stop("stand-in"))
    finally:
        stand_in.close()
        time.sleep(0.5)
        stop_engine(project, env)
    assert stand_in.served == 1
    assert answer.get("decision") == "block"
    assert OK_WAIT_S + OK_GRACE_S <= 2  # a short wait, not the Stop's 590 s
    assert OK_WAIT_S <= elapsed < 10, elapsed  # the wait, then an in-process answer


def test_the_engine_takes_its_socket_back_from_a_stand_in(tmp_path: Path) -> None:
    """A stand-in bound over the running engine's socket is replaced by the engine within its
    accept timeout; the next hook is answered by the engine again (no in-process fallback)."""
    project, runtime = project_and_runtime(tmp_path)
    env = clean_env(project, runtime)
    path = sock_path(runtime, project)
    with warm_server(project, env, tmp_path / "engine.log"):
        stand_in = StandIn(path, b"{}")
        taken = _inode(path)  # the stand-in's socket
        try:
            deadline = time.monotonic() + 10
            while _inode(path) in (taken, -1):
                assert time.monotonic() < deadline, "the engine never took its socket back"
                time.sleep(0.05)
            answer = run_hook(project, env, stop("after"))
        finally:
            stand_in.close()
        assert stand_in.served == 0
        assert answer.get("decision") == "block"
        assert not Path(f"{path}.spawn").exists()  # the engine answered, not the hook itself


def _inode(path: Path) -> int:
    try:
        return path.lstat().st_ino
    except OSError:
        return -1


# -- a forged client ------------------------------------------------------------------------

FORGED = json.dumps(
    {"hook_event_name": "SessionStart", "session_id": "forged", "source": "startup"}
).encode()


def send_raw(path: Path, data: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(30)
        conn.connect(str(path))
        conn.sendall(data)
        conn.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def has_session(project: Path, session: str) -> bool:
    store = Store(project)
    try:
        if not store.exists():
            return False
        return get_session(store.connection(), session) is not None
    finally:
        store.close()


def test_a_client_without_the_secret_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    """The agent connects to the engine and sends a forged event: in the previous protocol (no
    proof), and in this one with a secret of its own. The engine answers ``ERR`` and runs
    nothing: no session appears. Control: the host's hook, sending the same event, is answered
    by the engine and the session is there."""
    project, runtime = project_and_runtime(tmp_path)
    env = clean_env(project, runtime)
    path = sock_path(runtime, project)
    body = encode_request("claude", str(project), {"CLAUDE_PROJECT_DIR": str(project)}, FORGED)
    with warm_server(project, env, tmp_path / "engine.log"):
        old = send_raw(path, b"GK2\n" + body)
        own_secret = send_raw(path, seal_request(os.urandom(32), body, os.urandom(16), 1e10))
        assert old.startswith(b"ERR ") and own_secret.startswith(b"ERR ")
        assert not has_session(project, "forged")
        run_hook(project, env, FORGED)  # control: the host's hook
        assert not Path(f"{path}.spawn").exists()  # answered by the engine
    assert has_session(project, "forged")


def test_a_request_is_taken_once_and_not_after_its_deadline(tmp_path: Path) -> None:
    """Exactly once, not proof (``hook_channel`` says why): the same request again is refused,
    so is one sent after its deadline for ``OK`` (its client answered in-process by then)."""
    project, runtime = project_and_runtime(tmp_path)
    env = clean_env(project, runtime)
    path = sock_path(runtime, project)
    body = encode_request("claude", str(project), {"CLAUDE_PROJECT_DIR": str(project)}, FORGED)
    with warm_server(project, env, tmp_path / "engine.log"):
        secret = the_secret()
        request = seal_request(secret, body, os.urandom(16), time.time() + 30)
        first = send_raw(path, request)
        again = send_raw(path, request)
        late = send_raw(path, seal_request(secret, body, os.urandom(16), time.time() - 1))
    assert decode_reply(first, secret) is not None  # control: taken and answered
    assert again.startswith(b"ERR ") and late.startswith(b"ERR ")


SEALED_CLIENT = """
import json, socket, sys, time, os
from goalkeeper.hosts.hook_client import seal_request
path, secret, body = sys.argv[1], bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3])
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
    conn.settimeout(30)
    conn.connect(path)
    try:
        conn.sendall(seal_request(secret, body, os.urandom(16), time.time() + 30))
        conn.shutdown(socket.SHUT_WR)
        got = b"".join(iter(lambda: conn.recv(65536), b""))
    except OSError:
        got = b""
sys.stdout.write(got[:3].decode("latin-1"))
"""


def test_a_client_in_codexs_sandbox_is_refused_even_with_the_secret(tmp_path: Path) -> None:
    """Codex's workspace-write lets the agent's shell read goalkeeper's secret and open unix
    sockets; the commands it runs there carry ``CODEX_SANDBOX_NETWORK_DISABLED=1``. A client
    that proves the secret from such a shell is not read (no session appears); the same client
    outside the sandbox, as Codex's hooks run, is answered."""
    project, runtime = project_and_runtime(tmp_path)
    env = clean_env(project, runtime)
    path = sock_path(runtime, project)
    body = encode_request("codex", str(project), {}, FORGED)
    with warm_server(project, env, tmp_path / "engine.log"):
        secret = the_secret()

        def client(**marker: str) -> str:
            argv = [sys.executable, "-c", SEALED_CLIENT, str(path), secret.hex(), body.hex()]
            done = subprocess.run(
                argv, env={**env, **marker}, capture_output=True, text=True, timeout=60
            )
            assert done.returncode == 0, done.stderr
            return done.stdout

        assert client(CODEX_SANDBOX_NETWORK_DISABLED="1") == ""  # closed unread
        assert not has_session(project, "forged")
        assert client() == "OK "  # control: the host's side is taken
    assert has_session(project, "forged")


@pytest.mark.parametrize("sandbox", ["no_new_privs", "namespaces"])
def test_a_client_confined_apart_from_the_engine_is_refused_without_any_marker(
    tmp_path: Path, sandbox: str
) -> None:
    """Codex with ``network_access = true`` sets no marker, but its sandbox (bubblewrap, as
    Claude Code's) runs the agent's commands in new user, mount and pid namespaces with
    ``no_new_privs`` and a seccomp filter (seen on the real Codex 0.171:
    ``tests/e2e/test_codex_sandbox.py``). A client with the secret, confined either way and
    with no marker at all, is closed unread; the same client unconfined is taken."""
    project, runtime = project_and_runtime(tmp_path)
    env = clean_env(project, runtime)
    path = sock_path(runtime, project)
    body = encode_request("codex", str(project), {}, FORGED)
    if sandbox == "namespaces":
        bwrap = require_bwrap()
        wrap = [bwrap, "--dev-bind", "/", "/", "--unshare-user", "--unshare-pid", "--"]
    else:
        wrap = ["setpriv", "--no-new-privs", "--"]
    with warm_server(project, env, tmp_path / "engine.log"):
        secret = the_secret()
        argv = [sys.executable, "-c", SEALED_CLIENT, str(path), secret.hex(), body.hex()]

        def client(prefix: list[str]) -> str:
            done = subprocess.run(
                [*prefix, *argv], env=env, capture_output=True, text=True, timeout=60
            )
            assert done.returncode == 0, done.stderr
            return done.stdout

        assert client(wrap) == ""  # closed unread
        assert not has_session(project, "forged")
        assert client([]) == "OK "  # control: unconfined, as the host's hooks run
    assert has_session(project, "forged")


# -- the agent's own MCP server -------------------------------------------------------------

UNPROVEN = "was not started by the agent's host"


def test_an_mcp_server_the_agent_started_cannot_approve(tmp_path: Path) -> None:
    """The agent starts ``goalkeeper mcp`` itself (its process is the server's parent), calls
    ``goal_approval`` and would accept the form: no form is shown, the goal stays held, and the
    reply says why. Control: on the server the host started, the user's accept approves."""
    _held_goal(tmp_path)
    seen: list[Any] = []
    answer = accept(answer="Accept the change")
    text = anyio.run(_approve, tmp_path, answer, {}, seen, "legacy", False)
    assert seen == [] and _held(tmp_path)
    assert UNPROVEN in text and "its parent process is" in text
    text = anyio.run(_approve, tmp_path, answer, {}, seen, "legacy", True)
    assert len(seen) == 1 and text.startswith("The user approved the goal")
    assert not _held(tmp_path)


def test_an_mcp_server_in_the_sandbox_cannot_approve_even_under_a_host_named_parent(
    tmp_path: Path,
) -> None:
    """Inside a sandbox that denies goalkeeper's state home (bubblewrap binds an empty read-only
    folder over it, as Claude Code's sandbox denies a folder), a server whose parent even looks
    like the host cannot read or make the secret: no form, the goal stays held. Control: the
    same bubblewrap without the denied folder approves."""
    bwrap = require_bwrap()
    _held_goal(tmp_path)
    state_home = Path(os.environ["XDG_STATE_HOME"]) / "goalkeeper"
    state_home.mkdir(parents=True, exist_ok=True, mode=0o700)
    empty = tmp_path / "empty"
    empty.mkdir(mode=0o700)
    answer = accept(answer="Accept the change")
    seen: list[Any] = []
    denied = ["--ro-bind", str(empty), str(state_home)]
    text = anyio.run(_approve_in, bwrap, denied, tmp_path, answer, seen)
    assert seen == [] and _held(tmp_path)
    assert UNPROVEN in text and "cannot read goalkeeper's secret" in text
    text = anyio.run(_approve_in, bwrap, [], tmp_path, answer, seen)
    assert len(seen) == 1 and text.startswith("The user approved the goal")
    assert not _held(tmp_path)


async def _approve_in(
    bwrap: str, denied: list[str], project: Path, answer: Any, seen: list[Any]
) -> str:
    """``goal_approval`` on a server started in bubblewrap under a host-named relay."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def on_elicit(context: Any, params: Any) -> Any:
        seen.append(params)
        return answer

    server = [sys.executable, "-m", "goalkeeper", "-C", str(project), "mcp"]
    script = 'c=$1; shift; exec -a claude "$0" -c "$c" "$@"'
    relay = ["bash", "-c", script, sys.executable, RELAY, *server]
    params = StdioServerParameters(
        command=bwrap,
        args=["--dev-bind", "/", "/", *denied, "--", *relay],
        env={
            "PATH": os.environ.get("PATH", ""),
            "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"],
            "GOALKEEPER_LANG": "en",
        },
    )
    async with (
        stdio_client(params) as streams,
        ClientSession(streams[0], streams[1], elicitation_callback=on_elicit) as session,
    ):
        await session.initialize()
        result = await session.call_tool("goal_approval", {"session": "s1"})
        return result.content[0].text  # type: ignore[union-attr]
