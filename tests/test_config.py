"""Configuration layers: defaults → pyproject.toml → .goalkeeper.toml → environment → overrides.

The project files here are approved by the user (``goalkeeper allow``) right after they are
written: these tests pin parsing and precedence. What an unapproved file may do is pinned in
``tests/security/test_config_pinning.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goalkeeper.config import Config, load_config, relevant_env
from goalkeeper.pinning import allow_project

FIELDS = sorted(Config().to_dict())


def _pyproject(project: Path, body: str) -> None:
    (project / "pyproject.toml").write_text(
        f'[project]\nname = "demo"\n\n[tool.goalkeeper]\n{body}', encoding="utf-8"
    )
    allow_project(project, 0.0)


def _own(project: Path, body: str) -> None:
    (project / ".goalkeeper.toml").write_text(body, encoding="utf-8")
    allow_project(project, 0.0)


# ---------------------------------------------------------------------------------------------
# Layers and precedence
# ---------------------------------------------------------------------------------------------


def test_defaults_without_any_layer(tmp_path: Path) -> None:
    """With no files, environment or overrides, the defaults apply without warnings."""
    assert load_config(tmp_path) == Config()


def test_default_values() -> None:
    """The documented defaults."""
    c = Config()
    assert (c.lang, c.plan_dir, c.no_plan, c.stuck, c.reset) == ("auto", "plan", "guide", 3, 2)
    assert (c.compact_at, c.max_continuations, c.check_needs_tool) == (0.8, 40, True)


def test_pyproject_table_applies(tmp_path: Path) -> None:
    """``[tool.goalkeeper]`` in pyproject.toml overrides the defaults."""
    _pyproject(tmp_path, 'stuck = 5\nlang = "zh"\n')
    config = load_config(tmp_path)
    assert (config.stuck, config.lang) == (5, "zh")
    assert config.warnings == ()


def test_pyproject_without_goalkeeper_table_is_ignored(tmp_path: Path) -> None:
    """A pyproject.toml without ``[tool.goalkeeper]`` changes nothing and warns about nothing."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    assert load_config(tmp_path) == Config()


def test_goalkeeper_toml_applies(tmp_path: Path) -> None:
    """Top-level keys of ``.goalkeeper.toml`` override the defaults."""
    _own(tmp_path, "reset = 4\n")
    assert load_config(tmp_path).reset == 4


def test_goalkeeper_toml_with_its_own_tool_table(tmp_path: Path) -> None:
    """``.goalkeeper.toml`` may also hold a ``[tool.goalkeeper]`` table."""
    _own(tmp_path, "[tool.goalkeeper]\nreset = 4\n")
    config = load_config(tmp_path)
    assert config.reset == 4
    assert config.warnings == ()


def test_goalkeeper_toml_beats_pyproject(tmp_path: Path) -> None:
    """``.goalkeeper.toml`` overrides ``pyproject.toml``; keys it leaves alone keep theirs."""
    _pyproject(tmp_path, "stuck = 5\nreset = 1\n")
    _own(tmp_path, "stuck = 7\n")
    config = load_config(tmp_path)
    assert (config.stuck, config.reset) == (7, 1)


def test_environment_beats_files(tmp_path: Path) -> None:
    """``GOALKEEPER_*`` variables override both files."""
    _pyproject(tmp_path, "stuck = 5\n")
    _own(tmp_path, "stuck = 7\n")
    assert load_config(tmp_path, env={"GOALKEEPER_STUCK": "9"}).stuck == 9


def test_overrides_beat_environment(tmp_path: Path) -> None:
    """Overrides (command-line flags) beat the environment."""
    _own(tmp_path, "stuck = 7\n")
    config = load_config(tmp_path, env={"GOALKEEPER_STUCK": "9"}, overrides={"stuck": 11})
    assert config.stuck == 11


def test_each_layer_keeps_the_values_it_does_not_set(tmp_path: Path) -> None:
    """Every layer changes only its own keys."""
    _pyproject(tmp_path, 'lang = "zh"\n')
    _own(tmp_path, "reset = 4\n")
    config = load_config(
        tmp_path, env={"GOALKEEPER_STUCK": "6"}, overrides={"max_continuations": 8}
    )
    assert (config.lang, config.reset, config.stuck, config.max_continuations) == ("zh", 4, 6, 8)


def test_unrelated_environment_variables_are_ignored(tmp_path: Path) -> None:
    """Variables without the ``GOALKEEPER_`` prefix change nothing."""
    assert load_config(tmp_path, env={"STUCK": "9", "PATH": "/bin"}) == Config()


# ---------------------------------------------------------------------------------------------
# Key spelling and value forms
# ---------------------------------------------------------------------------------------------


def test_kebab_case_keys_in_pyproject(tmp_path: Path) -> None:
    """``compact-at`` in pyproject.toml sets ``compact_at``."""
    _pyproject(tmp_path, "compact-at = 0.5\nmax-continuations = 3\n")
    config = load_config(tmp_path)
    assert (config.compact_at, config.max_continuations) == (0.5, 3)
    assert config.warnings == ()


def test_kebab_case_keys_in_goalkeeper_toml(tmp_path: Path) -> None:
    """``plan-dir`` in .goalkeeper.toml sets ``plan_dir``."""
    _own(tmp_path, 'plan-dir = "docs/plans"\n')
    assert load_config(tmp_path).plan_dir == "docs/plans"


def test_snake_case_keys(tmp_path: Path) -> None:
    """``compact_at`` is accepted as written."""
    _own(tmp_path, "compact_at = 0.6\n")
    assert load_config(tmp_path).compact_at == 0.6


def test_kebab_case_overrides(tmp_path: Path) -> None:
    """Overrides accept kebab-case keys too."""
    assert load_config(tmp_path, overrides={"session-mb": 10}).session_mb == 10.0


def test_environment_names(tmp_path: Path) -> None:
    """``GOALKEEPER_COMPACT_AT`` and friends set their fields."""
    env = {
        "GOALKEEPER_COMPACT_AT": "0.7",
        "GOALKEEPER_PLAN_DIR": "plans",
        "GOALKEEPER_NO_PLAN": "silent",
    }
    config = load_config(tmp_path, env=env)
    assert (config.compact_at, config.plan_dir, config.no_plan) == (0.7, "plans", "silent")


@pytest.mark.parametrize(
    ("raw", "value"),
    [("1", True), ("true", True), ("YES", True), ("on", True), ("0", False), ("off", False)],
)
def test_environment_booleans(tmp_path: Path, raw: str, value: bool) -> None:
    """Boolean variables accept 1/0, true/false, yes/no and on/off."""
    assert load_config(tmp_path, env={"GOALKEEPER_PLUGINS": raw}).plugins is value


def test_environment_values_are_trimmed_and_case_folded(tmp_path: Path) -> None:
    """Surrounding spaces are dropped and choices are case-insensitive."""
    config = load_config(tmp_path, env={"GOALKEEPER_LANG": " ZH ", "GOALKEEPER_STUCK": " 4 "})
    assert (config.lang, config.stuck) == ("zh", 4)


def test_whole_float_is_accepted_for_an_integer(tmp_path: Path) -> None:
    """``stuck = 5.0`` is the whole number 5."""
    _own(tmp_path, "stuck = 5.0\n")
    config = load_config(tmp_path)
    assert config.stuck == 5
    assert isinstance(config.stuck, int)


def test_integer_is_accepted_for_a_float(tmp_path: Path) -> None:
    """``session_mb = 10`` is the float 10.0."""
    _own(tmp_path, "session_mb = 10\n")
    assert load_config(tmp_path).session_mb == 10.0


def test_to_dict_has_every_field_but_warnings() -> None:
    """``to_dict`` lists the settings, not the warnings."""
    assert "warnings" not in Config().to_dict()
    assert {"lang", "stuck", "compact_at"} <= set(Config().to_dict())


def test_relevant_env_keeps_only_goalkeeper_variables() -> None:
    """``relevant_env`` picks the ``GOALKEEPER_*`` variables."""
    env = {"GOALKEEPER_STUCK": "4", "HOME": "/root"}
    assert relevant_env(env) == {"GOALKEEPER_STUCK": "4"}


# ---------------------------------------------------------------------------------------------
# Invalid values: warn and fall back, never raise
# ---------------------------------------------------------------------------------------------


def test_wrong_type_warns_and_keeps_default(tmp_path: Path) -> None:
    """A string where a number belongs is reported and the default stays."""
    _own(tmp_path, 'stuck = "many"\n')
    config = load_config(tmp_path)
    assert config.stuck == 3
    assert len(config.warnings) == 1
    assert "stuck" in config.warnings[0]


def test_boolean_for_a_number_warns(tmp_path: Path) -> None:
    """``stuck = true`` is not a number."""
    _own(tmp_path, "stuck = true\n")
    config = load_config(tmp_path)
    assert config.stuck == 3
    assert config.warnings


def test_fraction_for_an_integer_warns(tmp_path: Path) -> None:
    """``stuck = 2.5`` is not a whole number."""
    _own(tmp_path, "stuck = 2.5\n")
    config = load_config(tmp_path)
    assert config.stuck == 3
    assert config.warnings


def test_bad_boolean_warns(tmp_path: Path) -> None:
    """``check-needs-tool = "maybe"`` is neither true nor false."""
    _own(tmp_path, 'check-needs-tool = "maybe"\n')
    config = load_config(tmp_path)
    assert config.check_needs_tool is True
    assert config.warnings


def test_unknown_choice_warns(tmp_path: Path) -> None:
    """``lang = "fr"`` is not one of the choices."""
    _own(tmp_path, 'lang = "fr"\n')
    config = load_config(tmp_path)
    assert config.lang == "auto"
    assert config.warnings


def test_empty_string_warns(tmp_path: Path) -> None:
    """An empty ``plan_dir`` is invalid."""
    _own(tmp_path, 'plan_dir = ""\n')
    config = load_config(tmp_path)
    assert config.plan_dir == "plan"
    assert config.warnings


@pytest.mark.parametrize(
    "line",
    [
        "stuck = 0",
        "reset = -1",
        "compact_at = 0",
        "compact_at = 1.5",
        "context_window = 10",
        "session_mb = 0",
        "max_continuations = 0",
        "transcript_tail_kb = 1",
        "server_idle_s = 0",
    ],
)
def test_out_of_range_warns_and_keeps_default(tmp_path: Path, line: str) -> None:
    """A value outside its range is reported and the default stays."""
    _own(tmp_path, line + "\n")
    config = load_config(tmp_path)
    assert config == Config(warnings=config.warnings)
    assert len(config.warnings) == 1


def test_range_bounds_are_inclusive(tmp_path: Path) -> None:
    """The smallest allowed values are accepted."""
    _own(tmp_path, "stuck = 1\nreset = 0\ncompact_at = 1.0\n")
    config = load_config(tmp_path)
    assert (config.stuck, config.reset, config.compact_at) == (1, 0, 1.0)
    assert config.warnings == ()


def test_unknown_key_warns(tmp_path: Path) -> None:
    """An unknown setting is reported by name and ignored."""
    _own(tmp_path, "stcuk = 4\n")
    config = load_config(tmp_path)
    assert config == Config(warnings=config.warnings)
    assert len(config.warnings) == 1
    assert "stcuk" in config.warnings[0]


def test_unknown_override_warns(tmp_path: Path) -> None:
    """An unknown override is reported and ignored."""
    config = load_config(tmp_path, overrides={"bogus": 1})
    assert config.warnings


def test_invalid_value_keeps_the_previous_layer(tmp_path: Path) -> None:
    """An invalid environment value falls back to the file's value, not the default."""
    _own(tmp_path, "stuck = 7\n")
    config = load_config(tmp_path, env={"GOALKEEPER_STUCK": "zero"})
    assert config.stuck == 7
    assert len(config.warnings) == 1


def test_invalid_override_keeps_the_environment(tmp_path: Path) -> None:
    """An invalid override falls back to the environment's value."""
    config = load_config(tmp_path, env={"GOALKEEPER_STUCK": "6"}, overrides={"stuck": "x"})
    assert config.stuck == 6
    assert config.warnings


def test_invalid_key_does_not_spoil_the_valid_ones(tmp_path: Path) -> None:
    """Valid keys next to an invalid one still apply."""
    _own(tmp_path, 'stuck = "x"\nreset = 4\n')
    config = load_config(tmp_path)
    assert (config.stuck, config.reset) == (3, 4)
    assert len(config.warnings) == 1


def test_broken_goalkeeper_toml_warns(tmp_path: Path) -> None:
    """A ``.goalkeeper.toml`` that is not TOML is reported and skipped."""
    _own(tmp_path, "stuck = [\n")
    config = load_config(tmp_path)
    assert config == Config(warnings=config.warnings)
    assert len(config.warnings) == 1
    assert ".goalkeeper.toml" in config.warnings[0]


def test_broken_pyproject_warns_and_other_layers_still_apply(tmp_path: Path) -> None:
    """A broken pyproject.toml is reported; ``.goalkeeper.toml`` still applies."""
    (tmp_path / "pyproject.toml").write_text("[tool.goalkeeper\nstuck = 5\n", encoding="utf-8")
    _own(tmp_path, "reset = 4\n")  # approves what can be read
    config = load_config(tmp_path)
    assert (config.stuck, config.reset) == (3, 4)
    assert len(config.warnings) == 1
    assert "pyproject.toml" in config.warnings[0]


def test_config_file_with_invalid_utf8_warns(tmp_path: Path) -> None:
    """A config file that is not UTF-8 is reported and skipped."""
    (tmp_path / ".goalkeeper.toml").write_bytes(b"stuck = 4 # caf\xe9\n")
    config = load_config(tmp_path)
    assert config.stuck == 3
    assert config.warnings


def test_config_path_that_is_a_directory_does_not_raise(tmp_path: Path) -> None:
    """A directory where ``.goalkeeper.toml`` should be is skipped without raising."""
    (tmp_path / ".goalkeeper.toml").mkdir()
    assert load_config(tmp_path).stuck == 3


def test_infinite_integer_warns_instead_of_raising(tmp_path: Path) -> None:
    """``context_window = inf`` is an invalid whole number: a warning, not an exception."""
    _own(tmp_path, "context_window = inf\n")
    config = load_config(tmp_path)
    assert config.context_window == 200_000
    assert config.warnings


def test_huge_integer_override_warns_instead_of_raising(tmp_path: Path) -> None:
    """An override too large for a float is invalid: a warning, not an exception."""
    config = load_config(tmp_path, overrides={"session_mb": 10**400})
    assert config.session_mb == 50.0
    assert config.warnings


def test_nan_is_out_of_range(tmp_path: Path) -> None:
    """``session_mb = nan`` is not a positive size: a warning, and the default stays."""
    _own(tmp_path, "session_mb = nan\n")
    config = load_config(tmp_path)
    assert config.session_mb == 50.0
    assert config.warnings


def test_array_for_a_string_setting_warns(tmp_path: Path) -> None:
    """``plan_dir = ["a"]`` is the wrong type: a warning, and the default stays."""
    _own(tmp_path, 'plan_dir = ["a"]\n')
    config = load_config(tmp_path)
    assert config.plan_dir == "plan"
    assert config.warnings


def test_pyproject_inline_tool_table_applies(tmp_path: Path) -> None:
    """``[tool]`` with ``goalkeeper = { stuck = 5 }`` is the same table as ``[tool.goalkeeper]``."""
    (tmp_path / "pyproject.toml").write_text("[tool]\ngoalkeeper = { stuck = 5 }\n", "utf-8")
    allow_project(tmp_path, 0.0)
    assert load_config(tmp_path).stuck == 5


def test_catalog_setting_is_a_path_and_empty_means_builtin(tmp_path: Path) -> None:
    """``catalog`` names a user workflow catalog; empty (the default) keeps the built-in one."""
    assert Config().catalog == ""
    _own(tmp_path, 'catalog = " workflows/mine.json "\n')
    assert load_config(tmp_path).catalog == "workflows/mine.json"
    assert load_config(tmp_path, env={"GOALKEEPER_CATALOG": ""}).catalog == ""
    config = load_config(tmp_path, overrides={"catalog": 3})
    assert config.catalog == "workflows/mine.json"
    assert config.warnings == (
        "command line: catalog=3 is invalid (expected a path); using 'workflows/mine.json'",
    )


ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_infinity=False),
    st.text(),
    st.lists(st.integers(), max_size=2),
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.dictionaries(st.sampled_from(FIELDS), st.text(), max_size=4),
    st.dictionaries(st.one_of(st.sampled_from(FIELDS), st.text()), ANY_VALUE, max_size=4),
)
def test_load_config_never_raises(
    tmp_path: Path, env: dict[str, str], overrides: dict[str, object]
) -> None:
    """Any environment text and any finite override value give a Config, never an exception."""
    env_vars = {f"GOALKEEPER_{name.upper()}": value for name, value in env.items()}
    config = load_config(tmp_path, env=env_vars, overrides=overrides)
    assert isinstance(config, Config)
