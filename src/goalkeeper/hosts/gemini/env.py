"""The environment of a Gemini CLI hook, less what the project's own ``.env`` files put there.

Gemini CLI 0.61.0 loads one env file at start-up into its own environment, which every hook
inherits (``loadEnvironment``/``findEnvFile``): in a trusted folder the first of
``<dir>/.gemini/.env`` and ``<dir>/.env``, from the working folder up, then ``~/.gemini/.env``,
``~/.env``; a variable already set is kept. A project's files are the supervised agent's to
write, so a ``GOALKEEPER_*`` value set there (``GOALKEEPER_MAX_CONTINUATIONS=100000``) would be
the agent raising goalkeeper's limits. goalkeeper's settings read from the environment are the
user's only: the names a project env file defines are dropped before the config is read.
(``GOALKEEPER_PYTHON`` is read by the launcher before Python runs; ``.gemini/.env`` is one of
Gemini's host files, which the agent may not write.) Pure but for reading those files.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

MAX_ENV_FILE = 256 * 1024


def project_env_names(project: Path, cwd: str) -> frozenset[str]:
    """goalkeeper's variable names defined in the env file Gemini loads, when that file lies in
    the project (a file above it or in the home folder is the user's)."""
    root = project.resolve()
    here = Path(cwd).resolve() if cwd else root
    if root != here and root not in here.parents:
        here = root
    for folder in (here, *here.parents):
        for candidate in (folder / ".gemini" / ".env", folder / ".env"):
            if candidate.is_file():
                inside = folder == root or root in folder.parents
                return _goalkeeper_names(candidate) if inside else frozenset()
        if folder == root:
            return frozenset()  # above the project: not the agent's files
    return frozenset()


def user_env(env: Mapping[str, str], project: Path, cwd: str) -> dict[str, str]:
    """``env`` without the goalkeeper settings a project env file defines. With none of
    goalkeeper's settings in ``env`` there is nothing to drop, and no file is looked for
    (the warm engine asks this on every Gemini event)."""
    from goalkeeper.config import ENV_ALIASES, ENV_PREFIX

    if not any(k.startswith(ENV_PREFIX) or k in ENV_ALIASES for k in env):
        return dict(env)
    dropped = project_env_names(project, cwd)
    return {k: v for k, v in env.items() if k not in dropped} if dropped else dict(env)


def _goalkeeper_names(path: Path) -> frozenset[str]:
    from goalkeeper.config import ENV_ALIASES, ENV_PREFIX

    try:
        with open(path, "rb") as f:
            text = f.read(MAX_ENV_FILE).decode("utf-8", errors="replace")
    except OSError:
        return frozenset()
    names = set()
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        name, sep, _ = line.partition("=")
        name = name.strip()
        if sep and (name.startswith(ENV_PREFIX) or name in ENV_ALIASES):
            names.add(name)
    return frozenset(names)
