"""goalkeeper's own folders as a host's sandbox must see them: the ones the agent's shell may
neither read nor write, and the test of whether a sandbox path rule covers one.

The agent's shell runs as the same user as goalkeeper; a host's sandbox (Claude Code's, Codex's
workspace-write) is the only wall between them. Everything goalkeeper trusts lives in three
folders (``store.locations`` names the first two, ``hook_client.runtime_dir`` the third): the
state home (the state database, baselines, approvals), the config home (the user's config) and
the runtime folder of the hooks' sockets and their secrets. A sandbox that keeps the agent's
shell out of these three, and away from unix sockets, leaves it nothing of goalkeeper's to
forge. ``install claude --sandbox`` writes them into Claude Code's settings; ``doctor`` checks
every host's sandbox against them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path


def goalkeeper_folders(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The absolute paths of goalkeeper's state home, config home and runtime folder (each
    also by its real path where a symlink leads elsewhere, as on macOS's ``/tmp``)."""
    from goalkeeper.hosts.hook_client import runtime_dir
    from goalkeeper.store.locations import config_home, state_home

    named = [str(state_home(env)), str(config_home(env)), runtime_dir()]
    out: list[str] = []
    for folder in named:
        absolute = os.path.abspath(os.path.expanduser(folder))
        out += [absolute, os.path.realpath(absolute)]
    return tuple(dict.fromkeys(out))


def inside(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or lies under it (both absolute, compared as written)."""
    path, folder = path.rstrip("/") or "/", folder.rstrip("/") or "/"
    return path == folder or path.startswith(folder if folder == "/" else folder + "/")


def covered(folder: str, rules: Iterable[str]) -> bool:
    """Some rule (an absolute folder, already resolved) is ``folder`` or a folder above it."""
    return any(inside(folder, rule) for rule in rules)


def ensure_folders(folders: Iterable[str]) -> list[str]:
    """Create the folders that do not exist yet, private to this user (0700): a sandbox hides
    a denied folder by mounting over it, which needs the folder to be there when the agent's
    session starts. One that exists with wider bits (an install receipt written first) is
    narrowed. The folders created."""
    import os

    made: list[str] = []
    for folder in folders:
        path = Path(folder)
        if path.exists():
            try:
                st = path.stat()
                if path.is_dir() and st.st_uid == os.getuid() and st.st_mode & 0o077:
                    path.chmod(0o700)
            except OSError:
                pass
            continue
        try:
            path.mkdir(mode=0o700, parents=True)
        except OSError:
            continue
        made.append(folder)
    return made


GUARANTEES = (
    "forged-hook-event",
    "disguised-approval",
    "own-mcp-server",
    "environment-settings",
    "socket-stand-in",
    "state-deletion",
    "runner-config-names",
    "shadow-modules",
)
"""What goalkeeper promises against an agent that cheats with its shell (README: Security
model, one row each)."""
HOLDS = "holds"
BEST_EFFORT = "best effort"
CONFINED = "confined"
WRITES_CONFINED = "writes confined"
NOT_CONFINED = "not confined"
_WRITE_WALL = ("socket-stand-in", "state-deletion", "runner-config-names", "shadow-modules")
"""What holds when the agent's shell cannot write goalkeeper's folders but can still read them
and open unix sockets (Codex's workspace-write): nothing it writes can replace goalkeeper's
state, sockets or baselines; what it says over a socket with a secret it read is another
matter."""


def guarantees(shell: str) -> dict[str, str]:
    """Each guarantee and whether it ``holds`` or is ``best effort`` (goalkeeper's text checks
    only) for an agent's shell that is ``confined``, ``writes confined`` or ``not confined``.
    Shadow modules hold everywhere: Python verifications run with ``PYTHONSAFEPATH=1``."""
    held = {
        CONFINED: GUARANTEES,
        WRITES_CONFINED: _WRITE_WALL,
        NOT_CONFINED: ("shadow-modules",),
    }.get(shell, ())
    return {name: HOLDS if name in held else BEST_EFFORT for name in GUARANTEES}
