"""The runner is not the agent's (issue 22, item 4): a verify program that resolves inside the
project (``.venv/bin/pytest`` with the ``.venv`` activated, ``node_modules/.bin/jest``) is
pinned when the goal is set; a shim that prints "2 passed" and exits 0 is held like a changed
test. Real processes through the supervisor; only the clock is fake."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import Activity, Close, Continue, Pause, Settled, UserPrompt
from goalkeeper.engine.ports import SubprocessRunner
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock

REAL = f'#!/bin/sh\nexec {sys.executable} -m pytest -q -p no:cacheprovider "$@"\n'
SHIM = '#!/bin/sh\necho "2 passed in 0.01s"\nexit 0\n'
# (where the runner lives, the verify command): jest's stand-in runs pytest, as a real jest
# would run the project's tests; the pin is about the file, not what it runs.
RUNNERS = {
    "venv pytest": (".venv/bin/pytest", "pytest"),
    "jest": ("node_modules/.bin/jest", "jest"),
}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    path.chmod(0o755)


def _sup(root: Path, monkeypatch: pytest.MonkeyPatch) -> Supervisor:
    _write(root / "calc.py", "def add(a, b):\n    return a - b\n")
    _write(
        root / "tests" / "test_calc.py",
        "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n",
    )
    bins = [str(root / ".venv" / "bin"), str(root / "node_modules" / ".bin")]
    monkeypatch.setenv("PATH", os.pathsep.join([*bins, os.environ.get("PATH", "")]))
    return Supervisor(
        root,
        # The review round a proof earns is tests/engine/test_review.py's.
        Config(no_plan="silent", lang="en", review="off"),
        host="test",
        capabilities=CLAUDE_CAPABILITIES,
        clock=FakeClock(),
        runner=SubprocessRunner(),
    )


def _settle(sup: Supervisor) -> list[str]:
    actions = sup.handle([Settled("s", "done", activity=Activity(tool_calls=1))]).actions
    return [
        f"{type(a).__name__}: {getattr(a, 'text', getattr(a, 'reason', getattr(a, 'summary', '')))}"
        for a in actions
        if isinstance(a, Continue | Close | Pause)
    ]


def _goal(sup: Supervisor, command: str) -> None:
    sup.handle([UserPrompt("s", f"/gk-goal `{command}` passes")])
    path = sup.project / ".agents" / "goal" / "GOAL.md"
    path.write_text(path.read_text(encoding="utf-8").replace("- [ ]", "- [x]"), encoding="utf-8")


@pytest.mark.parametrize("kind", sorted(RUNNERS))
def test_a_runner_shim_in_the_project_is_not_proven(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """The agent replaces the project's runner with a script printing "2 passed": held, the
    runner named; the bug is still there."""
    where, command = RUNNERS[kind]
    sup = _sup(tmp_path, monkeypatch)
    _write(tmp_path / where, REAL)
    _goal(sup, command)
    _write(tmp_path / where, SHIM)
    answer = _settle(sup)
    assert [a.split(":")[0] for a in answer] == ["Pause"], answer  # the user is told
    assert f"{where}: changed" in answer[0] and "not proven" in answer[0]


def test_a_shim_that_appears_inside_the_project_later_is_not_proven(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pytest` resolved outside the project when the goal was set; the agent creates
    `.venv/bin/pytest` first on PATH: held as an added runner."""
    project = tmp_path / "p"
    sup = _sup(project, monkeypatch)
    _write(tmp_path / "bin" / "pytest", REAL)  # the user's pytest, outside the project
    monkeypatch.setenv("PATH", os.pathsep.join([str(tmp_path / "bin"), os.environ["PATH"]]))
    _goal(sup, "pytest")
    bins = str(project / ".venv" / "bin")
    monkeypatch.setenv("PATH", os.pathsep.join([bins, os.environ["PATH"]]))
    _write(project / ".venv" / "bin" / "pytest", SHIM)
    answer = _settle(sup)
    assert [a.split(":")[0] for a in answer] == ["Pause"], answer
    assert ".venv/bin/pytest: added" in answer[0] and "not proven" in answer[0]


@pytest.mark.parametrize("kind", sorted(RUNNERS))
def test_an_honest_fix_with_the_projects_runner_is_proven(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """Control: the runner is untouched and the code fixed: proven."""
    where, command = RUNNERS[kind]
    sup = _sup(tmp_path, monkeypatch)
    _write(tmp_path / where, REAL)
    _goal(sup, command)
    _write(tmp_path / "calc.py", "def add(a, b):\n    return a + b\n")
    answer = _settle(sup)
    assert [a.split(":")[0] for a in answer] == ["Close"], answer
    assert "proven" in answer[0]


def test_a_fifo_planted_as_the_runner_holds_and_does_not_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bad input: the pinned runner replaced by a FIFO. The Stop answers (no read blocks) and
    the goal is not proven."""
    sup = _sup(tmp_path, monkeypatch)
    _write(tmp_path / ".venv" / "bin" / "pytest", REAL)
    _goal(sup, "pytest")
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n", "utf-8")
    (tmp_path / ".venv" / "bin" / "pytest").unlink()
    os.mkfifo(tmp_path / ".venv" / "bin" / "pytest")
    answer = _settle(sup)
    assert answer and not answer[0].startswith("Close"), answer


def test_the_venvs_python_linked_to_the_system_is_not_pinned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`.venv/bin/python` links to an interpreter outside the project, which the agent cannot
    write: not pinned (no multi-megabyte read per Stop). Re-pointed at a script in the
    project, it is a runner inside the project."""
    from goalkeeper.store.runner_pins import inside_programs

    _sup(tmp_path, monkeypatch)
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)
    assert inside_programs(tmp_path, ["python", "./.venv/bin/python"]) == []
    _write(tmp_path / "fake.sh", SHIM)
    python.unlink()
    python.symlink_to(tmp_path / "fake.sh")
    assert inside_programs(tmp_path, ["python"]) == [".venv/bin/python"]
