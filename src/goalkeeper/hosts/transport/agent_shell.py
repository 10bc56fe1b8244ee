"""Is this process running inside an agent's shell? Approvals are the user's, so the commands
that grant them (``goalkeeper allow``, ``goalkeeper goal approve`` …) refuse to run there.

Each host marks the commands its shell tool runs: Claude Code sets ``CLAUDECODE=1``, Pi
``PI_CODING_AGENT=true`` (1.6 also ``AI_AGENT=pi``), Codex CLI ``CODEX_SANDBOX``/
``CODEX_SANDBOX_NETWORK_DISABLED`` and, installed from npm, ``CODEX_MANAGED_BY_NPM``, Gemini CLI
``GEMINI_CLI=1``. A command can drop a variable for itself (``env -u CLAUDECODE …``) but not
for the shell that started it, so the environment each ancestor process *started with* is read
too (``/proc/<pid>/environ`` on Linux), as is the program each ancestor runs. This keeps an
agent from approving its own changes by accident or by a casual trick; it is not a sandbox: an
agent allowed to run any command as you can do what you can (see the README's Security model).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from msgspec import Struct

MARKERS: tuple[tuple[str, str | None, str], ...] = (
    ("CLAUDECODE", "1", "Claude Code"),
    ("PI_CODING_AGENT", "true", "Pi"),
    ("AI_AGENT", "pi", "Pi"),
    ("CODEX_SANDBOX", None, "Codex CLI"),
    ("CODEX_SANDBOX_NETWORK_DISABLED", None, "Codex CLI"),
    ("CODEX_MANAGED_BY_NPM", None, "Codex CLI"),
    ("GEMINI_CLI", "1", "Gemini CLI"),
)
"""(variable, value it must have or None for any non-empty value, the agent)."""
PROGRAMS = {"claude": "Claude Code", "pi": "Pi", "codex": "Codex CLI", "gemini": "Gemini CLI"}
"""Program names of the agents' executables (or the script a ``node`` process runs)."""
MAX_ANCESTORS = 64


class AgentShell(Struct, frozen=True):
    """The agent found, and the evidence (a variable, or an ancestor's program)."""

    agent: str
    evidence: str


def find_agent_shell(
    environ: Mapping[str, str] | None = None, *, proc: str = "/proc", pid: int | None = None
) -> AgentShell | None:
    """The agent whose shell this process (or ``pid``) runs in, else None. Never raises."""
    found = _marker(os.environ if environ is None else environ)
    if found is not None:
        return found
    current = os.getpid() if pid is None else pid
    for _ in range(MAX_ANCESTORS):
        parent = _parent(proc, current)
        if parent is None or parent <= 1:
            return None
        found = _marker(_environ(proc, parent)) or _program(proc, parent)
        if found is not None:
            return found
        current = parent
    return None


def _marker(environ: Mapping[str, str]) -> AgentShell | None:
    for name, value, agent in MARKERS:
        got = environ.get(name, "").strip()
        if got and (value is None or got.lower() == value):
            return AgentShell(agent, f"{name}={got}")
    return None


def _parent(proc: str, pid: int) -> int | None:
    data = _read_proc(f"{proc}/{pid}/stat", 4096)
    if not data:
        return None
    fields = data[data.rfind(b")") + 2 :].split()  # the name in parentheses may hold spaces
    try:
        return int(fields[1])
    except (IndexError, ValueError):
        return None


def _environ(proc: str, pid: int) -> dict[str, str]:
    try:
        with open(f"{proc}/{pid}/environ", "rb") as f:
            data = f.read(1 << 20)
    except OSError:
        return {}
    out: dict[str, str] = {}
    for item in data.split(b"\0"):
        key, sep, value = item.partition(b"=")
        if sep:
            out[key.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
    return out


def _program(proc: str, pid: int) -> AgentShell | None:
    argv = _read_proc(f"{proc}/{pid}/cmdline", 1 << 16).split(b"\0")
    names = [os.path.basename(a.decode("utf-8", "replace")) for a in argv[:2] if a]
    if names and names[0] in ("node", "nodejs", "bun") and len(names) > 1:
        names = names[1:]  # `node …/bin/pi`: the script is the program
    for name in names[:1]:
        agent = PROGRAMS.get(name.removesuffix(".js"))
        if agent is not None:
            return AgentShell(agent, f"ancestor process {pid} runs {name}")
    return None


SANDBOX_MARKERS: tuple[tuple[str, str | None, str], ...] = (
    ("CODEX_SANDBOX", None, "Codex CLI's sandbox"),
    ("CODEX_SANDBOX_NETWORK_DISABLED", None, "Codex CLI's sandbox"),
)
"""Variables a host sets only for the commands it runs in its sandbox (never for its hooks):
Codex sets ``CODEX_SANDBOX_NETWORK_DISABLED=1`` for its shell tool's commands in
``workspace-write`` without network, ``CODEX_SANDBOX=seatbelt`` on macOS. Claude Code sets
``CLAUDECODE=1`` for its hooks too, so that marker cannot tell its sandbox from its hooks."""


def sandboxed_process(pid: int, *, proc: str = "/proc") -> AgentShell | None:
    """The host sandbox that process ``pid`` (or an ancestor of it) runs in, else None. Codex's
    ``workspace-write`` lets the agent's shell read goalkeeper's folders and open unix sockets,
    so the warm engine asks this of every client: first whether the client is confined where
    this process is not (``confined_apart``: Codex with ``network_access = true`` sets no
    marker), then the markers. Never raises."""
    apart = confined_apart(pid, proc=proc)
    if apart is not None:
        return AgentShell("a sandbox", f"process {pid}: {apart}")
    current = pid
    for _ in range(MAX_ANCESTORS):
        if current <= 1:
            return None
        environ = _environ(proc, current) if _mentions(proc, current, b"CODEX_SANDBOX") else {}
        for name, value, sandbox in SANDBOX_MARKERS:
            got = environ.get(name, "").strip()
            if got and (value is None or got.lower() == value):
                return AgentShell(sandbox, f"process {current}: {name}={got}")
        if _program(proc, current) is not None:
            return None  # the host itself: what started it is the user's side (and a hook's
            # walk ends here, at its parent: two reads, not the whole chain up to init)
        parent = _parent(proc, current)
        if parent is None:
            return None
        current = parent
    return None


NAMESPACES = ("mnt", "user", "pid")
"""The namespaces a sandbox gives its commands (Codex 0.171's ``codex-linux-sandbox`` and Claude
Code's both run bubblewrap: new user, mount and pid namespaces). Hooks and MCP servers run in
the host's own, which is the engine's: the engine is started by a hook."""
CONFINEMENT = (b"NoNewPrivs:", b"Seccomp:")
"""``/proc/<pid>/status`` lines a sandbox raises and no process can lower again: landlock and
seccomp need ``no_new_privs``, and a seccomp filter stays for every descendant."""


def confined_apart(pid: int, than: str = "self", *, proc: str = "/proc") -> str | None:
    """How process ``pid`` is confined where process ``than`` (this one) is not: another mount,
    user or pid namespace, ``no_new_privs`` or a seccomp mode this process lacks; None when it
    is not, or when this process's own cannot be read (nothing to compare with: a ``proc``
    without them). A client whose namespace cannot be read although this process's can is
    confined: the sandbox hides it. Never raises."""
    for name in NAMESPACES:
        try:
            mine = os.readlink(f"{proc}/{than}/ns/{name}")
        except (OSError, ValueError):
            continue
        try:
            theirs = os.readlink(f"{proc}/{pid}/ns/{name}")
        except FileNotFoundError:
            return None  # gone (or never there): nothing asks any more
        except (OSError, ValueError):
            return f"its {name} namespace cannot be read"
        if theirs != mine:
            return f"another {name} namespace ({theirs}, not {mine})"
    mine_status = _status_levels(_read_proc(f"{proc}/{than}/status", 1 << 16))
    theirs_status = _status_levels(_read_proc(f"{proc}/{pid}/status", 1 << 16))
    for key in CONFINEMENT:
        if key in mine_status and theirs_status.get(key, 0) > mine_status[key]:
            return f"{key.decode()} {theirs_status[key]} (this process: {mine_status[key]})"
    return None


def _status_levels(data: bytes) -> dict[bytes, int]:
    """The ``CONFINEMENT`` lines of a ``/proc/<pid>/status`` as numbers."""
    out: dict[bytes, int] = {}
    for line in data.split(b"\n"):
        key, _, value = line.partition(b"\t")
        if key in CONFINEMENT and value.strip().isdigit():
            out[key] = int(value)
    return out


def _mentions(proc: str, pid: int, text: bytes) -> bool:
    """Whether the environment ``pid`` started with holds ``text`` at all: a byte search, so
    the walk decodes (``_environ``) only the environment that may carry a marker."""
    return text in _read_proc(f"{proc}/{pid}/environ", 1 << 20)


def _read_proc(path: str, limit: int) -> bytes:
    """Up to ``limit`` bytes of a /proc file, b"" when it cannot be read. ``os.read`` in 64 KiB
    steps: a buffered ``read(limit)`` allocates all of ``limit`` first (~20 µs for 1 MiB), and
    the engine asks this of a few processes on every request."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except (OSError, ValueError):
        return b""
    chunks: list[bytes] = []
    total = 0
    try:
        while total < limit:
            chunk = os.read(fd, min(65536, limit - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError:
        return b""
    finally:
        os.close(fd)
    return b"".join(chunks)
