"""What every host's install shares: which interpreter the launcher may name, whether the
launcher finds goalkeeper, the paths install creates (so uninstall may take them away again),
and the bytecode hooks start from.
"""

from __future__ import annotations

import sys
from pathlib import Path

from goalkeeper.hosts.claude.settings import Scope, mcp_command


def baked_python(scope: Scope, project: Path) -> str | None:
    """The interpreter to name in the launcher, after ``$GOALKEEPER_PYTHON``: none in the
    committed project files (they must work on every machine); this one in the user's own
    settings (``--user``: user-level configuration, the user's opt-in); in ``--local``
    settings only when it lies outside the project, since the project folder is the agent's
    to write and a launcher must not run an interpreter the agent can replace."""
    if scope == "project":
        return None
    python = sys.executable
    if "\n" in python:
        return None
    if scope == "local" and _inside(Path(python), project):
        return None
    return python


def launcher_finds(project: Path, python: str | None) -> bool:
    """Whether the hooks' launcher, run here as Claude Code would run it, finds goalkeeper."""
    return launcher_version(project, python) is not None


def launcher_version(
    project: Path, python: str | None, extra_env: dict[str, str] | None = None, timeout: float = 60
) -> str | None:
    """What ``goalkeeper --version`` prints when the hooks' launcher (our own script, with
    ``python`` as its fallback) runs it in ``project`` as a host would; ``None`` when it finds
    no goalkeeper, fails or outlasts ``timeout``. ``extra_env``: variables the host adds (the
    user's ``GOALKEEPER_PYTHON`` from its own settings)."""
    import os
    import subprocess

    from goalkeeper.hosts.transport.launcher import launcher_script

    env = {**os.environ, **(extra_env or {}), "CLAUDE_PROJECT_DIR": str(project)}
    argv = ["sh", "-c", launcher_script(python), "goalkeeper", "--version"]
    try:
        done = subprocess.run(
            argv,
            cwd=project,
            env=env,
            capture_output=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.decode("utf-8", "replace").strip() if done.returncode == 0 else None


def missing_paths(paths: list[Path], project: Path, home: Path) -> tuple[str, ...]:
    """The files among ``paths`` and the folders above them (up to the project or the home
    folder) that do not exist yet: install creates them, so uninstall may take them away."""
    labels: list[str] = []
    for path in paths:
        root = home if not _inside(path, project) else project
        for item in (path, *path.parents):
            if item == root or not _inside(item, root) or item.exists():
                break
            labels.append(_label(item, project, home))
    return tuple(dict.fromkeys(labels))


def _label(path: Path, project: Path, home: Path) -> str:
    if _inside(path, project):
        return path.relative_to(project).as_posix()
    return "~/" + path.relative_to(home).as_posix() if _inside(path, home) else str(path)


def _resolve(label: str, project: Path, home: Path) -> Path:
    return home / label[2:] if label.startswith("~/") else project / label


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


def _remove_empty_folders(created: set[str], project: Path, home: Path) -> None:
    """The folders install created, deepest first, when they are empty (a folder that holds
    anything else, such as goalkeeper's state, stays)."""
    folders = [_resolve(label, project, home) for label in created]
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and not folder.is_symlink():
            try:
                folder.rmdir()
            except OSError:
                pass


def mcp_argv() -> list[str]:
    """The MCP server's argv for files that stay on this machine (``goalkeeper run``'s temp
    config): the launcher with this Python as its fallback."""
    return mcp_command(sys.executable)


def _precompile() -> bool:
    """Write goalkeeper's bytecode now, so hook processes start from it even where
    PYTHONDONTWRITEBYTECODE is set (as it is in many agent sandboxes)."""
    import compileall

    import goalkeeper

    try:
        return bool(compileall.compile_dir(Path(goalkeeper.__file__).parent, quiet=1))
    except OSError:
        return False
