"""``goalkeeper config`` resolves what the hooks resolve, pi-todone's variables included
(audit seed002 D1), says where each value came from, and warns in the seed's words (D7a)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goalkeeper.cli.app import run
from goalkeeper.config import load_config, relevant_env


def config_json(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    code = run(["config", "--json"])
    out, _ = capsys.readouterr()
    return code, json.loads(out)


def test_config_reads_pi_todone_variables_and_names_them(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PI_TODONE_STALL_THRESHOLD=5 is the value the command shows, with its variable as source."""
    monkeypatch.setenv("PI_TODONE_STALL_THRESHOLD", "5")
    code, data = config_json(capsys)
    assert code == 0
    assert data["settings"]["todo_stall_threshold"] == 5  # type: ignore[index]
    sources = data["sources"]
    assert sources["todo_stall_threshold"] == "environment (PI_TODONE_STALL_THRESHOLD)"  # type: ignore[index]
    assert sources["todo_quiet_after_ms"] == "default"  # type: ignore[index]


def test_config_shows_the_source_of_a_goalkeeper_variable(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GOALKEEPER_* value is named by its variable, in the table and in --json."""
    monkeypatch.setenv("GOALKEEPER_TODO_STALL_THRESHOLD", "4")
    monkeypatch.setenv("PI_TODONE_STALL_THRESHOLD", "5")
    _, data = config_json(capsys)
    assert data["settings"]["todo_stall_threshold"] == 4  # type: ignore[index]
    source = data["sources"]["todo_stall_threshold"]  # type: ignore[index]
    assert source == "environment (GOALKEEPER_TODO_STALL_THRESHOLD)"
    assert run(["config"]) == 0
    line = next(
        x for x in capsys.readouterr().out.splitlines() if x.startswith("todo_stall_threshold")
    )
    assert line.endswith("[from environment (GOALKEEPER_TODO_STALL_THRESHOLD)]")


@pytest.mark.parametrize(
    ("raw", "lang", "warning"),
    [
        (
            "abc",
            "en",
            '[goalkeeper] environment variable PI_TODONE_STALL_THRESHOLD="abc" is invalid; '
            "falling back to default 3",
        ),
        (
            " ",
            "en",
            '[goalkeeper] environment variable PI_TODONE_STALL_THRESHOLD=" " is invalid '
            "(blank); falling back to default 3",
        ),
        ("-1", "zh", '[goalkeeper] 环境变量 PI_TODONE_STALL_THRESHOLD="-1" 非法，回退默认 3'),
        ("", "zh", '[goalkeeper] 环境变量 PI_TODONE_STALL_THRESHOLD="" 非法（空白），回退默认 3'),
    ],
)
def test_an_invalid_pi_todone_value_warns_in_the_seeds_format(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    raw: str,
    lang: str,
    warning: str,
) -> None:
    """Spec §10: the raw value JSON-quoted, blank said so, the default as an integer; exit 1."""
    monkeypatch.setenv("PI_TODONE_STALL_THRESHOLD", raw)
    monkeypatch.setenv("GOALKEEPER_LANG", lang)
    code, data = config_json(capsys)
    assert code == 1
    assert data["warnings"] == [warning]
    assert data["settings"]["todo_stall_threshold"] == 3  # type: ignore[index]


def test_the_hook_and_the_command_resolve_the_same_environment() -> None:
    """relevant_env keeps exactly what the hook client forwards of the todo variables."""
    from goalkeeper.hosts.hook_client import FORWARDED_PREFIXES

    env = {"PI_TODONE_CREATE_THRESHOLD": "7", "GOALKEEPER_STUCK": "4", "HOME": "/x"}
    kept = relevant_env(env)
    assert kept == {k: v for k, v in env.items() if k.startswith(FORWARDED_PREFIXES)}
    assert load_config(Path("."), kept).todo_create_threshold == 7
