"""Inline code spans in Markdown text, found in linear time.

Every reader of model or user text (markers, goal detection, verify commands) must skip what is
inside backticks. A regex with a back-reference (``(`+).+?\\1``) backtracks quadratically on a
line of many backticks, and a model can print such a line; pairing runs of backticks does not.
Pure; no I/O.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable

_BACKTICKS = re.compile(r"`+")


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
