"""A project file the agent writes can make goalkeeper stricter, never looser: commands, the
catalog, confinement and every limit need the user's ``goalkeeper allow``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goalkeeper.config import Config, load_config
from goalkeeper.hosts.claude.hook import answer_hook
from goalkeeper.pinning import LOWER_IS_STRICTER, ORDERED, allow_project


def _own(project: Path, body: str) -> None:
    (project / ".goalkeeper.toml").write_text(body, encoding="utf-8")


def test_an_unapproved_file_cannot_raise_a_limit(tmp_path: Path) -> None:
    """`max-continuations = 1000000` from the agent stays at 40, and the user is told why."""
    _own(tmp_path, "max-continuations = 1000000\nstuck = 50\n")
    config = load_config(tmp_path)
    assert config.max_continuations == 40 and config.stuck == 3
    assert set(config.held) == {"max_continuations", "stuck"}
    assert any("goalkeeper allow" in w and "max-continuations" in w for w in config.warnings)


def test_an_unapproved_file_may_make_things_stricter(tmp_path: Path) -> None:
    """Lower limits, stricter checks and cosmetic settings apply without approval."""
    _own(
        tmp_path,
        'max-continuations = 5\nstuck = 2\nserver = "off"\nlang = "zh"\nsandbox = "auto"\n',
    )
    config = load_config(tmp_path)
    assert (config.max_continuations, config.stuck, config.server) == (5, 2, "off")
    assert (config.lang, config.sandbox) == ("zh", "auto")
    assert config.held == () and config.warnings == ()


@pytest.mark.parametrize(
    ("line", "field", "kept"),
    [
        ('evidence-commands = ["touch"]', "evidence_commands", ()),
        ('test-command = "sh"', "test_command", None),
        ('catalog = "evil/catalog.json"', "catalog", ""),
        ("check-needs-tool = false", "check_needs_tool", True),
        ('evidence-check = "off"', "evidence_check", "rerun"),
        ('evidence-check = "files"', "evidence_check", "rerun"),
        ('todos = "off"', "todos", "on"),
        ("plugins = true", "plugins", False),
        ("evidence-timeout-s = 100000", "evidence_timeout_s", 120.0),
        ("session-mb = 100000", "session_mb", 50.0),
        ("todo-quiet-after-ms = 99999999", "todo_quiet_after_ms", 120_000.0),
    ],
)
def test_what_widens_goalkeeper_needs_approval(
    tmp_path: Path, line: str, field: str, kept: object
) -> None:
    """Commands to run, a catalog to read, loosened checks, raised limits: held until allowed."""
    _own(tmp_path, line + "\n")
    assert getattr(load_config(tmp_path), field) == kept
    allow_project(tmp_path, 0.0)
    assert getattr(load_config(tmp_path), field) != kept


def test_approval_pins_the_table_and_a_change_falls_back(tmp_path: Path) -> None:
    """After `goalkeeper allow` the file applies; edit its goalkeeper table and it falls back
    (with a notice), while edits elsewhere in pyproject.toml keep the approval."""
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "a"\n[tool.goalkeeper]\nstuck = 6\n', "utf-8")
    assert load_config(tmp_path).stuck == 3
    allow_project(tmp_path, 0.0)
    assert load_config(tmp_path).stuck == 6
    pyproject.write_text('[project]\nname = "b"\n[tool.goalkeeper]\nstuck = 6\n', "utf-8")
    assert load_config(tmp_path).stuck == 6  # another part of the file changed
    pyproject.write_text('[project]\nname = "b"\n[tool.goalkeeper]\nstuck = 60\n', "utf-8")
    config = load_config(tmp_path)
    assert config.stuck == 3
    assert any("changed since you approved them" in w for w in config.warnings)


def test_the_users_own_config_and_environment_are_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """~/.config/goalkeeper/config.toml and GOALKEEPER_* are the user's: never gated."""
    user = tmp_path / "xdg-config" / "goalkeeper" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text('max-continuations = 90\nsandbox = "auto"\n', "utf-8")
    project = tmp_path / "p"
    project.mkdir()
    config = load_config(project)
    assert (config.max_continuations, config.sandbox) == (90, "auto")
    _own(project, 'sandbox = "off"\nmax-continuations = 100\n')  # the agent's file
    config = load_config(project)
    assert (config.max_continuations, config.sandbox) == (90, "auto")
    config = load_config(project, {"GOALKEEPER_MAX_CONTINUATIONS": "120"})
    assert config.max_continuations == 120


def test_a_user_config_named_by_the_environment(tmp_path: Path) -> None:
    named = tmp_path / "mine.toml"
    named.write_text("reset = 5\n", "utf-8")
    assert load_config(tmp_path, {"GOALKEEPER_USER_CONFIG": str(named)}).reset == 5


_LIMIT = st.one_of(
    st.integers(-(10**13), 10**13),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.booleans(),
)
_CHOICE = st.one_of(st.sampled_from(["off", "on", "auto", "files", "rerun", "x"]), st.booleans())
_KEY = st.sampled_from(sorted(LOWER_IS_STRICTER | set(ORDERED)))


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(table=st.dictionaries(_KEY, st.one_of(_LIMIT, _CHOICE), max_size=8))
def test_no_config_file_the_agent_writes_raises_any_limit(
    tmp_path: Path, table: dict[str, object]
) -> None:
    """Whatever the agent puts in .goalkeeper.toml, no limit ends up above its default and no
    check looser than its default."""
    _own(tmp_path, json_toml(table))
    config = load_config(tmp_path)
    default = Config()
    for name in LOWER_IS_STRICTER:
        assert getattr(config, name) <= getattr(default, name), name
    for name, order in ORDERED.items():
        assert order.index(getattr(config, name)) >= order.index(getattr(default, name)), name


def json_toml(table: dict[str, object]) -> str:
    """TOML for a flat table (JSON's string and number forms are valid TOML)."""
    lines = []
    for key, value in table.items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, float) and value != value:
            text = "nan"
        elif isinstance(value, float) and value in (float("inf"), float("-inf")):
            text = "inf" if value > 0 else "-inf"
        else:
            text = json.dumps(value)
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


def _transcript_turn(path: Path, n: int) -> None:
    """One assistant turn with a tool call, as Claude Code appends it."""
    line = {
        "type": "assistant",
        "message": {"content": [{"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {}}]},
    }
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


PLAN = """## Objective
Export works.

## Key Results
- [ ] KR: export succeeds 0 → 1
"""


def test_a_model_written_cap_raise_still_pauses_at_forty(tmp_path: Path) -> None:
    """The audit's loop: `max-continuations = 1000000` and a tool call every turn gave 150
    continuations in a row; the cap now holds at 40 (audit reliability.md defect 4)."""
    _own(tmp_path, "max-continuations = 1000000\n")
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "work.md").write_text(PLAN, "utf-8")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("", "utf-8")
    env = {"CLAUDE_PROJECT_DIR": str(tmp_path), "GOALKEEPER_SERVER": "off"}
    start = {"hook_event_name": "SessionStart", "session_id": "s", "source": "startup"}
    start["transcript_path"] = str(transcript)
    answer_hook(json.dumps(start).encode(), env, str(tmp_path))
    blocks = 0
    for n in range(60):
        _transcript_turn(transcript, n)
        payload = {
            "hook_event_name": "Stop",
            "session_id": "s",
            "transcript_path": str(transcript),
            "last_assistant_message": "[PDCA] do",
        }
        answer, _ = answer_hook(json.dumps(payload).encode(), env, str(tmp_path))
        if answer.get("decision") != "block":
            break
        blocks += 1
    assert blocks == 40
