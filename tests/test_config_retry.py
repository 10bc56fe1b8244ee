"""``retry_base_ms``: the API-error back-off may be narrowed by anyone, raised only by the user."""

from __future__ import annotations

from pathlib import Path

from goalkeeper.config import AgentEnv, load_config


def test_a_project_file_may_lower_the_base_but_not_raise_it(tmp_path: Path) -> None:
    """Lower retries and gives up sooner: the agent's file may; a longer wait is held."""
    own = tmp_path / ".goalkeeper.toml"
    own.write_text("retry-base-ms = 1\n", "utf-8")
    assert load_config(tmp_path, {}).retry_base_ms == 1
    own.write_text("retry-base-ms = 60000\n", "utf-8")
    raised = load_config(tmp_path, {})
    assert raised.retry_base_ms == 4000 and "retry_base_ms" in raised.held


def test_the_agents_shell_may_lower_the_base_but_not_raise_it(tmp_path: Path) -> None:
    """``GOALKEEPER_RETRY_BASE_MS`` from the agent's shell only narrows; the user's applies."""
    lower = AgentEnv({"GOALKEEPER_RETRY_BASE_MS": "2"}, "Claude Code", ())
    higher = AgentEnv({"GOALKEEPER_RETRY_BASE_MS": "90000"}, "Claude Code", ())
    assert load_config(tmp_path, lower).retry_base_ms == 2
    assert load_config(tmp_path, higher).retry_base_ms == 4000
    assert load_config(tmp_path, {"GOALKEEPER_RETRY_BASE_MS": "90000"}).retry_base_ms == 90000
