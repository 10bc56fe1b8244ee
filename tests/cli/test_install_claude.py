"""``install claude`` / ``uninstall claude`` on disk: where the MCP server goes for each scope,
that uninstall takes out exactly what install put in (byte for byte, layout included), and
that no empty file or folder is left behind."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.cli.app import run
from goalkeeper.hosts.claude.settings import receipt_path
from goalkeeper.hosts.command_hooks.json_doc import style_of

CLAUDE_JSON = {
    "firstStartTime": "2026-12-01T21:37:47.345Z",
    "mcpServers": {"db": {"type": "stdio", "command": "db-mcp", "args": [], "env": {}}},
    "projects": {"/elsewhere": {"allowedTools": [], "mcpServers": {}}},
}


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A project and a home folder side by side (the home is not inside the project)."""
    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(home))
    return project, home


def gk(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert run([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, dict)
    return data


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under ``folder``."""
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(folder.rglob("*"))
    }


def claude_json(home: Path) -> dict[str, object]:
    data = json.loads((home / ".claude.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_user_install_registers_the_mcp_server_and_uninstall_restores_claude_json(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """--user: the server goes into ~/.claude.json ``mcpServers`` (as ``claude mcp add --scope
    user`` does), so the hook never points at a tool that is not there; uninstall gives the
    file back byte for byte, with its 0600 mode."""
    project, home = dirs
    original = json.dumps(CLAUDE_JSON, indent=2)  # Claude Code's layout: 2 spaces, no newline
    (home / ".claude.json").write_text(original, encoding="utf-8")
    os.chmod(home / ".claude.json", 0o600)
    data = gk(capsys, "install", "claude", "--user")
    server = claude_json(home)["mcpServers"]["goalkeeper"]  # type: ignore[index]
    assert server["type"] == "stdio" and server["args"][-2:] == ["goalkeeper", "mcp"]
    assert any("MCP server" in str(c) for c in data["changes"])  # type: ignore[attr-defined]
    assert (home / ".claude.json").read_text(encoding="utf-8").startswith('{\n  "first')
    assert stat.S_IMODE(os.stat(home / ".claude.json").st_mode) == 0o600
    assert not (project / ".mcp.json").exists()
    gk(capsys, "uninstall", "claude", "--user")
    assert (home / ".claude.json").read_text(encoding="utf-8") == original
    assert stat.S_IMODE(os.stat(home / ".claude.json").st_mode) == 0o600
    assert tree(project) == {}


def test_local_install_writes_nothing_the_team_shares(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """--local: the hooks in .claude/settings.local.json, the server in ~/.claude.json under
    this project (``claude mcp add --scope local``), never .mcp.json; uninstall leaves the
    project as it was and ~/.claude.json byte for byte."""
    project, home = dirs
    original = json.dumps(CLAUDE_JSON, indent=2) + "\n"
    (home / ".claude.json").write_text(original, encoding="utf-8")
    before = tree(project)
    gk(capsys, "install", "claude", "--local")
    assert not (project / ".mcp.json").exists()
    assert (project / ".claude" / "settings.local.json").is_file()
    local = claude_json(home)["projects"][str(project)]  # type: ignore[index]
    assert local["mcpServers"]["goalkeeper"]["args"][-1] == "mcp"
    settings = json.loads((project / ".claude" / "settings.local.json").read_text("utf-8"))
    assert "enabledMcpjsonServers" not in settings  # nothing in .mcp.json to approve
    gk(capsys, "uninstall", "claude", "--local")
    assert (home / ".claude.json").read_text(encoding="utf-8") == original
    assert tree(project) == before


def test_project_install_and_uninstall_leave_no_trace(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A project goalkeeper was never in: after install and uninstall no .claude/ or .mcp.json
    is left (both were created by install and are empty again); the receipt is kept in
    goalkeeper's state folder, never in the project."""
    project, home = dirs
    gk(capsys, "install", "claude")
    assert {".claude", ".mcp.json"} <= {p.name for p in project.iterdir()}
    assert not (project / ".goalkeeper").exists()
    assert receipt_path("project", project, home).is_file()
    gk(capsys, "uninstall", "claude")
    assert tree(project) == {}
    assert not (home / ".claude.json").exists()


def test_folders_and_files_the_user_had_are_kept(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty .claude/ and an empty-server .mcp.json the user had stay after uninstall."""
    project, _ = dirs
    (project / ".claude").mkdir()
    (project / ".mcp.json").write_text('{"mcpServers": {}}\n', encoding="utf-8")
    before = tree(project)
    gk(capsys, "install", "claude")
    gk(capsys, "uninstall", "claude")
    assert tree(project) == before


@pytest.mark.parametrize(
    "layout",
    [
        lambda d: json.dumps(d, separators=(",", ":")),
        lambda d: json.dumps(d) + "\n",
        lambda d: json.dumps(d, indent=4),
        lambda d: json.dumps(d, indent="\t") + "\n",
    ],
    ids=["compact", "one-line", "indent-4-no-newline", "tabs"],
)
def test_uninstall_gives_back_the_users_bytes(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str], layout: object
) -> None:
    """settings.json and .mcp.json come back byte for byte: indentation, key order and the
    final newline as the user had them; install itself keeps that layout too."""
    project, _ = dirs
    assert callable(layout)
    settings = {"model": "opus", "permissions": {"allow": ["Bash(ls:*)"]}, "env": {"A": "1"}}
    mcp = {"mcpServers": {"db": {"command": "db-mcp", "args": ["--x"]}}}
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(layout(settings), encoding="utf-8")
    (project / ".mcp.json").write_text(layout(mcp), encoding="utf-8")
    before = tree(project)
    gk(capsys, "install", "claude")
    installed = (project / ".claude" / "settings.json").read_text(encoding="utf-8")
    assert style_of(installed) == style_of(layout(settings), settings)
    gk(capsys, "uninstall", "claude")
    assert tree(project) == before


def test_reinstall_replaces_an_older_versions_absolute_command(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Settings written by an older goalkeeper (``<venv python> -m goalkeeper hook claude``,
    ``.mcp.json`` with the interpreter): reinstall updates them in place to the launcher, and
    uninstall with an old receipt still takes them out."""
    project, home = dirs
    old = "/old/venv/bin/python3 -m goalkeeper hook claude"
    settings = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": old}]}]}}
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    old_mcp = {"command": "/old/venv/bin/python3", "args": ["-m", "goalkeeper", "mcp"]}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"goalkeeper": old_mcp}}), "utf-8")
    receipt = receipt_path("project", project, home)
    receipt.parent.mkdir(parents=True)
    receipt.write_text(
        json.dumps({"env_set": {}, "env_previous": {}, "created": [], "mcp_server": True}),
        encoding="utf-8",
    )
    gk(capsys, "install", "claude")
    after = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    stops = [h["command"] for g in after["hooks"]["Stop"] for h in g["hooks"]]
    assert len(stops) == 1 and stops[0].startswith("# goalkeeper hook claude")
    assert "/old/" not in stops[0]
    server = json.loads((project / ".mcp.json").read_text("utf-8"))["mcpServers"]["goalkeeper"]
    assert server["command"] == "sh"
    gk(capsys, "uninstall", "claude")
    assert "goalkeeper" not in json.loads((project / ".mcp.json").read_text("utf-8"))["mcpServers"]
    left = json.loads((project / ".claude" / "settings.json").read_text("utf-8"))
    assert left == {"hooks": {}}  # the key was there before install (the old receipt says so)


def test_a_server_the_user_put_under_the_name_is_not_removed(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Uninstall takes out goalkeeper's server only: if the user replaced the entry with a
    server of their own since, it stays."""
    _, home = dirs
    gk(capsys, "install", "claude", "--user")
    data = claude_json(home)
    mine = {"type": "stdio", "command": "my-own-server", "args": [], "env": {}}
    data["mcpServers"] = {"goalkeeper": mine}
    (home / ".claude.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    gk(capsys, "uninstall", "claude", "--user")
    assert claude_json(home)["mcpServers"] == {"goalkeeper": mine}


def test_a_user_install_leaves_nothing_in_home_after_uninstall(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """--user into a home with only Claude Code's ~/.claude.json: uninstall removes the
    ~/.claude/ folder, the commands and the receipt folder install created."""
    _, home = dirs
    (home / ".claude.json").write_text(json.dumps(CLAUDE_JSON, indent=2), encoding="utf-8")
    before = tree(home)
    gk(capsys, "install", "claude", "--user")
    assert (home / ".claude" / "settings.json").is_file()
    assert receipt_path("user", home, home).is_file()
    gk(capsys, "uninstall", "claude", "--user")
    assert tree(home) == before


def test_install_says_whether_the_hooks_will_find_goalkeeper(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The committed hooks find goalkeeper at run time: install runs the launcher as Claude
    Code will and says so, with how to fix it when it would not find it."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert gk(capsys, "install", "claude")["goalkeeper_found"] is False
    assert run(["install", "claude"]) == 0
    assert "GOALKEEPER_PYTHON=" in capsys.readouterr().out
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin")
    assert gk(capsys, "install", "claude")["goalkeeper_found"] is True
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert gk(capsys, "install", "claude", "--local")["goalkeeper_found"] is True  # baked in


# -------------------------------------------------------------------------------------------
# --sandbox: Claude Code's sandbox in the user's settings, goalkeeper's folders denied to it
# -------------------------------------------------------------------------------------------
USER_SANDBOX = {
    "model": "opus",
    "sandbox": {
        "autoAllowBashIfSandboxed": True,
        "filesystem": {"denyRead": ["~/.ssh"], "allowWrite": ["~/.kube"]},
    },
}


@pytest.fixture
def own_folders(dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """goalkeeper's state, config and runtime folders of this test (none exists yet)."""
    _, home = dirs
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "GOALKEEPER_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GOALKEEPER_RUNTIME_DIR", str(home.parent / "run" / "goalkeeper"))
    return [
        str(home / ".local" / "state" / "goalkeeper"),
        str(home / ".config" / "goalkeeper"),
        str(home.parent / "run" / "goalkeeper"),
    ]


def user_settings(home: Path) -> dict[str, Any]:
    data = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_sandbox_goes_to_the_user_settings_keeping_theirs_and_uninstall_restores_them(
    dirs: tuple[Path, Path], own_folders: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The hooks go to the project (the default scope), the sandbox to ~/.claude/settings.json,
    where the agent cannot switch it off: on, failing rather than running unsandboxed, the
    escape hatch shut, goalkeeper's three folders denied for reading and writing, the user's
    own entries kept. A second install changes nothing; uninstall --sandbox gives the file
    back byte for byte."""
    project, home = dirs
    (home / ".claude").mkdir()
    original = json.dumps(USER_SANDBOX, indent=2)
    (home / ".claude" / "settings.json").write_text(original, encoding="utf-8")
    data = gk(capsys, "install", "claude", "--sandbox")
    box = user_settings(home)["sandbox"]
    assert box["enabled"] is True and box["failIfUnavailable"] is True
    assert box["allowUnsandboxedCommands"] is False
    assert box["autoAllowBashIfSandboxed"] is True
    assert box["filesystem"]["denyRead"] == ["~/.ssh", *own_folders]
    assert box["filesystem"]["denyWrite"] == own_folders
    assert box["filesystem"]["allowWrite"] == ["~/.kube"]
    assert "network" not in box  # no unix sockets for the agent's Bash
    assert user_settings(home)["model"] == "opus"
    assert "sandbox" not in json.loads((project / ".claude" / "settings.json").read_text("utf-8"))
    report = data["sandbox"]
    assert isinstance(report, dict) and report["folders"] == own_folders
    assert len(report["changes"]) == 5 and report["problems"] == []
    # the denied folders exist, private, so the sandbox can hide them from the start
    assert all(Path(f).is_dir() for f in own_folders)
    assert stat.S_IMODE(os.stat(own_folders[0]).st_mode) == 0o700

    installed = (home / ".claude" / "settings.json").read_bytes()
    again = gk(capsys, "install", "claude", "--sandbox")
    assert again["sandbox"]["changes"] == []  # type: ignore[index]
    assert (home / ".claude" / "settings.json").read_bytes() == installed

    gk(capsys, "uninstall", "claude", "--sandbox")
    assert (home / ".claude" / "settings.json").read_text(encoding="utf-8") == original


def test_uninstall_without_sandbox_keeps_it_and_keeps_what_the_user_had_turned_on(
    dirs: tuple[Path, Path], own_folders: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A sandbox the user had on before stays on after uninstall --sandbox (install did not
    turn it on); plain uninstall leaves the sandbox settings alone."""
    _, home = dirs
    (home / ".claude").mkdir()
    mine = {"sandbox": {"enabled": True, "allowUnsandboxedCommands": True}}
    (home / ".claude" / "settings.json").write_text(json.dumps(mine), encoding="utf-8")
    gk(capsys, "install", "claude", "--user", "--sandbox")
    assert user_settings(home)["sandbox"]["allowUnsandboxedCommands"] is False
    gk(capsys, "uninstall", "claude", "--user")
    assert user_settings(home)["sandbox"]["enabled"] is True
    assert user_settings(home)["sandbox"]["filesystem"]["denyWrite"] == own_folders
    gk(capsys, "uninstall", "claude", "--user", "--sandbox")
    assert user_settings(home) == mine


def test_unix_sockets_the_user_allows_are_kept_and_said_as_a_problem(
    dirs: tuple[Path, Path], own_folders: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, home = dirs
    (home / ".claude").mkdir()
    mine = {"sandbox": {"network": {"allowAllUnixSockets": True}}}
    (home / ".claude" / "settings.json").write_text(json.dumps(mine), encoding="utf-8")
    assert run(["install", "claude", "--sandbox"]) == 0
    out = capsys.readouterr().out
    assert "Problem: your Claude Code settings let the agent's Bash open unix sockets" in out
    assert "allowAllUnixSockets" in out
    assert user_settings(home)["sandbox"]["network"] == {"allowAllUnixSockets": True}


def test_sandbox_is_refused_for_other_hosts_and_a_broken_user_file_is_left_alone(
    dirs: tuple[Path, Path], own_folders: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, home = dirs
    assert run(["install", "codex", "--sandbox"]) == 2
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"sandbox": [1]}', encoding="utf-8")
    assert run(["install", "claude", "--sandbox"]) == 2
    assert "is not an object" in capsys.readouterr().err
    assert (home / ".claude" / "settings.json").read_text(encoding="utf-8") == '{"sandbox": [1]}'


def test_sandbox_only_writes_the_sandbox_and_no_hooks(
    dirs: tuple[Path, Path], own_folders: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """For the plugin, which brings the hooks itself: nothing in the project, no hooks."""
    project, home = dirs
    data = gk(capsys, "install", "claude", "--sandbox-only")
    assert len(data["sandbox"]["changes"]) == 5  # type: ignore[index]
    assert set(user_settings(home)) == {"sandbox"}
    assert tree(project) == {}
