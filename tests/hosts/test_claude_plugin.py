"""goalkeeper as a Claude Code plugin: the committed plugin files are what the generator writes,
and the hook understands the plugin's namespaced commands and MCP tools.

The real CLI installing the plugin and running a session is ``tests/e2e/test_claude_plugin.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.cli.plugin_files import PLUGIN_DIR, main, plugin_files, stale_files
from goalkeeper.hosts.claude.hook import HOOK_EVENTS, answer_hook, plugin_prompt
from goalkeeper.hosts.claude.settings import command_text, hook_command, mcp_command
from goalkeeper.hosts.command_hooks.wire import PLUGIN_TOOL_PREFIX

REPO = Path(__file__).resolve().parents[2]


def test_the_committed_plugin_files_are_what_the_generator_writes() -> None:
    """Regenerate with `python -m goalkeeper.cli.plugin_files` after changing what they mirror."""
    assert stale_files(REPO) == []


def test_the_check_names_a_changed_or_leftover_file_and_the_writer_mends_it(
    tmp_path: Path,
) -> None:
    assert main([str(tmp_path)]) == 0
    assert stale_files(tmp_path) == []
    hooks = tmp_path / PLUGIN_DIR / "hooks" / "hooks.json"
    hooks.write_text("{}", encoding="utf-8")
    (tmp_path / PLUGIN_DIR / "commands" / "old.md").write_text("x", encoding="utf-8")
    leftover = f"{PLUGIN_DIR}/commands/old.md"
    assert stale_files(tmp_path) == [f"{PLUGIN_DIR}/hooks/hooks.json", leftover]
    assert main(["--check", str(tmp_path)]) == 1
    main([str(tmp_path)])
    assert stale_files(tmp_path) == [leftover]


def test_help_explains_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--help`` was once taken for ROOT: the plugin was written into a folder named --help."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0 and "--check" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


def test_the_plugin_names_no_path_of_this_machine() -> None:
    """The point of the plugin: the same files work on every machine (issue 13, audit I1)."""
    for rel, text in plugin_files().items():
        assert str(REPO) not in text and str(Path.home()) not in text, rel


def test_hooks_cover_every_event_and_the_plugins_own_tools() -> None:
    files = plugin_files()
    hooks = json.loads(files[f"{PLUGIN_DIR}/hooks/hooks.json"])["hooks"]
    assert tuple(hooks) == HOOK_EVENTS
    (group,) = hooks["PreToolUse"]
    assert group["matcher"].startswith(f"^({PLUGIN_TOOL_PREFIX}.*|mcp__goalkeeper__.*|")
    commands = {h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]}
    assert commands == {hook_command()}  # the portable launcher, with no interpreter baked in
    mcp = json.loads(files[f"{PLUGIN_DIR}/.mcp.json"])["mcpServers"]["goalkeeper"]
    assert [mcp["command"], *mcp["args"]] == mcp_command()
    market = json.loads(files[".claude-plugin/marketplace.json"])
    assert market["name"] == "goalkeeper"
    assert market["plugins"][0]["source"] == f"./{PLUGIN_DIR}"


def test_commands_are_the_catalogs_command_texts() -> None:
    files = plugin_files()
    assert files[f"{PLUGIN_DIR}/commands/goal.md"] == command_text("gk-goal")
    assert files[f"{PLUGIN_DIR}/commands/mode.md"] == command_text("gk-mode")
    assert files[f"{PLUGIN_DIR}/commands/workflow.md"] == command_text("workflow")


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("/goalkeeper:goal `pytest -q` passes", "/gk-goal `pytest -q` passes"),
        ("  /goalkeeper:mode normal add VAT", "  /gk-mode normal add VAT"),
        ("/goalkeeper:workflow\nhard-bug x", "/workflow\nhard-bug x"),
        ("/goalkeeper:workflow", "/workflow"),
        ("/goalkeeper:goals x", "/goalkeeper:goals x"),  # not one of ours
        ("/other:goal x", "/other:goal x"),
        ("say /goalkeeper:goal x", "say /goalkeeper:goal x"),  # only at the start
    ],
)
def test_plugin_commands_read_as_the_commands_they_stand_for(typed: str, read: str) -> None:
    assert plugin_prompt(typed) == read


def _hook(project: Path, env: dict[str, str] | None = None, **fields: Any) -> dict[str, Any]:
    """One hook event; ``env``: more of the hook's environment than the project."""
    raw = json.dumps(
        {"session_id": "sess-1", "cwd": str(project), "permission_mode": "default", **fields}
    ).encode()
    return answer_hook(raw, {"CLAUDE_PROJECT_DIR": str(project), **(env or {})}, str(project))[0]


def test_the_plugins_goal_command_sets_the_goal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code hands the hook the prompt as typed, ``/goalkeeper:goal …`` (seen on
    2.1.332): goalkeeper records the goal as it does for ``/gk-goal``."""
    from tests.hosts.claude_records import user_typed

    prompt = "/goalkeeper:goal `python -c pass` exits 0"
    record = user_typed(monkeypatch, tmp_path / "claude-home", "sess-1", prompt)
    said = _hook(
        tmp_path,
        {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude-home")},  # Claude Code's, in its hooks' env
        hook_event_name="UserPromptSubmit",
        prompt=prompt,
        transcript_path=record,
    )
    goal = tmp_path / ".agents" / "goal" / "GOAL.md"
    assert goal.is_file(), said
    assert "python -c pass" in goal.read_text(encoding="utf-8")


def test_the_plugins_mcp_tools_get_the_session_handed_over(tmp_path: Path) -> None:
    """The plugin's MCP server cannot see the session id either: PreToolUse writes it in."""
    said = _hook(
        tmp_path,
        hook_event_name="PreToolUse",
        tool_name=f"{PLUGIN_TOOL_PREFIX}todo",
        tool_input={"action": "list"},
        tool_use_id="toolu_1",
    )
    assert said["hookSpecificOutput"]["updatedInput"] == {"action": "list", "session": "sess-1"}
