"""Answer a hook event inside this process, for the hook client and the hook server alike.

Also starts the warm engine process (``goalkeeper serve``) in the background when the client had
to answer in-process, at most once per ``SPAWN_THROTTLE_S`` per project, and only in a runtime
folder private to this user.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from goalkeeper.config import Config
from goalkeeper.hosts.hook_channel import (
    HOSTS,
    SPAWN_THROTTLE_S,
    make_runtime_dir,
    open_private,
    process_environ,
    project_of,
    runtime_dir,
    socket_path,
)

UNENCODABLE = (
    b'{"systemMessage": "goalkeeper: internal error (the answer could not be encoded); '
    b'the agent was not blocked."}'
)


def answer_in_process(
    host: str,
    raw: bytes,
    env: dict[str, str],
    cwd: str,
    *,
    spawn: bool = False,
    transport: tuple[str, str, int, int] | None = None,
) -> bytes:
    """The JSON answer of ``host`` to one raw hook payload. Never raises.

    ``transport``: why the client could not use the warm engine (a catalog key, the path, its
    owner's uid and ``st_mode``), said to the user at SessionStart."""
    from importlib import import_module

    notes = (transport_note(*transport),) if transport else ()
    translator = import_module(HOSTS[host]) if host in HOSTS else None
    if translator is None:  # the client checks the name; a stray request to the engine
        return encode_answer({"systemMessage": f"goalkeeper: unknown hook host {host[:40]!r}"})
    answer, config = translator.answer_hook(raw, env, cwd, notes=notes)
    if spawn and config is not None and config.server == "auto":
        spawn_server(Path(project_of(host, env, cwd)), config)
    return encode_answer(answer)


def encode_answer(answer: dict[str, Any]) -> bytes:
    """UTF-8 JSON; with ``\\u`` escapes when some text cannot be UTF-8 (a lone surrogate the
    input scrubbing missed); a fixed fail-open answer when even that fails. Never raises, so a
    guard's refusal is never lost to its own message."""
    try:
        text = json.dumps(answer, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return UNENCODABLE
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(answer, ensure_ascii=True).encode("ascii")


def transport_note(key: str, path: str, uid: int, mode: int) -> tuple[str, dict[str, object]]:
    """The catalog message (key, fields) saying why the warm engine is off."""
    import stat

    owner = f"uid {uid}" if uid >= 0 else "uid ?"
    try:
        import pwd

        owner += f" ({pwd.getpwuid(uid).pw_name})" if uid >= 0 else ""
    except (ImportError, KeyError, OverflowError):
        pass  # no such user, or no user database on this platform: the number says it
    shown = f"{stat.filemode(mode)} {mode & 0o7777:04o}" if mode else "unknown"
    return key, {"path": path, "owner": owner, "mode": shown}


def spawn_server(project: Path, config: Config) -> bool:
    """Start ``goalkeeper serve`` detached from the agent's process group; best effort. Only in
    a private runtime folder, whose files are never opened through a symlink."""
    try:
        directory = runtime_dir(process_environ())
        if make_runtime_dir(directory) is not None:
            return False
        stamp = socket_path(sys.prefix, str(project)) + ".spawn"
        try:
            if time.time() - os.lstat(stamp).st_mtime < SPAWN_THROTTLE_S:
                return False
        except OSError:
            pass
        fd = open_private(stamp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            os.write(fd, str(os.getpid()).encode())
        finally:
            os.close(fd)
        import subprocess

        log = open_private(stamp[: -len(".spawn")] + ".log", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            subprocess.Popen(
                [
                    sys.executable,
                    "-P",  # not the project (its working directory) first on sys.path: a
                    "-m",  # `goalkeeper` package the agent planted there would be the engine
                    "goalkeeper",
                    "serve",
                    "--project",
                    str(project),
                    "--idle",
                    f"{config.server_idle_s:g}",
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                close_fds=True,
                cwd=str(project),
            )
        finally:
            os.close(log)
        return True
    except Exception:
        return False
