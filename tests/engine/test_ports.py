"""The real Runner: commands run in the project folder, with a timeout and an output tail, and
nothing they do (flood the output, read stdin, leave a child holding the pipe) can wedge it."""

from __future__ import annotations

import os
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from goalkeeper.engine.ports import Completed, SubprocessRunner, SystemClock, find_program
from goalkeeper.testing import FakeClock, FakeRunner

PY = sys.executable


def _gone(pid: int) -> bool:
    """The process no longer runs (it is absent, or a zombie nobody has reaped yet)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    return state in ("Z", "X")


def test_runner_keeps_exit_code_and_the_output_tail(tmp_path: Path) -> None:
    """Exit status and the last characters of stdout+stderr come back; cwd is the project."""
    code = "import os, sys; print('x' * 50); print(os.getcwd()); sys.exit(3)"
    done = SubprocessRunner(tail_chars=40).run([PY, "-c", code], cwd=tmp_path, timeout_s=30)
    assert done.exit_code == 3 and not done.timed_out
    assert done.output_tail.strip().endswith(str(tmp_path)[-30:])
    assert len(done.output_tail) <= 40


def test_stdout_and_stderr_are_one_stream(tmp_path: Path) -> None:
    """What the command writes to stderr is in the tail, in the order it was written."""
    code = "import sys; print('out', flush=True); print('err', file=sys.stderr, flush=True)"
    done = SubprocessRunner().run([PY, "-c", code], cwd=tmp_path, timeout_s=30)
    assert (done.exit_code, done.output_tail.split()) == (0, ["out", "err"])


def test_runner_timeout_and_missing_program(tmp_path: Path) -> None:
    """A timeout is a result (no exit code), and so is a program that does not exist."""
    slow = SubprocessRunner().run(
        [PY, "-c", "import time; time.sleep(5)"], cwd=tmp_path, timeout_s=0.3
    )
    assert slow.timed_out and slow.exit_code is None
    missing = SubprocessRunner().run(["/no/such/program"], cwd=tmp_path, timeout_s=5)
    assert missing.exit_code == 127 and "FileNotFoundError" in missing.output_tail
    assert "/no/such/program" in missing.output_tail


def test_a_flood_of_output_costs_no_memory(tmp_path: Path) -> None:
    """~200 MB of output comes back as its last characters, and the runner's own allocations
    stay under 4 MB while it reads them."""
    code = (
        "import sys\n"
        "line = b'y' * 1023 + b'\\n'\n"
        "for _ in range(200_000): sys.stdout.buffer.write(line)\n"
        "sys.stdout.buffer.write(b'THE-END\\n')\n"
    )
    tracemalloc.start()
    try:
        done = SubprocessRunner(tail_chars=2000).run([PY, "-c", code], cwd=tmp_path, timeout_s=120)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (done.exit_code, done.timed_out) == (0, False)
    assert done.output_tail.endswith("y\nTHE-END\n") and len(done.output_tail) == 2000
    assert peak < 4 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB"


def test_stdin_is_at_end_of_file(tmp_path: Path) -> None:
    """A command that reads stdin gets EOF at once instead of waiting for input."""
    code = "import sys; data = sys.stdin.read(); print('read', len(data))"
    started = time.monotonic()
    done = SubprocessRunner().run([PY, "-c", code], cwd=tmp_path, timeout_s=20)
    assert (done.exit_code, done.output_tail.strip()) == (0, "read 0")
    assert time.monotonic() - started < 10


def test_a_background_child_holding_the_pipe_does_not_make_it_wait(tmp_path: Path) -> None:
    """The command ends while its background child keeps stdout open: the runner returns the
    command's own exit code soon after, and the child is killed."""
    started = time.monotonic()
    done = SubprocessRunner().run(
        ["sh", "-c", "sleep 60 & echo $!; exit 4"], cwd=tmp_path, timeout_s=30
    )
    elapsed = time.monotonic() - started
    assert (done.exit_code, done.timed_out) == (4, False)
    assert elapsed < 5, elapsed
    child = int(done.output_tail.split()[0])
    deadline = time.monotonic() + 5
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child)


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    """At the timeout the command and every child in its group are killed: the runner returns
    after the timeout, long before the command's own minute, and the child is gone."""
    started = time.monotonic()
    done = SubprocessRunner().run(
        ["sh", "-c", "sleep 60 & echo $!; sleep 60"], cwd=tmp_path, timeout_s=1.0
    )
    elapsed = time.monotonic() - started
    assert (done.exit_code, done.timed_out) == (None, True)
    assert 1.0 <= elapsed < 30.0, elapsed  # a slow machine, not a minute of sleep
    child = int(done.output_tail.split()[0])
    deadline = time.monotonic() + 5
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child)


def test_output_written_just_before_the_end_is_kept(tmp_path: Path) -> None:
    """A background child's last line written right after the command ends still arrives."""
    done = SubprocessRunner().run(
        ["sh", "-c", "(sleep 0.1; echo late) & echo early"], cwd=tmp_path, timeout_s=30
    )
    assert done.exit_code == 0
    assert done.output_tail.split() == ["early", "late"]


def test_the_command_runs_in_a_session_of_its_own(tmp_path: Path) -> None:
    """The command leads its own session, so a group kill never reaches goalkeeper."""
    code = "import os; print(os.getsid(0) == os.getpid(), os.getpgrp() == os.getpid())"
    done = SubprocessRunner().run([PY, "-c", code], cwd=tmp_path, timeout_s=30)
    assert done.output_tail.split() == ["True", "True"]


def test_find_program_skips_relative_path_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program planted in the project is not found through an empty or relative PATH entry,
    only through an absolute one."""
    (tmp_path / "bin").mkdir()
    for folder in (tmp_path, tmp_path / "bin"):
        planted = folder / "gk-planted-tool"
        planted.write_text("#!/bin/sh\necho planted\n", encoding="utf-8")
        planted.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", os.pathsep.join(["", ".", "bin", "/usr/bin"]))
    assert find_program("gk-planted-tool") is None
    monkeypatch.setenv("PATH", os.pathsep.join(["", str(tmp_path / "bin")]))
    assert find_program("gk-planted-tool") == str(tmp_path / "bin" / "gk-planted-tool")
    assert find_program(str(tmp_path / "gk-planted-tool")) == str(tmp_path / "gk-planted-tool")
    assert find_program(str(tmp_path / "absent")) is None


def test_fakes_record_and_move_only_when_told() -> None:
    """The shipped fakes: a clock that advances on request, a runner that records calls."""
    clock = FakeClock(100.0)
    clock.advance(2.5)
    assert clock.now() == 102.5
    assert SystemClock().now() > 1_600_000_000
    runner = FakeRunner(lambda argv: Completed(tuple(argv), 0, "ok"))
    assert runner.run(["pytest", "-q"], cwd=Path("."), timeout_s=1).output_tail == "ok"
    assert runner.calls == [("pytest", "-q")]
