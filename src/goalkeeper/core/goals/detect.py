"""Goal detection (seed 001, decisions 7 and 8): does a user prompt state a goal, and how big is it?

Two kinds of trigger. An explicit command (``/goal <text>``, ``/gk-goal <text>``) at the start of
the prompt always sets a goal unless its text is empty: the user asked for it by name. A phrase
(a ``goal:``, ``goal -``, ``objective:``, ``目标：`` label; "my goal is", "我的目标是";
"keep working until", "一直做到", "直到…为止"; an order whose object is the end state, "get
every test green", "把所有测试都跑通") sets one only when no mechanical anti-trigger applies
(decision 8, ``core.goals.cues``): the phrase is inside a block quote, fenced code or inline
code, or in text the prompt asks to translate, summarize or quote; it is someone else's words,
the user's own plan, the past, a hypothesis or a description of code; its end is a time or a
question; the goal is a trivial task; or it is too short to hold a loop and names neither an
architectural change nor a check. When no phrase trigger holds, the *shape* of a goal does
(issue 23, ``core.goals.shape``): a sentence that asks the agent for work with a completion
condition ("…所有测试通过为止", "you're done when …"), in the present, not quoted, reported,
asked or past. The goal leaves out what to do after it ("…, then stop"). ``tests/data/goal_*.jsonl``
measures all of it (``benchmarks/goal_detection.py`` prints the figures).

A detected goal is *coarse* (decision 7, ``core.goals.size``: route it to a multi-stage
workflow) when it names more than five files, three or more modules, or uses an architecture
word; its stages are split from the text. Misses are cheap (the user can always type
``/goal``), a false trigger keeps an agent busy with work nobody asked for, so the phrase rules
lean towards "no goal". Pure; no I/O; never raises on any text.
"""

from __future__ import annotations

import re
from typing import Literal

from msgspec import Struct

from goalkeeper.core.goals.cues import (
    IMPERATIVE_KINDS,
    UNTIL_KINDS,
    clause_of,
    goal_rejects,
    is_trivial,
    lead_rejects,
    material_start,
)
from goalkeeper.core.goals.shape import is_negated, is_past, shape_goal, trim_trailing
from goalkeeper.core.goals.size import (
    LIST_ITEM,
    MAX_FILES,
    MIN_MODULES,
    is_coarse,
    split_stages,
    unquote,
)
from goalkeeper.core.goals.verify import parse_verify_commands, prose_verify_kinds
from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.text.mdcode import blank_spans, closes_fence, inline_code_spans, opens_fence

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


class GoalIntent(Struct, frozen=True):
    """A goal stated in a prompt. ``stages`` is set for a coarse goal only: its steps in order,
    which also serve as its acceptance criteria when no workflow takes it over."""

    text: str
    coarse: bool
    source: Source
    stages: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------
# Triggers
# ---------------------------------------------------------------------------------------------

_COMMAND = lazy_re(r"\A\s*/(?:gk-goal|goal)(?=\s|\Z)(.*)\Z", re.DOTALL | re.IGNORECASE)
# A label at a line start or after a sentence: "Goal:", "Goal -", "goal =>", "目标 ——", "目的：".
_LINE_TRIGGER = lazy_re(
    r"(?:^|(?<=[.!?])[ \t]+|(?<=[。！？]))[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?"
    r"(?:(?:the|our|my|your|new|set[ \t]+(?:a|the|a[ \t]+new|one)|your[ \t]+task['’]s)[ \t]+)?"
    r"(?:goal|objective|(?:你的|新的?|设定一?个?|设一个|本轮|这一?轮的?)?"
    r"(?:目标|目的|任务目标|本次目标))"
    r"(?:[ \t]+for[ \t]+(?:this|the|today['’]?s?)(?:[ \t]+[A-Za-z]+)?)?(?:\*\*|__)?"
    r"(?:[ \t]*[:：]|[ \t]+(?:--?|—|–)(?=[ \t])|[ \t]*(?:——|=>|->|→))(?:\*\*|__)?",
    re.IGNORECASE | re.MULTILINE,
)
# Code spans are filled with \x01 by ``_mask``: "get `pytest -q` green" orders a command green.
_EN_CHECK = r"(?:tests?|test\s+suite|suites?|specs?|builds?|ci|checks?|pipelines?|\x01+)"
_ZH_SPAN = r"[^，,。！？!?；;：:“”\"'「」\n]"
_ZH_CHECK = r"(?:测试套件|测试|用例|单测|构建|CI|ci|流水线|检查|\x01+)"
# An order whose object is the end state: "get every test green", "把所有测试都跑通".
_GET = (
    r"(?:get|make)\s+(?:(?:every|all|each)(?:\s+(?:of\s+)?the)?\s+|"
    r"the\s+(?:(?:whole|entire|full)\s+)?|our\s+)?(?:[\w-]+\s+){0,2}?"
    rf"{_EN_CHECK}(?:\s+[^.!?\n]{{0,40}}?)?\s*"
    r"(?:green|pass(?:ing|es)?|to\s+pass|succeed(?:s|ing)?|clean)(?![A-Za-z])"
)
_ZH_GET = (
    rf"(?:把|让){_ZH_SPAN}{{0,24}}?{_ZH_CHECK}{_ZH_SPAN}{{0,12}}?"
    r"(?:跑通|通过|全绿|变绿|绿了|修好|跑过)"
)
_INLINE_TRIGGER = lazy_re(
    r"(?P<zh>(?:我们?|咱们|这次|本次|今天|这一?轮|当前|最终|终极)的?目标(?:就)?是)"
    r"|(?<![A-Za-z])(?P<set>set\s+(?:a|the|one)\s+(?:new\s+)?goal(?:\s+for\s+(?:this|the)\s+\w+)?"
    r"\s+(?:to|of))(?![A-Za-z])"
    r"|(?<![A-Za-z])(?P<en>(?:my|our|the|your)\s+(?:(?:main|only|real|overall|end)\s+)?goal"
    r"(?:\s+(?:for|in)\s+(?:this|the|today['’]?s?)(?:\s+[A-Za-z]+)?|\s+(?:here|today|now))?"
    r"\s+is)(?:\s+to)?(?![A-Za-z])"
    r"|(?<![A-Za-z])(?P<until>(?:keep\s+(?:going|working|iterating|trying|fixing|pushing|"
    r"at\s+it|on\s+it|at\s+this)|continue(?:\s+(?:working|iterating|fixing))?|carry\s+on|"
    r"iterate|work\s+on\s+(?:this|it)|(?:don[’']?t|do\s+not)\s+stop)\s+until)(?![A-Za-z])"
    rf"|(?<![A-Za-z])(?P<get>{_GET})"
    rf"|(?P<zhget>{_ZH_GET})"
    r"|(?P<upto>一直(?:做|改|修|干|弄|搞)到)"
    r"|(?P<till>直到)",
    re.IGNORECASE,
)
_TILL_END = lazy_re(r"为止")
# What stands before "直到"/"until" without being an order of its own: "别停下来，直到 CI 全绿".
_NO_ORDER = lazy_re(
    r"[\s\x01,，]*(?:请|你|please|ok(?:ay)?|alright|so|now|just)?[\s,，]*"
    r"(?:(?:不要|别|不)停(?:下来?)?|持续|继续|坚持|一直做下去|一直做|don['’]?t\s+stop|"
    r"do\s+not\s+stop|keep\s+going|keep\s+at\s+it|go\s+on)?[\s\x01,，]*",
    re.IGNORECASE,
)
_SET_LEAD = lazy_re(r"(?:\s|please|pls|now|so|ok(?:ay)?|let['’]?s|let\s+us)*", re.IGNORECASE)
# "直到" without "为止" ends a loop only after an order not to stop: "不要停，直到 CI 全绿".
_TILL_ORDER = lazy_re(r"不要停|别停|不停|持续|继续|坚持")
_SENTENCE_END = lazy_re(r"[。！？!?]|\.(?=\s|$)")
_LABEL_LINE = lazy_re(
    r"^[ \t]*(?:\*\*|__)?(?:[A-Za-z][A-Za-z ]{0,20}|[\u4e00-\u9fff]{1,6})(?:\*\*|__)?[ \t]*[:：]"
)
# "The goal is unclear", "my goal is not …": a remark about a goal, not a goal. Followed by a
# colon ("the goal is simple: …") the remark introduces the goal instead.
_OPINION = lazy_re(
    r"\s*(?:not|unclear|clear|fine|good|bad|wrong|vague|ambiguous|simple|obvious|important|"
    r"different|same|already|ok|okay|reasonable|achieved|met|done|reached|impossible|hard|"
    r"difficult|nice|great|interesting|confusing|misleading|outdated|unrealistic|too)(?![A-Za-z])"
    r"(?P<colon>\s*[:：])?",
    re.IGNORECASE,
)

# ---------------------------------------------------------------------------------------------
# Text helpers
# ---------------------------------------------------------------------------------------------

_CJK = lazy_re(r"[\u3400-\u9fff\uf900-\ufaff]")
_ALNUM = lazy_re(r"[A-Za-z0-9]")


def _mask(text: str) -> str:
    """The text with fenced code, block-quote lines and inline code spans blanked by spaces, so
    that offsets still point into the original. An unclosed fence runs to the end."""
    out: list[str] = []
    fence: tuple[str, int] | None = None
    for line in text.split("\n"):
        if fence is not None:
            if closes_fence(line, fence):
                fence = None
            out.append(" " * len(line))
            continue
        if (opened := opens_fence(line)) is not None:
            fence = opened
            out.append(" " * len(line))
            continue
        if line.lstrip().startswith(">"):
            out.append(" " * len(line))
            continue
        out.append(blank_spans(line, inline_code_spans(line), "\x01"))
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
    material = material_start(masked)
    candidates: list[tuple[int, int, str]] = []
    candidates.extend((m.start(), m.end(), "line") for m in _LINE_TRIGGER.finditer(masked))
    candidates.extend(
        (m.start(), m.end(), m.lastgroup or "") for m in _INLINE_TRIGGER.finditer(masked)
    )
    for start, end, kind in sorted(candidates)[:MAX_TRIGGERS]:
        if material is not None and start >= material:
            break  # "Translate to Chinese: My goal is …": the rest is the text to translate
        found = _phrase_goal(text, masked, start, end, kind)
        if found is not None:
            return _intent(trim_trailing(found), "phrase")
    shaped = shape_goal(text, masked, len(masked) if material is None else material)
    if shaped is None or _anti_trigger(shaped):
        return None
    return _intent(shaped, "phrase")


# ---------------------------------------------------------------------------------------------
# Internals
# ---------------------------------------------------------------------------------------------


def _intent(goal: str, source: Source) -> GoalIntent:
    coarse = is_coarse(goal)
    return GoalIntent(goal, coarse, source, split_stages(goal) if coarse else ())


def _phrase_goal(text: str, masked: str, start: int, end: int, kind: str) -> str | None:
    """The cleaned goal after one phrase trigger, or None when an anti-trigger applies. An
    order ("get every test green") is its own goal: its text starts at the trigger."""
    line_start = masked.rfind("\n", 0, start) + 1
    line_end = masked.find("\n", end)
    line_end = len(masked) if line_end < 0 else line_end
    sentence = masked[line_start:start]
    if kind != "line":
        ends = list(_SENTENCE_END.finditer(sentence))
        if ends:
            sentence = sentence[ends[-1].end() :]
        if lead_rejects(kind, sentence, clause_of(sentence, kind)) or is_negated(sentence):
            return None
    if kind in IMPERATIVE_KINDS:
        end = start
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
    if kind in ("till", "upto"):
        till = _TILL_END.search(_mask(raw))
        if till is None and kind == "till" and not _TILL_ORDER.search(sentence):
            return None
        raw = raw[: till.start()] if till else raw
    goal = _clean(raw)
    if kind in ("en", "zh", "set") and (is_past(sentence) or is_past(goal)):
        return None  # "上个季度我们的目标是上线登录页，已经完成了": a report, not a goal
    if kind == "set" and not _SET_LEAD.fullmatch(clause_of(sentence, "until")):
        return None  # "we set a goal to …": the user's own account
    if not goal or goal.endswith(("?", "？")) or goal_rejects(kind, goal) or _anti_trigger(goal):
        return None
    return _with_order(text, start, end, sentence, kind, goal)


def _with_order(text: str, start: int, end: int, sentence: str, kind: str, goal: str) -> str:
    """An end to work towards keeps the order it ends: "Migrate the endpoints, keep working
    until the API tests pass" is that whole request, not "the API tests pass" alone. A bare
    "keep going until X" has no order before it: its goal is X."""
    if kind not in UNTIL_KINDS:
        return goal
    clause = clause_of(sentence, kind)
    order = _clean(sentence[: len(sentence) - len(clause)])
    if not order or _NO_ORDER.fullmatch(order):
        return goal
    lead = _clean(text[start - len(sentence) : end])
    joiner = " " if _ALNUM.match(goal[:1]) or goal[:1] == "`" else ""
    joiner = " " if _ALNUM.match(lead[-1:]) else joiner
    return f"{lead}{joiner}{goal}"


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


def _anti_trigger(goal: str) -> bool:
    """Trivial tasks and short goals that are neither architectural nor checkable."""
    if is_coarse(goal):
        return False
    if is_trivial(goal):
        return True
    if _word_weight(goal) >= MIN_WORDS * CJK_PER_WORD:
        return False
    return not (parse_verify_commands(goal) or prose_verify_kinds(goal))
