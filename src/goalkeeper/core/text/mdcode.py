"""Inline code spans and code fences in Markdown text, found in linear time.

Every reader of model or user text (markers, goal detection, verify commands, the plan) must
skip what is inside backticks and code fences; the fence rules live here once. A regex with a
back-reference (``(`+).+?\\1``) backtracks quadratically on a line of many backticks, and a
model can print such a line; pairing runs of backticks does not. Pure; no I/O.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from goalkeeper.core.text.lazy_re import lazy_re

_BACKTICKS = lazy_re(r"`+")
_FENCE = lazy_re(r"^[ \t]*(`{3,}|~{3,})")  # any indent: fences nest in list items

Fence = tuple[str, int]
"""An open code fence: its character (backtick or tilde) and how many of them opened it."""


def opens_fence(line: str) -> Fence | None:
    """The fence a line opens (three or more backticks or tildes; a backtick fence whose info
    string holds a backtick is not one, as in CommonMark), else None."""
    m = _FENCE.match(line)
    if m is None or (m.group(1)[0] == "`" and "`" in line[m.end() :]):
        return None
    return m.group(1)[0], len(m.group(1))


def closes_fence(line: str, fence: Fence) -> bool:
    """Whether a line closes ``fence``: at least as many of its character, and nothing else."""
    s = line.lstrip(" \t")
    run = len(s) - len(s.lstrip(fence[0]))
    return run >= fence[1] and not s[run:].strip()


def inline_code_spans(line: str) -> tuple[tuple[int, int], ...]:
    """The (start, end) of each inline code span on a line, backticks included: a run of n
    backticks up to the next run of exactly n, as in CommonMark. Found by pairing runs, not by a
    backtracking regex, so a line of ten thousand backticks costs no more than its length."""
    if "`" not in line:
        return ()
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(line)]
    by_length: dict[int, list[int]] = {}
    for i, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(i)
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        start, end = runs[i]
        same = by_length[end - start]
        k = bisect.bisect_right(same, i)
        if k < len(same):
            spans.append((start, runs[same[k]][1]))
            i = same[k] + 1
        else:
            i += 1
    return tuple(spans)


def blank_spans(line: str, spans: Iterable[tuple[int, int]], fill: str = " ") -> str:
    """The line with each span overwritten by ``fill``: offsets stay valid."""
    out, last = [], 0
    for start, end in spans:
        out.append(line[last:start])
        out.append(fill * (end - start))
        last = end
    out.append(line[last:])
    return "".join(out)
