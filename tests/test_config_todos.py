"""Todo settings (``todo-obligations-spec.md`` §10, §12 items 74–79): pi-todone's four
``PI_TODONE_*`` variables, their ``GOALKEEPER_*`` names, and the evidence-check settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goalkeeper.config import Config, load_config
from goalkeeper.pinning import allow_project

STALL = "PI_TODONE_STALL_THRESHOLD"


def stall(tmp_path: Path, raw: str) -> Config:
    return load_config(tmp_path, {STALL: raw})


# ---------------------------------------------------------------------------------------------
# envNumber (§12 items 74–79)
# ---------------------------------------------------------------------------------------------


def test_unset_is_the_default_item_74(tmp_path: Path) -> None:
    """Unset, the stall threshold is 3, silently (item 74)."""
    config = load_config(tmp_path, {})
    assert config.todo_stall_threshold == 3
    assert config.warnings == ()


def test_a_number_is_read_item_75(tmp_path: Path) -> None:
    """``"5"`` is read as 5, without a warning (item 75)."""
    config = stall(tmp_path, "5")
    assert config.todo_stall_threshold == 5
    assert config.warnings == ()


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("abc", id="item76-text"),
        pytest.param("-1", id="item77-negative"),
        pytest.param("", id="item78-empty"),
        pytest.param(" ", id="item79-blank"),
    ],
)
def test_invalid_values_fall_back_with_a_warning_items_76_79(tmp_path: Path, raw: str) -> None:
    """Text, negative, empty and blank values give the default 3 and a warning (items 76–79)."""
    config = stall(tmp_path, raw)
    assert config.todo_stall_threshold == 3
    assert len(config.warnings) == 1
    assert f"{STALL}={json.dumps(raw)} " in config.warnings[0]  # spec §10: JSON-quoted
    assert config.warnings[0].endswith("falling back to default 3")


@pytest.mark.parametrize("raw", ["nan", "NaN", "inf", "-inf", "Infinity", "-0.5", "\t", "0x10"])
def test_non_finite_negative_blank_and_hex_are_rejected(tmp_path: Path, raw: str) -> None:
    """NaN, infinities, negatives, blanks and hex (not ``float()``-parsable) are rejected."""
    config = stall(tmp_path, raw)
    assert config.todo_stall_threshold == 3
    assert [STALL in w for w in config.warnings] == [True]


@pytest.mark.parametrize(("raw", "value"), [("0", 0), (" 7 ", 7), ("1e3", 1000), ("4.0", 4)])
def test_accepted_number_forms(tmp_path: Path, raw: str, value: int) -> None:
    """Zero, surrounding whitespace and exponents are accepted, like JavaScript ``Number()``."""
    config = stall(tmp_path, raw)
    assert config.todo_stall_threshold == value
    assert config.warnings == ()


def test_fractional_values_are_accepted(tmp_path: Path) -> None:
    """``0.5`` is a finite, non-negative number, so it is used as is (§10)."""
    config = load_config(tmp_path, {"PI_TODONE_CREATE_THRESHOLD": "0.5"})
    assert config.todo_create_threshold == 0.5
    assert config.warnings == ()


@pytest.mark.parametrize(
    ("name", "field", "default", "raw", "value"),
    [
        ("PI_TODONE_QUIET_AFTER_MS", "todo_quiet_after_ms", 120_000, "0", 0),
        ("PI_TODONE_QUIET_AFTER_MS", "todo_quiet_after_ms", 120_000, "2500.5", 2500.5),
        ("PI_TODONE_CREATE_THRESHOLD", "todo_create_threshold", 200, "5", 5),
        ("PI_TODONE_CREATE_THRESHOLD", "todo_create_threshold", 200, "0", 0),
        ("PI_TODONE_COOLDOWN_BASE_MS", "todo_cooldown_base_ms", 60_000, "1000", 1000),
        ("PI_TODONE_COOLDOWN_BASE_MS", "todo_cooldown_base_ms", 60_000, "0", 0),
    ],
)
def test_the_other_three_variables(
    tmp_path: Path, name: str, field: str, default: float, raw: str, value: float
) -> None:
    """The quiet window, creation threshold and backoff base are read the same way, 0 included."""
    assert getattr(load_config(tmp_path, {}), field) == default
    config = load_config(tmp_path, {name: raw})
    assert getattr(config, field) == value
    assert config.warnings == ()


@pytest.mark.parametrize(
    ("name", "field", "default"),
    [
        ("PI_TODONE_QUIET_AFTER_MS", "todo_quiet_after_ms", 120_000),
        ("PI_TODONE_CREATE_THRESHOLD", "todo_create_threshold", 200),
        ("PI_TODONE_COOLDOWN_BASE_MS", "todo_cooldown_base_ms", 60_000),
    ],
)
@pytest.mark.parametrize("raw", ["abc", "-1", "", " ", "nan", "inf"])
def test_the_other_three_variables_reject_invalid_values(
    tmp_path: Path, name: str, field: str, default: float, raw: str
) -> None:
    """Invalid values of the other three variables give their defaults and a named warning."""
    config = load_config(tmp_path, {name: raw})
    assert getattr(config, field) == default
    assert [name in w for w in config.warnings] == [True]


def test_defaults_of_the_four_settings() -> None:
    """The four defaults are pi-todone's: 3, 120000 ms, 200 calls, 60000 ms."""
    config = Config()
    assert (
        config.todo_stall_threshold,
        config.todo_quiet_after_ms,
        config.todo_create_threshold,
        config.todo_cooldown_base_ms,
    ) == (3, 120_000, 200, 60_000)


@pytest.mark.parametrize("order", ["goalkeeper-first", "pi-first"])
def test_goalkeeper_variable_takes_precedence(tmp_path: Path, order: str) -> None:
    """``GOALKEEPER_TODO_STALL_THRESHOLD`` wins over ``PI_TODONE_STALL_THRESHOLD``."""
    pairs = [("GOALKEEPER_TODO_STALL_THRESHOLD", "4"), (STALL, "5")]
    env = dict(pairs if order == "goalkeeper-first" else pairs[::-1])
    config = load_config(tmp_path, env)
    assert config.todo_stall_threshold == 4
    assert config.warnings == ()


def test_invalid_goalkeeper_variable_keeps_the_pi_value(tmp_path: Path) -> None:
    """An invalid goalkeeper variable warns and leaves the valid pi-todone value in place."""
    env = {"GOALKEEPER_TODO_STALL_THRESHOLD": "x", STALL: "5"}
    config = load_config(tmp_path, env)
    assert config.todo_stall_threshold == 5
    assert [("GOALKEEPER_TODO_STALL_THRESHOLD" in w) for w in config.warnings] == [True]


def test_environment_wins_over_files(tmp_path: Path) -> None:
    """The pi-todone variable overrides a value from ``.goalkeeper.toml``."""
    (tmp_path / ".goalkeeper.toml").write_text("todo_stall_threshold = 6\n", encoding="utf-8")
    allow_project(tmp_path, 0.0)
    assert load_config(tmp_path, {}).todo_stall_threshold == 6
    assert load_config(tmp_path, {STALL: "5"}).todo_stall_threshold == 5


# ---------------------------------------------------------------------------------------------
# evidence_check, evidence_commands, test_command
# ---------------------------------------------------------------------------------------------


def test_evidence_settings_defaults(tmp_path: Path) -> None:
    """By default evidence is re-run, nothing extra is allowed and the test command is inferred."""
    config = load_config(tmp_path, {})
    assert (config.evidence_check, config.evidence_commands, config.test_command) == (
        "rerun",
        (),
        None,
    )


@pytest.mark.parametrize("value", ["off", "files", "rerun", " FILES "])
def test_evidence_check_choices(tmp_path: Path, value: str) -> None:
    """``evidence_check`` is one of off, files, rerun (case and spaces ignored)."""
    config = load_config(tmp_path, {"GOALKEEPER_EVIDENCE_CHECK": value})
    assert config.evidence_check == value.strip().lower()
    assert config.warnings == ()


def test_evidence_check_invalid_value(tmp_path: Path) -> None:
    """An unknown ``evidence_check`` warns and keeps ``rerun``."""
    config = load_config(tmp_path, {"GOALKEEPER_EVIDENCE_CHECK": "maybe"})
    assert config.evidence_check == "rerun"
    assert [("GOALKEEPER_EVIDENCE_CHECK" in w) for w in config.warnings] == [True]


def test_evidence_check_from_pyproject(tmp_path: Path) -> None:
    """``evidence-check`` is read from ``[tool.goalkeeper]`` in ``pyproject.toml``."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.goalkeeper]\nevidence-check = "files"\n', encoding="utf-8"
    )
    allow_project(tmp_path, 0.0)
    assert load_config(tmp_path, {}).evidence_check == "files"


def test_evidence_commands_from_a_toml_list(tmp_path: Path) -> None:
    """A TOML list gives the allowed evidence commands, blanks dropped."""
    (tmp_path / ".goalkeeper.toml").write_text(
        'evidence_commands = ["pytest -q", " make test ", ""]\n', encoding="utf-8"
    )
    allow_project(tmp_path, 0.0)
    config = load_config(tmp_path, {})
    assert config.evidence_commands == ("pytest -q", "make test")
    assert config.warnings == ()


def test_evidence_commands_from_pyproject(tmp_path: Path) -> None:
    """``evidence-commands`` in ``[tool.goalkeeper]`` is read too."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.goalkeeper]\nevidence-commands = ["tox -e py"]\n', encoding="utf-8"
    )
    allow_project(tmp_path, 0.0)
    assert load_config(tmp_path, {}).evidence_commands == ("tox -e py",)


def test_evidence_commands_from_the_environment(tmp_path: Path) -> None:
    """In the environment, commands are ``;``-separated, blanks dropped."""
    config = load_config(tmp_path, {"GOALKEEPER_EVIDENCE_COMMANDS": "pytest -q; make test ;;"})
    assert config.evidence_commands == ("pytest -q", "make test")


def test_evidence_commands_environment_wins_over_files(tmp_path: Path) -> None:
    """The environment's commands replace the file's."""
    (tmp_path / ".goalkeeper.toml").write_text('evidence_commands = ["a"]\n', encoding="utf-8")
    allow_project(tmp_path, 0.0)
    config = load_config(tmp_path, {"GOALKEEPER_EVIDENCE_COMMANDS": "b"})
    assert config.evidence_commands == ("b",)


@pytest.mark.parametrize("value", ["5", "[1, 2]", '["ok", 3]'])
def test_evidence_commands_that_are_not_a_list_of_text(tmp_path: Path, value: str) -> None:
    """Anything but a list of strings warns and allows nothing."""
    (tmp_path / ".goalkeeper.toml").write_text(f"evidence_commands = {value}\n", encoding="utf-8")
    allow_project(tmp_path, 0.0)
    config = load_config(tmp_path, {})
    assert config.evidence_commands == ()
    assert [("evidence_commands" in w) for w in config.warnings] == [True]


def test_test_command_from_toml_and_environment(tmp_path: Path) -> None:
    """``test_command`` is read from the file, trimmed, and the environment wins."""
    (tmp_path / ".goalkeeper.toml").write_text(
        'test_command = " uv run pytest "\n', encoding="utf-8"
    )
    allow_project(tmp_path, 0.0)
    assert load_config(tmp_path, {}).test_command == "uv run pytest"
    env = {"GOALKEEPER_TEST_COMMAND": "make check"}
    assert load_config(tmp_path, env).test_command == "make check"


@pytest.mark.parametrize("raw", ["", "   "])
def test_blank_test_command_is_invalid(tmp_path: Path, raw: str) -> None:
    """A blank test command warns and stays unset (inferred)."""
    config = load_config(tmp_path, {"GOALKEEPER_TEST_COMMAND": raw})
    assert config.test_command is None
    assert [("GOALKEEPER_TEST_COMMAND" in w) for w in config.warnings] == [True]


def test_non_text_test_command_in_toml_is_invalid(tmp_path: Path) -> None:
    """A test command that is not text warns and stays unset."""
    (tmp_path / ".goalkeeper.toml").write_text("test_command = 5\n", encoding="utf-8")
    allow_project(tmp_path, 0.0)
    config = load_config(tmp_path, {})
    assert config.test_command is None
    assert len(config.warnings) == 1
