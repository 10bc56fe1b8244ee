"""Confinement with bubblewrap: a confined command writes only in the project and its private
TMPDIR and reaches no network; without a working bwrap the command comes back unchanged, with
the reason."""

from __future__ import annotations

import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from goalkeeper.engine.ports import Completed, SubprocessRunner
from goalkeeper.engine.sandbox import confine

from ..bwrap_support import bwrap  # noqa: F401  (a fixture)

PY = sys.executable


def run_confined(project: Path, code: str, scratch: Path | None = None) -> Completed:
    argv, status = confine([PY, "-c", code], project=project, scratch=scratch)
    assert status.confined, status.reason
    return SubprocessRunner().run(argv, cwd=project, timeout_s=60)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def elsewhere() -> Iterator[Path]:
    """A folder outside the project and outside /tmp."""
    base = "/var/tmp" if Path("/var/tmp").is_dir() else None
    folder = Path(tempfile.mkdtemp(prefix="gk-sandbox-", dir=base))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.usefixtures("bwrap")
def test_a_confined_command_cannot_write_outside_the_project(
    project: Path, elsewhere: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Markers in another temp folder, next to the project and in a folder outside /tmp are
    refused: the whole file system but the project and the scratch folder is read-only."""
    other_tmp = tmp_path_factory.mktemp("other")
    targets = [other_tmp / "marker", project.parent / "marker", elsewhere / "marker"]
    code = (
        "import sys\n"
        "failed = 0\n"
        f"for path in {[str(t) for t in targets]!r}:\n"
        "    try:\n"
        "        open(path, 'w').write('escaped')\n"
        "    except OSError as exc:\n"
        "        failed += 1\n"
        "        print(path, type(exc).__name__)\n"
        "sys.exit(failed)\n"
    )
    done = run_confined(project, code)
    assert not any(t.exists() for t in targets), done.output_tail
    assert done.exit_code == len(targets), done.output_tail
    for target in targets:
        assert f"{target} OSError" in done.output_tail


@pytest.mark.usefixtures("bwrap")
def test_a_confined_command_writes_in_the_project_and_its_scratch_folder(
    project: Path, tmp_path: Path
) -> None:
    """The project is writable (the file is there afterwards), and so is the run's scratch
    folder, which is TMPDIR inside; /tmp itself is not."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    code = (
        "import os, tempfile\n"
        "open('made-here.txt', 'w').write('ok')\n"
        "with tempfile.NamedTemporaryFile(delete=False, prefix='gk-private-') as f:\n"
        "    f.write(b'tmp')\n"
        "try:\n"
        "    open('/tmp/gk-sandbox-direct', 'w')\n"
        "    direct = 'written'\n"
        "except OSError:\n"
        "    direct = 'refused'\n"
        "print(os.environ['TMPDIR'], f.name, os.getcwd(), direct)\n"
    )
    done = run_confined(project, code, scratch)
    assert done.exit_code == 0, done.output_tail
    tmpdir, tmp_file, cwd, direct = done.output_tail.split()
    assert (project / "made-here.txt").read_text() == "ok"
    assert cwd == str(project.resolve())
    assert tmpdir == str(scratch) and Path(tmp_file).parent == scratch
    assert direct == "refused" and not Path("/tmp/gk-sandbox-direct").exists()


@pytest.mark.usefixtures("bwrap")
def test_a_confined_command_cannot_reach_a_local_tcp_server(project: Path) -> None:
    """A server listening on 127.0.0.1 is reachable unconfined and unreachable confined."""
    accepted: list[str] = []
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0.2)
        port = server.getsockname()[1]
        stop = threading.Event()

        def serve() -> None:
            while not stop.is_set():
                try:
                    conn, _ = server.accept()
                except (TimeoutError, OSError):
                    continue
                accepted.append("connection")
                conn.close()

        worker = threading.Thread(target=serve, daemon=True)
        worker.start()
        code = (
            "import socket, sys\n"
            "try:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=5).close()\n"
            "except OSError as exc:\n"
            "    print(type(exc).__name__); sys.exit(7)\n"
            "print('connected')\n"
        )
        try:
            plain = SubprocessRunner().run([PY, "-c", code], cwd=project, timeout_s=30)
            assert (plain.exit_code, plain.output_tail.strip()) == (0, "connected")
            seen_unconfined = len(accepted)
            confined = run_confined(project, code)
        finally:
            stop.set()
            worker.join(5)
    assert seen_unconfined == 1
    assert confined.exit_code == 7, confined.output_tail
    assert len(accepted) == 1


@pytest.mark.usefixtures("bwrap")
def test_exit_code_output_and_stdin_pass_through(project: Path) -> None:
    """Under confinement the runner still reports the command's own exit code and output, and
    stdin is still at its end."""
    done = run_confined(project, "import sys; print(len(sys.stdin.read())); sys.exit(3)")
    assert (done.exit_code, done.output_tail.strip()) == (3, "0")


@pytest.mark.usefixtures("bwrap")
def test_a_confined_command_and_its_children_die_at_the_timeout(project: Path) -> None:
    """The runner's timeout still ends everything inside the sandbox (bwrap dies with its
    parent's kill, and its PID namespace with it)."""
    tag = "61.4243"  # a sleep length nothing else on this machine uses
    argv, status = confine(["sh", "-c", f"sleep {tag} & sleep {tag}"], project=project)
    assert status.confined
    started = time.monotonic()
    done = SubprocessRunner().run(argv, cwd=project, timeout_s=1.0)
    assert done.timed_out and time.monotonic() - started < 4
    deadline = time.monotonic() + 5
    while _sleepers(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _sleepers(tag) == []


def _sleepers(tag: str) -> list[int]:
    """Live (not zombie) processes running ``sleep <tag>``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if cmdline[:2] == [b"sleep", tag.encode()] and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def test_without_bwrap_on_path_the_command_is_unchanged(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No bwrap on PATH: the argv comes back as it was, with the reason."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    argv, status = confine(["pytest", "-q"], project=project)
    assert argv == ("pytest", "-q")
    assert (status.confined, status.bwrap) == (False, None)
    assert "not installed" in status.reason


def test_a_bwrap_that_cannot_create_namespaces_leaves_the_command_unchanged(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A bwrap that fails its probe (here a stand-in that fails like one without user
    namespaces) is not used, and what it said is the reason."""
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    fake = folder / "bwrap"
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n",
        encoding="utf-8",
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:/usr/bin:/bin")
    argv, status = confine(["pytest", "-q"], project=project)
    assert argv == ("pytest", "-q")
    assert (status.confined, status.bwrap) == (False, str(fake))
    assert "No permissions to creating new namespace" in status.reason


def test_the_file_systems_root_as_the_project_is_not_confined(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Making the project writable would make everything writable, so it is refused."""
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    fake = folder / "bwrap"
    fake.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:/usr/bin:/bin")
    argv, status = confine(["make", "test"], project=Path("/"))
    assert (argv, status.confined) == (("make", "test"), False)
    assert "root" in status.reason
