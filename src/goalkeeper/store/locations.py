"""Where goalkeeper keeps what it trusts: the user's folders, outside every project.

The agent goalkeeper supervises has a shell that runs as the same user, and a host's sandbox
(Claude Code's, Codex's workspace-write) lets that shell write the project and a temp folder.
So the machine state (the state database: counters, todos, approvals, promises, the journal,
run records), the copies of protected tests and the user's config live in the user's state and
config folders, never in the project or under a temp folder; ``goalkeeper install claude
--sandbox`` denies these folders to the agent's shell (``agent_denied_folders``).

A project's folder is named by a digest of the project's real path, chosen by the host (the
hook's project folder), so no file the agent writes in the project can choose or share another
project's folder. One function each; nothing else in goalkeeper builds these paths.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

STATE_HOME_VAR = "GOALKEEPER_STATE_HOME"
PROJECTS = "projects"
LEGACY_STATE_DIR = ".goalkeeper"
"""The folder in the project where goalkeeper kept its state before; migrated once, then left
for the user to delete (``migrate_legacy_state``), and still protected from the agent's tools."""


def state_home(env: Mapping[str, str] | None = None) -> Path:
    """goalkeeper's folder in the user's state: ``$GOALKEEPER_STATE_HOME``, else
    ``$XDG_STATE_HOME/goalkeeper``, else ``~/.local/state/goalkeeper`` (the process's own
    environment unless ``env`` is given). Outside every project: the user's."""
    source = os.environ if env is None else env
    named = source.get(STATE_HOME_VAR, "").strip()
    if named:
        return Path(os.path.expanduser(named))
    base = source.get("XDG_STATE_HOME", "").strip()
    return Path(base or os.path.join(os.path.expanduser("~"), ".local", "state")) / "goalkeeper"


def config_home(env: Mapping[str, str] | None = None) -> Path:
    """goalkeeper's folder in the user's config: ``$XDG_CONFIG_HOME/goalkeeper``, else
    ``~/.config/goalkeeper``."""
    source = os.environ if env is None else env
    base = source.get("XDG_CONFIG_HOME", "").strip()
    return Path(base or os.path.join(os.path.expanduser("~"), ".config")) / "goalkeeper"


def project_key(project: Path) -> str:
    """The name of ``project``'s folder under the state home: a digest of its real path (two
    spellings of one folder share it; no two folders do)."""
    real = os.fsencode(os.path.realpath(project))
    return _sha256_hex(real)[:32]


def _sha256_hex(data: bytes) -> str:
    """SHA-256 of ``data`` without importing ``hashlib`` where the C module behind it exists:
    every hook process names its project's folder, and ``hashlib`` loads OpenSSL (about 2 ms
    of a cold session start, measured with ``-X importtime``) where ``_sha2`` (Python 3.12+)
    or ``_sha256`` (3.11) takes about 0.2 ms. The digest is the same; ``hashlib`` is the
    fallback for a build without them. The module found is kept: the warm engine names the
    folder on every request, and a failed import is not cached by Python."""
    if not _SHA256:
        from importlib import import_module

        for name in ("_sha2", "_sha256", "hashlib"):
            try:
                _SHA256.append(import_module(name).sha256)
                break
            except ImportError:
                continue
    return str(_SHA256[0](data).hexdigest())  # hashlib always has one


_SHA256: list[Callable[[bytes], Any]] = []


def project_state_dir(project: Path, env: Mapping[str, str] | None = None) -> Path:
    """The folder holding ``project``'s machine state (its ``state.db``)."""
    return state_home(env) / PROJECTS / project_key(project)


HIDDEN_TESTS = "hidden-tests"


def hidden_tests_dir(project: Path, env: Mapping[str, str] | None = None) -> Path:
    """The user's hidden acceptance tests for ``project``'s goal (``goal set --hidden-tests``):
    in the state folder, which the agent cannot write and a sandboxed host denies to its reads,
    so the agent never sees what they test."""
    return project_state_dir(project, env) / HIDDEN_TESTS


HIDDEN_RUN = "hidden-run"


def hidden_run_dir(project: Path, env: Mapping[str, str] | None = None) -> Path:
    """Where the hidden tests run: a copy of ``project``'s work tree kept between proofs
    (``engine.scratch_tree``), beside the hidden tests and denied to the agent's reads alike."""
    return project_state_dir(project, env) / HIDDEN_RUN


def legacy_state_dir(project: Path) -> Path:
    """Where an older goalkeeper kept ``project``'s state (``.goalkeeper/`` in the project)."""
    return project / LEGACY_STATE_DIR
