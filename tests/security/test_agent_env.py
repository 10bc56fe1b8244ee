"""Issue 21 item 4: in a process marked as the agent's, goalkeeper's environment variables
and the user-config path may only make goalkeeper stricter; the same variables in the user's
own terminal apply as before (the control)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

AGENT = {"CLAUDECODE": "1"}


def config_json(project: Path, env: dict[str, str]) -> dict[str, Any]:
    """`goalkeeper config --json` as a command started with ``env`` on top of a clean one."""
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GOALKEEPER_", "CLAUDE", "PI_", "CODEX_", "GEMINI_", "AI_AGENT"))
    }
    base.update(XDG_CONFIG_HOME=str(project / "xdg-config"), XDG_STATE_HOME=str(project / "st"))
    proc = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(project), "config", "--json"],
        capture_output=True,
        text=True,
        cwd=project,
        env={**base, **env},
        timeout=60,
    )
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def loosened(project: Path) -> dict[str, str]:
    agent_file = project / "agent.toml"
    agent_file.write_text('evidence-check = "off"\ntodos = "off"\n', "utf-8")
    return {
        "GOALKEEPER_EVIDENCE_CHECK": "off",
        "GOALKEEPER_MAX_CONTINUATIONS": "100000",
        "PI_TODONE_QUIET_AFTER_MS": "99999999",
        "GOALKEEPER_USER_CONFIG": str(agent_file),
    }


def test_the_agents_shell_cannot_loosen_goalkeeper(tmp_path: Path) -> None:
    """`GOALKEEPER_EVIDENCE_CHECK=off goalkeeper …` from Claude Code's shell: ignored, said."""
    data = config_json(tmp_path, {**loosened(tmp_path), **AGENT})
    settings = data["settings"]
    assert settings["evidence_check"] == "rerun"
    assert settings["max_continuations"] == 40
    assert settings["todos"] == "on"  # the agent's "user config" was not read
    assert settings["todo_quiet_after_ms"] == 120_000
    said = "\n".join(data["warnings"])
    for name in ("GOALKEEPER_EVIDENCE_CHECK", "GOALKEEPER_USER_CONFIG", "PI_TODONE_QUIET"):
        assert name in said


def test_control_the_users_terminal_applies_the_same_variables(tmp_path: Path) -> None:
    settings = config_json(tmp_path, loosened(tmp_path))["settings"]
    assert settings["evidence_check"] == "off"
    assert settings["max_continuations"] == 100000
    assert settings["todos"] == "off"


def test_the_agents_shell_may_make_goalkeeper_stricter(tmp_path: Path) -> None:
    env = {"GOALKEEPER_MAX_CONTINUATIONS": "5", "GOALKEEPER_EVIDENCE_CHECK": "rerun", **AGENT}
    data = config_json(tmp_path, env)
    assert data["settings"]["max_continuations"] == 5
    assert data["warnings"] == []


def test_the_agents_shell_cannot_move_goalkeepers_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GOALKEEPER_STATE_HOME from an agent's shell is taken out before a folder is named."""
    from goalkeeper.config import AgentEnv, relevant_env
    from goalkeeper.store.locations import state_home

    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("GOALKEEPER_STATE_HOME", str(tmp_path / "agents-own"))
    env = relevant_env()
    assert isinstance(env, AgentEnv) and env.dropped == ("GOALKEEPER_STATE_HOME",)
    assert state_home() == tmp_path / "xdg-state" / "goalkeeper"
    monkeypatch.delenv("CLAUDECODE")
    monkeypatch.setenv("GOALKEEPER_STATE_HOME", str(tmp_path / "users-own"))
    assert not isinstance(relevant_env(), AgentEnv)  # the control: the user's own terminal
    assert state_home() == tmp_path / "users-own"
