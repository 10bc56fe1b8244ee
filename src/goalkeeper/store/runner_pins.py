"""Runners inside the project are pinned (issue 22, item 4).

A verify command's program that resolves inside the project (``.venv/bin/pytest`` when the
user's ``.venv`` is activated, ``node_modules/.bin/jest``, ``./gradlew``, a script) is a file
the agent can rewrite: a shim that prints "2 passed" and exits 0 would prove any goal. So when
the tests are kept (``test_baseline.take_baseline``), those programs are kept with them, by
their path in the project, and at every passing verify the replay (``engine.replay``) checks
them again: one that changed, or one that now resolves inside the project and did not then,
is a changed test that no replay can undo (the replay links ``.venv`` and ``node_modules``), so
the goal is held. Reads only a handful of small files; never raises.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

KNOWN_RUNNERS = ("pytest", "py.test", "jest", "vitest", "mocha", "ava", "tap")
"""Runners a session's plan or todo checks may use: pinned at its first prompt too, when no
command is known yet."""
RUNNER_DIRS = (".venv/bin", "venv/bin", "node_modules/.bin")
ROOT_SCRIPTS = ("gradlew", "mvnw")
MAX_PROGRAM_BYTES = 4 * 1024 * 1024
PIN_PREFIX = "runner:"
"""Pinned programs are kept in the baseline under this prefix: no project path starts so, and
the replay never writes them back."""


def program_names(commands: Sequence[str]) -> list[str]:
    """The program word of each command (after ``VAR=value`` words), as typed."""
    from goalkeeper.core.shell.argv import command_argv

    names: list[str] = []
    for command in commands:
        words = [w for w in command_argv(command) if not _is_assignment(w)]
        if words:
            names.append(words[0])
    return names


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.isidentifier()


def inside_programs(project: Path, names: Iterable[str]) -> list[str]:
    """The project-relative paths that ``names`` resolve to as the verify runs them (``PATH``
    in order, a relative entry read from the project; a name with a slash from the project),
    kept only when inside the project."""
    top = os.path.realpath(project)
    found: list[str] = []
    for name in names:
        path = _resolve(name, top)
        if path is not None and _inside(top, path) and _inside(top, os.path.realpath(path)):
            found.append(os.path.relpath(path, top).replace(os.sep, "/"))
    return sorted(set(found))


def _inside(top: str, path: str) -> bool:
    """Whether ``path`` is in the folder ``top``: a program must be there and run from there
    (``.venv/bin/python`` links to the system's interpreter, which the agent cannot write;
    re-pointed at a script in the project, it counts as a new runner)."""
    rel = os.path.relpath(path, top)
    return rel != ".." and not rel.startswith(".." + os.sep) and not os.path.isabs(rel)


def _resolve(name: str, top: str) -> str | None:
    """Where ``name`` is found, its folder's symlinks resolved (the project's path may have
    some), the program's own left: ``node_modules/.bin/jest`` stays that, not its target."""
    if "/" in name:
        candidate = os.path.join(top, name)
        found = os.path.isfile(candidate)
    else:
        found = False
        for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
            base = folder if os.path.isabs(folder) else os.path.join(top, folder or ".")
            candidate = os.path.join(base, name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                found = True
                break
    if not found:
        return None
    head, tail = os.path.split(os.path.normpath(candidate))
    return os.path.join(os.path.realpath(head), tail)


def pinned_candidates(project: Path, commands: Sequence[str] | None) -> list[str]:
    """What to pin: the commands' programs found inside the project, and the known runners in
    the project's runner folders (for a session, whose commands are not known yet)."""
    known = [f"./{folder}/{name}" for folder in RUNNER_DIRS for name in KNOWN_RUNNERS]
    known += [f"./{name}" for name in ROOT_SCRIPTS]
    found = set(inside_programs(project, [*program_names(commands or ()), *known]))
    return sorted(found)


def read_program(project: Path, rel: str) -> bytes | None:
    """The content ``rel`` runs (a symlink followed: ``node_modules/.bin/jest`` is one), or
    None when it is gone, not a regular file or too large."""
    import stat

    try:  # non-blocking: a FIFO planted as the runner must not hang the Stop
        fd = os.open(project / rel, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_PROGRAM_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if len(data) > MAX_PROGRAM_BYTES else data


def pin(project: Path, commands: Sequence[str] | None) -> dict[str, bytes]:
    """The programs to keep with the tests, by ``PIN_PREFIX`` + path."""
    out: dict[str, bytes] = {}
    for rel in pinned_candidates(project, commands):
        data = read_program(project, rel)
        if data is not None:
            out[PIN_PREFIX + rel] = data
    return out


def current_pins(project: Path, pinned: Iterable[str], commands: Sequence[str]) -> dict[str, str]:
    """The digest now of every pinned program and of every program ``commands`` resolve to
    inside the project (a new one shows as added)."""
    import hashlib

    rels = {p.removeprefix(PIN_PREFIX) for p in pinned if p.startswith(PIN_PREFIX)}
    rels.update(inside_programs(project, program_names(commands)))
    out: dict[str, str] = {}
    for rel in sorted(rels):
        data = read_program(project, rel)
        if data is not None:
            out[PIN_PREFIX + rel] = hashlib.sha256(data).hexdigest()
    return out
