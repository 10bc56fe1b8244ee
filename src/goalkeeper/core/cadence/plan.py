"""Parse a plan file (seed 000 §4): SWOT, objective, key results and the user story map.

One pass over the lines, outside fenced code and HTML comments; headings in Chinese or English.
A hand-written line scanner rather than a Markdown library: the plan grammar is line-oriented,
and the parser runs inside hooks, where a 5,000-line plan must parse in well under 20 ms.
Pure; no I/O. Never raises on any text: unknown shapes are ignored, never guessed at.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from msgspec import Struct

from goalkeeper.core.text.lang import detect_lang, is_cjk
from goalkeeper.core.text.lazy_re import LazyPattern, lazy_re
from goalkeeper.core.text.mdcode import closes_fence, opens_fence

ItemState = Literal["open", "done", "cancelled"]
Section = Literal["swot", "objective", "key_results", "map"]

_HEADING = lazy_re(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
_ITEM = lazy_re(r"^( *)(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[([ xX-])\](?:[ \t]+|$))?(.*)$")
_SWOT = lazy_re(
    r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?([SWOTswot])(?:\*\*|__)?\s*(?:[（(][^）)]*[）)])?"
    r"\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.*)$"
)
_CANCEL_REASON = lazy_re(
    r"(?:取消|已取消|砍掉|cancell?ed|cancel|dropped|cut|won't do|wontfix)\s*(?:[:：]|[-—–]+)\s*"
    r"(.+?)\s*[）)]?\s*$",
    re.IGNORECASE,
)
_TRAILING_REASON = lazy_re(r"(?:\s[-—–]{1,2}\s+(.+)|[（(]([^（()）]+)[）)])\s*$")
_NUMBER = r"[-+]?\d+(?:[.,]\d+)?"
_ARROW = lazy_re(r"→|->|=>|⟶|➜|➔")
_NUM = lazy_re(_NUMBER)
_WORD = r"(?<![A-Za-z])(?:{})(?![A-Za-z])"  # English labels only as whole words ("photo" ≠ "to")


def _label(chinese: str, english: str) -> LazyPattern:
    labels = f"(?:{chinese}|{_WORD.format(english)})"
    return lazy_re(labels + r"\s*[:：=]?\s*(" + _NUMBER + ")", re.IGNORECASE)


_BASELINE = _label("基线|起点", "baseline|from")
_TARGET = _label("目标值|目标", "target|goal|to")
_CURRENT = _label("当前|现在|目前|实际", "currently|current|now|actual|at")
_OBJECTIVE_LABEL = lazy_re(r"^(?:O|objective|目标)\s*[:：]\s*", re.IGNORECASE)


class Progress(Struct, frozen=True):
    """The figures of a key result: baseline → target, and where it stands now."""

    baseline: float | None = None
    target: float | None = None
    current: float | None = None


class KeyResult(Struct, frozen=True):
    text: str
    state: ItemState
    line: int
    reason: str | None = None
    progress: Progress | None = None
    checkbox: bool = True


class MapLeaf(NamedTuple):
    """A leaf of the story map; ``path`` holds its ancestors' texts, outermost first.

    A named tuple rather than a frozen dataclass: a large map has thousands of leaves, and a
    frozen dataclass's ``__init__`` (one ``object.__setattr__`` per field) was a quarter of the
    parse time of a 5,000-line plan. Just as immutable and typed."""

    text: str
    state: ItemState
    line: int
    path: tuple[str, ...] = ()
    reason: str | None = None
    """Why it was cancelled: its own reason, or the reason of the ancestor that cancelled it."""
    cancelled_by: str | None = None
    """The ancestor whose ``[-]`` cancelled this leaf, if it was not cancelled itself."""


class Swot(Struct, frozen=True):
    S: str | None = None
    W: str | None = None
    O: str | None = None  # noqa: E741 - the SWOT letter
    T: str | None = None


class Plan(Struct, frozen=True):
    swot: Swot
    objective: str | None
    key_results: tuple[KeyResult, ...]
    leaves: tuple[MapLeaf, ...]
    sections: frozenset[Section]
    lang: Literal["en", "zh"]

    @property
    def open_key_results(self) -> tuple[KeyResult, ...]:
        return tuple(kr for kr in self.key_results if kr.state == "open")

    @property
    def open_leaves(self) -> tuple[MapLeaf, ...]:
        return tuple(leaf for leaf in self.leaves if leaf.state == "open")


def has_commitments(plan: Plan) -> bool:
    """Whether the plan commits to anything a gate can hold: a key result or a story-map leaf."""
    return bool(plan.key_results or plan.leaves)


def classify_heading(title: str) -> Section | None:
    """Which plan section a heading opens, in Chinese or English; None for any other heading."""
    t = title.strip().strip("*_").lower()
    if "swot" in t:
        return "swot"
    if "关键结果" in t or "key result" in t or t in ("krs", "kr", "okr", "okrs"):
        return "key_results"
    if "故事地图" in t or "story map" in t:
        return "map"
    if t in ("目标", "objective", "objectives") or "(objective)" in t or "（objective）" in t:
        return "objective"
    if t.startswith(_OBJECTIVE_PREFIXES):
        return "objective"
    return None


# "目标：…" or "Objective (v1)" open the objective; "目标用户" (target users) does not.
_OBJECTIVE_PREFIXES = tuple(
    word + sep
    for word in ("目标", "objective", "objectives")
    for sep in (" ", ":", "：", "（", "(", "-", "—")
)


def parse_progress(text: str) -> Progress | None:
    """Figures of a key result: labelled (``baseline 0, target 10, current 4``) or arrowed
    (``0 → 10 (current 4)``). None when the text carries no figures."""
    baseline = _first_float(_BASELINE, text)
    target = _first_float(_TARGET, text)
    current = _first_float(_CURRENT, text)
    arrow = _ARROW.search(text)
    if arrow:
        before, after = text[: arrow.start()], text[arrow.end() :]
        if baseline is None:
            nums = _NUM.findall(before)
            baseline = _to_float(nums[-1]) if nums else None
        if target is None:
            m = _NUM.search(after)
            target = _to_float(m.group(0)) if m else None
    if baseline is None and target is None and current is None:
        return None
    return Progress(baseline, target, current)


def parse_cancel_reason(text: str) -> str | None:
    """The reason of a cancelled item: ``(取消：…)``, ``cancelled: …``, ``— …`` or ``(…)``."""
    m = _CANCEL_REASON.search(text)
    if m and m.group(1).strip(" （()）"):
        return m.group(1).strip(" （()）")
    m = _TRAILING_REASON.search(text)
    if m:
        reason = (m.group(1) or m.group(2) or "").strip()
        if reason and parse_progress(reason) is None:  # "(current 40)" is a figure, not a reason
            return reason
    return None


def parse_objective(lines: list[str]) -> str | None:
    """The first sentence of the section's first paragraph."""
    para: list[str] = []
    for line in lines:
        s = line.strip()
        if not s:
            if para:
                break
            continue
        s = re.sub(r"^(?:>\s*)+", "", s)
        s = re.sub(r"^(?:[-*+]|\d{1,9}[.)])\s+", "", s)
        para.append(_OBJECTIVE_LABEL.sub("", s))
    if not para:
        return None
    text = ""
    for piece in (p for p in para if p):
        cjk_join = text and is_cjk(text[-1]) and is_cjk(piece[0])
        text += piece if not text or cjk_join else " " + piece
    return _first_sentence(text).strip() or None


_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "approx", "mr", "ms", "dr", "no"})
"""Words whose period does not end a sentence (``e.g. for nightly``)."""


def _first_sentence(text: str) -> str:
    """Up to the first sentence end outside parentheses: ``。！？!?``, or a period before a
    space or the end that does not close an abbreviation (seed000 D9: "Ship JSON (e.g. for
    nightly) today." is one sentence)."""
    depth = 0
    for i, c in enumerate(text):
        if c in "(（[":
            depth += 1
        elif c in ")）]":
            depth = max(0, depth - 1)
        elif depth:
            continue
        elif c in "。！？!?":
            return text[: i + 1]
        elif c == "." and (i + 1 == len(text) or text[i + 1].isspace()):
            word = text[:i].rsplit(None, 1)[-1].lower() if text[:i].strip() else ""
            if word.lstrip("(\"'") not in _ABBREVIATIONS:
                return text[: i + 1]
    return text


def parse_plan(text: str) -> Plan:
    """Parse a whole plan. Tolerates a BOM, CRLF, tabs and YAML frontmatter; never raises. A
    code fence that is never closed does not hide the rest of the plan: its opening line is
    read as text (an open key result after a stray ```` ``` ```` still holds a close)."""
    lines = _normalize(text)
    for _ in range(MAX_REPARSES):
        plan, unclosed = _parse_lines(lines, text)
        if unclosed is None:
            return plan
        lines = [*lines[: unclosed - 1], "", *lines[unclosed:]]
    # fence after unclosed fence: read every fence line as text (bounded, never quadratic)
    lines = ["" if line.strip()[:3] in ("```", "~~~") else line for line in lines]
    return _parse_lines(lines, text)[0]


MAX_REPARSES = 8
"""Unclosed fences undone one by one before every fence line is read as text."""


def _parse_lines(lines: list[str], text: str) -> tuple[Plan, int | None]:
    """The plan ``lines`` hold, and the line number of a fence left open at the end (None)."""
    swot: dict[str, str] = {}
    pending_swot: str | None = None
    objective_lines: list[str] = []
    krs: list[tuple[int, KeyResult]] = []
    map_items: list[MapItem] = []
    sections: set[Section] = set()
    section: Section | None = None
    level = 0
    heading_path: tuple[str, ...] = ()
    fence: tuple[str, int] | None = None
    fence_line = 0
    in_comment = False

    for number, raw in enumerate(lines, start=1):
        line = raw.expandtabs(4) if "\t" in raw else raw
        if fence is not None:
            if closes_fence(line, fence):
                fence = None
            continue
        if in_comment:
            in_comment = "-->" not in line
            continue
        stripped = line.strip()
        if stripped.startswith("<!--"):
            in_comment = "-->" not in stripped[4:]
            continue
        if stripped[:3] in ("```", "~~~"):
            opened = opens_fence(line)
            if opened is not None:
                fence, fence_line = opened, number
                continue
        if stripped.startswith("#"):
            h = _HEADING.match(line)
            if h:
                depth, title = len(h.group(1)), (h.group(2) or "")
                kind = classify_heading(title)
                if kind is not None:
                    section, level, heading_path = kind, depth, ()
                    sections.add(kind)
                    pending_swot = None
                elif section is not None and depth <= level:
                    section = None
                elif section == "map":
                    heading_path = (title.strip(),)
                continue
        first = stripped[:1]
        if first in ("-", "*", "_") and stripped[-1] == first and _is_break(line, stripped):
            section = None
            continue
        if section is None:
            continue
        if section == "objective":
            objective_lines.append(line)
        elif section == "swot":
            pending_swot = _scan_swot(stripped, swot, pending_swot)
        elif section == "key_results":
            item = _ITEM.match(line)
            if item:
                kr = _key_result(item, number)
                if kr is not None:
                    krs.append((len(item.group(1)), kr))
        else:
            item = _ITEM.match(line)
            if item:
                indent, mark, body = item.groups()
                body = body.strip()
                if body:
                    map_items.append((len(indent), mark, body, number, heading_path))

    plan = Plan(
        swot=Swot(swot.get("S"), swot.get("W"), swot.get("O"), swot.get("T")),
        objective=parse_objective(objective_lines),
        key_results=_top_level_only(krs),
        leaves=_leaves(map_items),
        sections=frozenset(sections),
        lang=detect_lang(text),
    )
    return plan, (fence_line if fence is not None else None)


# ---------------------------------------------------------------------------------------------


def _normalize(text: str) -> list[str]:
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[0].strip() == "---":  # YAML frontmatter is metadata, not plan content
        for i in range(1, min(len(lines), 200)):
            if lines[i].strip() in ("---", "..."):
                if _yaml_like(lines[1:i]):
                    return [""] * (i + 1) + lines[i + 1 :]
                break  # a thematic break that opens the plan: its content is the plan's
    return lines


def _yaml_like(block: list[str]) -> bool:
    """Whether the lines between two ``---`` read as YAML frontmatter (``key: value`` lines),
    not as plan content (headings, checklist items)."""
    keyed = False
    for line in block:
        if not line.strip():
            continue
        if _MD_LINE.match(line):
            return False
        if _YAML_KEY.match(line):
            keyed = True
        elif not line.startswith((" ", "\t", "- ")):
            return False
    return keyed


_YAML_KEY = lazy_re(r"^[A-Za-z_][\w .-]*:(?:\s|$)")
_MD_LINE = lazy_re(r"^(?:#{1,6}\s|\s*[-*+]\s+\[[ xX-]\])")


def _is_break(line: str, stripped: str) -> bool:
    """A thematic break (``---``, ``* * *``, ``___``), checked without a regex: in a story map
    nearly every line starts with ``-``."""
    char = stripped[0]
    if stripped.count(char) < 3 or len(line) - len(line.lstrip(" ")) > 3:
        return False
    return not stripped.replace(char, "").replace(" ", "").replace("\t", "")


def _scan_swot(stripped: str, swot: dict[str, str], pending: str | None) -> str | None:
    """Take the first line of each SWOT letter; a bare label takes the next non-empty line."""
    m = _SWOT.match(stripped)
    if m:
        letter, value = m.group(1).upper(), m.group(2).strip()
        if letter in swot:
            return None
        if value:
            swot[letter] = value
            return None
        return letter
    if pending and stripped and pending not in swot:
        swot[pending] = re.sub(r"^(?:[-*+]|\d{1,9}[.)])\s+", "", stripped)
        return None
    return pending


def _key_result(item: re.Match[str], line: int) -> KeyResult | None:
    mark, text = item.group(2), item.group(3).strip()
    if not text:
        return None
    if mark is None:
        return KeyResult(text, "open", line, None, parse_progress(text), checkbox=False)
    state: ItemState = "done" if mark in "xX" else "cancelled" if mark == "-" else "open"
    reason = parse_cancel_reason(text) if state == "cancelled" else None
    return KeyResult(text, state, line, reason, parse_progress(text))


def _top_level_only(krs: list[tuple[int, KeyResult]]) -> tuple[KeyResult, ...]:
    """Every checklist item is a KR. A plain bullet is a KR nobody can tick, so it counts as
    open (fail closed), but only at the top level: nested plain bullets are notes under a KR."""
    if not krs:
        return ()
    top = min(indent for indent, _ in krs)
    return tuple(kr for indent, kr in krs if kr.checkbox or indent == top)


MapItem = tuple[int, str | None, str, int, tuple[str, ...]]
"""(indent, checkbox mark or None, text, line, enclosing sub-heading)"""


def _without_notes(items: list[MapItem]) -> list[MapItem]:
    """Drop notes: plain bullets below a checklist item (``- evidence: …`` under ``- [x] …``),
    with everything under them. A plain bullet elsewhere is structure (a slice) or an open leaf."""
    kept: list[MapItem] = []
    stack: list[tuple[int, bool, bool]] = []  # (indent, under a checkbox, is a note)
    heading: tuple[str, ...] | None = None
    for item in items:
        indent, mark = item[0], item[1]
        if item[4] != heading:
            stack, heading = [], item[4]
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1] if stack else (0, False, False)
        note = parent[2] or (mark is None and parent[1])
        stack.append((indent, parent[1] or mark is not None, note))
        if not note:
            kept.append(item)
    return kept


def _leaves(all_items: list[MapItem]) -> tuple[MapLeaf, ...]:
    """Build the indented tree and return its leaves; a cancelled node cancels its subtree, and
    its reason (or the lack of one) goes to every leaf below it."""
    items = _without_notes(all_items)
    leaves: list[MapLeaf] = []
    # the open ancestors of the current item:
    # (indent, its path from the sub-heading down, cancellation (text, reason) or None)
    stack: list[tuple[int, tuple[str, ...], tuple[str, str | None] | None]] = []
    count = len(items)
    for i, (indent, mark, text, line, heading) in enumerate(items):
        if i and items[i - 1][4] != heading:
            stack = []  # a new sub-heading starts a new tree
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent_path = stack[-1][1] if stack else heading
        inherited = stack[-1][2] if stack else None
        cancel = inherited or ((text, parse_cancel_reason(text)) if mark == "-" else None)
        after = items[i + 1] if i + 1 < count else None
        if after is None or after[0] <= indent or after[4] != heading:
            if cancel is not None:
                by = cancel[0] if inherited is not None else None
                leaves.append(MapLeaf(text, "cancelled", line, parent_path, cancel[1], by))
            else:
                state: ItemState = "done" if mark is not None and mark in "xX" else "open"
                leaves.append(MapLeaf(text, state, line, parent_path))
        else:
            stack.append((indent, (*parent_path, text), cancel))
    return tuple(leaves)


def _first_float(pattern: LazyPattern, text: str) -> float | None:
    m = pattern.search(text)
    return _to_float(m.group(1)) if m else None


def _to_float(raw: str) -> float | None:
    """``1,000`` is a thousand; ``0,5`` (decimal comma) is a half."""
    text = raw.replace(",", "") if _THOUSANDS.fullmatch(raw) else raw.replace(",", ".")
    try:
        return float(text)
    except ValueError:
        return None


_THOUSANDS = lazy_re(r"[-+]?\d{1,3}(?:,\d{3})+")


class PlanDoc(Struct, frozen=True):
    """The plan file as the engine sees it: its path, and the parsed plan or why it is unusable.

    ``problem`` set means the file exists but cannot be used (too large, binary); ``note`` means
    it was used with a caveat (invalid UTF-8 read with replacement characters).
    """

    path: str
    plan: Plan | None
    problem: str | None = None
    note: str | None = None
