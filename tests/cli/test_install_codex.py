"""``install codex`` / ``uninstall codex`` on disk: the hooks and the MCP server for each scope,
the trust records Codex needs (its hash), idempotence, no machine path in the project's files,
and that uninstall leaves the user's files byte for byte as they were."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from goalkeeper.cli.app import run
from goalkeeper.hosts.codex import config as cc

USER_TOML = '# mine\nmodel = "gpt-5.5"\n\n[features]\napps = false'  # no final newline
USER_HOOKS = {
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}]
    }
}


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A project (a git repo folder) and a home folder with its ~/.codex."""
    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir()
    (home / ".codex").mkdir(parents=True)
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return project.resolve(), home.resolve()


def gk(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert run([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, dict)
    return data


def tree(folder: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(folder.rglob("*"))
    }


def test_the_trust_hash_is_codexs_for_the_recipes_example() -> None:
    """The records the offline recipe's run was trusted with (codex-offline-e2e.md §6)."""
    stop = {
        "hooks": [
            {"type": "command", "command": "python3 /tmp/t/hooks/hook.py Stop", "timeout": 30}
        ]
    }
    pre = {
        "matcher": "Bash|apply_patch",
        "hooks": [
            {"type": "command", "command": "python3 /tmp/t/hooks/hook.py PreToolUse", "timeout": 30}
        ],
    }
    assert cc.trusted_hash("Stop", stop, stop["hooks"][0]) == (  # type: ignore[index]
        "sha256:26d254cefd855ad149b0c75be9253a17351ffa5012bb10dbc16e4fbbfed6d76a"
    )
    assert cc.trusted_hash("PreToolUse", pre, pre["hooks"][0]) == (  # type: ignore[index]
        "sha256:e7289091cab63799bb40eae289af7cba75c3c832d10ad68dd29d802f0162a042"
    )


def test_project_install_trusts_idempotently_and_uninstall_restores_every_byte(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, home = dirs
    (home / ".codex" / "config.toml").write_text(USER_TOML, encoding="utf-8")
    (project / ".codex").mkdir()
    (project / ".codex" / "hooks.json").write_text(json.dumps(USER_HOOKS), encoding="utf-8")
    before_home, before_project = tree(home), tree(project)

    first = gk(capsys, "install", "codex", "--trust")
    assert first["changes"]
    hooks = json.loads((project / ".codex" / "hooks.json").read_text(encoding="utf-8"))
    assert hooks["hooks"]["Stop"][0] == USER_HOOKS["hooks"]["Stop"][0]  # the user's, first
    assert [cc.is_ours(g) for g in hooks["hooks"]["Stop"]] == [False, True]
    assert hooks["hooks"]["PreToolUse"][0]["matcher"] == "^(Bash|apply_patch|mcp__goalkeeper__.*)$"
    for path in (project / ".codex" / "hooks.json", project / ".codex" / "config.toml"):
        assert str(project) not in path.read_text(encoding="utf-8")  # portable: no machine path
        assert str(home) not in path.read_text(encoding="utf-8")

    import tomllib

    user = tomllib.loads((home / ".codex" / "config.toml").read_text(encoding="utf-8"))
    assert user["model"] == "gpt-5.5" and user["features"] == {"apps": False}
    assert user["projects"][str(project)] == {"trust_level": "trusted"}
    state = user["hooks"]["state"]
    hooks_file = str(project / ".codex" / "hooks.json")
    assert state[f"{hooks_file}:stop:1:0"]["trusted_hash"] == cc.trusted_hash(
        "Stop", hooks["hooks"]["Stop"][1], hooks["hooks"]["Stop"][1]["hooks"][0]
    )
    assert set(state) == {k for k, _ in cc.trust_records(hooks_file, hooks)}
    assert f"{hooks_file}:stop:0:0" not in state  # the user's own hook: the user's to review
    mcp = tomllib.loads((project / ".codex" / "config.toml").read_text(encoding="utf-8"))
    server = mcp["mcp_servers"]["goalkeeper"]
    assert server["command"] == "sh"  # its texts name the tools as Codex does
    assert server["args"][-4:] == ["goalkeeper", "mcp", "--host", "codex"]

    after_home, after_project = tree(home), tree(project)
    again = gk(capsys, "install", "codex", "--trust")
    assert again["changes"] == []
    assert (tree(home), tree(project)) == (after_home, after_project)

    gk(capsys, "uninstall", "codex")
    assert tree(home) == before_home
    assert tree(project) == before_project


def test_without_trust_install_says_to_review_the_hooks(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, home = dirs
    assert run(["install", "codex"]) == 0
    out = capsys.readouterr().out
    assert "review them in Codex's /hooks" in out and "codex exec" in out
    assert not (home / ".codex" / "config.toml").exists()  # no trust written for the user
    assert run(["uninstall", "codex"]) == 0
    assert tree(project) == {}


def test_user_install_goes_to_codex_home(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, home = dirs
    codex_home = home / "elsewhere"
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    gk(capsys, "install", "codex", "--user", "--trust")
    import tomllib

    hooks = json.loads((codex_home / "hooks.json").read_text(encoding="utf-8"))
    config = tomllib.loads((codex_home / "config.toml").read_text(encoding="utf-8"))
    assert "goalkeeper" in config["mcp_servers"]
    assert len(config["hooks"]["state"]) == 5
    assert "projects" not in config  # a user install trusts no project
    assert all(cc.is_ours(g) for groups in hooks["hooks"].values() for g in groups)
    assert not (project / ".codex").exists()
    gk(capsys, "uninstall", "codex", "--user")
    assert not (codex_home / "hooks.json").exists()
    assert not (codex_home / "config.toml").exists()


def test_codex_has_no_local_scope(dirs: tuple[Path, Path]) -> None:
    assert run(["install", "codex", "--local"]) != 0


def test_a_users_own_goalkeeper_server_or_broken_toml_is_never_overwritten(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, home = dirs
    (project / ".codex").mkdir()
    mine = '[mcp_servers.goalkeeper]\ncommand = "my-goalkeeper"\n'
    (project / ".codex" / "config.toml").write_text(mine, encoding="utf-8")
    data = gk(capsys, "install", "codex")
    assert any("already names an MCP server" in n for n in data["notes"])  # type: ignore[union-attr]
    assert (project / ".codex" / "config.toml").read_text(encoding="utf-8") == mine
    (home / ".codex" / "config.toml").write_text("this is = = not toml", encoding="utf-8")
    assert run(["install", "codex", "--trust"]) != 0
    assert (home / ".codex" / "config.toml").read_text(encoding="utf-8") == "this is = = not toml"


def test_the_block_is_removed_exactly_even_with_text_after_it() -> None:
    block = cc.toml_block("user", ["sh", "-c", "x"], [], None)
    text, sep = cc.with_block("a = 1", block)
    assert sep and text.startswith("a = 1\n# >>> goalkeeper")
    assert cc.without_block(text + "[b]\nc = 2\n", "user", sep) == "a = 1[b]\nc = 2\n"
    assert cc.without_block(text, "user", sep) == "a = 1"
    assert cc.split_block("x" + block, "user") == ("x" + block, "")  # not at a line's start


def test_install_says_when_the_hooks_would_not_find_goalkeeper(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project's hooks name no interpreter: without GOALKEEPER_PYTHON or goalkeeper on
    PATH every hook would answer "not installed" (Codex would run, unsupervised)."""
    monkeypatch.delenv("GOALKEEPER_PYTHON", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert run(["install", "codex"]) == 0
    assert "from here they would not" in capsys.readouterr().out
    monkeypatch.setenv("GOALKEEPER_PYTHON", sys.executable)
    assert gk(capsys, "install", "codex")["goalkeeper_found"] is True


def test_install_registers_and_trusts_subagent_stop(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Codex's SubagentStop runs goalkeeper for every agent type, and its handler is trusted
    (Codex skips an untrusted hook without a word)."""
    project, home = dirs
    gk(capsys, "install", "codex", "--trust")
    hooks = json.loads((project / ".codex" / "hooks.json").read_text(encoding="utf-8"))
    [group] = hooks["hooks"]["SubagentStop"]
    assert cc.is_ours(group) and "matcher" not in group
    import tomllib

    state = tomllib.loads((home / ".codex" / "config.toml").read_text(encoding="utf-8"))
    hooks_file = str(project / ".codex" / "hooks.json")
    record = state["hooks"]["state"][f"{hooks_file}:subagent_stop:0:0"]
    assert record["trusted_hash"] == cc.trusted_hash("SubagentStop", group, group["hooks"][0])
