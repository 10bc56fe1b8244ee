"""`sandbox = "auto"`: the project's own code that a verify command runs (a conftest.py here)
can write in the project but nowhere else, and reaches no network."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from ..bwrap_support import bwrap  # noqa: F401  (a fixture)
from .conftest import run_hook, stop

CONFTEST = """
import pathlib, socket
here = pathlib.Path(__file__).parent
(here / "inside-marker").write_text("written")
try:
    pathlib.Path({outside!r}).write_text("escaped")
except OSError as exc:
    (here / "outside-refused").write_text(type(exc).__name__)
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
    (here / "network").write_text("reached")
except OSError as exc:
    (here / "network").write_text("refused: " + type(exc).__name__)
"""


def _listener() -> tuple[socket.socket, int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    threading.Thread(target=_accept_once, args=(server,), daemon=True).start()
    return server, server.getsockname()[1]


def _accept_once(server: socket.socket) -> None:
    """Take the one connection a run may make; the test closes the socket when done."""
    try:
        server.accept()[0].close()
    except OSError:
        pass  # closed before anything connected: the run was confined


def _env(extra: dict[str, str]) -> dict[str, str]:
    names = ("CLAUDECODE", "PI_CODING_AGENT", "CODEX_", "GEMINI_CLI", "GOALKEEPER_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(names)}
    path = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return {**env, "PATH": path, "GOALKEEPER_SERVER": "off", **extra}


def _outside(tmp_path: Path) -> Path:
    """A folder on the real file system outside the project (and outside /tmp, where pytest's
    own folders live)."""
    folder = Path(tempfile.mkdtemp(prefix="goalkeeper-outside-", dir="/var/tmp"))
    return folder / "outside-marker"


def _run_verify(tmp_path: Path, extra_env: dict[str, str]) -> tuple[Path, bool]:
    """A goal whose verify runs pytest in a project whose conftest.py writes inside and outside
    it and dials a local server; one Stop. The project, and whether the outside file appeared
    (it is removed again)."""
    project = tmp_path / "p"
    project.mkdir()
    (project / ".git").mkdir()
    outside = _outside(tmp_path)
    server, port = _listener()
    try:
        (project / "conftest.py").write_text(CONFTEST.format(outside=str(outside), port=port))
        (project / "test_ok.py").write_text("def test_ok():\n    assert True\n")
        env = _env(extra_env)
        subprocess.run(
            [sys.executable, "-m", "goalkeeper", "-C", str(project), "goal", "set", "ok",
             "--verify", "python -m pytest -q -p no:cacheprovider"],
            env=env, check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        run_hook(project, stop(project), env=env)
    finally:
        server.close()
    escaped = outside.exists()
    shutil.rmtree(outside.parent, ignore_errors=True)
    return project, escaped


def test_a_confined_verify_keeps_the_projects_code_inside_the_project(
    tmp_path: Path,
    bwrap: str,  # noqa: F811
) -> None:
    project, escaped = _run_verify(tmp_path, {"GOALKEEPER_SANDBOX": "auto"})
    assert (project / "inside-marker").read_text() == "written"
    assert not escaped
    assert (project / "outside-refused").exists()
    assert (project / "network").read_text().startswith("refused")


def test_the_same_verify_unconfined_does_escape(tmp_path: Path) -> None:
    """The control: without the sandbox the same conftest writes outside (the accepted risk of
    running the project's tests), so the test above is sound."""
    project, escaped = _run_verify(tmp_path, {})
    assert escaped
    assert (project / "network").read_text() == "reached"
