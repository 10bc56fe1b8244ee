"""The warm engine process: answers hook events sent by ``goalkeeper hook`` over a Unix socket.

One process per interpreter and project, started on demand by the hook client, exiting after
``idle_s`` without requests. It holds modules, plan parses and config in memory, which is what
makes a hook cost little more than Python's start-up. Safety (the protocol is described in
``hook_client``):
- it serves only from a runtime folder private to this user, and only where the platform can
  tell who connects (peer credentials); its files there are opened without following a symlink,
  with mode 0600, and its socket is created 0600;
- a connection from a process of another user is closed without reading a byte;
- a request that does not show goalkeeper's secret (``hook_channel``), or comes from a process
  in a host's sandbox (``agent_shell.sandboxed_process``), or after its deadline, or repeats a
  nonce, is refused before anything is done; ``OK`` shows the other half of the secret back, so
  a client can tell this engine from a stand-in;
- when something else takes its socket's place (a stand-in listener), it binds its own again
  within ``listener``'s accept timeout (0.5 s);
- an exclusive ``flock`` makes sure only one server per socket runs;
- if goalkeeper's own source files change (an upgrade, an editable checkout), the server exits,
  and a request that comes meanwhile is answered ``STALE`` before anything is done (the client
  handles the event itself). The files are looked at when the server is idle and after an
  answer has gone out, never while a hook waits (~1.4 ms each time, every ``WATCH_EVERY_S``);
- it answers ``OK`` when it takes a request, before the engine runs: a client that got ``OK``
  never runs the event itself, so a server killed mid-event does not make it run twice;
- each request runs in its own thread with its own database connection; SQLite's
  ``BEGIN IMMEDIATE`` serialises them exactly as it serialises separate hook processes.
"""

from __future__ import annotations

import fcntl
import os
import socket
import sys
import threading
import time
from pathlib import Path

import goalkeeper
from goalkeeper.config import load_config
from goalkeeper.hosts.hook_channel import (
    ensure_secret,
    make_runtime_dir,
    open_private,
    read_secret,
    runtime_problem,
    secret_path,
    socket_address,
    socket_path,
)
from goalkeeper.hosts.hook_client import (
    MAX_INPUT_BYTES,
    decode_request,
    frame_answer,
    ok_line,
    open_request,
    peer_credentials_supported,
    peer_uid,
    runtime_dir,
)
from goalkeeper.hosts.transport.dispatch import answer_in_process

WATCH_EVERY_S = 2.0


class SourceWatcher:
    """Notices when goalkeeper's own source files change under a running server."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or Path(goalkeeper.__file__).parent
        self.snapshot = self._scan()
        self.checked = time.monotonic()

    def _scan(self) -> dict[str, int]:
        stamps: dict[str, int] = {}
        for folder, _, files in os.walk(self.root):
            for name in files:
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    try:
                        stamps[path] = os.stat(path).st_mtime_ns
                    except OSError:
                        continue
        return stamps

    def changed(self) -> bool:
        now = time.monotonic()
        if now - self.checked < WATCH_EVERY_S:
            return False
        self.checked = now
        return self._scan() != self.snapshot


class HookServer:
    def __init__(self, project: Path, idle_s: float) -> None:
        self.project = project
        self.idle_s = idle_s
        self.path = socket_path(sys.prefix, str(project))
        self.watcher = SourceWatcher()
        self.stopping = threading.Event()
        self.active = 0
        self.lock = threading.Lock()
        self.last_request = time.monotonic()
        self.uid = os.getuid()
        self.nonces: dict[bytes, float] = {}  # nonces seen, until their deadline passes
        self.bound: tuple[int, int] | None = None  # (st_dev, st_ino) of the socket it bound
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # until bound

    def serve(self) -> int:
        """Serve until idle or stale: 0; 1 (and why, on stderr) when it may not serve here."""
        refused = refusal()
        lock_fd = -1
        if refused is None:
            try:
                lock_fd = open_private(self.path + ".lock", os.O_RDWR | os.O_CREAT)
            except OSError as exc:
                refused = f"cannot open {self.path}.lock ({exc})"
        if refused is not None:
            sys.stderr.write(f"goalkeeper serve: {refused}; not serving\n")
            return 1
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock_fd)
            return 0  # another server already serves this project
        _warm_up()
        from goalkeeper.store.db import use_pool

        use_pool()  # each request's Store reuses an open connection (no WAL churn per event)
        self.listener.close()
        self.listener = self._bind()
        try:
            _write_private(self.path + ".pid", str(os.getpid()))
            self._loop()
        finally:
            self.listener.close()
            for suffix in ("", ".pid"):
                try:
                    if suffix or self._still_ours():
                        os.unlink(self.path + suffix)
                except OSError:
                    pass
            os.close(lock_fd)
        return 0

    def _bind(self) -> socket.socket:
        """A listener at ``self.path`` (whatever was there is removed: this engine holds the
        lock, so it is no engine's), created 0600, reached through its folder's descriptor
        when the path is longer than a socket address holds (``socket_address``)."""
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        address, folder = socket_address(self.path)
        umask = os.umask(0o177)  # bind creates the socket 0600
        try:
            listener.bind(address)
        except OSError:
            listener.close()
            raise
        finally:
            os.umask(umask)
            if folder >= 0:
                os.close(folder)
        st = os.lstat(self.path)
        self.bound = (st.st_dev, st.st_ino)
        listener.listen(128)
        listener.settimeout(0.5)
        return listener

    def _still_ours(self) -> bool:
        """Whether the socket at ``self.path`` is the one this engine bound."""
        try:
            st = os.lstat(self.path)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self.bound

    def _loop(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                with self.lock:
                    idle = self.active == 0 and time.monotonic() - self.last_request > self.idle_s
                if idle:
                    return
                if not self._still_ours():  # a stand-in took the path: take it back
                    self.listener.close()
                    self.listener = self._bind()
                self._check_sources()
                continue
            if peer_uid(conn) != self.uid or _in_a_sandbox(conn):
                conn.close()  # another user's process, or the agent's: not a byte is read
                continue
            with self.lock:
                self.active += 1
                self.last_request = time.monotonic()
            threading.Thread(target=self._serve_one, args=(conn,), daemon=True).start()
        while self.active:  # let requests in flight finish
            time.sleep(0.01)

    def _serve_one(self, conn: socket.socket) -> None:
        try:
            request = self._take(conn)
            if request is not None:
                host, cwd, env, payload = request
                answer = answer_in_process(host, payload, env, cwd)
                conn.sendall(frame_answer(answer))
        except OSError:
            pass  # the client is gone; having had OK, it let the agent go without a retry
        finally:
            conn.close()
            with self.lock:
                self.active -= 1
                self.last_request = time.monotonic()
            self._check_sources()  # the answer is out: nobody waits for this look

    def _check_sources(self) -> None:
        if self.watcher.changed():
            self.stopping.set()

    def _take(self, conn: socket.socket) -> tuple[str, str, dict[str, str], bytes] | None:
        """The request, once ``OK`` told the client it is taken
        (raises ``OSError`` when the client is gone by then); None when it is not taken: the
        client handles it itself, or it was no client of goalkeeper's and nothing happens."""
        try:
            conn.settimeout(30)
            data = _read_all(conn, MAX_INPUT_BYTES + 65536)
            secret = read_secret(secret_path(os.environ))
            if not isinstance(secret, bytes):
                raise PermissionError("no secret")
            nonce, until, body = open_request(data, secret)  # raises unless proven
            request = decode_request(body)
            if self.stopping.is_set():  # goalkeeper's files changed: newer code must answer
                conn.sendall(b"STALE\n")
                return None
            if load_config(self.project, request[2]).server == "off":
                self.stopping.set()
                conn.sendall(b"OFF\n")
                return None
            if not self._fresh(nonce, until):
                raise TimeoutError("late or repeated")
        except Exception as exc:  # not taken: the engine has not run, the client may run it
            try:
                conn.sendall(b"ERR " + type(exc).__name__.encode() + b"\n")
            except OSError:
                pass
            return None
        conn.sendall(ok_line(secret))
        return request

    def _fresh(self, nonce: bytes, until: float) -> bool:
        """Whether a request may still be taken: its deadline for ``OK`` has not passed (the
        client gives up then and answers in-process) and its nonce was not seen (a replayed
        request). Nonces are forgotten once their deadline is past."""
        now = time.time()
        with self.lock:
            if now > until or nonce in self.nonces:
                return False
            if len(self.nonces) > 1024:
                self.nonces = {n: t for n, t in self.nonces.items() if t >= now}
            self.nonces[nonce] = until
        return True


def serve(project: Path, idle_s: float) -> int:
    return HookServer(project, idle_s).serve()


def refusal() -> str | None:
    """Why no engine may serve from here (None: it may), creating the runtime folder if need be."""
    if not peer_credentials_supported():
        return f"this platform ({sys.platform}) cannot tell which user connects to a socket"
    problem = make_runtime_dir(runtime_dir())
    if problem is None:
        secret = ensure_secret(secret_path(os.environ))
        problem = secret if isinstance(secret, tuple) else None
    if problem is None:
        return None
    path, uid, mode = problem
    return f"{path} is not private to this user (owner uid {uid}, mode {mode:o})"


def server_pid(project: Path) -> int | None:
    """The pid of the engine serving ``project``; None when none runs, or when the runtime
    folder is not private (its pid file could then name any process)."""
    if not peer_credentials_supported() or runtime_problem(runtime_dir()) is not None:
        return None
    try:
        fd = open_private(socket_path(sys.prefix, str(project)) + ".pid", os.O_RDONLY)
        try:
            pid = int(os.read(fd, 64).decode().strip())
        finally:
            os.close(fd)
        if pid <= 0:  # 0 and -n would signal process groups
            return None
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def _warm_up() -> None:
    """Import what every event needs before the first request arrives."""
    import goalkeeper.engine.supervisor
    import goalkeeper.hosts.claude.hook
    import goalkeeper.hosts.claude.transcript
    import goalkeeper.hosts.codex.hook
    import goalkeeper.hosts.codex.transcript
    import goalkeeper.hosts.gemini.hook  # noqa: F401


def _read_all(conn: socket.socket, limit: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            raise ValueError("request too large")
        chunks.append(chunk)


def _write_private(path: str, text: str) -> None:
    """Atomically: a new temporary file (``O_EXCL``, never through a symlink, mode 0600)
    renamed over ``path``."""
    tmp = f"{path}.{os.getpid()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    try:
        fd = open_private(tmp, flags)
    except FileExistsError:  # left behind by a killed process that had this pid
        os.unlink(tmp)
        fd = open_private(tmp, flags)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _in_a_sandbox(conn: socket.socket) -> bool:
    """Whether the client runs in a host's sandbox (``agent_shell.sandboxed_process``): the
    agent's shell there can read goalkeeper's secret (Codex's ``workspace-write`` denies no
    reads) and open unix sockets, and must not speak as the host; its own in-process answer then
    cannot write the state. Linux only (the peer's pid from ``SO_PEERCRED``)."""
    if not sys.platform.startswith("linux"):
        return False
    from goalkeeper.hosts.transport.agent_shell import sandboxed_process

    try:  # struct ucred {pid_t pid; uid_t uid; gid_t gid;}
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    except OSError:
        return False
    pid = int.from_bytes(creds[0:4], sys.byteorder) if len(creds) == 12 else 0
    return pid > 1 and sandboxed_process(pid) is not None
