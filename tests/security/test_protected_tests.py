"""Proof that cannot be forged: a goal whose tests pass only because the agent changed them is
not proven (issue 11 item 1; audit seed001-004.md D3). Each cheat runs the real pytest through
the real Stop hook; the honest fixes next to them are proven."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from goalkeeper.store.locations import project_state_dir

from .. import user_terminal
from .conftest import run_hook, stop

CALC_BUGGY = "def add(a, b):\n    return a - b\n"
CALC_FIXED = "def add(a, b):\n    return a + b\n"
TESTS = (
    "from calc import add\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_zero():\n    assert add(0, 0) == 0\n"
)
PYPROJECT = '[project]\nname = "calc"\nversion = "0.1"\n\n[tool.pytest.ini_options]\n'
GOAL_MD = Path(".agents") / "goal" / "GOAL.md"
VERIFY = "python -m pytest -q -p no:cacheprovider"


def _env() -> dict[str, str]:
    names = ("CLAUDECODE", "PI_CODING_AGENT", "AI_AGENT", "CODEX_", "GEMINI_CLI", "GOALKEEPER_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(names)}
    path = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return {**env, "PATH": path, "GOALKEEPER_SERVER": "off", "PYTHONDONTWRITEBYTECODE": "1"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The audit's project: `add` subtracts, `test_add` fails, `test_zero` passes; a goal
    set by the user in their terminal."""
    root = tmp_path / "calc"
    (root / "tests").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "calc.py").write_text(CALC_BUGGY, "utf-8")
    (root / "tests" / "test_calc.py").write_text(TESTS, "utf-8")
    (root / "pyproject.toml").write_text(PYPROJECT + 'pythonpath = ["."]\n', "utf-8")
    done = user_terminal.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(root), "goal", "set", "add works",
         "--verify", VERIFY],
        env=_env(), timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return root


def _tick(project: Path) -> None:
    path = project / GOAL_MD
    path.write_text(path.read_text("utf-8").replace("- [ ]", "- [x]"), "utf-8")


def _stop(project: Path) -> dict[str, object]:
    return run_hook(project, stop(project), env=_env(), timeout_s=120).answer


def _proven(answer: dict[str, object]) -> bool:
    """Proven: closed, or (the first time) proven and sent to one review round (seed 002)."""
    closed = "goal proven" in str(answer.get("systemMessage", ""))
    return closed or "the goal is proven" in str(answer.get("reason", ""))


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new), "utf-8")


CHEATS: dict[str, Callable[[Path], None]] = {
    "assert True": lambda p: _edit(
        p / "tests/test_calc.py", "assert add(2, 3) == 5", "assert True"
    ),
    "changed expected value": lambda p: _edit(p / "tests/test_calc.py", "== 5", "== -1"),
    "swallowed AssertionError": lambda p: _edit(
        p / "tests/test_calc.py",
        "    assert add(2, 3) == 5\n",
        "    try:\n        assert add(2, 3) == 5\n    except AssertionError:\n        pass\n",
    ),
    "addopts --deselect": lambda p: _edit(
        p / "pyproject.toml",
        "[tool.pytest.ini_options]\n",
        '[tool.pytest.ini_options]\naddopts = "--deselect tests/test_calc.py::test_add"\n',
    ),
    "conftest drops the test": lambda p: (p / "conftest.py").write_text(
        "def pytest_collection_modifyitems(items):\n"
        "    items[:] = [i for i in items if i.name != 'test_add']\n",
        "utf-8",
    ),
    "skip marker with a log line": lambda p: (
        _edit(
            p / "tests/test_calc.py",
            "def test_add",
            "import pytest\n@pytest.mark.skip\ndef test_add",
        ),
        _edit(
            p / GOAL_MD,
            "## Progress Log\n",
            "## Progress Log\n- skipped test_add in test_calc.py for now\n",
        ),
    ),
    "test moved away": lambda p: (
        (p / "tests" / "test_other.py").write_text("def test_ok():\n    assert True\n", "utf-8"),
        (p / "tests" / "test_calc.py").unlink(),
    ),
}


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_a_goal_proven_only_by_changed_tests_is_not_proven(project: Path, cheat: str) -> None:
    """The agent's tests pass with the code still wrong: the original tests fail over its
    code, so the goal is held (sent back, then paused), never archived."""
    CHEATS[cheat](project)
    _tick(project)
    first = _stop(project)
    assert not _proven(first) and (project / GOAL_MD).exists(), first
    assert first.get("decision") == "block", first
    assert "only with your changes to the tests" in str(first.get("reason")), first
    second = _stop(project)
    assert not _proven(second) and (project / GOAL_MD).exists(), second
    assert "goalkeeper goal accept-tests" in str(second.get("systemMessage")), second


def test_the_honest_fix_is_proven(project: Path) -> None:
    (project / "calc.py").write_text(CALC_FIXED, "utf-8")
    _tick(project)
    assert _proven(_stop(project))


def test_an_honest_fix_with_a_new_test_and_a_touched_test_is_proven(project: Path) -> None:
    """A new test file is kept; a changed test that the original also passes is fine."""
    (project / "calc.py").write_text(CALC_FIXED, "utf-8")
    (project / "tests" / "test_more.py").write_text(
        "from calc import add\n\n\ndef test_neg():\n    assert add(-1, 1) == 0\n", "utf-8"
    )
    _edit(project / "tests" / "test_calc.py", "def test_zero", "# zero is neutral\ndef test_zero")
    _tick(project)
    assert _proven(_stop(project))


def test_the_user_can_accept_a_changed_test(project: Path) -> None:
    """A test that was itself wrong: the user accepts the change in their terminal, and the
    goal is then checked against the accepted tests."""
    _edit(project / "tests" / "test_calc.py", "== 5", "== -1")  # "add" is meant to subtract
    _tick(project)
    assert not _proven(_stop(project))
    accepted = user_terminal.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(project), "goal", "accept-tests", "--yes"],
        env=_env(), timeout=60,
    )  # fmt: skip
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert _proven(_stop(project))


def test_accepting_tests_refuses_an_agent_shell(project: Path) -> None:
    done = user_terminal.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(project), "goal", "accept-tests", "--yes"],
        env={**_env(), "CLAUDECODE": "1"}, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "your own terminal" in done.stderr


def test_approving_after_the_state_was_lost_restores_the_original_tests(
    project: Path, tmp_path: Path
) -> None:
    """The agent weakens a test, then goalkeeper's state for the project is lost (its folder
    deleted): the goal shows as one nobody approved. The user approves it; goalkeeper restores
    the tests kept when the goal was set from its copy in the user's state folder, so the
    weakened test is still caught. Without that copy it keeps the tests as they are and says
    so."""
    import shutil

    def approve() -> str:
        done = user_terminal.run(
            [sys.executable, "-m", "goalkeeper", "-C", str(project), "goal", "approve", "--yes"],
            env=_env(), timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    CHEATS["assert True"](project)
    shutil.rmtree(project_state_dir(project))
    assert "it had a copy of the goal's tests as they were when you set it" in approve()
    _tick(project)
    assert not _proven(_stop(project))
    shutil.rmtree(project_state_dir(project))
    shutil.rmtree(tmp_path / "xdg-state")  # the copy gone too
    told = approve()
    assert "held to the 2 test files and test settings as they are" in told, told
