"""Installing goalkeeper's hooks into Claude Code settings, and taking exactly them out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goalkeeper.hosts.claude.settings import (
    BLOCK_CAP_VAR,
    SettingsError,
    add_hooks,
    add_mcp_server,
    hook_command,
    is_goalkeeper_command,
    load_receipt,
    read_json_object,
    remove_hooks,
    remove_mcp_server,
    save_receipt,
)

CMD = "/venv/bin/python -m goalkeeper hook claude"
USER_SETTINGS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"]},
    "env": {"FOO": "1"},
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ],
    },
}


def test_install_adds_its_hooks_and_raises_the_block_cap() -> None:
    """SessionStart, UserPromptSubmit, PreToolUse, Stop and StopFailure run goalkeeper (the
    PreToolUse hook only for goalkeeper's tools, the native todo tools and those that write
    files); the cap is raised."""
    after, receipt, changes = add_hooks({}, CMD, 50)
    assert after["hooks"]["PreToolUse"] == [
        {
            "matcher": "^(mcp__goalkeeper__.*|TodoWrite|TaskUpdate"
            "|Write|Edit|MultiEdit|NotebookEdit|Bash)$",
            "hooks": [{"type": "command", "command": CMD, "timeout": 60}],
        }
    ]
    for event in ("SessionStart", "UserPromptSubmit", "StopFailure"):
        assert after["hooks"][event] == [
            {"hooks": [{"type": "command", "command": CMD, "timeout": 60}]}
        ]
    # a Stop may run the goal's verification: it gets a long timeout
    assert after["hooks"]["Stop"] == [
        {"hooks": [{"type": "command", "command": CMD, "timeout": 600}]}
    ]
    assert after["env"] == {BLOCK_CAP_VAR: "50"}
    assert receipt.env_set == {BLOCK_CAP_VAR: "50"} and receipt.env_previous == {
        BLOCK_CAP_VAR: None
    }
    assert len(changes) == 7  # six hooks and the block cap


def test_install_approves_the_mcp_server_and_uninstall_withdraws_only_that() -> None:
    """enabledMcpjsonServers gains "goalkeeper"; uninstall removes only that entry."""
    settings = {"enabledMcpjsonServers": ["other"]}
    after, receipt, changes = add_hooks(settings, CMD, 50, enable_mcp=True)
    assert after["enabledMcpjsonServers"] == ["other", "goalkeeper"]
    assert "approved the project's 'goalkeeper' MCP server" in changes
    assert remove_hooks(after, receipt)[0] == settings
    fresh, fresh_receipt, _ = add_hooks({}, CMD, 50, enable_mcp=True)
    assert remove_hooks(fresh, fresh_receipt)[0] == {}


def test_mcp_json_gains_and_loses_exactly_the_goalkeeper_server() -> None:
    """.mcp.json: the goalkeeper server is added once, updated in place, removed alone."""
    original = {"mcpServers": {"db": {"command": "db-mcp"}}}
    added, was_added, changes = add_mcp_server(original, ["/py", "-m", "goalkeeper", "mcp"])
    assert was_added and added["mcpServers"]["goalkeeper"] == {
        "command": "/py",
        "args": ["-m", "goalkeeper", "mcp"],
    }
    assert add_mcp_server(added, ["/py", "-m", "goalkeeper", "mcp"])[2] == []
    moved, was_added, changes = add_mcp_server(added, ["/other", "-m", "goalkeeper", "mcp"])
    assert not was_added and changes == ["updated the 'goalkeeper' MCP server"]
    assert remove_mcp_server(moved)[0] == original


def test_install_keeps_everything_else_and_is_idempotent() -> None:
    """Other hooks and settings stay; installing twice changes nothing."""
    once, _, _ = add_hooks(USER_SETTINGS, CMD, 50)
    assert once["hooks"]["Stop"][0] == USER_SETTINGS["hooks"]["Stop"][0]
    assert once["hooks"]["PreToolUse"][0] == USER_SETTINGS["hooks"]["PreToolUse"][0]
    assert once["model"] == "opus" and once["env"]["FOO"] == "1"
    twice, _, changes = add_hooks(once, CMD, 50)
    assert twice == once and changes == []


def test_reinstall_from_another_venv_updates_the_command_in_place() -> None:
    """A moved virtualenv is updated, never duplicated."""
    once, _, _ = add_hooks({}, CMD, 50)
    moved, _, changes = add_hooks(once, "/other/python -m goalkeeper hook claude", 50)
    assert len(moved["hooks"]["Stop"]) == 1
    assert moved["hooks"]["Stop"][0]["hooks"][0]["command"].startswith("/other/python")
    assert "updated the Stop hook" in changes


def test_uninstall_removes_exactly_what_install_added() -> None:
    """install then uninstall gives back the original settings."""
    after, receipt, _ = add_hooks(USER_SETTINGS, CMD, 50)
    restored, changes = remove_hooks(after, receipt)
    assert restored == USER_SETTINGS
    assert "removed the Stop hook" in changes and f"restored env {BLOCK_CAP_VAR}" in changes
    empty_after, empty_receipt, _ = add_hooks({}, CMD, 50)
    assert remove_hooks(empty_after, empty_receipt)[0] == {}


def test_a_lower_user_cap_is_raised_and_restored_on_uninstall() -> None:
    """A cap that would cut the loop is raised; uninstall puts the user's value back."""
    settings = {"env": {BLOCK_CAP_VAR: "5"}}
    after, receipt, _ = add_hooks(settings, CMD, 50)
    assert after["env"][BLOCK_CAP_VAR] == "50"
    assert remove_hooks(after, receipt)[0] == settings


def test_a_sufficient_or_disabled_cap_is_left_alone() -> None:
    """0 (no cap) or a high enough value is the user's choice and stays."""
    for value in ("0", "99"):
        after, receipt, _ = add_hooks({"env": {BLOCK_CAP_VAR: value}}, CMD, 50)
        assert after["env"][BLOCK_CAP_VAR] == value and receipt.env_set == {}


def test_a_cap_the_user_changed_after_install_is_not_touched() -> None:
    """Uninstall only restores a value that is still the one install wrote."""
    after, receipt, _ = add_hooks({}, CMD, 50)
    after["env"][BLOCK_CAP_VAR] = "70"
    restored, _ = remove_hooks(after, receipt)
    assert restored["env"] == {BLOCK_CAP_VAR: "70"}


def test_recognises_goalkeeper_commands_only() -> None:
    """Shell and module forms are ours; look-alikes are not."""
    assert is_goalkeeper_command(hook_command("/x y/python"))
    assert is_goalkeeper_command("goalkeeper hook claude")
    assert is_goalkeeper_command("'/venv/bin/goalkeeper' hook claude")
    assert not is_goalkeeper_command("notgoalkeeper hook claude")
    assert not is_goalkeeper_command("goalkeeper plan")
    assert not is_goalkeeper_command(None)


def test_settings_that_are_not_an_object_are_refused(tmp_path: Path) -> None:
    """Invalid JSON or a wrong shape raises SettingsError; nothing is written."""
    bad = tmp_path / "settings.json"
    bad.write_text("{ nope", encoding="utf-8")
    with pytest.raises(SettingsError, match="not valid JSON"):
        read_json_object(bad)
    with pytest.raises(SettingsError, match="'hooks' in the settings is not an object"):
        add_hooks({"hooks": []}, CMD, 50)
    with pytest.raises(SettingsError, match=r"'hooks\.Stop' in the settings is not a list"):
        add_hooks({"hooks": {"Stop": {}}}, CMD, 50)


def test_receipt_round_trip(tmp_path: Path) -> None:
    """The receipt survives a write and a read; a damaged one reads as None."""
    _, receipt, _ = add_hooks({}, CMD, 50)
    path = tmp_path / "r.json"
    save_receipt(path, receipt)
    assert load_receipt(path) == receipt
    path.write_text(json.dumps({"env_set": 3}), encoding="utf-8")
    assert load_receipt(path) is None


def test_install_registers_subagent_stop_for_every_agent_type() -> None:
    """A subagent's done is judged too (issue 22 item 6): SubagentStop runs goalkeeper, with no
    matcher (every agent type)."""
    after, _, _ = add_hooks({}, CMD, 50)
    assert after["hooks"]["SubagentStop"] == [
        {"hooks": [{"type": "command", "command": CMD, "timeout": 60}]}
    ]
