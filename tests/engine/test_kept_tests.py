"""The session's tests are kept once, at its first prompt, through the whole engine."""

from __future__ import annotations

from pathlib import Path

from goalkeeper.config import Config
from goalkeeper.core.values import KeepTests, UserPrompt
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.store.test_baseline import session_keys
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock


def supervisor(project: Path, config: Config) -> Supervisor:
    return Supervisor(
        project, config, host="test", capabilities=CLAUDE_CAPABILITIES, clock=FakeClock()
    )


def test_one_first_prompt_keeps_the_tests_with_one_action(tmp_path: Path) -> None:
    """One first prompt, one ``KeepTests`` (not one per guard that holds work to the tests);
    the next prompt of the session none, and the store keeps the session's tests once."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    pass\n", "utf-8")
    sup = supervisor(tmp_path, Config(lang="en"))
    first = sup.handle([UserPrompt("s", "make the tests pass")]).actions
    assert [a for a in first if isinstance(a, KeepTests)] == [KeepTests("session:s")]
    later = sup.handle([UserPrompt("s", "go on")]).actions
    assert not any(isinstance(a, KeepTests) for a in later)
    with sup.store.transaction() as conn:
        assert session_keys(conn) == ["session:s"]


def test_the_tests_are_kept_with_the_todos_guard_off(tmp_path: Path) -> None:
    """``todos = "off"`` silences the todo advice, not the keeping of the tests a plan's
    close is held to."""
    sup = supervisor(tmp_path, Config(lang="en", todos="off"))
    first = sup.handle([UserPrompt("s", "fix it")]).actions
    assert [a for a in first if isinstance(a, KeepTests)] == [KeepTests("session:s")]
