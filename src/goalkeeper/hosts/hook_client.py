"""``goalkeeper hook <host>``: the process an agent starts for every hook event.

Hooks are separate processes on every event, and importing the engine (json, re, sqlite3,
dataclasses …) costs several times Python's own start-up. So this module imports nothing beyond
``os`` and ``sys`` at module level: it hands the raw event to a warm engine process of the same
interpreter and project over a Unix socket (``_socket``, not ``socket``, to skip ``enum``) and
prints its answer. When no engine process answers, the event is handled in this process and a
warm one is started in the background for the next event. Either way the answer is the same;
the server is an optimisation, never a dependency.

The agent goalkeeper supervises may cheat, and hooks run outside the host's permission prompts,
so the transport is private, exact and proven at both ends (``hook_channel``):

- **Private folder, outside the project and every temp folder.** The sockets live in
  ``runtime_dir()`` (``$XDG_RUNTIME_DIR/goalkeeper`` or goalkeeper's state home), which must be a
  real directory owned by this user with no group or other permission bits, in a parent no other
  user can rename it in. Otherwise the client neither connects nor starts a server: it answers
  in-process and a SessionStart answer says why (the server refuses to serve there too). Files in
  the folder are opened with ``O_NOFOLLOW`` (``open_private``), mode 0600.
- **Peer credentials.** After ``connect`` and before sending a byte, the client checks that the
  server runs as this user (``SO_PEERCRED`` on Linux, ``LOCAL_PEERCRED`` on macOS); the server
  checks every client the same way. Where the platform cannot tell, the server path is off.
- **A shared secret proves both ends.** The request carries the secret's first half (the
  secret is in goalkeeper's state home, which a sandbox denies to the agent's shell): the engine
  answers no client that cannot show it, so a forged event sent by the agent changes nothing.
  The engine's ``OK`` shows the second half: a stand-in listener that answers ``{}``
  (goalkeeper switched off) cannot, and is treated as "not taken" (the event is answered
  in-process). ``hook_channel`` says why halves are enough. No secret yet (the engine creates
  it): in-process, and an engine is started.
- **Bounded waits.** ``OK`` must come within ``OK_WAIT_S``: a listener that never answers costs a
  hook at most that, then the event is answered in-process. The engine sends no ``OK`` after the
  request's deadline, so a late ``OK`` never makes an event run twice.
- **Only goalkeeper's variables** travel to the server (``forwarded_env``), never the rest of
  ``CLAUDE_*``, which holds tokens.
- **Exactly once.** The server answers ``OK`` as soon as it takes a request, before the engine
  runs, then the answer with its length. Nothing before a proven ``OK`` (refused, stale,
  switched off, unproven, or silence) means not taken, and the event is handled in-process.
  Anything after ``OK`` that is not a complete answer means taken and lost: the agent is
  let go (fail open) and the event is never run a second time.

Request: ``GK4 <nonce hex> <deadline> <client half hex>`` / ``host<TAB>…`` / ``cwd<TAB>…`` /
``env<TAB>NAME=value``… / empty line / the raw payload; the client then shuts its side down.
The nonce and the deadline serve exactly-once (no ``OK`` after the deadline, none for a nonce
seen before), not proof. Reply: ``STALE``, ``OFF`` or ``ERR <what>`` (not taken), or
``OK <server half hex>`` / the answer's length / the answer; each line ends with LF.
"""

import sys

# ``posix``, not ``os``: os costs as much again as the rest of the client (its ``environ``
# mapping, ``posixpath``, ``_collections_abc``), and the lean launcher starts Python without
# ``site``, which would otherwise have imported it. No ``from __future__`` either (a module too).
if sys.platform == "win32":  # no posix module; there is no server path there anyway
    import os as _os
else:
    import posix as _os

from goalkeeper.hosts.hook_channel import (  # as lean as this module
    HOSTS,
    client_proof,
    fsdecode,
    join,
    process_environ,
    project_of,
    read_secret,
    runtime_problem,
    same,
    secret_path,
    server_key,
    server_proof,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # importing typing would cost more than this whole client
    from _socket import socket as Socket
    from collections.abc import Mapping
    from typing import BinaryIO, NoReturn

PROTOCOL = b"GK4"
FORWARDED_PREFIXES = ("GOALKEEPER_", "PI_TODONE_")
FORWARDED_NAMES = (
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_PROJECT_DIR",
)
"""The only host variables the engine reads (the project, Claude Code's block cap, and where
Claude Code and Codex keep their records of the user's prompts); the others (``CLAUDE_*``,
``GEMINI_*``, ``CODEX_*``) may hold tokens."""
MAX_INPUT_BYTES = 16 * 1024 * 1024
CONNECT_TIMEOUT_S = 1.0
OK_WAIT_S = 1.0
"""How long the engine may take to send ``OK`` (it does so before the engine runs: ~1 ms);
a listener silent that long is not the engine, and the event is answered in-process."""
OK_GRACE_S = 0.5
"""How much longer the client listens than the deadline the engine keeps to."""
ANSWER_TIMEOUT_S = 50.0  # below the 60 s hook timeout `goalkeeper install claude` sets
STOP_ANSWER_TIMEOUT_S = 590.0  # a Stop may run a goal's verification: below its 600 s timeout
UNSAFE_FOLDER = "hook.runtime_unsafe"
FOREIGN_SERVER = "hook.server_foreign"
UNSAFE_SECRET = "channel.secret_unsafe"


class ForeignServer(Exception):
    """The process listening on the socket runs as another user (``uid``; -1: unknown)."""

    def __init__(self, uid: int) -> None:
        super().__init__(uid)
        self.uid = uid


def runtime_dir(environ: "Mapping[str, str] | None" = None) -> str:
    """The folder for sockets (``hook_channel.runtime_dir``) in ``environ``, else in this
    process's environment."""
    from goalkeeper.hosts.hook_channel import runtime_dir as folder

    return folder(process_environ() if environ is None else environ)


def peer_credentials_supported() -> bool:
    """Whether ``peer_uid`` can tell who is at the other end; the server path needs it."""
    return sys.platform.startswith("linux") or sys.platform == "darwin"


def peer_uid(sock: "Socket") -> "int | None":
    """The uid of the process at the other end of a connected Unix socket (for a client: the
    server's, as it was when it called ``listen``); None when the platform cannot tell."""
    import _socket

    try:
        if sys.platform.startswith("linux"):
            # struct ucred {pid_t pid; uid_t uid; gid_t gid;}: three 32-bit fields
            creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
            return int.from_bytes(creds[4:8], sys.byteorder) if len(creds) == 12 else None
        if sys.platform == "darwin":
            # SOL_LOCAL (0), LOCAL_PEERCRED (1) → struct xucred {u_int cr_version;
            # uid_t cr_uid; short cr_ngroups; gid_t cr_groups[16];}, version 0
            creds = sock.getsockopt(0, 1, 76)
            if len(creds) >= 8 and int.from_bytes(creds[0:4], sys.byteorder) == 0:
                return int.from_bytes(creds[4:8], sys.byteorder)
    except OSError:
        pass
    return None


def forwarded_env(environ: "Mapping[str, str]") -> dict[str, str]:
    """The variables that can change an answer: goalkeeper's (and pi-todone's) settings and
    the two of Claude Code's the engine reads. Never the rest of ``CLAUDE_*`` (tokens)."""
    return {
        k: v
        for k, v in environ.items()
        if (k.startswith(FORWARDED_PREFIXES) or k in FORWARDED_NAMES)
        and "\n" not in v
        and "\t" not in v
        and "\n" not in k
    }


def encode_request(host: str, cwd: str, env: dict[str, str], payload: bytes) -> bytes:
    """The request's body (``seal_request`` puts the proof line above it)."""
    lines = [b"host\t" + host.encode(), b"cwd\t" + _fsencode(cwd)]
    lines += [b"env\t" + _fsencode(k) + b"=" + _fsencode(v) for k, v in env.items()]
    return b"\n".join(lines) + b"\n\n" + payload


def open_request(data: bytes, secret: bytes) -> tuple[bytes, float, bytes]:
    """The nonce, the deadline and the body of a request whose first line proves ``secret``;
    raises ``ValueError`` for anything else (the engine then answers nothing)."""
    line, sep, body = data.partition(b"\n")
    fields = line.split(b" ")
    if not sep or len(fields) != 4 or fields[0] != PROTOCOL:
        raise ValueError("not a goalkeeper hook request")
    nonce, proof = bytes.fromhex(fields[1].decode("ascii")), bytes.fromhex(fields[3].decode())
    if len(nonce) < 16 or not same(proof, client_proof(secret)):
        raise ValueError("the request does not prove goalkeeper's secret")
    return nonce, float(fields[2]), body


def decode_request(data: bytes) -> tuple[str, str, dict[str, str], bytes]:
    """A request's body (``encode_request``) as (host, cwd, env, payload)."""
    head, sep, payload = data.partition(b"\n\n")
    if not sep:
        raise ValueError("not a goalkeeper hook request")
    host, cwd, env = "", "", {}
    for line in head.split(b"\n"):
        key, _, value = line.partition(b"\t")
        if key == b"host":
            host = value.decode()
        elif key == b"cwd":
            cwd = fsdecode(value)
        elif key == b"env":
            name, _, val = value.partition(b"=")
            env[fsdecode(name)] = fsdecode(val)
    return host, cwd, env, payload


def frame_answer(answer: bytes) -> bytes:
    """What follows ``OK``: the answer's length, then the answer."""
    return b"%d\n" % len(answer) + answer


def ok_line(secret: bytes) -> bytes:
    """The engine's ``OK``, showing the half of the secret no request carries."""
    return b"OK %s\n" % server_proof(secret).hex().encode()


def run_client(
    args: list[str],
    stdin: "BinaryIO | None" = None,
    stdout: "BinaryIO | None" = None,
    *,
    whole_process: bool = False,
) -> int:
    """Answer one hook event on stdout. Exit 0 with an answer, or 1 (a non-blocking hook error
    in every host) for a usage mistake; never 2, which would block the agent.

    ``whole_process``: this call is all the process does, and it ends with ``exit_process``.
    Answered in-process, the state database's connection is then kept open for the exit to
    drop instead of being closed: closing the last connection checkpoints the WAL and deletes
    it (fsync waits, tens of ms on a busy disk, for every session's first event). A commit in
    WAL mode is already as safe as ``synchronous = NORMAL`` makes it; the next connection reads
    the WAL, and a commit checkpoints it once it has grown (SQLite's auto-checkpoint)."""
    out = stdout or sys.stdout.buffer
    host = args[0] if args else ""
    if host not in HOSTS:
        sys.stderr.write(
            f"goalkeeper: unknown hook host {host!r}; use one of: {', '.join(HOSTS)}\n"
        )
        return 1
    raw = (stdin or sys.stdin.buffer).read(MAX_INPUT_BYTES + 1)
    environ = process_environ()  # decoded once: ~25 µs each time
    env = forwarded_env(environ)
    cwd = _os.getcwd()
    project = project_of(host, env, cwd)
    spawn = False
    transport: tuple[str, str, int, int] | None = None  # why the warm engine is off
    if env.get("GOALKEEPER_SERVER", "").strip().lower() != "off" and peer_credentials_supported():
        directory = runtime_dir(environ)
        problem = runtime_problem(directory)
        secret = read_secret(secret_path(environ)) if problem is None else None
        if problem is not None:
            transport = (UNSAFE_FOLDER, *problem)
        elif isinstance(secret, tuple):  # a secret file others could read or write
            transport = (UNSAFE_SECRET, *secret)
        elif secret is None:
            spawn = True  # no secret yet: the engine makes it when it starts
        else:
            path = join(directory, server_key(sys.prefix, project) + ".sock")
            timeout = STOP_ANSWER_TIMEOUT_S if b'"Stop"' in raw else ANSWER_TIMEOUT_S
            try:
                reply = ask_server(path, encode_request(host, cwd, env, raw), secret, timeout)
            except ForeignServer as exc:
                transport = (FOREIGN_SERVER, path, exc.uid, 0)
            else:
                if reply is not None:
                    out.write(reply)
                    out.flush()
                    return 0
                spawn = True
    try:
        if sys.flags.no_site:  # the lean launcher: the engine needs site-packages' .pth files
            import site

            site.main()
        _import_msgspec()
        if whole_process:
            from goalkeeper.store.db import use_pool

            use_pool(1)
        from goalkeeper.hosts.transport.dispatch import answer_in_process

        answer = answer_in_process(host, raw, env, cwd, spawn=spawn, transport=transport)
    except Exception:  # the engine cannot even be imported (a broken install): still JSON
        answer = _NO_ENGINE
    out.write(answer)
    out.flush()
    return 0


def _import_msgspec() -> None:
    """Import msgspec (the engine's value classes) without ``typing_extensions``.

    msgspec prefers ``typing_extensions`` to ``typing`` where both are importable (they are:
    the MCP SDK needs it), and importing it imports ``inspect``, ~9 ms of a session's first
    event. On Python >= 3.11 ``typing`` has everything msgspec takes from it. So it is hidden
    while msgspec loads, and shown again at once; should a msgspec ever need it, it is
    imported the ordinary way."""
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # import -> ImportError
    try:
        import msgspec  # noqa: F401
    except ImportError:
        pass  # imported again below, with typing_extensions visible
    finally:
        del sys.modules["typing_extensions"]


def lean_main() -> None:
    """Entry of the launcher's ``python -S -c`` client (``hosts.transport.launcher``):
    ``sys.argv`` is ``-c hook <host>``, and ``sys.path`` / ``sys.prefix`` are already set."""
    exit_process(run_client(sys.argv[2:], whole_process=True))


def exit_process(code: int) -> "NoReturn":
    """End a hook process at once, its answer flushed: no interpreter shutdown (a cold event
    has ~200 modules to tear down, ~2 ms) and no close of the state database's connection
    (see ``run_client``'s ``whole_process``). Nothing is left unwritten: the answer is
    flushed here, the engine writes its files with ``with open`` and its state in committed
    transactions."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        _os._exit(code)


def seal_request(secret: bytes, body: bytes, nonce: bytes, until: float) -> bytes:
    """``body`` (``encode_request``) under its first line: the protocol, the nonce, the
    deadline for ``OK`` (seconds since the epoch) and the secret's client half."""
    deadline = b"%.3f" % until
    proof = client_proof(secret)
    return (
        b"%s %s %s %s\n" % (PROTOCOL, nonce.hex().encode(), deadline, proof.hex().encode()) + body
    )


def ask_server(
    path: str, body: bytes, secret: bytes, timeout: float = ANSWER_TIMEOUT_S
) -> bytes | None:
    """The server's answer; None when no server took the request (connect failed, refused,
    stale, off, an ``OK`` that does not prove the secret, or silence for ``OK_WAIT_S``), so the
    caller handles it in-process.

    A request the server took (a proven ``OK``) is never retried in-process, since the event
    may already be applied: an incomplete answer lets the agent go and says why.
    Raises ``ForeignServer``, having sent nothing, when the listener runs as another user."""
    import _socket
    import time

    if not hasattr(_socket, "AF_UNIX"):  # no Unix sockets (Windows): always in-process
        return None
    from goalkeeper.hosts.hook_channel import socket_address

    nonce = _os.urandom(16)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    address, folder = socket_address(path)
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        try:
            sock.connect(address)
        except OSError:
            return None
        uid = peer_uid(sock)
        if uid != _os.getuid():
            raise ForeignServer(-1 if uid is None else uid)
        request = seal_request(secret, body, nonce, time.time() + OK_WAIT_S)
        chunks: list[bytes] = []
        try:
            give_up = time.monotonic() + OK_WAIT_S + OK_GRACE_S
            sock.settimeout(OK_WAIT_S + OK_GRACE_S)
            sock.sendall(request)
            sock.shutdown(_socket.SHUT_WR)
            head = b""
            while b"\n" not in head:  # the first line, within the deadline
                left = give_up - time.monotonic()
                if left <= 0:
                    return None
                sock.settimeout(left)
                chunk = sock.recv(4096)
                if not chunk:
                    break
                head += chunk
            chunks.append(head)
            if decode_head(head, secret):
                sock.settimeout(timeout)
                while True:
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    chunks.append(chunk)
        except OSError:
            pass  # what arrived so far decides: nothing is "not taken", a part is "lost"
    finally:
        sock.close()
        if folder >= 0:
            _os.close(folder)
    return decode_reply(b"".join(chunks), secret)


def decode_head(data: bytes, secret: bytes) -> bool:
    """Whether ``data`` starts with an ``OK`` line that shows the engine's half of the secret."""
    line, sep, _ = data.partition(b"\n")
    if not sep or not line.startswith(b"OK "):
        return False
    try:
        proof = bytes.fromhex(line[3:].decode("ascii"))
    except ValueError:
        return False
    return same(proof, server_proof(secret))


def decode_reply(data: bytes, secret: bytes) -> "bytes | None":
    """The answer in a server's reply; None when the request was not taken (nothing, a refusal,
    or an ``OK`` that does not show the engine's half: not the engine); the fail-open answer
    when it was taken and the answer is missing or incomplete."""
    if not decode_head(data, secret):
        return None
    rest = data.partition(b"\n")[2]
    size, sep, answer = rest.partition(b"\n")
    if sep and size.isdigit() and len(answer) == int(size):
        return answer
    return _no_answer()


_NO_ENGINE = (
    b'{"systemMessage": "goalkeeper: internal error (the engine could not be loaded); '
    b'the agent was not blocked."}'
)


def _no_answer() -> bytes:
    return (
        b'{"systemMessage": "goalkeeper: the engine process did not answer in time; '
        b'the agent was not blocked."}'
    )


def _fsencode(text: str) -> bytes:
    return text.encode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())
