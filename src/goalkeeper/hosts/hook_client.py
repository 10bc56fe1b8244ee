"""``goalkeeper hook <host>``: the process an agent starts for every hook event.

Hooks are separate processes on every event, and importing the engine (json, re, sqlite3,
dataclasses …) costs several times Python's own start-up. So this module imports nothing beyond
``os`` and ``sys`` at module level: it hands the raw event to a warm engine process of the same
interpreter and project over a Unix socket (``_socket``, not ``socket``, to skip ``enum``) and
prints its answer. When no engine process answers, the event is handled in this process and a
warm one is started in the background for the next event. Either way the answer is the same;
the server is an optimisation, never a dependency.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # importing typing would cost more than this whole client
    from typing import BinaryIO

PROTOCOL = b"GK1"
HOSTS = ("claude",)
FORWARDED_PREFIXES = ("GOALKEEPER_", "CLAUDE_", "PI_TODONE_")
MAX_INPUT_BYTES = 16 * 1024 * 1024
CONNECT_TIMEOUT_S = 1.0
ANSWER_TIMEOUT_S = 50.0  # below the 60 s hook timeout `goalkeeper install claude` sets
STOP_ANSWER_TIMEOUT_S = 590.0  # a Stop may run a goal's verification: below its 600 s timeout
SPAWN_THROTTLE_S = 10.0


def runtime_dir() -> str:
    """A private per-user folder for sockets: ``$XDG_RUNTIME_DIR/goalkeeper`` or ``/tmp``."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.path.isdir(base):
        return os.path.join(base, "goalkeeper")
    return os.path.join("/tmp", f"goalkeeper-{os.getuid()}")


def server_key(installation: str, project: str) -> str:
    """FNV-1a of installation and project: one engine per virtualenv and project.

    ``installation`` is ``sys.prefix``, the same for ``.venv/bin/python``, ``python3`` and the
    ``goalkeeper`` console script of one virtualenv (``sys.executable`` differs between them)."""
    h = 0xCBF29CE484222325
    for byte in (installation + "\0" + project).encode("utf-8", "surrogateescape"):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def socket_path(installation: str, project: str) -> str:
    return os.path.join(runtime_dir(), server_key(installation, project) + ".sock")


def forwarded_env(environ: dict[str, str] | os._Environ[str]) -> dict[str, str]:
    """The variables that can change an answer (config, Claude Code's own settings)."""
    return {
        k: v
        for k, v in environ.items()
        if k.startswith(FORWARDED_PREFIXES) and "\n" not in v and "\t" not in v and "\n" not in k
    }


def encode_request(host: str, cwd: str, env: dict[str, str], payload: bytes) -> bytes:
    lines = [PROTOCOL, b"host\t" + host.encode(), b"cwd\t" + os.fsencode(cwd)]
    lines += [b"env\t" + os.fsencode(k) + b"=" + os.fsencode(v) for k, v in env.items()]
    return b"\n".join(lines) + b"\n\n" + payload


def decode_request(data: bytes) -> tuple[str, str, dict[str, str], bytes]:
    head, sep, payload = data.partition(b"\n\n")
    lines = head.split(b"\n")
    if not sep or lines[0] != PROTOCOL:
        raise ValueError("not a goalkeeper hook request")
    host, cwd, env = "", "", {}
    for line in lines[1:]:
        key, _, value = line.partition(b"\t")
        if key == b"host":
            host = value.decode()
        elif key == b"cwd":
            cwd = os.fsdecode(value)
        elif key == b"env":
            name, _, val = value.partition(b"=")
            env[os.fsdecode(name)] = os.fsdecode(val)
    return host, cwd, env, payload


def run_client(
    args: list[str],
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
) -> int:
    """Answer one hook event on stdout. Exit 0 with an answer, or 1 (a non-blocking hook error
    in every host) for a usage mistake; never 2, which would block the agent."""
    out = stdout or sys.stdout.buffer
    host = args[0] if args else ""
    if host not in HOSTS:
        sys.stderr.write(
            f"goalkeeper: unknown hook host {host!r}; use one of: {', '.join(HOSTS)}\n"
        )
        return 1
    raw = (stdin or sys.stdin.buffer).read(MAX_INPUT_BYTES + 1)
    env = forwarded_env(os.environ)
    cwd = os.getcwd()
    project = env.get("CLAUDE_PROJECT_DIR") or cwd
    if env.get("GOALKEEPER_SERVER", "").strip().lower() != "off":
        timeout = STOP_ANSWER_TIMEOUT_S if b'"Stop"' in raw else ANSWER_TIMEOUT_S
        request = encode_request(host, cwd, env, raw)
        reply = ask_server(socket_path(sys.prefix, project), request, timeout)
        if reply is not None:
            out.write(reply)
            out.flush()
            return 0
    from goalkeeper.hosts.dispatch import answer_in_process

    out.write(answer_in_process(host, raw, env, cwd, spawn=True))
    out.flush()
    return 0


def ask_server(path: str, request: bytes, timeout: float = ANSWER_TIMEOUT_S) -> bytes | None:
    """The server's answer; None when no server took the request (connect failed, stale, off).

    A server that goes silent after taking the request is not retried in-process (the event
    may already be applied): the answer then lets the agent go and says why."""
    import _socket

    if not hasattr(_socket, "AF_UNIX"):  # no Unix sockets (Windows): always in-process
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        try:
            sock.connect(path)
        except OSError:
            return None
        chunks: list[bytes] = []
        try:
            sock.settimeout(timeout)
            sock.sendall(request)
            sock.shutdown(_socket.SHUT_WR)
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError:
            if not chunks:
                return _no_answer()
    finally:
        sock.close()
    data = b"".join(chunks)
    if data.startswith(b"OK\n"):
        return data[3:]
    if not data or data.startswith((b"STALE\n", b"OFF\n")):
        return None  # not taken (an engine exiting as we connected, stale code, switched off)
    return _no_answer()


def _no_answer() -> bytes:
    return (
        b'{"systemMessage": "goalkeeper: the engine process did not answer in time; '
        b'the agent was not blocked."}'
    )
