"""A command as the user runs it in their own terminal, even when the tests themselves run
inside an agent's shell.

goalkeeper refuses approvals from an agent's shell, and it looks for the agent's marker in the
command's environment and in the environment and program of every ancestor process
(``hosts.transport.agent_shell``). So a test of the user's path that merely clears the environment
still sees the agent when the suite was started from an agent's Bash (``CLAUDECODE=1`` on an
ancestor) and would have to skip, and whoever runs the suite there would never see those proofs
fail. ``run`` starts the command the way a terminal of the user's would be seen: with the
environment it is given and, when this process runs under an agent, detached from it (a new session,
reparented away from the agent's process tree), its output and status collected through files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from goalkeeper.hosts.transport.agent_shell import find_agent_shell

_DETACH = """\
import json, os, subprocess, sys
spec = json.loads(sys.argv[1])
if os.fork():
    os._exit(0)  # the parent returns at once; the child is reparented away from the agent
os.setsid()
with open(spec["input"], "rb") as i, open(spec["out"], "wb") as o, open(spec["err"], "wb") as e:
    done = subprocess.run(spec["argv"], cwd=spec["cwd"], env=spec["env"], stdin=i, stdout=o,
                          stderr=e)
with open(spec["status"] + ".part", "w") as f:
    f.write(str(done.returncode))
os.replace(spec["status"] + ".part", spec["status"])
"""


def under_agent() -> bool:
    """Whether this process (the test run) runs inside an agent's shell."""
    return find_agent_shell() is not None


def run(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path | str | None = None,
    input: str = "",
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(argv, capture_output=True, text=True)`` as from the user's terminal."""
    if not under_agent():
        return subprocess.run(
            list(argv),
            cwd=cwd,
            env=dict(env),
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    with tempfile.TemporaryDirectory(prefix="user-terminal-") as folder:
        files = {name: os.path.join(folder, name) for name in ("input", "out", "err", "status")}
        Path(files["input"]).write_text(input, "utf-8")
        spec = {"argv": list(argv), "cwd": str(cwd or os.getcwd()), "env": dict(env), **files}
        subprocess.run(
            [sys.executable, "-c", _DETACH, json.dumps(spec)],
            env={k: v for k, v in env.items()},
            check=True,
            timeout=30,
        )
        deadline = time.monotonic() + timeout
        status = Path(files["status"])
        while not status.exists():
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(list(argv), timeout)
            time.sleep(0.02)
        return subprocess.CompletedProcess(
            list(argv),
            int(status.read_text("utf-8")),
            Path(files["out"]).read_text("utf-8", "replace"),
            Path(files["err"]).read_text("utf-8", "replace"),
        )
