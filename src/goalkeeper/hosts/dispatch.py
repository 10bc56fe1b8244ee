"""Answer a hook event inside this process, for the hook client and the hook server alike.

Also starts the warm engine process (``goalkeeper serve``) in the background when the client had
to answer in-process, at most once per ``SPAWN_THROTTLE_S`` per project.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from goalkeeper.config import Config
from goalkeeper.hosts.hook_client import SPAWN_THROTTLE_S, runtime_dir, socket_path


def answer_in_process(
    host: str, raw: bytes, env: dict[str, str], cwd: str, *, spawn: bool = False
) -> bytes:
    """The JSON answer of ``host`` to one raw hook payload. Never raises."""
    from goalkeeper.hosts.claude_code import answer_hook

    answer, config = answer_hook(raw, env, cwd)
    if spawn and config is not None and config.server == "auto":
        project = env.get("CLAUDE_PROJECT_DIR") or cwd
        spawn_server(Path(project), config)
    return json.dumps(answer, ensure_ascii=False).encode("utf-8")


def spawn_server(project: Path, config: Config) -> bool:
    """Start ``goalkeeper serve`` detached from the agent's process group; best effort."""
    try:
        directory = runtime_dir()
        os.makedirs(directory, mode=0o700, exist_ok=True)
        stamp = socket_path(sys.prefix, str(project)) + ".spawn"
        try:
            if time.time() - os.stat(stamp).st_mtime < SPAWN_THROTTLE_S:
                return False
        except OSError:
            pass
        with open(stamp, "w", encoding="utf-8") as f:
            f.write(str(os.getpid()))
        import subprocess

        log = open(stamp[: -len(".spawn")] + ".log", "ab")  # noqa: SIM115 - handed to the child
        with log:
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
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
        return True
    except Exception:
        return False
