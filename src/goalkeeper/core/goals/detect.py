"""Goal detection (seed 001, decisions 7 and 8): does a user prompt state a goal, and how big is it?

Two kinds of trigger. An explicit command (``/goal <text>``, ``/gk-goal <text>``) at the start of
the prompt always sets a goal unless its text is empty: the user asked for it by name. A phrase
(``goal:`` or ``目标：`` at a line start, "my goal is", "我的目标是", "keep going until",
"一直做到", "直到…为止" …) sets one only when no mechanical anti-trigger applies (decision 8):
the phrase is inside a block quote, fenced code or inline code; it is reported speech ("he said
the goal is", "据说"); the goal is a trivial task (a typo, renaming a variable, formatting a
file); or it is too short to hold a loop and names neither an architectural change nor a check.

A detected goal is *coarse* (decision 7: route it to a multi-stage workflow) when it names more
than five files, three or more modules, or uses an architecture word; its stages are split from
the text. Misses are cheap (the user can always type ``/goal``), a false trigger keeps an agent
busy with work nobody asked for, so the phrase rules lean towards "no goal". Pure; no I/O; never
raises on any text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from goalkeeper.core.goals.size import (
    LIST_ITEM,
    MAX_FILES,
    MIN_MODULES,
    is_coarse,
    split_stages,
    unquote,
)
from goalkeeper.core.goals.verify import parse_verify_commands, prose_verify_kinds
from goalkeeper.core.text.mdcode import blank_spans, inline_code_spans

__all__ = [
    "MAX_FILES",
    "MIN_MODULES",
    "GoalIntent",
    "detect_goal",
    "is_coarse",
    "split_stages",
]


Source = Literal["command", "phrase"]

MIN_WORDS = 4
"""A phrase goal needs at least this many word equivalents ("fix the bug" is three, too vague to
verify), unless it is architectural or names a check ("all tests pass" states its own proof)."""
CJK_PER_WORD = 2
"""One English word counts as two CJK characters (a common Chinese word is two characters), so
the Chinese threshold is 8 characters and mixed text is weighed fairly: ``npm run check 通过``
is 3 words + 2 characters = 4 word equivalents."""
MAX_TRIGGERS = 16
"""Phrase triggers examined per prompt, in order: each costs a pass over its paragraph, and a
prompt that repeats a trigger more often than this is pasted text, not a goal statement."""


@dataclass(frozen=True, slots=True)
class GoalIntent:
    """A goal stated in a prompt. ``stages`` is set for a coarse goal only: its steps in order,
    which also serve as its acceptance criteria when no workflow takes it over."""

    text: str
    coarse: bool
    source: Source
    stages: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------
# Triggers
# ---------------------------------------------------------------------------------------------

_COMMAND = re.compile(r"\A\s*/(?:gk-goal|goal)(?=\s|\Z)(.*)\Z", re.DOTALL | re.IGNORECASE)
_LINE_TRIGGER = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?(?:goal|目标)(?:\*\*|__)?[ \t]*[:：](?:\*\*|__)?",
    re.IGNORECASE | re.MULTILINE,
)
_INLINE_TRIGGER = re.compile(
    r"(?P<zh>我的目标(?:就)?是)"
    r"|(?<![A-Za-z])(?P<en>(?:my|the)\s+goal\s+is)(?:\s+to)?(?![A-Za-z])"
    r"|(?<![A-Za-z])(?P<until>keep\s+going\s+until|(?:don[’']?t|do\s+not)\s+stop\s+until)"
    r"(?![A-Za-z])"
    r"|(?P<upto>一直做到)"
    r"|(?P<till>直到)",
    re.IGNORECASE,
)
_TILL_END = re.compile(r"为止")
_SENTENCE_END = re.compile(r"[。！？!?]|\.(?=\s|$)")
_LABEL_LINE = re.compile(
    r"^[ \t]*(?:\*\*|__)?(?:[A-Za-z][A-Za-z ]{0,20}|[\u4e00-\u9fff]{1,6})(?:\*\*|__)?[ \t]*[:：]"
)

# Reported speech: a speech verb or hearsay marker before the trigger in the same sentence. A
# first-person speaker ("as I said, my goal is …") is still the user talking.
_REPORTED_EN = re.compile(
    r"(?<![A-Za-z])(?:said|says|told|mentioned|claimed|claims|wrote|stated|explained|"
    r"according\s+to|reportedly|apparently|allegedly|supposedly)(?![A-Za-z])",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(
    r"(?:^|[^A-Za-z])(?:i|we)(?:['’](?:ve|d))?(?:\s+(?:already|just|also|have|had|previously))?\s*$",
    re.IGNORECASE,
)
_REPORTED_ZH = re.compile(
    r"据说|听说|据称|据报道|传言|"
    r"(?:他|她|它|人家|有人|别人|对方|同事|老板|客户|用户|大家|老师|经理|领导)(?:们)?"
    r"(?:曾经?|也|还|又|就)?(?:说|讲|提到|表示|称|认为|觉得|写道)"
)
_OPEN_QUOTE = re.compile(r"[\"“「『']\s*$")
# "The goal is unclear", "my goal is not …": a remark about a goal, not a goal. Followed by a
# colon ("the goal is simple: …") the remark introduces the goal instead.
_OPINION = re.compile(
    r"\s*(?:not|unclear|clear|fine|good|bad|wrong|vague|ambiguous|simple|obvious|important|"
    r"different|same|already|ok|okay|reasonable|achieved|met|done|reached|impossible|hard|"
    r"difficult|nice|great|interesting|confusing|misleading|outdated|unrealistic|too)(?![A-Za-z])"
    r"(?P<colon>\s*[:：])?",
    re.IGNORECASE,
)

# ---------------------------------------------------------------------------------------------
# Anti-trigger and coarseness vocabulary
# ---------------------------------------------------------------------------------------------

_TRIVIAL = re.compile(
    r"(?<![A-Za-z])(?:typos?|misspell\w*|spelling|whitespace|indentation|reformat\w*|"
    r"rename\s+(?:(?:a|the|this|that|one)\s+)?(?:local\s+)?"
    r"(?:variable|var|parameter|param|argument|field)s?|"
    r"format(?:ting)?\s+(?:the|this|that|a)\s+(?:file|code|line)s?|"
    r"(?:update|bump)\s+(?:the\s+)?(?:copyright|version)(?:\s+(?:year|number))?)(?![A-Za-z])"
    r"|错别字|笔误|拼写错误|改个名|改名字|重命名变量|变量改名|改下变量名|格式化|缩进|空格",
    re.IGNORECASE,
)
# ---------------------------------------------------------------------------------------------
# Text helpers
# ---------------------------------------------------------------------------------------------

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_ALNUM = re.compile(r"[A-Za-z0-9]")


def _mask(text: str) -> str:
    """The text with fenced code, block-quote lines and inline code spans blanked by spaces, so
    that offsets still point into the original. An unclosed fence runs to the end."""
    out: list[str] = []
    fence: tuple[str, int] | None = None
    for line in text.split("\n"):
        if fence is not None:
            s = line.lstrip(" \t")
            run = len(s) - len(s.lstrip(fence[0]))
            if run >= fence[1] and not s[run:].strip():
                fence = None
            out.append(" " * len(line))
            continue
        m = _FENCE.match(line)
        if m and not (m.group(1)[0] == "`" and "`" in line[m.end() :]):
            fence = (m.group(1)[0], len(m.group(1)))
            out.append(" " * len(line))
            continue
        if line.lstrip().startswith(">"):
            out.append(" " * len(line))
            continue
        out.append(blank_spans(line, inline_code_spans(line)))
    return "\n".join(out)


def _clean(raw: str) -> str:
    """Whitespace collapsed per line, blank lines dropped, leading punctuation, trailing full
    stops and surrounding quotes removed. Line breaks stay: they separate listed stages."""
    lines = (" ".join(line.split()) for line in raw.split("\n"))
    text = "\n".join(line for line in lines if line)
    for _ in range(3):
        text = text.lstrip(" \n:：,，-—–").rstrip(" \n.。!！")
        text = unquote(text)
    return text


def _word_weight(text: str) -> int:
    """Length in half-words: two per English word (a token with a letter or digit), one per CJK
    character."""
    cjk = len(_CJK.findall(text))
    words = sum(1 for t in _CJK.sub(" ", text).split() if _ALNUM.search(t))
    return words * CJK_PER_WORD + cjk


# ---------------------------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------------------------


def detect_goal(prompt: str) -> GoalIntent | None:
    """The goal a prompt states, or None. A ``/goal`` command wins; otherwise the first phrase
    trigger that survives every anti-trigger (seed 001 decision 8). Never raises."""
    text = prompt.replace("\r\n", "\n").replace("\r", "\n")
    command = _COMMAND.match(text)
    if command:
        goal = _clean(command.group(1))
        return _intent(goal, "command") if goal else None
    masked = _mask(text)
    candidates: list[tuple[int, int, str]] = []
    candidates.extend((m.start(), m.end(), "line") for m in _LINE_TRIGGER.finditer(masked))
    candidates.extend(
        (m.start(), m.end(), m.lastgroup or "") for m in _INLINE_TRIGGER.finditer(masked)
    )
    for start, end, kind in sorted(candidates)[:MAX_TRIGGERS]:
        found = _phrase_goal(text, masked, start, end, kind)
        if found is not None:
            return _intent(found, "phrase")
    return None


# ---------------------------------------------------------------------------------------------
# Internals
# ---------------------------------------------------------------------------------------------


def _intent(goal: str, source: Source) -> GoalIntent:
    coarse = is_coarse(goal)
    return GoalIntent(goal, coarse, source, split_stages(goal) if coarse else ())


def _phrase_goal(text: str, masked: str, start: int, end: int, kind: str) -> str | None:
    """The cleaned goal after one phrase trigger, or None when an anti-trigger applies."""
    line_start = masked.rfind("\n", 0, start) + 1
    line_end = masked.find("\n", end)
    line_end = len(masked) if line_end < 0 else line_end
    if kind != "line":
        lead = masked[line_start:start]
        ends = list(_SENTENCE_END.finditer(lead))
        if ends:
            lead = lead[ends[-1].end() :]
        if _reported(lead):
            return None
    opinion = _OPINION.match(masked, end, line_end) if kind == "en" else None
    if opinion is not None:
        if opinion.group("colon") is None:
            return None
        end = opinion.end()
    rest_masked = masked[end:line_end]
    stop = None if kind == "line" else _SENTENCE_END.search(rest_masked)
    if stop is not None and stop.group(0) in "?？":
        return None  # "the goal is clear, isn't it?" asks; it does not state
    if not _clean(rest_masked if stop is None else rest_masked[: stop.start()]):
        raw = text[end : _paragraph_end(masked, line_end)]
    elif stop is not None:
        raw = text[end : end + stop.start()]
    else:
        raw = text[end : _list_end(masked, line_end)]
    if kind == "till":
        till = _TILL_END.search(_mask(raw))
        if till is None:
            return None
        raw = raw[: till.start()]
    elif kind == "upto":
        till = _TILL_END.search(_mask(raw))
        raw = raw[: till.start()] if till else raw
    goal = _clean(raw)
    if not goal or goal.endswith(("?", "？")) or _anti_trigger(goal):
        return None
    return goal


def _paragraph_end(masked: str, pos: int) -> int:
    """Where the paragraph that continues after ``pos`` ends: at a blank (or code or quoted)
    line, or at a line that opens another label ("Context:", "背景：")."""
    while pos < len(masked):
        nxt = masked.find("\n", pos + 1)
        nxt = len(masked) if nxt < 0 else nxt
        line = masked[pos + 1 : nxt]
        if not line.strip() or _LABEL_LINE.match(line):
            return pos
        pos = nxt
    return pos


def _list_end(masked: str, pos: int) -> int:
    """Where a run of list items right after the line ending at ``pos`` ends (``pos`` if none):
    "Goal: rewrite the store:" followed by its numbered steps."""
    while pos < len(masked):
        nxt = masked.find("\n", pos + 1)
        nxt = len(masked) if nxt < 0 else nxt
        if not LIST_ITEM.match(masked[pos + 1 : nxt]):
            return pos
        pos = nxt
    return pos


def _reported(lead: str) -> bool:
    """Reported speech or hearsay before the trigger, in the same sentence."""
    if _REPORTED_ZH.search(lead):
        return True
    for m in _REPORTED_EN.finditer(lead):
        if not _FIRST_PERSON.search(lead[: m.start()]):
            return True
    stripped = lead.rstrip()
    return bool(_OPEN_QUOTE.search(stripped)) and bool(stripped[:-1].strip())


def _anti_trigger(goal: str) -> bool:
    """Trivial tasks and short goals that are neither architectural nor checkable."""
    if is_coarse(goal):
        return False
    if _TRIVIAL.search(goal):
        return True
    if _word_weight(goal) >= MIN_WORDS * CJK_PER_WORD:
        return False
    return not (parse_verify_commands(goal) or prose_verify_kinds(goal))
