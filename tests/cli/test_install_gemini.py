"""``install gemini`` / ``uninstall gemini`` on disk: the hooks and the MCP server in Gemini
CLI's settings.json, installing twice changes nothing, uninstall leaves the user's files byte
for byte as they were, and the committed project file names no path of this machine."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from goalkeeper.cli.app import run
from goalkeeper.hosts.gemini.hook import HOOK_EVENTS

USER_SETTINGS = (
    json.dumps(
        {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "hooks": {
                "BeforeTool": [
                    {"matcher": "read_file", "hooks": [{"type": "command", "command": "a.sh"}]}
                ]
            },
            "mcpServers": {"db": {"command": "db-mcp"}},
        },
        indent=4,
        ensure_ascii=False,
    )
    + "\n"
)
"""The user's own settings, in a layout of their own (4 spaces)."""


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
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
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(folder.rglob("*"))
    }


def test_project_install_registers_every_hook_and_the_mcp_server(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, _ = dirs
    data = gk(capsys, "install", "gemini")
    settings = json.loads((project / ".gemini" / "settings.json").read_text("utf-8"))
    assert set(settings["hooks"]) == set(HOOK_EVENTS)
    (before_tool,) = settings["hooks"]["BeforeTool"]
    assert "run_shell_command" in before_tool["matcher"]
    assert "mcp_goalkeeper_" in before_tool["matcher"]
    handler = settings["hooks"]["AfterAgent"][0]["hooks"][0]
    assert handler["name"] == "goalkeeper" and handler["type"] == "command"
    assert handler["command"].startswith("# goalkeeper hook gemini")
    # the server names its tools as Gemini does (mcp_goalkeeper_todo)
    assert settings["mcpServers"]["goalkeeper"]["args"][-3:] == ["mcp", "--host", "gemini"]
    text = (project / ".gemini" / "settings.json").read_text("utf-8")
    assert sys.executable not in text  # committed: no path of this machine
    assert str(project) not in text
    assert "trusted folder" in str(data["trust"])


def test_installing_twice_changes_nothing(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, _ = dirs
    gk(capsys, "install", "gemini")
    first = tree(project)
    again = gk(capsys, "install", "gemini")
    assert again["changes"] == []
    assert tree(project) == first


def test_uninstall_removes_what_a_fresh_install_created(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, _ = dirs
    gk(capsys, "install", "gemini")
    gk(capsys, "uninstall", "gemini")
    assert tree(project) == {}


def test_user_install_keeps_the_users_settings_and_uninstall_restores_them_byte_for_byte(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, home = dirs
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(USER_SETTINGS, encoding="utf-8")
    before = tree(home)
    gk(capsys, "install", "gemini", "--user")
    settings = json.loads(path.read_text("utf-8"))
    assert settings["security"] == {"auth": {"selectedType": "gemini-api-key"}}
    assert settings["hooks"]["BeforeTool"][0]["hooks"][0]["command"] == "a.sh"
    assert len(settings["hooks"]["BeforeTool"]) == 2
    assert set(settings["mcpServers"]) == {"db", "goalkeeper"}
    assert path.read_text("utf-8").startswith('{\n    "security"')  # its layout kept
    gk(capsys, "uninstall", "gemini", "--user")
    assert tree(home) == before
    assert tree(project) == {}


def test_local_scope_is_refused_with_the_reason(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["install", "gemini", "--local"]) != 0
    assert "no private per-project settings file" in capsys.readouterr().err


def test_a_foreign_goalkeeper_mcp_server_is_not_overwritten(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, _ = dirs
    path = project / ".gemini" / "settings.json"
    path.parent.mkdir()
    original = '{"mcpServers": {"goalkeeper": {"command": "something-else"}}}'
    path.write_text(original, encoding="utf-8")
    assert run(["install", "gemini"]) != 0
    assert path.read_text("utf-8") == original


def test_goalkeeper_run_with_gemini_needs_the_installed_hooks(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Gemini CLI takes no per-run settings: without an install, the run is refused (exit 3)
    saying how to install, and nothing is started."""
    assert run(["run", "--", "gemini", "-p", "x"]) == 3
    assert "goalkeeper install gemini" in capsys.readouterr().err


def test_install_keeps_the_launchers_variable_out_of_a_project_env_and_uninstall_undoes_it(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Gemini loads a project's ``.env`` into the hooks' environment; ``GOALKEEPER_PYTHON``
    there would choose the interpreter the hooks run. Install adds it to the user's
    ``advanced.excludedEnvVars`` (keeping theirs); uninstall takes exactly it out again."""
    project, _ = dirs
    path = project / ".gemini" / "settings.json"
    path.parent.mkdir()
    original = json.dumps({"advanced": {"excludedEnvVars": ["SECRET"]}}, indent=2) + "\n"
    path.write_text(original, encoding="utf-8")
    gk(capsys, "install", "gemini")
    settings = json.loads(path.read_text("utf-8"))
    assert settings["advanced"]["excludedEnvVars"] == ["SECRET", "GOALKEEPER_PYTHON"]
    gk(capsys, "uninstall", "gemini")
    assert path.read_text("utf-8") == original


def test_a_fresh_install_keeps_geminis_default_exclusions(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, _ = dirs
    gk(capsys, "install", "gemini")
    settings = json.loads((project / ".gemini" / "settings.json").read_text("utf-8"))
    assert settings["advanced"]["excludedEnvVars"] == ["DEBUG", "DEBUG_MODE", "GOALKEEPER_PYTHON"]


def test_the_hook_command_survives_geminis_settings_expansion() -> None:
    """Gemini replaces ``$NAME`` / ``${NAME}`` in every settings string with its environment
    as it loads the file: the command holds none, and decodes to the launcher script itself."""
    import re
    import subprocess

    from goalkeeper.hosts.gemini.settings import (
        HIDDEN_VAR,
        hook_command,
        is_goalkeeper_command,
        mcp_argv,
    )
    from goalkeeper.hosts.transport.launcher import hook_command as launcher_hook_command
    from goalkeeper.hosts.transport.launcher import launcher_script

    gemini_var = re.compile(r"\$(?:\w+|\{[^}]+\})")  # 0.61.0 resolveEnvVarsInString
    command = hook_command()
    names = {m[0] for m in gemini_var.finditer(command)}
    assert names == {"$" + HIDDEN_VAR} and is_goalkeeper_command(command)
    shown = command.split("\n", 1)[1].replace("eval ", "printf %s ", 1)
    decoded = subprocess.run(["bash", "-c", shown], capture_output=True, text=True, timeout=10)
    assert decoded.stdout == launcher_hook_command("gemini").split("\n", 1)[1]
    argv = mcp_argv()
    assert not any(gemini_var.search(a) for a in argv) and argv[-2:] == ["goalkeeper", "mcp"]
    assert launcher_script() in subprocess.run(
        ["sh", "-c", argv[2].replace("eval ", "printf %s ", 1)],
        capture_output=True, text=True, timeout=10,
    ).stdout  # fmt: skip
