"""The warm engine process: start ``goalkeeper serve`` for a project, wait until it listens, and
stop it (and any engine a measured client spawned) whatever happens."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from _bench_base import BenchError

# ---------------------------------------------------------------------------------------------
# The warm engine process
# ---------------------------------------------------------------------------------------------


def engine_paths(
    python: str, project: Path, env: Mapping[str, str] | None = None
) -> dict[str, Path]:
    """The runtime files of the engine keyed by (installation, project): socket, pid, lock and
    the files a client leaves when it had to answer in-process and spawned an engine. The key
    is the interpreter's ``sys.prefix`` (its virtualenv), shared by python, python3 and the
    console script; the folder is the runtime folder in ``env`` (the hooks' environment: its
    ``HOME`` names the state home), else in this process's."""
    from goalkeeper.hosts.hook_client import join, runtime_dir, server_key

    prefix = subprocess.run(
        [python, "-c", "import sys; print(sys.prefix)"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    sock = Path(join(runtime_dir(env), server_key(prefix, str(project)) + ".sock"))
    return {
        "socket": sock,
        "pid": Path(str(sock) + ".pid"),
        "lock": Path(str(sock) + ".lock"),
        "spawn": Path(str(sock) + ".spawn"),
        "log": Path(str(sock) + ".log"),
    }


@contextmanager
def warm_engine(
    python: str,
    project: Path,
    log_path: Path,
    env: Mapping[str, str],
    idle_s: float = 60,
    timeout_s: float = 30,
) -> Iterator[subprocess.Popen[bytes]]:
    """Start ``python -m goalkeeper serve`` for ``project``, wait until it listens, and stop it
    through its Popen handle on exit, whatever happens in between.

    Also removes the engine's runtime files for this (interpreter, project) key afterwards, and
    stops an engine a hook client may have spawned for it (which would mean a measured request
    fell back in-process: ``check_no_fallback`` reports that).
    """
    paths = engine_paths(python, project, env)
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            [
                python,
                "-m",
                "goalkeeper",
                "serve",
                "--project",
                str(project),
                "--idle",
                f"{idle_s:g}",
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=project,
            env=dict(env),
        )
    try:
        _wait_listening(proc, paths, timeout_s, log_path)
        yield proc
    finally:
        _stop(proc)
        _stop_spawned(paths, project)
        for key in ("socket", "pid", "lock", "spawn", "log"):
            try:
                paths[key].unlink()
            except OSError:
                pass


def check_no_fallback(python: str, project: Path, env: Mapping[str, str] | None = None) -> None:
    """Fail when a hook client answered in-process and tried to start an engine for this key
    (the stamp it leaves behind exists): a "warm" figure would then include cold runs. The
    usual cause is an edit to goalkeeper's sources during the run (the engine answers STALE
    and exits)."""
    if engine_paths(python, project, env)["spawn"].exists():
        raise BenchError(
            f"a warm request fell back in-process (no engine answered for {python}); "
            "were goalkeeper's sources edited during the run?"
        )


def _wait_listening(
    proc: subprocess.Popen[bytes], paths: Mapping[str, Path], timeout_s: float, log: Path
) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BenchError(f"engine exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            if paths["socket"].exists() and int(paths["pid"].read_text()) == proc.pid:
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    raise BenchError(f"engine did not listen within {timeout_s:g} s: {log.read_text()[-2000:]}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()  # SIGTERM: the engine unwinds and removes its socket and pid file
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def _stop_spawned(paths: Mapping[str, Path], project: Path) -> None:
    """An engine a measured client spawned for our temporary project: stop it by its pid,
    after checking that pid really is ``goalkeeper serve --project <our project>``."""
    try:
        pid = int(paths["pid"].read_text())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError):
        return
    if b"serve" in cmdline and os.fsencode(str(project)) in cmdline:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass


def shebang_interpreter(script: Path) -> str | None:
    """The interpreter a console script runs under: its ``sys.executable`` decides which
    engine socket its hook client looks for."""
    try:
        first = script.read_bytes().split(b"\n", 1)[0]
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    return os.fsdecode(first[2:].strip().split()[0])
