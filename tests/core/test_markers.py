"""The ``[PDCA]`` phase protocol (seed 000 §3): the reply's last marker outside code."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goalkeeper.core.cadence.markers import PHASES, Marker, Phase, parse_marker, strip_code


def _field(text: str, name: str) -> object:
    marker = parse_marker(text)
    assert marker is not None
    return getattr(marker, name)


# ---------------------------------------------------------------------------------------------
# Phases
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("phase", PHASES)
def test_each_phase_is_recognised(phase: Phase) -> None:
    """Each of plan, do, check, act, complete and blocked is a phase."""
    assert parse_marker(f"Work done.\n[PDCA] {phase}") == Marker(phase)


def test_no_marker_is_none() -> None:
    """A reply without a marker has no phase."""
    assert parse_marker("I changed the parser and ran the tests.") is None


def test_empty_reply_is_none() -> None:
    """An empty reply has no phase."""
    assert parse_marker("") is None


def test_unknown_phase_is_not_a_marker() -> None:
    """``[PDCA] done`` names no phase, so it is no marker."""
    assert parse_marker("[PDCA] done") is None


def test_phase_must_be_a_whole_word() -> None:
    """``[PDCA] checking`` is not ``check``."""
    assert parse_marker("[PDCA] checking") is None


def test_last_marker_wins() -> None:
    """The last marker in the reply is its conclusion."""
    assert parse_marker("[PDCA] do\nran the tests\n[PDCA] check") == Marker("check")


def test_last_marker_wins_even_when_earlier_is_complete() -> None:
    """An early ``complete`` is overridden by a later marker."""
    assert parse_marker("[PDCA] complete\nwait, one more thing\n[PDCA] do") == Marker("do")


def test_marker_is_case_insensitive() -> None:
    """``[pdca] COMPLETE`` reads as ``complete``."""
    assert parse_marker("[pdca] COMPLETE") == Marker("complete")


def test_marker_without_space() -> None:
    """``[PDCA]check`` without a space still counts."""
    assert _field("[PDCA]check", "phase") == "check"


def test_marker_with_trailing_text() -> None:
    """Text after the phase does not change it."""
    assert _field("[PDCA] do — edited plan.py", "phase") == "do"


def test_marker_in_bold_or_bullet() -> None:
    """A marker in bold or behind a bullet still counts."""
    assert parse_marker("**[PDCA] check**") == Marker("check")
    assert parse_marker("- [PDCA] act") == Marker("act")


def test_marker_with_crlf() -> None:
    """CRLF line endings do not hide the marker."""
    assert parse_marker("done\r\n[PDCA] check\r\n") == Marker("check")


def test_marker_mid_sentence_does_not_count() -> None:
    """A protocol mention inside a sentence is not a report."""
    assert parse_marker("I will report [PDCA] complete once the tests pass.") is None


def test_marker_mid_sentence_after_a_real_one_is_ignored() -> None:
    """A later mid-sentence mention does not override a real marker."""
    assert _field("[PDCA] do\nNext I will say [PDCA] complete.", "phase") == "do"


# ---------------------------------------------------------------------------------------------
# blocked
# ---------------------------------------------------------------------------------------------


def test_blocked_with_half_width_colon() -> None:
    """``[PDCA] blocked: reason`` carries its reason."""
    assert parse_marker("[PDCA] blocked: no API key") == Marker("blocked", "no API key")


def test_blocked_with_full_width_colon() -> None:
    """``[PDCA] blocked：原因`` carries its reason."""
    assert parse_marker("[PDCA] blocked：没有权限") == Marker("blocked", "没有权限")


def test_blocked_without_reason() -> None:
    """A bare ``[PDCA] blocked`` has no reason."""
    assert parse_marker("[PDCA] blocked") == Marker("blocked")


def test_blocked_reason_after_a_dash() -> None:
    """``[PDCA] blocked - reason`` carries its reason too."""
    assert _field("[PDCA] blocked - waiting for review", "reason") == "waiting for review"


def test_only_blocked_has_a_reason() -> None:
    """Text after another phase is not a reason."""
    assert _field("[PDCA] do: edited the parser", "reason") is None


# ---------------------------------------------------------------------------------------------
# Code, quotes
# ---------------------------------------------------------------------------------------------


def test_marker_in_closed_backtick_fence_is_ignored() -> None:
    """A marker inside a closed ``` fence does not count."""
    assert parse_marker("[PDCA] do\n```\n[PDCA] complete\n```\n") == Marker("do")


def test_marker_in_tilde_fence_is_ignored() -> None:
    """A marker inside a ~~~ fence does not count."""
    assert parse_marker("[PDCA] plan\n~~~\n[PDCA] complete\n~~~\n") == Marker("plan")


def test_marker_in_unclosed_fence_is_ignored() -> None:
    """A marker inside an unclosed fence does not count: the fence runs to the end."""
    assert parse_marker("[PDCA] do\n```text\n[PDCA] complete\n") == Marker("do")


def test_marker_only_in_code_is_none() -> None:
    """A reply whose only marker is an example in code has no phase."""
    assert parse_marker("Report it like this:\n```\n[PDCA] complete\n```") is None


def test_marker_after_a_closed_fence_counts() -> None:
    """A marker after a closed fence counts."""
    assert parse_marker("```\n[PDCA] do\n```\n[PDCA] check") == Marker("check")


def test_marker_in_inline_code_is_ignored() -> None:
    """A marker inside an inline code span does not count."""
    assert parse_marker("[PDCA] do\n`[PDCA] complete`") == Marker("do")


def test_marker_in_block_quote_is_ignored() -> None:
    """A quoted marker does not count."""
    assert parse_marker("[PDCA] do\n> [PDCA] complete") == Marker("do")


def test_marker_in_fence_nested_in_a_list_is_ignored() -> None:
    """A fence inside a list item hides its marker like any other fence."""
    assert parse_marker("- example:\n    ```\n    [PDCA] complete\n    ```\n") is None


def test_strip_code_blanks_code_and_keeps_line_count() -> None:
    """``strip_code`` blanks fences, inline code and quotes and keeps every line."""
    text = "a `b` c\n```\ncode\n```\n> quote\nd"
    out = strip_code(text)
    assert out.split("\n") == ["a   c", "", "", "", "", "d"]


def test_strip_code_leaves_plain_text_alone() -> None:
    """Text without code or quotes is unchanged."""
    assert strip_code("one\ntwo [PDCA] do") == "one\ntwo [PDCA] do"


# ---------------------------------------------------------------------------------------------
# Legacy forms
# ---------------------------------------------------------------------------------------------


def test_legacy_plan_working_is_do() -> None:
    """``[PLAN] working`` is read as ``do``."""
    assert parse_marker("[PLAN] working") == Marker("do", legacy=True)


def test_legacy_plan_complete() -> None:
    """``[PLAN] complete`` is read as ``complete``."""
    assert parse_marker("[PLAN] complete") == Marker("complete", legacy=True)


def test_legacy_plan_blocked_with_reason() -> None:
    """``[PLAN] blocked: reason`` is read as ``blocked`` with its reason."""
    assert parse_marker("[PLAN] blocked: no access") == Marker("blocked", "no access", legacy=True)


def test_legacy_and_new_markers_last_one_wins() -> None:
    """Between a legacy and a new marker, the later one wins."""
    assert parse_marker("[PLAN] complete\n[PDCA] do") == Marker("do")
    assert parse_marker("[PDCA] do\n[PLAN] complete") == Marker("complete", legacy=True)


def test_legacy_plan_in_code_is_ignored() -> None:
    """A legacy marker inside fenced code does not count."""
    assert parse_marker("[PDCA] do\n```\n[PLAN] complete\n```") == Marker("do")


def test_coordinate_suffix() -> None:
    """An ``@coordinate`` suffix is read as the map coordinate."""
    assert parse_marker("[PDCA] do @A1.2") == Marker("do", coordinate="A1.2", legacy=True)


def test_coordinate_suffix_on_blocked_keeps_the_reason() -> None:
    """``blocked: reason @B2`` keeps the reason apart from the coordinate."""
    marker = parse_marker("[PDCA] blocked: no key @B2")
    assert marker == Marker("blocked", "no key", "B2", legacy=True)


def test_map_line_gives_the_coordinate() -> None:
    """A ``[MAP]`` line gives the coordinate of a marker without one."""
    assert parse_marker("[MAP] A1.2\n[PDCA] do") == Marker("do", coordinate="A1.2")


def test_last_map_line_wins() -> None:
    """With several ``[MAP]`` lines, the last one is the coordinate."""
    assert _field("[MAP] A1\n[PDCA] do\n[MAP] B2", "coordinate") == "B2"


def test_map_line_alone_is_no_marker() -> None:
    """A ``[MAP]`` line without a phase marker is no conclusion."""
    assert parse_marker("[MAP] A1.2") is None


def test_map_line_in_code_is_ignored() -> None:
    """A ``[MAP]`` line inside fenced code gives no coordinate."""
    assert parse_marker("```\n[MAP] Z9\n```\n[PDCA] do") == Marker("do")


def test_coordinate_suffix_wins_over_map_line() -> None:
    """The marker's own ``@coordinate`` wins over a ``[MAP]`` line."""
    assert _field("[MAP] A1\n[PDCA] do @C3", "coordinate") == "C3"


def test_mention_inside_a_blocked_reason_is_not_a_coordinate() -> None:
    """Only a trailing ``@token`` is a coordinate suffix; a mid-reason mention stays in it."""
    marker = parse_marker("[PDCA] blocked: ask @alice for the API key")
    assert marker == Marker("blocked", "ask @alice for the API key")


# ---------------------------------------------------------------------------------------------
# Property tests
# ---------------------------------------------------------------------------------------------

MARKER_LINES = [
    "[PDCA] plan",
    "[PDCA] do",
    "[PDCA] check",
    "[PDCA] act",
    "[PDCA] complete",
    "[PDCA] blocked: no key",
    "[PDCA] blocked：没有权限",
    "[PDCA] do @A1.2",
    "[PLAN] working",
    "[PLAN] complete",
    "[MAP] B2",
    "- **[PDCA] check**",
    "> [PDCA] act",
    "I will report [PDCA] complete later",
]
# Texts that cannot open a fence or an inline code span of their own.
TEXTS = (
    st.lists(st.one_of(st.sampled_from([*MARKER_LINES, ""]), st.text(max_size=30)), max_size=10)
    .map("\n".join)
    .filter(lambda t: "`" not in t and "~" not in t)
)


def _fence(line: str, fence: str, closed: bool) -> str:
    return f"\n{fence}\n{line}\n" + (f"{fence}\n" if closed else "")


@settings(max_examples=300)
@given(
    TEXTS,
    st.sampled_from(MARKER_LINES),
    st.sampled_from(["```", "~~~", "````", "```text"]),
    st.booleans(),
)
def test_marker_in_appended_fence_changes_nothing(
    text: str, line: str, fence: str, closed: bool
) -> None:
    """For any text T, appending a fenced block holding a marker line leaves the result as for T."""
    assert parse_marker(text + _fence(line, fence, closed)) == parse_marker(text)


@given(st.text())
def test_parse_marker_never_raises(text: str) -> None:
    """Any text yields a marker with a known phase, or None."""
    marker = parse_marker(text)
    assert marker is None or marker.phase in PHASES


@given(st.text())
def test_strip_code_keeps_the_line_count(text: str) -> None:
    """``strip_code`` never adds or drops lines."""
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    assert strip_code(text).count("\n") == normalized.count("\n")


@pytest.mark.timeout(10)
def test_a_line_of_many_backticks_does_not_stall_the_marker_search() -> None:
    """A reply may print a long run of backticks; finding spans must not backtrack on it
    (the old back-reference regex took minutes on 20,000 backticks)."""
    assert parse_marker("x" + "`" * 20000 + " y\n[PDCA] do") == Marker("do")
