"""The hook channel's ground: which engine a hook event goes to, where its socket lives, and the
secret that proves both ends. The client and the engine side (``transport/dispatch.py``,
``transport/hook_server.py``) both read it, so neither imports the other for it.

Imported by the lean hook client on every event, so it imports only ``posix`` (and the built-in
``_operator``) like ``hook_client``; see there for the protocol.

The agent goalkeeper supervises has a shell that runs as the same user, and a host's sandbox lets
that shell write only the project and a temp folder. So:

- **The runtime folder** (sockets, pid and lock files) is never under a temp folder or the
  project: ``$XDG_RUNTIME_DIR/goalkeeper`` when that is an existing folder private to this user
  and not under a temp folder, else ``run/`` in goalkeeper's state home
  (``store.locations.state_home``, which ``install claude --sandbox`` denies to the agent's
  shell); ``$GOALKEEPER_RUNTIME_DIR`` overrides both (the user's explicit choice).
- **The secret** (32 random bytes, ``hook.key`` in the state home) is read by the hook the host
  starts and by the engine, never by a sandboxed agent. A client shows its first half; the
  engine's ``OK`` shows the second half, which no client request carries, so a stand-in listener
  that captured a request still cannot pass for the engine.

Why halves and not a digest over a nonce (protocol GK3, before): every party that could capture
a request or replay one has to be a listener in the runtime folder, and whoever can write there
can read the secret itself: no sandbox (the agent's shell reads the state home anyway), or no
confinement at all. A sandbox that denies the folder (``install claude --sandbox``) or leaves it
outside every writable root (Codex's ``workspace-write``, whose shell the engine refuses by its
confinement: ``agent_shell.sandboxed_process``) stops both. A digest bought nothing more, and
loading the ``_sha256`` module cost every hook ~0.2 ms.
"""

import sys

if sys.platform == "win32":  # no posix module; there is no server path there anyway
    import os as _os
else:
    import posix as _os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

RUNTIME_DIR_VAR = "GOALKEEPER_RUNTIME_DIR"
STATE_HOME_VAR = "GOALKEEPER_STATE_HOME"  # store.locations.STATE_HOME_VAR (that imports pathlib)
RUN_FOLDER = "run"
SECRET_NAME = "hook.key"
SECRET_BYTES = 32
TEMP_ROOTS = ("/tmp", "/var/tmp", "/dev/shm", "/private/tmp", "/private/var", "/var/folders")
"""Folders every sandbox lets the agent write (and ``$TMPDIR``): never the runtime folder."""
MAX_SOCKET_PATH = 107
"""``sun_path`` holds 108 bytes with the terminating NUL (Linux; macOS 104)."""

HOSTS = {
    "claude": "goalkeeper.hosts.claude.hook",
    "codex": "goalkeeper.hosts.codex.hook",
    "gemini": "goalkeeper.hosts.gemini.hook",
}
"""The hosts whose command hooks this client answers, and the module that translates each:
it has ``answer_hook(raw, env, cwd, *, clock=None, notes=())`` (``hosts.claude.hook``'s
shape) and is imported only when that host's event is answered in-process."""
PROJECT_VARS = {"claude": "CLAUDE_PROJECT_DIR", "gemini": "GEMINI_PROJECT_DIR"}
"""Where a host names the project in a hook's environment; else the hook's working folder
(Codex runs hooks in the session's folder and names it nowhere else)."""
SPAWN_THROTTLE_S = 10.0
"""The warm engine is started at most once per this many seconds per project."""


def state_home(environ: "Mapping[str, str]") -> str:
    """``store.locations.state_home`` as a string, without ``os.path`` or ``pathlib`` (the lean
    client imports neither; a test pins that the two agree): ``$GOALKEEPER_STATE_HOME``, else
    ``$XDG_STATE_HOME/goalkeeper``, else ``~/.local/state/goalkeeper``."""
    named = environ.get(STATE_HOME_VAR, "").strip()
    if named:
        return _normal(_expanduser(named, environ))
    base = environ.get("XDG_STATE_HOME", "").strip()
    return _normal(base or _expanduser("~", environ) + "/.local/state") + "/goalkeeper"


def runtime_dir(environ: "Mapping[str, str]") -> str:
    """The folder for sockets (see the module's docstring). It may not be private yet:
    ``runtime_problem`` tells."""
    override = environ.get(RUNTIME_DIR_VAR)
    if override:
        return override
    base = environ.get("XDG_RUNTIME_DIR", "")
    if base.startswith("/") and _private_folder(base) and not under_temp(base, environ):
        return join(base, "goalkeeper")
    return join(state_home(environ), RUN_FOLDER)


def under_temp(path: str, environ: "Mapping[str, str]") -> bool:
    """Whether ``path`` is a temp folder or inside one (``TEMP_ROOTS``, ``$TMPDIR``)."""
    roots = [*TEMP_ROOTS, environ.get("TMPDIR", "").rstrip("/")]
    path = _normal(path)
    return any(r and (path == r or path.startswith(r + "/")) for r in roots)


def runtime_problem(directory: str) -> "tuple[str, int, int] | None":
    """Why ``directory`` is not private to this user, as (path, owner uid, ``st_mode``) of the
    folder, or of its parent when another user could rename the folder away there; None when it
    is private or does not exist yet. Two ``stat`` calls: this runs on every hook."""
    uid = _os.getuid()
    parent = parent_of(directory)
    try:
        st = _os.stat(parent)  # the parent may be a symlink (macOS: /tmp → /private/tmp)
    except OSError:
        return None  # nothing to connect to; creating the folder will fail and say so
    # 0o022: group or other may write; 0o1000: the sticky bit, which limits renames to owners
    if st.st_uid not in (0, uid) or (st.st_mode & 0o022 and not st.st_mode & 0o1000):
        return parent, st.st_uid, st.st_mode
    try:
        st = _os.lstat(directory)
    except FileNotFoundError:
        return None
    except OSError:
        return directory, -1, 0
    # 0o170000: the file type bits; 0o040000: a directory (not a symlink to one)
    if st.st_mode & 0o170000 != 0o040000 or st.st_uid != uid or st.st_mode & 0o077:
        return directory, st.st_uid, st.st_mode
    return None


def make_runtime_dir(directory: str) -> "tuple[str, int, int] | None":
    """Create ``directory`` private to this user (atomically, mode 0700; its missing parents
    0700 too), or accept it when it exists and is private; the problem otherwise."""
    try:
        _os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    except FileNotFoundError:  # the state home itself is new
        import os

        try:
            os.makedirs(directory, 0o700, exist_ok=True)
        except OSError:
            return directory, -1, 0
    except OSError:
        return directory, -1, 0
    return runtime_problem(directory)


def open_private(path: str, flags: int) -> int:
    """A file descriptor for ``path`` in goalkeeper's folders: never through a symlink, created
    with mode 0600, and only if it is a regular file of this user (``O_NONBLOCK``: a FIFO
    there cannot hang the open). Raises ``OSError``."""
    fd = _os.open(path, flags | _os.O_NOFOLLOW | _os.O_CLOEXEC | _os.O_NONBLOCK, 0o600)
    st = _os.fstat(fd)
    if st.st_mode & 0o170000 != 0o100000 or st.st_uid != _os.getuid():  # a regular file
        _os.close(fd)
        raise PermissionError(f"{path} is not a regular file of this user")
    return fd


def secret_path(environ: "Mapping[str, str]") -> str:
    return join(state_home(environ), SECRET_NAME)


def read_secret(path: str) -> "bytes | tuple[str, int, int] | None":
    """The secret; None when there is none yet (the engine creates it); (path, owner uid,
    ``st_mode``) when the file is not one only this user can read, or not a secret."""
    try:
        fd = _os.open(path, _os.O_RDONLY | _os.O_NOFOLLOW | _os.O_CLOEXEC | _os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError:  # a symlink (ELOOP), no permission (a sandbox): no proof from here
        return path, -1, 0
    try:
        st = _os.fstat(fd)
        secret = _os.read(fd, SECRET_BYTES + 1)
    except OSError:
        return path, -1, 0
    finally:
        _os.close(fd)
    bad_file = st.st_mode & 0o170000 != 0o100000 or st.st_uid != _os.getuid()
    if bad_file or st.st_mode & 0o077 or len(secret) != SECRET_BYTES:
        return path, st.st_uid, st.st_mode
    return secret


def ensure_secret(path: str) -> "bytes | tuple[str, int, int]":
    """The secret at ``path``, created first when there is none: written to a new private
    temporary file (``O_EXCL``, never through a symlink) that is then hard-linked to ``path``,
    which fails rather than replace a file another process made meanwhile (that one is read).
    The problem, as ``read_secret`` says it, when it is unsafe or cannot be made."""
    found = read_secret(path)
    if found is not None:
        return found
    folder = parent_of(path)
    if make_runtime_dir(folder) is not None and not _isdir(folder):
        return path, -1, 0
    tmp = f"{path}.{_os.getpid()}.tmp"
    try:
        try:
            _os.unlink(tmp)  # left by a killed process that had this pid
        except FileNotFoundError:
            pass
        fd = open_private(tmp, _os.O_WRONLY | _os.O_CREAT | _os.O_EXCL)
        try:
            _os.write(fd, _os.urandom(SECRET_BYTES))
        finally:
            _os.close(fd)
        try:
            _os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            _os.unlink(tmp)
    except OSError:
        return path, -1, 0
    return read_secret(path) or (path, -1, 0)


def same(a: bytes, b: bytes) -> bool:
    """Constant-time equality (``hmac.compare_digest`` is this function)."""
    from _operator import _compare_digest

    return bool(_compare_digest(a, b))


def client_proof(secret: bytes) -> bytes:
    """What a client shows: the secret's first half."""
    return secret[: SECRET_BYTES // 2]


def server_proof(secret: bytes) -> bytes:
    """What the engine shows back: the half no request carries."""
    return secret[SECRET_BYTES // 2 :]


def socket_address(path: str) -> "tuple[str, int]":
    """What to ``connect``/``bind`` for ``path``, and a folder descriptor to close afterwards
    (-1: none). A path longer than ``sun_path`` holds (a deep state home) is reached through
    ``/proc/self/fd/<folder>/<name>`` on Linux, so the socket never has to move to a short
    folder such as ``/tmp``; elsewhere it stays too long (``connect`` fails: in-process)."""
    if len(path.encode("utf-8", "surrogateescape")) <= MAX_SOCKET_PATH:
        return path, -1
    if not sys.platform.startswith("linux"):
        return path, -1
    slash = path.rfind("/")
    flags = getattr(_os, "O_PATH", 0) | _os.O_DIRECTORY | _os.O_CLOEXEC
    try:
        fd = _os.open(path[:slash] or "/", flags)
    except OSError:
        return path, -1
    return f"/proc/self/fd/{fd}/{path[slash + 1 :]}", fd


def join(folder: str, name: str) -> str:
    return folder + name if folder.endswith("/") else f"{folder}/{name}"


def parent_of(path: str) -> str:
    """``os.path.dirname(os.path.abspath(path))`` without ``os.path``."""
    if not path.startswith("/"):
        path = join(_os.getcwd(), path)
    parts = _normal(path).split("/")
    out: list[str] = []
    for part in parts:
        if part == "..":
            if out:
                out.pop()
        elif part:
            out.append(part)
    return "/" + "/".join(out[:-1])


def _isdir(path: str) -> bool:
    try:
        return _os.stat(path).st_mode & 0o170000 == 0o040000
    except (OSError, ValueError):
        return False


def _private_folder(path: str) -> bool:
    """An existing folder of this user that no one else may open (``$XDG_RUNTIME_DIR`` is
    0700 when the login manager made it)."""
    try:
        st = _os.stat(path)
    except (OSError, ValueError):
        return False
    return (
        st.st_mode & 0o170000 == 0o040000 and st.st_uid == _os.getuid() and not st.st_mode & 0o077
    )


def _expanduser(path: str, environ: "Mapping[str, str]") -> str:
    """``os.path.expanduser`` for ``~`` and ``~/…`` from ``$HOME`` (``~user`` through
    ``os.path``: rare, and worth no copy)."""
    if not path.startswith("~"):
        return path
    if (path != "~" and not path.startswith("~/")) or "HOME" not in environ:
        import posixpath

        return posixpath.expanduser(path)
    return environ["HOME"].rstrip("/") + path[1:] or "/"


def _normal(path: str) -> str:
    """The path as ``pathlib`` spells it: no empty or ``.`` parts, no trailing slash."""
    parts = [p for p in path.split("/") if p and p != "."]
    head = "/" if path.startswith("/") else ""
    return head + "/".join(parts) if parts or head else "."


def project_of(host: str, env: "Mapping[str, str]", cwd: str) -> str:
    """The project a hook event belongs to: what keys its engine (see ``PROJECT_VARS``)."""
    var = PROJECT_VARS.get(host)
    return (env.get(var) if var else None) or cwd


def server_key(installation: str, project: str) -> str:
    """FNV-1a of installation and project: one engine per virtualenv and project.

    ``installation`` is ``sys.prefix``, the same for ``.venv/bin/python``, ``python3`` and the
    ``goalkeeper`` console script of one virtualenv (``sys.executable`` differs between them)."""
    h = 0xCBF29CE484222325
    for byte in (installation + "\0" + project).encode("utf-8", "surrogateescape"):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def socket_path(installation: str, project: str) -> str:
    return join(runtime_dir(process_environ()), server_key(installation, project) + ".sock")


def process_environ() -> "Mapping[str, str]":
    """The environment: ``os.environ`` once ``os`` is loaded (it may have been changed through
    it), else the process's own, decoded as ``os`` would decode it."""
    loaded = sys.modules.get("os")
    if loaded is not None or not hasattr(_os, "environ"):
        import os

        return os.environ
    return {fsdecode(k): fsdecode(v) for k, v in _os.environ.items()}


def fsdecode(data: bytes) -> str:
    return data.decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())
