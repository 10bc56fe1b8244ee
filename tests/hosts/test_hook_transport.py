"""The hook transport: a private runtime folder, peer credentials, only goalkeeper's variables on
the wire, and an event that runs exactly once even when the warm engine dies mid-event."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from goalkeeper.hosts.hook_channel import (
    ensure_secret,
    make_runtime_dir,
    open_private,
    runtime_problem,
    secret_path,
)
from goalkeeper.hosts.hook_client import (
    FORWARDED_NAMES,
    PROTOCOL,
    _no_answer,
    ask_server,
    decode_reply,
    decode_request,
    encode_request,
    forwarded_env,
    frame_answer,
    ok_line,
    open_request,
    peer_uid,
    runtime_dir,
    seal_request,
    server_key,
)
from goalkeeper.hosts.transport.hook_server import server_pid
from goalkeeper.store.db import Store, state_path
from goalkeeper.store.sessions import get_session

from ..hook_answers import assert_no_internal_error

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")

STOP = json.dumps(
    {"hook_event_name": "Stop", "session_id": "s", "last_assistant_message": "[PDCA] do"}
).encode()
START = json.dumps(
    {"hook_event_name": "SessionStart", "session_id": "s", "source": "startup"}
).encode()


def clean_env(project: Path, runtime: Path, **extra: str) -> dict[str, str]:
    """This process's environment without goalkeeper's or Claude Code's variables (CLAUDECODE
    would mark the commands as the agent's), plus the project, the runtime folder and ``extra``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GOALKEEPER_", "CLAUDE", "PI_TODONE_", "XDG_RUNTIME_DIR"))
    }
    env.update(
        CLAUDE_PROJECT_DIR=str(project),
        GOALKEEPER_RUNTIME_DIR=str(runtime),
        GOALKEEPER_SERVER="auto",
        GOALKEEPER_SERVER_IDLE_S="60",
    )
    env.update(extra)
    return env


def stop_engine(project: Path, env: dict[str, str]) -> None:
    """Stop an engine a hook may have started for ``project`` (by its pid file)."""
    subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(project), "server", "stop"],
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )


def run_hook(
    project: Path, env: dict[str, str], payload: bytes, timeout: float = 60
) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "hook", "claude"],
        input=payload,
        capture_output=True,
        cwd=project,
        env=env,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    answer = json.loads(proc.stdout)
    assert isinstance(answer, dict)
    assert_no_internal_error(answer, project)
    return answer


def sock_path(runtime: Path, project: Path) -> Path:
    return runtime / (server_key(sys.prefix, str(project)) + ".sock")


@contextmanager
def warm_server(project: Path, env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``goalkeeper serve`` for ``project``, listening; stopped through its handle on exit."""
    path = sock_path(Path(env["GOALKEEPER_RUNTIME_DIR"]), project)
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "goalkeeper",
                "serve",
                "--project",
                str(project),
                "--idle",
                "60",
            ],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=project,
            env=env,
        )
    try:
        deadline = time.monotonic() + 30
        while not (path.exists() and Path(f"{path}.pid").exists()):
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.02)
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def the_secret() -> bytes:
    """goalkeeper's secret in this test's state home (made if need be), as a hook reads it."""
    secret = ensure_secret(secret_path(os.environ))
    assert isinstance(secret, bytes)
    return secret


def proven(answer: bytes | None, *, frame: bytes | None = None) -> Callable[[bytes], bytes]:
    """A reply to a request that shows the secret, as the engine's is: ``OK`` with the engine's
    half and, unless ``answer`` is None, the framed ``answer`` (or ``frame``, as given)."""

    def reply(request: bytes) -> bytes:
        secret = the_secret()
        open_request(request, secret)
        if answer is None:
            return ok_line(secret) + (frame or b"")
        return ok_line(secret) + frame_answer(answer)

    return reply


class FakeServer:
    """A listener at a socket path that records what it reads and sends a reply: fixed bytes,
    or what a function makes of the request."""

    def __init__(self, path: Path, reply: bytes | Callable[[bytes], bytes]) -> None:
        self.reply = reply
        self.requests: list[bytes] = []
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        self.listener.listen(8)
        self.listener.settimeout(30)
        self.thread = threading.Thread(target=self._serve_one, daemon=True)
        self.thread.start()

    def _serve_one(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        with conn:
            chunks = []
            while chunk := conn.recv(65536):
                chunks.append(chunk)
            self.requests.append(b"".join(chunks))
            reply = self.reply(self.requests[-1]) if callable(self.reply) else self.reply
            if reply:
                conn.sendall(reply)

    def close(self) -> None:
        self.listener.close()
        self.thread.join(timeout=10)


# -- the private runtime folder --------------------------------------------------------------


def test_runtime_dir_follows_the_override_then_xdg_then_the_state_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GOALKEEPER_RUNTIME_DIR wins; else $XDG_RUNTIME_DIR/goalkeeper when that is a private
    folder outside every temp folder; else run/ in goalkeeper's state home, never /tmp."""
    from goalkeeper.store.locations import state_home

    monkeypatch.delenv("GOALKEEPER_RUNTIME_DIR", raising=False)
    xdg = Path("/run/user") / str(os.getuid())  # not under a temp folder
    if xdg.is_dir() and xdg.stat().st_mode & 0o077 == 0 and xdg.stat().st_uid == os.getuid():
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(xdg))
        assert runtime_dir() == str(xdg / "goalkeeper")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))  # tmp_path is under /tmp
    tmp_path.chmod(0o700)
    assert runtime_dir() == str(state_home() / "run")
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert runtime_dir() == str(state_home() / "run")
    assert not runtime_dir().startswith("/tmp/goalkeeper-")
    monkeypatch.setenv("GOALKEEPER_RUNTIME_DIR", str(tmp_path / "rt"))
    assert runtime_dir() == str(tmp_path / "rt")


@pytest.mark.parametrize(
    "env",
    [
        {"HOME": "/home/u"},
        {"HOME": "/home/u/"},
        {"HOME": "/home/u", "XDG_STATE_HOME": "/var/state/"},
        {"HOME": "/home/u", "XDG_STATE_HOME": "  /var//state/./x "},
        {"HOME": "/home/u", "GOALKEEPER_STATE_HOME": "/srv/gk/"},
        {"HOME": "/home/u", "GOALKEEPER_STATE_HOME": "~/gk", "XDG_STATE_HOME": "/x"},
        {"HOME": "/home/u", "GOALKEEPER_STATE_HOME": "~", "XDG_STATE_HOME": "/x"},
        {"HOME": "/home/u", "GOALKEEPER_STATE_HOME": "relative/gk"},
        {"HOME": "/home/u", "GOALKEEPER_STATE_HOME": " ", "XDG_STATE_HOME": ""},
    ],
)
def test_the_lean_clients_state_home_is_the_locations_module_s(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook client cannot import ``pathlib``, so it names the state home itself: the same
    folder as ``store.locations.state_home`` for every spelling of the variables."""
    from goalkeeper.hosts.hook_channel import state_home as lean
    from goalkeeper.store.locations import state_home

    for key in ("HOME", "XDG_STATE_HOME", "GOALKEEPER_STATE_HOME"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)  # os.path.expanduser reads the process's HOME
    assert lean(env) == str(state_home(env))


def test_a_socket_path_longer_than_an_address_holds_still_works(tmp_path: Path) -> None:
    """A deep state home makes the socket path longer than ``sun_path`` (107 bytes): the
    engine binds and the hook connects through the folder's descriptor, and the engine
    answers (no fallback in-process); nothing moves to a short folder such as /tmp."""
    project = tmp_path / "p"
    project.mkdir()
    runtime = tmp_path / ("deep-" + "x" * 100) / "run"
    runtime.mkdir(parents=True, mode=0o700)
    env = clean_env(project, runtime)
    assert len(os.fsencode(sock_path(runtime, project))) > 107
    with warm_server(project, env, tmp_path / "engine.log"):
        answer = run_hook(project, env, STOP)
        assert not Path(f"{sock_path(runtime, project)}.spawn").exists()
    assert answer.get("decision") == "block"


def test_a_new_runtime_folder_is_created_private(tmp_path: Path) -> None:
    """A missing folder is no problem yet; creating it gives a 0700 directory that passes."""
    folder = tmp_path / "rt"
    assert runtime_problem(str(folder)) is None
    assert make_runtime_dir(str(folder)) is None
    assert folder.stat().st_mode & 0o777 == 0o700
    assert make_runtime_dir(str(folder)) is None  # an existing private folder is fine


@pytest.mark.parametrize("mode", [0o777, 0o755, 0o750, 0o701, 0o770])
def test_a_folder_others_can_open_is_refused(tmp_path: Path, mode: int) -> None:
    """Any group or other permission bit makes the folder not private, named with its mode."""
    folder = tmp_path / "rt"
    folder.mkdir()
    folder.chmod(mode)
    problem = runtime_problem(str(folder))
    assert problem is not None and problem[0] == str(folder) and problem[2] & 0o777 == mode
    assert make_runtime_dir(str(folder)) == problem


def test_a_symlink_or_a_file_is_not_a_runtime_folder(tmp_path: Path) -> None:
    """A symlink to a private folder is refused (lstat), and so is a regular file."""
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "rt"
    link.symlink_to(real)
    assert runtime_problem(str(link)) is not None
    plain = tmp_path / "plain"
    plain.write_text("x")
    plain.chmod(0o600)
    assert runtime_problem(str(plain)) is not None


def test_a_parent_others_may_write_needs_the_sticky_bit(tmp_path: Path) -> None:
    """In a parent anyone may write, only the sticky bit keeps others from renaming it away."""
    parent = tmp_path / "shared"
    parent.mkdir()
    folder = parent / "rt"
    folder.mkdir(mode=0o700)
    parent.chmod(0o777)
    problem = runtime_problem(str(folder))
    assert problem is not None and problem[0] == str(parent)
    parent.chmod(0o1777)
    assert runtime_problem(str(folder)) is None


def test_files_in_the_folder_are_never_opened_through_a_symlink(tmp_path: Path) -> None:
    """``open_private`` refuses a symlink and creates new files with mode 0600."""
    target = tmp_path / "precious.txt"
    target.write_text("precious\n")
    (tmp_path / "x.spawn").symlink_to(target)
    with pytest.raises(OSError):
        open_private(str(tmp_path / "x.spawn"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    assert target.read_text() == "precious\n"
    fd = open_private(str(tmp_path / "x.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    os.close(fd)
    assert (tmp_path / "x.log").stat().st_mode & 0o777 == 0o600


def test_a_planted_spawn_symlink_is_not_followed_and_no_server_starts(tmp_path: Path) -> None:
    """A symlink at the spawn stamp (even in a private folder): the hook answers in-process,
    the target is untouched, and no engine is started."""
    project = tmp_path / "p"
    project.mkdir()
    runtime = tmp_path / "rt"
    runtime.mkdir(mode=0o700)
    target = tmp_path / "precious.txt"
    target.write_text("precious\n")
    Path(f"{sock_path(runtime, project)}.spawn").symlink_to(target)
    answer = run_hook(project, clean_env(project, runtime), STOP)
    assert answer.get("decision") == "block"  # the engine's real answer, in-process
    assert target.read_text() == "precious\n"
    time.sleep(0.5)
    assert not sock_path(runtime, project).exists()


def test_an_unsafe_folder_means_in_process_with_a_warning_at_session_start(
    tmp_path: Path,
) -> None:
    """A 0777 runtime folder: the client never connects (a listener there gets nothing), starts
    no engine, and its SessionStart answer names the folder."""
    project = tmp_path / "p"
    project.mkdir()
    runtime = tmp_path / "rt"
    runtime.mkdir()
    runtime.chmod(0o777)
    fake = FakeServer(sock_path(runtime, project), proven(b"{}"))
    the_secret()
    try:
        env = clean_env(project, runtime, GOALKEEPER_LANG="en")
        answer = run_hook(project, env, START)
        assert str(runtime) in str(answer["systemMessage"])
        assert "0777" in str(answer["systemMessage"])
        assert run_hook(project, env, STOP).get("decision") == "block"  # in-process
    finally:
        fake.close()
    assert fake.requests == []
    assert sorted(p.name for p in runtime.iterdir()) == [sock_path(runtime, project).name]


def test_the_server_refuses_to_serve_from_an_unsafe_folder(tmp_path: Path) -> None:
    """``goalkeeper serve`` in a folder others can open exits 1, says why, and binds nothing."""
    project = tmp_path / "p"
    project.mkdir()
    runtime = tmp_path / "rt"
    runtime.mkdir()
    runtime.chmod(0o755)
    proc = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "serve", "--project", str(project), "--idle", "5"],
        capture_output=True,
        env=clean_env(project, runtime),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1
    assert b"not private" in proc.stderr and os.fsencode(runtime) in proc.stderr
    assert list(runtime.iterdir()) == []


def test_server_pid_ignores_an_unsafe_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pid file in a folder others can write names nothing (``server stop`` would signal it)."""
    runtime = tmp_path / "rt"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("GOALKEEPER_RUNTIME_DIR", str(runtime))
    Path(f"{sock_path(runtime, tmp_path)}.pid").write_text(str(os.getpid()))
    assert server_pid(tmp_path) == os.getpid()
    runtime.chmod(0o777)
    assert server_pid(tmp_path) is None


# -- peer credentials and forwarded variables ------------------------------------------------


def test_peer_uid_is_this_users_on_a_socket_pair() -> None:
    """On Linux and macOS both ends of a socket pair report this process's uid."""
    if not (sys.platform.startswith("linux") or sys.platform == "darwin"):
        pytest.skip("peer credentials are read on Linux and macOS only")
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with a, b:
        assert peer_uid(a) == os.getuid() == peer_uid(b)


def test_only_goalkeepers_variables_are_forwarded() -> None:
    """GOALKEEPER_*, PI_TODONE_* and the host variables the engine reads (three of Claude
    Code's, Codex's home, Gemini CLI's project); never a token or any other CLAUDE_* / GEMINI_*
    / CODEX_* variable."""
    environ = {
        "GOALKEEPER_LANG": "zh",
        "PI_TODONE_STALL_THRESHOLD": "3",
        "CLAUDE_PROJECT_DIR": "/p",
        "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "50",
        "GEMINI_PROJECT_DIR": "/p",
        "GEMINI_API_KEY": "canary",
        "CODEX_HOME": "/root/.codex",
        "CODEX_API_KEY": "canary",
        "CLAUDE_CONFIG_DIR": "/root/.claude",
        "CLAUDE_CODE_OAUTH_TOKEN": "canary",
        "CLAUDE_CODE_SESSION_ID": "sess",
        "CLAUDECODE": "1",
        "ANTHROPIC_API_KEY": "canary",
        "HOME": "/root",
    }
    assert set(forwarded_env(environ)) == {
        "GOALKEEPER_LANG",
        "PI_TODONE_STALL_THRESHOLD",
        *FORWARDED_NAMES,
    }


def test_the_client_sends_no_token_to_the_server(tmp_path: Path) -> None:
    """Over the wire, the request holds the project and goalkeeper's variables, no token; the
    server's complete answer is printed as is."""
    project = tmp_path / "p"
    project.mkdir()
    runtime = tmp_path / "rt"
    runtime.mkdir(mode=0o700)
    reply = b'{"systemMessage": "from the server"}'
    secret = the_secret()
    fake = FakeServer(sock_path(runtime, project), proven(reply))
    env = clean_env(
        project,
        runtime,
        CLAUDE_CODE_OAUTH_TOKEN="canary-token",
        CLAUDE_CODE_SESSION_ID="canary-session",
        ANTHROPIC_API_KEY="canary-key",
        CLAUDE_CODE_STOP_HOOK_BLOCK_CAP="50",
    )
    try:
        answer = run_hook(project, env, STOP)
    finally:
        fake.close()
    assert answer == {"systemMessage": "from the server"}
    (request,) = fake.requests
    # Never the whole secret, and never the engine's half of it.
    server_half = secret[len(secret) // 2 :]
    assert b"canary" not in request and server_half not in request
    assert server_half.hex().encode() not in request
    host, cwd, sent, payload = decode_request(open_request(request, secret)[2])
    assert (host, cwd, payload) == ("claude", str(project), STOP)
    assert sent["CLAUDE_PROJECT_DIR"] == str(project)
    assert sent["CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"] == "50"
    assert sent["GOALKEEPER_RUNTIME_DIR"] == str(runtime)


# -- exactly once ----------------------------------------------------------------------------


SECRET = bytes(range(32))
NONCE = b"n" * 16


def test_request_and_reply_framing_round_trip() -> None:
    """A request decodes to what was encoded once it shows the secret; an answer framed after
    an OK that shows the engine's half comes back whole."""
    body = encode_request("claude", "/p", {"GOALKEEPER_LANG": "en"}, b'{"a": 1}')
    request = seal_request(SECRET, body, NONCE, 1e10)
    assert request.startswith(PROTOCOL + b" ")
    assert open_request(request, SECRET) == (NONCE, 1e10, body)
    assert decode_request(body) == ("claude", "/p", {"GOALKEEPER_LANG": "en"}, b'{"a": 1}')
    for answer in (b'{"a": 1}', b""):
        reply = ok_line(SECRET) + frame_answer(answer)
        assert decode_reply(reply, SECRET) == answer


def test_a_request_that_does_not_show_the_secret_is_refused() -> None:
    """Another secret, the engine's half instead of the client's, the previous protocol, a
    missing proof: ``ValueError``."""
    body = encode_request("claude", "/p", {}, b"{}")
    request = seal_request(SECRET, body, NONCE, 1e10)
    with pytest.raises(ValueError):
        open_request(request, bytes(32))
    swapped = request.replace(SECRET[:16].hex().encode(), SECRET[16:].hex().encode())
    assert swapped != request
    with pytest.raises(ValueError):
        open_request(swapped, SECRET)
    with pytest.raises(ValueError):
        open_request(request.replace(PROTOCOL, b"GK3", 1), SECRET)
    with pytest.raises(ValueError):
        open_request(b"GK2\n" + body, SECRET)


def test_a_stand_in_that_captured_a_request_cannot_pass_for_the_engine() -> None:
    """What a listener learns from a request (the client's half) is not what ``OK`` must show:
    echoing it back, or anything else a request carries, is "not taken"."""
    request = seal_request(SECRET, encode_request("claude", "/p", {}, b"{}"), NONCE, 1e10)
    for word in request.split(b"\n", 1)[0].split(b" "):
        assert decode_reply(b"OK " + word + b"\n2\n{}", SECRET) is None
    assert decode_reply(ok_line(SECRET) + b"2\n{}", SECRET) == b"{}"  # control: the engine


@pytest.mark.parametrize(
    "reply",
    [b"", b"STALE\n", b"OFF\n", b"ERR ValueError\n", b"OK\n2\n{}", b"OK " + b"0" * 64 + b"\n2\n{}"],
)
def test_not_taken_means_handled_in_process(reply: bytes) -> None:
    """Nothing back, a refusal, or an OK that does not prove the secret (a stand-in listener):
    not taken, so the caller runs the event itself."""
    assert decode_reply(reply, SECRET) is None


@pytest.mark.parametrize(
    "frame",
    [b"", b"14\n", b'14\n{"decision"', b"2\n{}}", b"xx\n{}", b"2 " + b"0" * 64 + b"\n{}"],
)
def test_taken_but_incomplete_lets_the_agent_go_without_a_retry(frame: bytes) -> None:
    """A proven OK but no complete answer: the fail-open answer, never a retry."""
    assert decode_reply(ok_line(SECRET) + frame, SECRET) == _no_answer()
    assert json.loads(_no_answer())["systemMessage"]


@pytest.mark.parametrize(
    ("answer", "frame", "expected"),
    [
        (b"{}", None, b"{}"),
        (None, b"", _no_answer()),
        (None, b"9 00\n{", _no_answer()),
    ],
)
def test_ask_server_over_a_real_socket(
    tmp_path: Path, answer: bytes | None, frame: bytes | None, expected: bytes | None
) -> None:
    """The client reads the whole reply and decides from it."""
    path = tmp_path / "s.sock"
    secret = the_secret()
    fake = FakeServer(path, proven(answer, frame=frame))
    body = encode_request("claude", "/p", {}, b"{}")
    try:
        assert ask_server(str(path), body, secret, timeout=10) == expected
    finally:
        fake.close()
    (request,) = fake.requests
    assert open_request(request, secret)[2] == body


@pytest.mark.parametrize("reply", [b"ERR ValueError\n", b"", b"OK\n2\n{}"])
def test_ask_server_not_taken_over_a_real_socket(tmp_path: Path, reply: bytes) -> None:
    """A refusal, silence, or an unproven OK: not taken (None)."""
    path = tmp_path / "s.sock"
    fake = FakeServer(path, reply)
    try:
        assert ask_server(str(path), b"host\tclaude\n\n{}", the_secret(), timeout=10) is None
    finally:
        fake.close()


def test_a_server_silent_after_ok_is_not_retried_in_process(tmp_path: Path) -> None:
    """A proven OK and then nothing: the hook prints the fail-open answer and does not run the
    event itself (no state is written for the project)."""
    project = tmp_path / "p"
    project.mkdir()
    runtime = tmp_path / "rt"
    runtime.mkdir(mode=0o700)
    the_secret()
    fake = FakeServer(sock_path(runtime, project), proven(None))
    try:
        answer = run_hook(project, clean_env(project, runtime), STOP)
    finally:
        fake.close()
    assert answer == json.loads(_no_answer())
    assert not Store(project).exists()


def test_a_request_the_server_did_not_take_is_answered_in_process(tmp_path: Path) -> None:
    """A listener that closes without a word: the hook answers in-process (the engine ran)."""
    project = tmp_path / "p"
    project.mkdir()
    runtime = tmp_path / "rt"
    runtime.mkdir(mode=0o700)
    fake = FakeServer(sock_path(runtime, project), b"")
    env = clean_env(project, runtime)
    the_secret()
    try:
        answer = run_hook(project, env, STOP)
    finally:
        fake.close()
        time.sleep(0.5)  # the hook started an engine in the background: stop it
        stop_engine(project, env)
    assert answer.get("decision") == "block"
    assert Store(project).exists()


def test_a_spawned_engine_keeps_only_private_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first hook creates the folder 0700 and starts an engine; the next hook is answered
    by it; every file in the folder (socket, lock, pid, spawn stamp, log) has mode 0600."""
    project = tmp_path / "p"
    project.mkdir()
    runtime = tmp_path / "rt"
    env = clean_env(project, runtime)
    monkeypatch.setenv("GOALKEEPER_RUNTIME_DIR", str(runtime))
    try:
        run_hook(project, env, START)
        deadline = time.monotonic() + 30
        while server_pid(project) is None:
            assert time.monotonic() < deadline, "no engine started"
            time.sleep(0.05)
        answer = run_hook(project, env, STOP)
        assert answer.get("decision") == "block"
        modes = {p.name.rsplit(".", 1)[-1]: p.lstat().st_mode & 0o7777 for p in runtime.iterdir()}
    finally:
        stop_engine(project, env)
    assert runtime.stat().st_mode & 0o7777 == 0o700
    expected = dict.fromkeys(("sock", "lock", "pid", "spawn", "log"), 0o600)
    assert modes == expected, modes
    assert server_pid(project) is None


def test_the_warm_engine_answers_hostile_input_like_the_in_process_path(tmp_path: Path) -> None:
    """Lone surrogates reach the engine through the socket too: the same answers as in-process,
    not "did not answer in time"; a request of an older protocol is refused, not taken."""
    project = tmp_path / "p"
    project.mkdir()
    runtime = tmp_path / "rt"
    env = clean_env(project, runtime, GOALKEEPER_LANG="en")
    payloads = [
        b'{"hook_event_name":"X\\ud800","session_id":"s1"}',
        b'{"hook_event_name":"PreToolUse","session_id":"s\\udc00","tool_name":'
        b'"mcp__goalkeeper__todo","tool_input":{"action":"list","x":"\\ud83d"}}',
    ]
    with warm_server(project, env, tmp_path / "engine.log"):
        warm = [run_hook(project, env, payload) for payload in payloads]
        old = b"GK1\nhost\tclaude\ncwd\t" + os.fsencode(project) + b"\n\n" + payloads[0]
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(30)
            conn.connect(str(sock_path(runtime, project)))
            conn.sendall(old)
            conn.shutdown(socket.SHUT_WR)
            refused = conn.recv(1024)
    cold = [run_hook(project, {**env, "GOALKEEPER_SERVER": "off"}, p) for p in payloads]
    assert warm == cold
    assert "X\ufffd" in str(warm[0]["systemMessage"])
    assert refused.startswith(b"ERR ") and decode_reply(refused, the_secret()) is None
    assert not Path(f"{sock_path(runtime, project)}.spawn").exists()  # no request fell back


def test_a_server_killed_mid_stop_runs_the_goal_verification_exactly_once(
    tmp_path: Path,
) -> None:
    """Audit defect 7: the warm engine takes a Stop, starts the goal's verify command and is
    killed with SIGKILL. The hook prints valid JSON, and the command ran once, not twice."""
    project = tmp_path / "p"
    project.mkdir()
    runtime = tmp_path / "rt"
    env = clean_env(project, runtime)
    verify = "sh -c 'echo run >> runs.txt; sleep 3; exit 1'"
    subprocess.run(
        [sys.executable, "-m", "goalkeeper", "goal", "set", "ship it", "--verify", verify],
        cwd=project,
        env={**env, "GOALKEEPER_SERVER": "off"},
        capture_output=True,
        timeout=60,
        check=True,
    )
    runs = project / "runs.txt"
    (tmp_path / "stop.json").write_bytes(STOP)
    with (
        warm_server(project, env, tmp_path / "engine.log") as server,
        open(tmp_path / "stop.json", "rb") as payload,
    ):
        hook = subprocess.Popen(
            [sys.executable, "-m", "goalkeeper", "hook", "claude"],
            stdin=payload,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=project,
            env=env,
        )
        deadline = time.monotonic() + 30
        while not (runs.exists() and runs.read_text()):
            if time.monotonic() > deadline:
                hook.kill()
                pytest.fail("the goal's verify command never ran: is the goal held for approval?")
            time.sleep(0.02)
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=10)
        out, err = hook.communicate(timeout=60)
    assert hook.returncode == 0 and b"Traceback" not in err, err
    assert json.loads(out) == json.loads(_no_answer())
    time.sleep(3.5)  # the orphaned verify command finishes; a retry would have added a line
    assert runs.read_text() == "run\n"


def test_the_warm_engine_keeps_the_wal_between_requests(tmp_path: Path) -> None:
    """Each request opens and closes its own connection; the engine holds one more open once
    the database exists, so a close does not checkpoint and delete the WAL for the next
    request to re-create (two fsync waits per event, performance audit improvement 3)."""
    project = tmp_path / "p"
    (project / "plan").mkdir(parents=True)
    runtime = tmp_path / "rt"
    env = clean_env(project, runtime, GOALKEEPER_LANG="en")
    start = b'{"hook_event_name":"SessionStart","session_id":"s1","source":"startup"}'
    stop = b'{"hook_event_name":"Stop","session_id":"s1","last_assistant_message":"[PDCA] do"}'
    wal = state_path(project).with_name("state.db-wal")
    with warm_server(project, env, tmp_path / "engine.log"):
        run_hook(project, env, start)
        run_hook(project, env, stop)
        assert wal.exists()  # kept while the engine runs
    run_hook(project, {**env, "GOALKEEPER_SERVER": "off"}, stop)
    assert wal.exists()  # a hook answered in-process exits without closing its connection


def test_a_hook_answered_in_process_leaves_its_state_committed(tmp_path: Path) -> None:
    """A hook process that answers in-process ends with ``os._exit``, its connection open, so
    that no close checkpoints and deletes the WAL (fsync waits on every session's first event).
    What it committed is there for the next process all the same, and a close checkpoints it."""
    project = tmp_path / "p"
    (project / "plan").mkdir(parents=True)
    env = {**clean_env(project, tmp_path / "rt", GOALKEEPER_LANG="en"), "GOALKEEPER_SERVER": "off"}
    start = b'{"hook_event_name":"SessionStart","session_id":"s1","source":"startup"}'
    stop = b'{"hook_event_name":"Stop","session_id":"s1","last_assistant_message":"[PDCA] do"}'
    for payload in (start, stop, stop):
        run_hook(project, env, payload)
    wal = state_path(project).with_name("state.db-wal")
    assert wal.exists()
    store = Store(project)
    row = get_session(store.connection(), "s1")
    store.close()
    assert row is not None and row.events == 3
    assert not wal.exists()  # the last connection's close checkpointed it into the database
