"""GOAL.md's frontmatter is YAML 1.2 (core schema), read by libyaml: what people type means
what a YAML 1.2 reader says it means, and what goalkeeper writes reads the same everywhere."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goalkeeper.store import yaml12


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a: no", "no"),  # YAML 1.1 would say False
        ("a: yes", "yes"),
        ("a: on", "on"),
        ("a: 017", 17),  # 1.1: octal 15
        ("a: 0o17", 15),
        ("a: 0x1F", 31),
        ("a: 1:30", "1:30"),  # 1.1: sexagesimal 90
        ("a: 2026-11-30", "2026-11-30"),  # 1.1: a date object
        ("a: 2026-11-30T09:00:00Z", "2026-11-30T09:00:00Z"),
        ("a: true", True),
        ("a: False", False),
        ("a: ~", None),
        ("a:", None),
        ("a: null", None),
        ("a: 1.5e3", 1500.0),
        ("a: -.inf", -math.inf),
        ("a: 1_000", "1_000"),  # 1.1: 1000
    ],
)
def test_plain_scalars_resolve_by_yaml_1_2(text: str, value: object) -> None:
    loaded = yaml12.load(text)["a"]
    assert loaded == value and type(loaded) is type(value)


def test_nan_reads_as_nan() -> None:
    assert math.isnan(yaml12.load("a: .nan")["a"])


def test_a_key_given_twice_is_an_error_not_the_last_value() -> None:
    with pytest.raises(yaml12.YAMLError, match="duplicate key 'status'"):
        yaml12.load("status: active\nstatus: complete\n")


def test_deep_nesting_is_refused_cleanly() -> None:
    with pytest.raises(yaml12.YAMLError):
        yaml12.load("a: " + "[" * 5000 + "]" * 5000)


@pytest.mark.parametrize(
    "text", ["yes", "no", "on", "017", "1:30", "2026-11-30", "true", "null", ""]
)
def test_text_any_yaml_reader_would_misread_is_written_quoted(text: str) -> None:
    written = yaml12.dump({"a": text})
    assert written.startswith(("a: '", 'a: "')), written
    assert yaml12.load(written) == {"a": text}


def test_lists_are_indented_under_their_key_and_lines_are_never_folded() -> None:
    long = "x " * 200 + "end"
    assert yaml12.dump({"verify": ["pytest -q", long]}) == (f"verify:\n  - pytest -q\n  - {long}\n")


def test_multi_line_text_can_be_written_as_a_block() -> None:
    assert yaml12.dump({"note": yaml12.Literal("one\ntwo\n")}) == "note: |\n  one\n  two\n"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_double_quoted_text_reads_back_the_same(text: str) -> None:
    assert yaml12.load(yaml12.dump({"a": yaml12.Quoted(text)})) == {"a": text}
