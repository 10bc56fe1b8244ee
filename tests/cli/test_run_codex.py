"""``goalkeeper run -- codex exec``: the -c options that carry goalkeeper's hooks and MCP
server, and the trust Codex needs for them (it ignores trust given with -c)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from goalkeeper.cli.run.agent import RunError
from goalkeeper.cli.run.codex import FLAGS_SOURCE, _exec_at, _trust_flag_hooks, codex_flags
from goalkeeper.hosts.codex import config as cc
from goalkeeper.hosts.transport.launcher import hook_command, mcp_argv


def test_the_flags_are_toml_codex_reads_as_the_hooks_and_the_server() -> None:
    doc, _ = cc.add_hooks({}, hook_command("codex", "/opt/py/bin/python"))
    flags = codex_flags(doc["hooks"], mcp_argv("/opt/py/bin/python"))
    assert flags[::2] == ["-c"] * (len(flags) // 2)
    merged = tomllib.loads("\n".join(flags[1::2]))
    assert merged["hooks"] == doc["hooks"]  # the same handlers the trust records hash
    server = merged["mcp_servers"]["goalkeeper"]
    assert [server["command"], *server["args"]] == mcp_argv("/opt/py/bin/python")
    assert server["env_vars"] == [
        "GOALKEEPER_PYTHON",
        "GOALKEEPER_STATE_HOME",
        "XDG_STATE_HOME",
        "XDG_CONFIG_HOME",
    ]


def test_the_trust_of_the_flag_hooks_is_recorded_once(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('model = "gpt-5.5"\n', encoding="utf-8")
    doc, _ = cc.add_hooks({}, hook_command("codex", "/opt/py/bin/python"))
    records = cc.trust_records(FLAGS_SOURCE, doc)
    assert {k.rsplit(":", 3)[1] for k, _ in records} == {
        "session_start", "user_prompt_submit", "pre_tool_use", "stop", "subagent_stop"
    }  # fmt: skip
    _trust_flag_hooks(config, records)
    once = config.read_text(encoding="utf-8")
    _trust_flag_hooks(config, records)
    assert config.read_text(encoding="utf-8") == once
    state = tomllib.loads(once)["hooks"]["state"]
    assert {k: v["trusted_hash"] for k, v in state.items()} == dict(records)
    assert once.startswith('model = "gpt-5.5"\n')


def test_only_headless_codex_is_supervised() -> None:
    assert _exec_at(["codex", "exec", "fix it"]) == 1
    assert _exec_at(["/usr/bin/codex", "--oss", "exec", "x"]) == 2
    with pytest.raises(RunError, match="headless"):
        _exec_at(["codex", "fix it"])


def test_a_planted_fifo_for_the_users_config_is_an_error_not_a_hang(tmp_path: Path) -> None:
    """The user's config.toml is read as install reads it: a FIFO there (anything that runs as
    the user can make one) is a clear error of the run, never a read that blocks forever."""
    config = tmp_path / "config.toml"
    os.mkfifo(config)
    doc, _ = cc.add_hooks({}, hook_command("codex", "/opt/py/bin/python"))
    with pytest.raises(RunError, match=r"config\.toml .*not a regular file"):
        _trust_flag_hooks(config, cc.trust_records(FLAGS_SOURCE, doc))
