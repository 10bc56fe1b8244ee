"""The CLI as people and scripts use it: exit statuses and the documented JSON shapes."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.cli.app import run
from goalkeeper.hosts.claude.hook import answer_hook
from goalkeeper.pinning import allow_project
from goalkeeper.store.locations import project_state_dir

PLAN = """## SWOT
S: tests exist
W: no JSON
O: click
T: churn
## Objective
Scripts read the report as JSON. More later.
## Key Results
- [ ] KR1: commands with --json 0 → 3, current 1
- [x] KR2: docs updated
- [-] KR3: YAML (cancelled: nobody asked)
## User Story Map
- Slice 1
  - [x] user runs report --json
  - [ ] output validates
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "report.md").write_text(PLAN, encoding="utf-8")
    return tmp_path


def cli(
    capsys: pytest.CaptureFixture[str],
    *args: str,
    stdin: bytes | None = None,
    monkeypatch: pytest.MonkeyPatch | None = None,
) -> tuple[int, str, str]:
    if stdin is not None and monkeypatch is not None:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_plan_json_has_the_documented_shape(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """plan --json: path, swot, objective, key_results, map.leaves and gates, as documented."""
    code, out, _ = cli(capsys, "plan", "--json")
    data: dict[str, Any] = json.loads(out)
    assert code == 0
    assert data["path"] == "plan/report.md"
    assert data["swot"] == {"S": "tests exist", "W": "no JSON", "O": "click", "T": "churn"}
    assert data["objective"] == "Scripts read the report as JSON."
    assert [(k["text"], k["state"]) for k in data["key_results"]] == [
        ("KR1: commands with --json 0 → 3, current 1", "open"),
        ("KR2: docs updated", "done"),
        ("KR3: YAML (cancelled: nobody asked)", "cancelled"),
    ]
    assert [(leaf["text"], leaf["state"]) for leaf in data["map"]["leaves"]] == [
        ("user runs report --json", "done"),
        ("output validates", "open"),
    ]
    assert data["gates"]["okr"]["passed"] is False
    assert data["gates"]["okr"]["open"] == ["KR1: commands with --json 0 → 3, current 1"]
    assert data["gates"]["map"] == {
        "passed": False,
        "open": ["output validates"],
        "items": [{"text": "output validates", "problem": "open", "line": 15}],
    }


def test_plan_json_without_a_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No plan file: nulls and empty lists in the same shape, exit status 1."""
    code, out, _ = cli(capsys, "plan", "--json")
    data = json.loads(out)
    assert code == 1
    assert data["path"] is None and data["objective"] is None
    assert data["swot"] == {"S": None, "W": None, "O": None, "T": None}
    assert data["key_results"] == [] and data["map"] == {"leaves": []}
    assert data["gates"]["okr"]["passed"] is False


def test_gates_exit_status_follows_the_plan(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """gates exits 1 while an item is open and 0 once everything is done or cancelled."""
    code, out, _ = cli(capsys, "gates", "--json")
    assert code == 1 and json.loads(out)["passed"] is False
    ticked = PLAN.replace("- [ ]", "- [x]")
    (project / "plan" / "report.md").write_text(ticked, encoding="utf-8")
    code, out, _ = cli(capsys, "gates")  # KR1 ticked at "current 1" of 3: not done
    assert code == 1 and "(ticked, but short of its target)" in out
    done = ticked.replace("current 1", "current 3")
    (project / "plan" / "report.md").write_text(done, encoding="utf-8")
    code, out, _ = cli(capsys, "gates")
    assert code == 0 and "okr: passes" in out and "map: passes" in out


def test_gates_without_a_plan_is_not_passed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No plan: nothing is proven, exit 1."""
    code, out, _ = cli(capsys, "gates")
    assert code == 1 and "no plan file in plan/" in out


def test_gates_on_a_plan_with_no_commitments_is_not_passed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only headings (seed000 D8): nothing to hold, so nothing passes; exit 1, said why."""
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "x.md").write_text("# T\n## Key Results\n## User Story Map\n", "utf-8")
    code, out, _ = cli(capsys, "gates")
    assert code == 1 and "it has no key result and no story-map leaf" in out
    code, out, _ = cli(capsys, "gates", "--json")
    assert code == 1 and json.loads(out)["problem"] == "it has no key result and no story-map leaf"


def test_marker_reads_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """marker --json prints the last marker outside code; exit 1 when there is none."""
    text = b"```\n[PDCA] complete\n```\nDone.\n[PDCA] blocked: need the API key\n"
    code, out, _ = cli(capsys, "marker", "--json", stdin=text, monkeypatch=monkeypatch)
    assert code == 0
    assert json.loads(out) == {
        "phase": "blocked",
        "reason": "need the API key",
        "coordinate": None,
        "legacy": False,
    }
    code, out, _ = cli(capsys, "marker", "--json", stdin=b"no marker here", monkeypatch=monkeypatch)
    assert code == 1 and json.loads(out) == {
        "phase": None,
        "reason": None,
        "coordinate": None,
        "legacy": False,
    }


def test_status_shows_sessions_and_decisions(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """status --json lists the session's phase and counters and the journal."""
    env = {"CLAUDE_PROJECT_DIR": str(project)}
    stop = {"hook_event_name": "Stop", "session_id": "abc", "last_assistant_message": "[PDCA] do"}
    answer_hook(json.dumps(stop).encode(), env, str(project))
    code, out, _ = cli(capsys, "status", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["sessions"][0]["session_id"] == "abc"
    assert data["sessions"][0]["phase"] == "do"
    assert data["sessions"][0]["continuations"] == 1
    assert [e["kind"] for e in data["recent"]] == ["event", "settle", "decision"]
    code, out, _ = cli(capsys, "status")
    assert "phase=do" in out


def test_status_before_any_session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """status works (and creates nothing) where goalkeeper never ran."""
    code, out, _ = cli(capsys, "status", "--json")
    assert code == 0 and json.loads(out)["sessions"] == []
    assert json.loads(out)["state_dir"] == str(project_state_dir(tmp_path))
    assert not project_state_dir(tmp_path).exists()
    assert not (tmp_path / ".goalkeeper").exists()


def test_install_and_uninstall_round_trip(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """install merges into .claude/settings.json, twice is a no-op, uninstall restores it."""
    monkeypatch.setenv("HOME", str(project / "home"))
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = {
        "model": "opus",
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]},
    }
    settings.write_text(json.dumps(original), encoding="utf-8")
    code, out, _ = cli(capsys, "install", "claude", "--json")
    data = json.loads(out)
    assert code == 0 and len(data["changes"]) == 12
    assert "/workflow $ARGUMENTS" in (project / ".claude" / "commands" / "workflow.md").read_text(
        encoding="utf-8"
    )
    assert (
        (project / ".claude" / "commands" / "gk-goal.md")
        .read_text(encoding="utf-8")
        .startswith("---")
    )
    mcp = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    assert mcp["mcpServers"]["goalkeeper"]["args"][-2:] == ["goalkeeper", "mcp"]
    installed = json.loads(settings.read_text(encoding="utf-8"))
    assert installed["env"]["CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"] == "50"
    assert len(installed["hooks"]["Stop"]) == 2
    code, out, _ = cli(capsys, "install", "claude", "--json")
    assert json.loads(out)["changes"] == []
    code, out, _ = cli(capsys, "uninstall", "claude", "--json")
    assert code == 0
    assert json.loads(settings.read_text(encoding="utf-8")) == original
    assert not (project / ".mcp.json").exists()  # install created it; uninstall removed it
    assert not (project / ".claude" / "commands" / "gk-goal.md").exists()
    assert not (project / ".claude" / "commands" / "workflow.md").exists()
    assert not (project / ".claude" / "commands" / "gk-mode.md").exists()


def test_install_local_and_user_scopes(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--local writes settings.local.json; --user writes ~/.claude/settings.json."""
    home = project / "home"
    monkeypatch.setenv("HOME", str(home))
    assert cli(capsys, "install", "claude", "--local")[0] == 0
    assert (project / ".claude" / "settings.local.json").exists()
    assert cli(capsys, "install", "claude", "--user")[0] == 0
    assert (home / ".claude" / "settings.json").exists()
    assert not (project / ".claude" / "settings.json").exists()


def test_install_refuses_settings_it_cannot_parse(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A broken settings file is named, left untouched, and the exit status is 2."""
    monkeypatch.setenv("HOME", str(project / "home"))
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{ broken", encoding="utf-8")
    code, _, err = cli(capsys, "install", "claude")
    assert code == 2
    assert err.startswith("goalkeeper: ") and "is not valid JSON" in err
    assert settings.read_text(encoding="utf-8") == "{ broken"


def test_config_reports_invalid_values(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """config --json shows resolved values; an invalid one falls back with a warning, exit 1."""
    (project / ".goalkeeper.toml").write_text("stuck = 5\ncompact-at = 7\n", encoding="utf-8")
    allow_project(project, 0.0)
    monkeypatch.setenv("GOALKEEPER_MAX_CONTINUATIONS", "12")
    code, out, _ = cli(capsys, "config", "--json")
    data = json.loads(out)
    assert code == 1
    assert data["settings"]["stuck"] == 5 and data["settings"]["max_continuations"] == 12
    assert data["settings"]["compact_at"] == 0.8
    assert any("compact-at" in w for w in data["warnings"])


@pytest.mark.parametrize(
    "command",
    [
        [],
        ["plan"],
        ["gates"],
        ["marker"],
        ["status"],
        ["install"],
        ["uninstall"],
        ["hook"],
        ["demo"],
        ["config"],
        ["server"],
    ],
)
def test_every_command_explains_itself(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """--help works for every command and says what the exit statuses mean."""
    code, out, _ = cli(capsys, *command, "--help")
    assert code == 0 and "Usage: goalkeeper" in out
    if command and command[0] not in ("server",):
        assert "Exit status" in out


def test_usage_errors_are_short_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown command prints usage and a goalkeeper: line, no traceback."""
    code, _, err = cli(capsys, "frobnicate")
    assert (
        code == 2 and "goalkeeper: No such command 'frobnicate'" in err and "Traceback" not in err
    )


def test_the_gk_goal_command_file_is_never_clobbered(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """install does not overwrite a /gk-goal the user already has; uninstall keeps one the user
    edited; with lang = "zh" the command is written in Chinese (and still removed)."""
    monkeypatch.setenv("HOME", str(project / "home"))
    command = project / ".claude" / "commands" / "gk-goal.md"
    command.parent.mkdir(parents=True)
    command.write_text("my own command\n", encoding="utf-8")
    assert cli(capsys, "install", "claude")[0] == 0
    assert command.read_text(encoding="utf-8") == "my own command\n"
    assert cli(capsys, "uninstall", "claude")[0] == 0
    assert command.read_text(encoding="utf-8") == "my own command\n"

    command.unlink()
    assert cli(capsys, "install", "claude")[0] == 0
    command.write_text(command.read_text(encoding="utf-8") + "Always run mypy too.\n", "utf-8")
    assert cli(capsys, "uninstall", "claude")[0] == 0
    assert command.read_text(encoding="utf-8").endswith("Always run mypy too.\n")

    command.unlink()
    monkeypatch.setenv("GOALKEEPER_LANG", "zh")
    assert cli(capsys, "install", "claude")[0] == 0
    assert "目标：$ARGUMENTS" in command.read_text(encoding="utf-8")
    assert cli(capsys, "uninstall", "claude")[0] == 0
    assert not command.exists()


def test_install_pi_writes_a_signed_extension_and_uninstall_removes_only_that(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """install pi writes .pi/extensions/goalkeeper.ts naming this Python; again is a no-op;
    an edited copy is refused by install and kept by uninstall; an untouched one is removed."""
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(project / "agent"))
    code, out, _ = cli(capsys, "install", "pi", "--json")
    data = json.loads(out)
    path = project / ".pi" / "extensions" / "goalkeeper.ts"
    assert code == 0 and data["changes"] == [f"added {path}"]
    text = path.read_text(encoding="utf-8")
    assert text.startswith("// installed by goalkeeper; sha256:")
    assert json.dumps([sys.executable, "-m", "goalkeeper"]) in text
    assert json.loads(cli(capsys, "install", "pi", "--json")[1])["changes"] == []

    path.write_text(text + "// my tweak\n", encoding="utf-8")
    code, _, err = cli(capsys, "install", "pi")
    assert code == 2 and "was not written by goalkeeper (or was edited)" in err
    assert json.loads(cli(capsys, "uninstall", "pi", "--json")[1])["kept"]
    assert path.read_text(encoding="utf-8").endswith("// my tweak\n")

    path.write_text(text, encoding="utf-8")
    assert json.loads(cli(capsys, "uninstall", "pi", "--json")[1])["changes"] == [f"removed {path}"]
    assert not path.exists()
    code, out, _ = cli(capsys, "install", "pi", "--user", "--json")
    assert json.loads(out)["extension"] == str(project / "agent" / "extensions" / "goalkeeper.ts")
    assert cli(capsys, "install", "pi", "--local")[0] == 2


PROTOCOL_COMMANDS = {"hook", "mcp", "bridge", "serve"}
"""Commands a host runs, which speak its protocol (JSON hook answers, MCP, JSON lines)."""


def test_every_command_that_reports_offers_json() -> None:
    """The README's promise: every command that prints a result has --json (report has
    --format json); only the protocol commands a host runs do not."""
    import click

    from goalkeeper.cli.app import _register_commands, cli

    _register_commands()
    missing: list[str] = []

    def walk(command: click.Command, path: tuple[str, ...]) -> None:
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, (*path, name))
            return
        if path[0] in PROTOCOL_COMMANDS or command.hidden:
            return
        names = {o for p in command.params for o in getattr(p, "opts", ())}
        if "--json" not in names and "--format" not in names:
            missing.append(" ".join(path))

    for name, command in cli.commands.items():
        walk(command, (name,))
    assert missing == []
