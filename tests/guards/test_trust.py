"""The trust guard: no tool call writes goalkeeper's state or the user's config, and no shell
command runs an approving goalkeeper command."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from goalkeeper.config import Config
from goalkeeper.core.values import Block, ToolCall
from goalkeeper.guards.trust import TrustGuard, approval_command
from goalkeeper.testing import context

PROJECT = "/home/ana/proj"
USER_FILE = "/home/ana/.config/goalkeeper/config.toml"
STATE_HOME = "/home/ana/.local/state/goalkeeper"
guard = TrustGuard()


def blocked(tool: str, **args: object) -> bool:
    config = Config(user_file=USER_FILE, state_home=STATE_HOME)
    ctx = replace(context(None), project=PROJECT, config=config)
    verdict = guard.on_event(ToolCall("s", tool, dict(args)), None, ctx)
    return any(isinstance(a, Block) for a in verdict.actions)


@pytest.mark.parametrize(
    "path",
    [
        ".goalkeeper/state.db",
        "./.goalkeeper/state.db-wal",
        f"{PROJECT}/.goalkeeper/goal-tests.json",
        f"{PROJECT}/src/../.goalkeeper",
        USER_FILE,
        f"{STATE_HOME}/baselines/0123/4567.zip",
    ],
)
def test_writing_goalkeepers_state_or_the_users_config_is_refused(path: str) -> None:
    for tool in ("Write", "Edit", "MultiEdit", "write", "edit"):
        assert blocked(tool, file_path=path, path=path)


@pytest.mark.parametrize(
    "path", ["src/app.py", ".agents/goal/GOAL.md", "docs/.goalkeeper-notes.md", "/tmp/x"]
)
def test_other_files_are_the_agents_to_write(path: str) -> None:
    assert not blocked("Write", file_path=path)


@pytest.mark.parametrize(
    "command",
    [
        "sqlite3 .goalkeeper/state.db 'DELETE FROM goals'",
        "rm -rf .goalkeeper",
        "echo x > ./.goalkeeper/state.db",
        "mv .goalkeeper /tmp/away",
        "python -c \"open('.goalkeeper/state.db','w')\"",
        f"cat > {USER_FILE} <<EOF\nmax-continuations = 999\nEOF",
        f"rm -rf {STATE_HOME}",
        "rm -rf ~/.local/state/goalkeeper",
        "goalkeeper allow",
        "env -u CLAUDECODE goalkeeper goal approve --yes",
        "python -m goalkeeper -C . goal resume",
        "uv run goalkeeper allow --revoke",
        "cd sub && /opt/venv/bin/goalkeeper goal clear",
        "GOALKEEPER_SERVER=off goalkeeper goal approve",
        "bash -c 'goalkeeper allow'",
        "goalkeeper goal accept-tests --yes",
        "echo . | xargs goalkeeper -C goal approve",
        "echo 'goalkeeper goal approve --yes' | sh",
        "printf 'goalkeeper allow' |& bash",
        'echo "$(goalkeeper goal approve --yes)"',
        "echo `goalkeeper allow`",
        "bash <<EOF\ngoalkeeper goal accept-tests --yes\nEOF",
        "cat <<'EOF' | sh\ngoalkeeper allow\nEOF",
        "python3 - <<EOF\nimport os; os.system('goalkeeper allow')\nEOF",
        "echo notes >> NOTES.md; goalkeeper goal approve",
        "git -c alias.x='!goalkeeper allow' x",
        "X=1 eval 'goalkeeper allow'",
        'echo "`goalkeeper allow`"',
        "echo 'x' \"$(goalkeeper goal resume)\"",
        'echo "it\'s $(goalkeeper goal approve --yes)"',
        "echo 'a'\\''b' \"$(goalkeeper allow)\"",
        "echo 'goalkeeper allow' | tee x | sh",
    ],
)
def test_shell_commands_that_touch_approvals_are_refused(command: str) -> None:
    assert blocked("Bash", command=command)
    assert blocked("bash", command=command)


@pytest.mark.parametrize(
    "command",
    [
        "pytest -q",
        "goalkeeper goal status",
        "goalkeeper todo list --json",
        'goalkeeper goal set "all tests pass"',
        "grep -rn 'approve' README.md",
        "ls src/.goalkeeper_cache_not_ours",
        "printf '%s\\n' 'test was wrong (`goalkeeper goal accept-tests`)' >> .agents/goal/GOAL.md",
        'echo "please run goalkeeper goal approve in your terminal"',
        "cat >> NOTES.md <<'EOF'\nRun `goalkeeper allow` to trust the config.\nEOF",
        'git commit -qm "docs: explain goalkeeper goal accept-tests"',
        "grep -n 'goalkeeper allow' README.md | head -3",
    ],
)
def test_ordinary_commands_go_through(command: str) -> None:
    assert not blocked("Bash", command=command)


def test_approval_command_names_what_it_found() -> None:
    """Read from the raw text: a nested shell cannot hide it; text only printed is not run."""
    assert approval_command("nohup goalkeeper -C /p goal approve -y") == "goalkeeper goal approve"
    assert approval_command("echo goalkeeper allow | sh") == "goalkeeper allow"
    assert approval_command("echo goalkeeper allow") is None  # printed, not run
    assert approval_command("goalkeeper goal status") is None
    assert approval_command("my-goalkeeper allow") is None


# -- the host's own configuration (Claude Code: settings files, MCP server lists) ----------
def blocked_on_claude(tool: str, **args: object) -> bool:
    from goalkeeper.hosts.claude.hook import host_files

    config = Config(user_file=USER_FILE, state_home=STATE_HOME)
    files = host_files(PROJECT, {"HOME": "/home/ana"})
    ctx = replace(context(None), project=PROJECT, config=config, host_files=files)
    verdict = guard.on_event(ToolCall("s", tool, dict(args)), None, ctx)
    return any(isinstance(a, Block) for a in verdict.actions)


@pytest.mark.parametrize(
    "path",
    [
        ".claude/settings.json",
        "./.claude/settings.local.json",
        f"{PROJECT}/.mcp.json",
        f"{PROJECT}/src/../.claude/settings.json",
        "/home/ana/.claude/settings.json",
        "/home/ana/.claude.json",
    ],
)
def test_the_agent_may_not_rewrite_what_runs_goalkeeper(path: str) -> None:
    """An agent that edited the hooks' settings could drop them or set GOALKEEPER_PYTHON to a
    fake goalkeeper of its own for the next session: refused, by file tools and shell alike."""
    assert blocked_on_claude("Edit", file_path=path)
    assert blocked_on_claude("Bash", command=f"echo '{{}}' > {path}")


@pytest.mark.parametrize(
    "command",
    [
        "sed -i 's/goalkeeper/x/' .claude/settings.json",
        "rm .mcp.json",
        "mv /tmp/fake.json ~/.claude.json",
        "cp evil.json .claude/settings.local.json",
        "python3 -c 1 | tee .claude/settings.json",
    ],
)
def test_shell_writes_to_the_host_configuration_are_refused(command: str) -> None:
    assert blocked_on_claude("Bash", command=command)


@pytest.mark.parametrize(
    "command",
    ["cat .claude/settings.json", "jq . .mcp.json", "git diff .claude/settings.json"],
)
def test_reading_the_host_configuration_goes_through(command: str) -> None:
    assert not blocked_on_claude("Bash", command=command)
    assert not blocked_on_claude("Write", file_path="docs/settings.json")
