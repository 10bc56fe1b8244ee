"""The real Runner: commands run in the project folder, with a timeout and an output tail."""

from __future__ import annotations

import sys
from pathlib import Path

from goalkeeper.engine.ports import SubprocessRunner, SystemClock
from goalkeeper.testing import FakeClock, FakeRunner


def test_runner_keeps_exit_code_and_the_output_tail(tmp_path: Path) -> None:
    """Exit status and the last characters of stdout+stderr come back; cwd is the project."""
    code = "import os, sys; print('x' * 50); print(os.getcwd()); sys.exit(3)"
    done = SubprocessRunner(tail_chars=40).run(
        [sys.executable, "-c", code], cwd=tmp_path, timeout_s=30
    )
    assert done.exit_code == 3 and not done.timed_out
    assert done.output_tail.strip().endswith(str(tmp_path)[-30:])
    assert len(done.output_tail) <= 40


def test_runner_timeout_and_missing_program(tmp_path: Path) -> None:
    """A timeout is a result (no exit code), and so is a program that does not exist."""
    slow = SubprocessRunner().run(
        [sys.executable, "-c", "import time; time.sleep(5)"], cwd=tmp_path, timeout_s=0.3
    )
    assert slow.timed_out and slow.exit_code is None
    missing = SubprocessRunner().run(["/no/such/program"], cwd=tmp_path, timeout_s=5)
    assert missing.exit_code == 127 and "FileNotFoundError" in missing.output_tail


def test_fakes_record_and_move_only_when_told() -> None:
    """The shipped fakes: a clock that advances on request, a runner that records calls."""
    clock = FakeClock(100.0)
    clock.advance(2.5)
    assert clock.now() == 102.5
    assert SystemClock().now() > 1_600_000_000
    from goalkeeper.engine.ports import Completed

    runner = FakeRunner(lambda argv: Completed(tuple(argv), 0, "ok"))
    assert runner.run(["pytest", "-q"], cwd=Path("."), timeout_s=1).output_tail == "ok"
    assert runner.calls == [("pytest", "-q")]
