"""The warm engine process: answers hook events sent by ``goalkeeper hook`` over a Unix socket.

One process per interpreter and project, started on demand by the hook client, exiting after
``idle_s`` without requests. It holds modules, plan parses and config in memory, which is what
makes a hook cost little more than Python's start-up. Safety:
- an exclusive ``flock`` makes sure only one server per socket runs;
- the socket lives in a 0700 folder with mode 0600: only the same user can talk to it;
- if goalkeeper's own source files change (an upgrade, an editable checkout), the server answers
  ``STALE`` before doing anything, the client handles the event itself, and the server exits;
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
from goalkeeper.hosts.dispatch import answer_in_process
from goalkeeper.hosts.hook_client import (
    MAX_INPUT_BYTES,
    decode_request,
    runtime_dir,
    socket_path,
)

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

    def serve(self) -> int:
        os.makedirs(runtime_dir(), mode=0o700, exist_ok=True)
        lock_fd = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock_fd)
            return 0  # another server already serves this project
        _warm_up()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            if os.path.exists(self.path):
                os.unlink(self.path)
            listener.bind(self.path)
            os.chmod(self.path, 0o600)
            listener.listen(128)
            listener.settimeout(0.5)
            _write(self.path + ".pid", str(os.getpid()))
            self._loop(listener)
        finally:
            listener.close()
            for suffix in ("", ".pid"):
                try:
                    os.unlink(self.path + suffix)
                except OSError:
                    pass
            os.close(lock_fd)
        return 0

    def _loop(self, listener: socket.socket) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                with self.lock:
                    idle = self.active == 0 and time.monotonic() - self.last_request > self.idle_s
                if idle:
                    return
                continue
            with self.lock:
                self.active += 1
                self.last_request = time.monotonic()
            threading.Thread(target=self._serve_one, args=(conn,), daemon=True).start()
        while self.active:  # let requests in flight finish
            time.sleep(0.01)

    def _serve_one(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(30)
            data = _read_all(conn, MAX_INPUT_BYTES + 65536)
            host, cwd, env, payload = decode_request(data)
            if self.watcher.changed():
                self.stopping.set()
                conn.sendall(b"STALE\n")
                return
            if load_config(self.project, env).server == "off":
                self.stopping.set()
                conn.sendall(b"OFF\n")
                return
            conn.sendall(b"OK\n" + answer_in_process(host, payload, env, cwd))
        except Exception as exc:  # the client falls back or fails open
            try:
                conn.sendall(b"ERR " + type(exc).__name__.encode() + b"\n")
            except OSError:
                pass
        finally:
            conn.close()
            with self.lock:
                self.active -= 1
                self.last_request = time.monotonic()


def serve(project: Path, idle_s: float) -> int:
    return HookServer(project, idle_s).serve()


def server_pid(project: Path) -> int | None:
    try:
        with open(socket_path(sys.prefix, str(project)) + ".pid", encoding="utf-8") as f:
            pid = int(f.read().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def _warm_up() -> None:
    """Import what every event needs before the first request arrives."""
    import goalkeeper.engine.supervisor
    import goalkeeper.hosts.claude_code
    import goalkeeper.hosts.claude_transcript  # noqa: F401


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


def _write(path: str, text: str) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
