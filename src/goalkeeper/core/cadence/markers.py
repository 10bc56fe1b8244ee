"""The ``[PDCA]`` phase protocol (seed 000 §3): the phase a reply reports at its end.

The reply's **last** marker outside code is its conclusion. A marker counts only at the start of
a line (after optional indentation, a bullet or emphasis), so a protocol mention inside a
sentence is not a report. Fenced code (closed or not), inline code spans and block quotes never
count. Legacy forms are still understood: an ``@coordinate`` suffix, ``[MAP] <coordinate>``
lines and ``[PLAN] working|complete|blocked``. Pure; no I/O.
"""

from __future__ import annotations

import re
from typing import Literal

from msgspec import Struct

from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.text.mdcode import closes_fence, inline_code_spans, opens_fence

Phase = Literal["plan", "do", "check", "act", "complete", "blocked"]
PHASES: tuple[Phase, ...] = ("plan", "do", "check", "act", "complete", "blocked")

_LEAD = r"^[ \t]*(?:[-*+][ \t]+)?[*_]{0,3}[ \t]*"
_PDCA = lazy_re(
    _LEAD + r"\[PDCA\][*_]{0,3}[ \t]*(plan|do|check|act|complete|blocked)\b[*_]{0,3}([^\n]*)",
    re.IGNORECASE | re.MULTILINE,
)
_LEGACY_PLAN = lazy_re(
    _LEAD + r"\[PLAN\][*_]{0,3}[ \t]*(working|complete|blocked)\b[*_]{0,3}([^\n]*)",
    re.IGNORECASE | re.MULTILINE,
)
_MAP = lazy_re(_LEAD + r"\[MAP\][*_]{0,3}[ \t]*([^\n]*)", re.IGNORECASE | re.MULTILINE)
_COORD = lazy_re(r"(?:^|\s)@(\S+)\s*$")  # a suffix only: "ask @alice …" is prose
_LEGACY_PHASE: dict[str, Phase] = {"working": "do", "complete": "complete", "blocked": "blocked"}


class Marker(Struct, frozen=True):
    """A reported phase; ``reason`` is set for ``blocked``, ``coordinate`` for map positions."""

    phase: Phase
    reason: str | None = None
    coordinate: str | None = None
    legacy: bool = False


def strip_code(text: str) -> str:
    """The text with fenced blocks, inline code spans and block quotes blanked out.

    An unclosed fence runs to the end of the text, as in CommonMark. Line count is preserved.
    """
    out: list[str] = []
    fence: tuple[str, int] | None = None
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if fence is not None:
            if closes_fence(line, fence):
                fence = None
            out.append("")
            continue
        if (opened := opens_fence(line)) is not None:
            fence = opened
            out.append("")
            continue
        if line.lstrip().startswith(">"):
            out.append("")
            continue
        out.append(_drop_code(line) if "`" in line else line)
    return "\n".join(out)


def _drop_code(line: str) -> str:
    """The line with each inline code span replaced by one space."""
    out, last = [], 0
    for start, end in inline_code_spans(line):
        out += [line[last:start], " "]
        last = end
    return "".join([*out, line[last:]])


def parse_marker(text: str) -> Marker | None:
    """The last ``[PDCA]`` (or legacy ``[PLAN]``) marker outside code; None when there is none."""
    clean = strip_code(text)
    last: tuple[int, Marker] | None = None
    for m in _PDCA.finditer(clean):
        last = (m.start(), _marker(m.group(1).lower(), m.group(2), legacy=False))
    for m in _LEGACY_PLAN.finditer(clean):
        if last is None or m.start() > last[0]:
            last = (m.start(), _marker(_LEGACY_PHASE[m.group(1).lower()], m.group(2), legacy=True))
    if last is None:
        return None
    marker = last[1]
    if marker.coordinate is None:
        maps = [m.group(1).strip() for m in _MAP.finditer(clean) if m.group(1).strip()]
        if maps:
            return Marker(marker.phase, marker.reason, maps[-1], legacy=marker.legacy)
    return marker


def fenced_complete(text: str) -> Marker | None:
    """A ``[PDCA] complete`` the reply wrote only inside a fenced code block (no marker outside
    code), else None. Read as the claim it plainly is (issue 22 §7): ignoring it sent the agent
    round after round to the same "report a phase" step (9 continuations seen), while taking
    it as a claim costs nothing in proof: the gates still decide, and a refused claim counts
    toward the pause like any other."""
    if parse_marker(text) is not None:
        return None
    kept: list[str] = []
    fence: tuple[str, int] | None = None
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if fence is not None and closes_fence(line, fence):
            fence = None
        elif fence is None and (opened := opens_fence(line)) is not None:
            fence = opened
        else:
            kept.append(line)  # the fence's lines stay, its delimiters go
    marker = parse_marker("\n".join(kept))
    return marker if marker is not None and marker.phase == "complete" else None


def _marker(phase: str, rest: str, *, legacy: bool) -> Marker:
    rest = rest.strip().strip("*_").strip()
    coordinate = None
    coord = _COORD.search(rest)
    if coord:
        coordinate = coord.group(1)
        rest = (rest[: coord.start()] + rest[coord.end() :]).strip()
        legacy = True
    reason = None
    if phase == "blocked":
        reason = rest.lstrip(":：-—– ").strip() or None
    return Marker(phase, reason, coordinate, legacy)  # type: ignore[arg-type]


def normalize_reason(reason: str | None) -> str:
    """A blocked reason as it is compared with the previous one: case, punctuation (of any
    script), spacing and numbers ignored, so "Need the API key (try 2)." repeats "need the API
    key – try 3"."""
    text = re.sub(r"\d+", "0", (reason or "").casefold())
    return " ".join(re.sub(r"[\W_]+", " ", text).split())


_GOAL = lazy_re(
    _LEAD + r"\[GOAL\][*_]{0,3}[ \t]*blocked\b[*_]{0,3}[ \t]*[:：]?([^\n]*)",
    re.IGNORECASE | re.MULTILINE,
)


def parse_goal_blocked(text: str) -> str | None:
    """The reason of the last ``[GOAL] blocked: <reason>`` line outside code: the model's honest
    exit from a goal it cannot reach (never punished). None when there is none."""
    found = [m.group(1).strip().strip("*_").strip() for m in _GOAL.finditer(strip_code(text))]
    if not found:
        return None
    return found[-1] or "no reason given"
