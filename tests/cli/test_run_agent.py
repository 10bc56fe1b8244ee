"""``goalkeeper run``'s one test of whether a settings file already runs goalkeeper's hooks,
shared by Claude Code's settings and Gemini CLI's (the same ``hooks`` shape)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.cli.run.agent import runs_goalkeeper_hooks
from goalkeeper.cli.run.claude import installed_claude_settings
from goalkeeper.cli.run.gemini import installed_gemini_settings
from goalkeeper.hosts.claude import settings as claude_settings
from goalkeeper.hosts.gemini import settings as gemini_settings


def with_handler(command: object) -> dict[str, Any]:
    return {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]},
                               {"matcher": "*", "hooks": [{"command": command}]}]}}  # fmt: skip


@pytest.mark.parametrize(
    ("command", "is_ours"),
    [
        (claude_settings.hook_command(), claude_settings.is_goalkeeper_command),
        (gemini_settings.hook_command(), gemini_settings.is_goalkeeper_command),
    ],
)
def test_each_hosts_own_handler_is_found_wherever_it_sits(command: str, is_ours: Any) -> None:
    assert runs_goalkeeper_hooks(with_handler(command), is_ours)
    assert not runs_goalkeeper_hooks(with_handler("my-linter --fix"), is_ours)


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"hooks": []},
        {"hooks": {"Stop": "goalkeeper hook claude"}},
        {"hooks": {"Stop": ["goalkeeper hook claude", 3, None]}},
        {"hooks": {"Stop": [{"hooks": {"command": "goalkeeper hook claude"}}]}},
        {"hooks": {"Stop": [{"hooks": ["goalkeeper hook claude"]}]}},
        with_handler(["goalkeeper", "hook", "claude"]),
    ],
)
def test_a_settings_file_of_any_other_shape_runs_no_hook(settings: dict[str, Any]) -> None:
    """The agent may have written the file: a shape that is not a handler is no install, and
    reading it never fails."""
    assert not runs_goalkeeper_hooks(settings, claude_settings.is_goalkeeper_command)


def test_run_finds_the_install_of_claude_code_and_of_gemini_in_the_project(
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "proj", tmp_path / "home"
    (project / ".claude").mkdir(parents=True)
    (project / ".gemini").mkdir()
    home.mkdir()
    assert installed_claude_settings(project, home) is None
    assert installed_gemini_settings(project, home) is None
    claude = project / ".claude" / "settings.json"
    claude.write_text(json.dumps(with_handler(claude_settings.hook_command())), "utf-8")
    gemini = project / ".gemini" / "settings.json"
    gemini.write_text(json.dumps(with_handler(gemini_settings.hook_command())), "utf-8")
    assert installed_claude_settings(project, home) == claude
    assert installed_gemini_settings(project, home) == gemini
