"""State the agent's shell cannot reset (issue 21 item 1): goalkeeper's counters, approvals and
the goal's record live in the user's state folder, not in the project, so ``git clean -fdx`` or
``rm -rf .goalkeeper`` in the project (what an agent's shell may run, sandboxed or not) changes
none of them. The control: the user deleting that folder in their own terminal does reset them,
so each assertion below can see a reset. Every step goes through the real hook process."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.hosts.transport.agent_shell import find_agent_shell
from goalkeeper.store.locations import project_state_dir

from .conftest import run_hook, session_start, stop

CALC = "def add(a, b):\n    return a - b\n"  # the goal's test fails: every stop continues
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
PYPROJECT = '[project]\nname = "calc"\nversion = "0.1"\n\n[tool.pytest.ini_options]\n'
VERIFY = "python -m pytest -q -p no:cacheprovider"
GIT = ["git", "-c", "user.name=u", "-c", "user.email=u@example.com"]


def _env() -> dict[str, str]:
    names = ("CLAUDECODE", "PI_CODING_AGENT", "AI_AGENT", "CODEX_", "GEMINI_CLI", "GOALKEEPER_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(names)}
    path = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return {**env, "PATH": path, "GOALKEEPER_SERVER": "off", "PYTHONDONTWRITEBYTECODE": "1"}


def _cli(project: Path, *args: str, ok: tuple[int, ...] = (0,)) -> str:
    """A goalkeeper command the user runs in their own terminal."""
    done = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(project), *args],
        env=_env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode in ok, done.stdout + done.stderr
    return done.stdout


def _agent_shell(project: Path, *argv: str) -> None:
    """A command the agent runs in the project from its shell."""
    subprocess.run(argv, cwd=project, env=_env(), check=True, capture_output=True, timeout=60)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A committed project with a held setting the user approved and a goal the user set."""
    if find_agent_shell() is not None:
        pytest.skip("the user-terminal path cannot be tested from inside an agent's shell")
    root = tmp_path / "calc"
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text(CALC, "utf-8")
    (root / "tests" / "test_calc.py").write_text(TESTS, "utf-8")
    (root / "pyproject.toml").write_text(PYPROJECT + 'pythonpath = ["."]\n', "utf-8")
    (root / ".goalkeeper.toml").write_text("max_continuations = 4000\n", "utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, timeout=60)
    _cli(root, "allow")
    _cli(root, "goal", "set", "add works", "--verify", VERIFY)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, timeout=60)
    subprocess.run([*GIT, "commit", "-qm", "start"], cwd=root, check=True, timeout=60)
    return root


def _stop(project: Path) -> dict[str, Any]:
    return run_hook(project, stop(project), env=_env(), timeout_s=120).answer


def _continuations(project: Path) -> int:
    sessions = json.loads(_cli(project, "status", "--json"))["sessions"]
    return int(sessions[0]["continuations"]) if sessions else 0


def _held(project: Path) -> list[str]:
    """The settings held for want of approval (``config`` exits 1 when it warns of them)."""
    return list(json.loads(_cli(project, "config", "--json", ok=(0, 1)))["held"])


def _unapproved(answer: dict[str, Any]) -> bool:
    return "nobody approved" in str(answer.get("systemMessage", ""))


def _counted(project: Path) -> None:
    """A session start and a stop: the goal's test fails, so the stop continues (count 1) and
    goalkeeper records the failure against the goal."""
    run_hook(project, session_start(project), env=_env())
    answer = _stop(project)
    assert answer.get("decision") == "block" and not _unapproved(answer), answer
    assert _continuations(project) == 1
    assert _held(project) == []
    assert not (project / ".goalkeeper").exists()  # nothing of goalkeeper's in the project


def test_cleaning_the_project_resets_no_count_approval_or_goal(project: Path) -> None:
    """``git clean -fdx`` and ``rm -rf .goalkeeper`` from the agent's shell: the count stays,
    the approved setting stays approved, and the goal is still the user's with its record (the
    same failure again pauses it, as a second failure in a row does)."""
    _counted(project)
    _agent_shell(project, "git", "clean", "-fdx")
    _agent_shell(project, "rm", "-rf", ".goalkeeper")
    assert _continuations(project) == 1
    assert _held(project) == []
    answer = _stop(project)
    assert "failed again with the same failure" in answer.get("systemMessage", ""), answer


def test_control_the_user_deleting_the_state_folder_resets_them(project: Path) -> None:
    """The same checks see a reset when the user deletes goalkeeper's folder for the project
    in their own terminal: no count, the setting held again, the goal nobody's."""
    _counted(project)
    shutil.rmtree(project_state_dir(project))
    assert _continuations(project) == 0
    assert _held(project) == ["max_continuations"]
    assert _unapproved(_stop(project))


def test_a_legacy_project_is_told_once_where_its_state_went(tmp_path: Path) -> None:
    """A project an older goalkeeper kept in .goalkeeper/: the first session start moves its
    state and says where (and that the old folder may go); the next one says nothing of it,
    and the approval the old database held still counts."""
    from goalkeeper.store.db import connect
    from goalkeeper.store.trust import approve_config, read_config_approvals

    project = tmp_path / "p"
    (project / ".goalkeeper").mkdir(parents=True)
    conn = connect(project / ".goalkeeper" / "state.db")
    approve_config(conn, {".goalkeeper.toml": "abc"}, 1.0)
    conn.commit()
    conn.close()
    first = run_hook(project, session_start(project, "s1"), env=_env()).answer
    said = str(first.get("systemMessage", ""))
    assert str(project_state_dir(project)) in said and "you can delete that folder" in said
    second = run_hook(project, session_start(project, "s2"), env=_env()).answer
    assert "you can delete" not in str(second.get("systemMessage", ""))
    assert read_config_approvals(project) == {".goalkeeper.toml": "abc"}


def test_a_command_tells_the_user_once_but_never_the_agent(tmp_path: Path) -> None:
    """After a command the user runs, the move is said once on stderr; a command from the
    agent's shell moves the state but leaves the notice for the user."""
    if find_agent_shell() is not None:
        pytest.skip("the user-terminal path cannot be tested from inside an agent's shell")
    from goalkeeper.store.db import connect

    project = tmp_path / "p"
    (project / ".goalkeeper").mkdir(parents=True)
    connect(project / ".goalkeeper" / "state.db").close()

    def status(**extra: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "goalkeeper", "-C", str(project), "status"],
            env={**_env(), **extra}, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stderr

    assert "you can delete that folder" not in status(CLAUDECODE="1")
    assert (project_state_dir(project) / "state.db").is_file()
    assert "you can delete that folder" in status()
    assert "you can delete that folder" not in status()
