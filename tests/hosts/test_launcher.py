"""The portable launcher as Claude Code runs it: the command string from the settings, through
``sh -c``, in a copy of the project on a machine with another PATH."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from goalkeeper.cli.app import run
from goalkeeper.hosts.claude.settings import hook_command, is_goalkeeper_command, mcp_command
from goalkeeper.hosts.transport.launcher import NOT_INSTALLED

from .. import debian

VENV_BIN = str(Path(sys.executable).parent)
"""Holds the ``goalkeeper`` console script of the Python running the tests."""
SYSTEM_PATH = "/usr/bin:/bin"
START = json.dumps({"hook_event_name": "SessionStart", "session_id": "s", "source": "startup"})


def run_hook(
    project: Path, command: str, path: str, payload: str = START, **env: str
) -> subprocess.CompletedProcess[str]:
    """``command`` as Claude Code runs a hook: a shell, the project as working directory."""
    environ = {
        "PATH": path,
        "HOME": str(project.parent / "home"),
        "CLAUDE_PROJECT_DIR": str(project),
        "GOALKEEPER_SERVER": "off",
        **env,
    }
    return subprocess.run(
        ["/bin/sh", "-c", command],
        input=payload,
        capture_output=True,
        text=True,
        cwd=project,
        env=environ,
        timeout=60,
        check=False,
    )


def installed_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """``install claude`` in one folder, the project copied to another (a teammate's clone);
    the copy and the Stop hook's command from its committed settings."""
    first = tmp_path / "mine"
    first.mkdir()
    monkeypatch.chdir(first)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert run(["install", "claude"]) == 0
    clone = tmp_path / "elsewhere" / "clone"
    shutil.copytree(first, clone)
    settings = json.loads((clone / ".claude" / "settings.json").read_text(encoding="utf-8"))
    command = settings["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert isinstance(command, str)
    return clone, command


def test_a_clone_runs_the_hooks_with_goalkeeper_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The committed hook names no path of the installing machine, and in a copy of the
    project it finds goalkeeper through PATH and answers as goalkeeper."""
    clone, command = installed_copy(tmp_path, monkeypatch)
    committed = (clone / ".claude" / "settings.json").read_text(encoding="utf-8")
    committed += (clone / ".mcp.json").read_text(encoding="utf-8")
    for machine_path in (sys.executable, sys.prefix, str(tmp_path)):
        assert machine_path not in committed
    proc = run_hook(clone, command, f"{VENV_BIN}:{SYSTEM_PATH}")
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert "goalkeeper keeps this task" in answer["hookSpecificOutput"]["additionalContext"]


def test_without_goalkeeper_a_hook_prints_one_notice_and_lets_the_session_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No goalkeeper on this machine: valid JSON with a one-line systemMessage, exit 0 (never
    a hook error, never a block), for a SessionStart and for a Stop."""
    clone, command = installed_copy(tmp_path, monkeypatch)
    stop = json.dumps({"hook_event_name": "Stop", "session_id": "s"})
    for payload in (START, stop):
        proc = run_hook(clone, command, SYSTEM_PATH, payload)
        assert proc.returncode == 0 and proc.stderr == ""
        answer = json.loads(proc.stdout)
        assert answer == {"systemMessage": NOT_INSTALLED.replace("`", "")}
        assert "\n" not in answer["systemMessage"]
        assert answer["systemMessage"].startswith("goalkeeper is not installed: ")


def test_the_mcp_server_without_goalkeeper_fails_with_one_stderr_line(tmp_path: Path) -> None:
    argv = mcp_command()
    proc = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": SYSTEM_PATH, "CLAUDE_PROJECT_DIR": str(tmp_path)},
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("goalkeeper is not installed")


def fake_goalkeeper(folder: Path) -> Path:
    """A ``goalkeeper`` that approves everything: what a cheating agent would plant."""
    folder.mkdir(parents=True, exist_ok=True)
    fake = folder / "goalkeeper"
    fake.write_text("#!/bin/sh\necho '{\"FAKE\": true}'\n", encoding="utf-8")
    fake.chmod(0o755)
    return fake


def test_nothing_the_agent_can_write_is_run(tmp_path: Path) -> None:
    """A fake ``goalkeeper`` in the project's .venv/bin or any in-project or relative PATH
    entry is never run, and a planted ``goalkeeper`` package in the project never shadows the
    real one (Python starts with -P: no working directory on sys.path)."""
    project = tmp_path / "proj"
    for folder in (project / ".venv" / "bin", project / "bin"):
        fake_goalkeeper(folder)
    planted = project / "goalkeeper"
    (planted / "hosts").mkdir(parents=True)
    (planted / "__init__.py").write_text("", encoding="utf-8")
    (planted / "__main__.py").write_text("print('FAKE')\n", encoding="utf-8")
    (planted / "hosts" / "__init__.py").write_text("", encoding="utf-8")
    (planted / "hosts" / "hook_client.py").write_text(
        "def lean_main():\n    print('FAKE')\n", encoding="utf-8"
    )
    path = f"{project}/.venv/bin:bin:.:{project}/bin:{SYSTEM_PATH}"
    proc = run_hook(project, hook_command(), path)
    assert json.loads(proc.stdout)["systemMessage"].startswith("goalkeeper is not installed")
    # the user's opt-in: GOALKEEPER_PYTHON names the real one; the planted package stays unused
    proc = run_hook(project, hook_command(), path, GOALKEEPER_PYTHON=sys.executable)
    assert "FAKE" not in proc.stdout
    assert "additionalContext" in json.loads(proc.stdout)["hookSpecificOutput"]
    python = sys.executable
    mcp = subprocess.run(
        [*mcp_command()[:-1], "--version"],
        capture_output=True,
        text=True,
        cwd=project,
        env={"PATH": path, "CLAUDE_PROJECT_DIR": str(project), "GOALKEEPER_PYTHON": python},
        timeout=60,
        check=False,
    )
    assert mcp.stdout.startswith("goalkeeper, version"), mcp.stdout + mcp.stderr


def test_a_script_that_is_not_a_plain_python_shebang_is_run_as_it_is(tmp_path: Path) -> None:
    """pip writes a ``#!/bin/sh`` trampoline for interpreter paths with spaces: the launcher
    runs such a ``goalkeeper`` itself instead of guessing its interpreter."""
    project, bin_dir = tmp_path / "proj", tmp_path / "tools bin"
    project.mkdir()
    bin_dir.mkdir()
    script = bin_dir / "goalkeeper"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m goalkeeper "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    proc = run_hook(project, hook_command(), f"{bin_dir}:{SYSTEM_PATH}")
    assert "additionalContext" in json.loads(proc.stdout)["hookSpecificOutput"]


def test_a_baked_interpreter_is_the_fallback_after_goalkeeper_python(tmp_path: Path) -> None:
    """``--local``/``--user`` settings may name this machine's interpreter: it is used when
    goalkeeper is not on PATH, and GOALKEEPER_PYTHON still wins over it."""
    project = tmp_path / "proj"
    project.mkdir()
    proc = run_hook(project, hook_command(sys.executable), SYSTEM_PATH)
    assert "additionalContext" in json.loads(proc.stdout)["hookSpecificOutput"]
    missing = str(tmp_path / "no" / "python")
    proc = run_hook(project, hook_command(sys.executable), SYSTEM_PATH, GOALKEEPER_PYTHON=missing)
    assert json.loads(proc.stdout)["systemMessage"].startswith("goalkeeper is not installed")


def test_old_and_new_commands_are_both_recognised() -> None:
    """Reinstall and uninstall find hooks written by older versions and by this one."""
    assert is_goalkeeper_command(hook_command())
    assert is_goalkeeper_command(hook_command("/x y/python"))
    assert is_goalkeeper_command("'/venv/bin/python' -m goalkeeper hook claude")
    assert is_goalkeeper_command("/venv/bin/python3 -m goalkeeper hook claude")
    with pytest.raises(ValueError):
        hook_command("/new\nline/python")


def test_the_launcher_forks_nothing_but_python(tmp_path: Path) -> None:
    """The shell part uses builtins only, so a hook costs one ``sh`` and one Python."""
    strace = debian.require({"strace": "strace"})["strace"]
    project = tmp_path / "proj"
    project.mkdir()
    out, command = tmp_path / "trace", hook_command()
    environ = {
        "PATH": f"{VENV_BIN}:{SYSTEM_PATH}",
        "CLAUDE_PROJECT_DIR": str(project),
        "GOALKEEPER_SERVER": "off",
        "HOME": str(tmp_path),
    }
    proc = subprocess.run(
        [strace, "-f", "-qq", "-e", "trace=execve", "-o", str(out), "/bin/sh", "-c", command],
        input=START,
        capture_output=True,
        text=True,
        cwd=project,
        env=environ,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    execs = [line for line in out.read_text().splitlines() if "execve(" in line and "= 0" in line]
    programs = [line.split('execve("', 1)[1].split('"', 1)[0] for line in execs]
    pythons = [(p, line) for p, line in zip(programs, execs, strict=True) if not p.endswith("/sh")]
    assert len(pythons) == 1 and "python" in Path(pythons[0][0]).name
    assert '"-S"' in pythons[0][1]  # the lean start: no site, no runpy


def test_claude_code_leaves_the_script_as_it_is() -> None:
    """Claude Code expands ``${NAME}`` and ``${NAME:-default}`` in MCP server arguments: the
    launcher uses neither form, so the MCP server runs the same script the hooks run."""
    for python in (None, "/opt/gk/bin/python3"):
        script = mcp_command(python)[2]
        assert not re.search(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}", script)


def test_the_engine_a_hook_starts_is_goalkeeper_not_a_planted_package(tmp_path: Path) -> None:
    """The warm engine a cold hook starts in the background runs with the project as its
    working directory: a ``goalkeeper`` package the agent planted there must not be what runs
    (``python -m`` would put the working directory first on sys.path without -P)."""
    project, runtime = tmp_path / "proj", tmp_path / "rt"
    marker = tmp_path / "planted-ran"
    planted = project / "goalkeeper"
    planted.mkdir(parents=True)
    (planted / "__init__.py").write_text("", encoding="utf-8")
    (planted / "__main__.py").write_text(
        f"open({str(marker)!r}, 'w').write('ran')\n", encoding="utf-8"
    )
    env = {
        "GOALKEEPER_PYTHON": sys.executable,
        "GOALKEEPER_SERVER": "auto",
        "GOALKEEPER_SERVER_IDLE_S": "30",
        "GOALKEEPER_RUNTIME_DIR": str(runtime),
    }
    try:
        proc = run_hook(project, hook_command(), SYSTEM_PATH, **env)
        assert "additionalContext" in json.loads(proc.stdout)["hookSpecificOutput"]
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not list(runtime.glob("*.pid")):
            time.sleep(0.1)
        time.sleep(0.5)
        assert not marker.exists(), "the planted package ran as the engine"
        assert list(runtime.glob("*.pid")), "no engine was started"
    finally:
        subprocess.run(
            [sys.executable, "-m", "goalkeeper", "-C", str(project), "server", "stop"],
            env={**os.environ, **env, "CLAUDE_PROJECT_DIR": str(project)},
            cwd=tmp_path,
            capture_output=True,
            timeout=60,
            check=False,
        )
