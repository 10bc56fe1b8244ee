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

from goalkeeper.core.goals.verify import parse_verify_commands, prose_verify_kinds
from goalkeeper.core.text.mdcode import blank_spans, inline_code_spans


def _words(text: str) -> frozenset[str]:
    """A word list written as prose: easier to read and extend than a column of strings."""
    return frozenset(text.split())


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
MAX_FILES = 5
"""Seed 001 decision 7: a goal naming more than five files is coarse."""
MIN_MODULES = 3
"""What "several modules" means: one module is a fix, two is a fix and its caller, three is a
change across the system."""


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
_ARCH = re.compile(
    r"(?<![A-Za-z])(?:architect\w*|re-?architect\w*|re-?design\w*|re-?writ\w*|migrat\w*|"
    r"overhaul\w*|end-to-end\s+system|multi-?module|multi-?package|"
    r"(?:multiple|several|many)\s+(?:modules|packages|services|components|subsystems)|"
    r"across\s+(?:all\s+|the\s+|multiple\s+|several\s+)?(?:modules|packages|services|codebase)|"
    r"(?:whole|entire)\s+(?:codebase|code\s+base|system|project|application|repo|repository)|"
    r"from\s+scratch|large-scale|system-wide|codebase-wide)(?![A-Za-z])"
    r"|架构|重构|迁移|多模块|整体|重写|全面改造|系统性|跨模块|多个模块|各个模块|所有模块|"
    r"端到端系统|从零开始|推倒重来|整个项目|整个系统",
    re.IGNORECASE,
)
_PATH_TOKEN = re.compile(r"[A-Za-z0-9_.~/\\-]+")
_EXTENSION = re.compile(
    r"[A-Za-z0-9_-]\.(?:py|pyi|js|jsx|ts|tsx|mjs|cjs|go|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|"
    r"swift|scala|sh|md|rst|txt|json|ya?ml|toml|ini|cfg|html|css|scss|vue|svelte|sql|proto|xml|"
    r"gradle|lock)$",
    re.IGNORECASE,
)
_NOT_FILES = frozenset(
    {"node.js", "vue.js", "next.js", "nuxt.js", "react.js", "express.js", "three.js", "d3.js"}
    | {"chart.js", "ember.js", "angular.js", "backbone.js", "nest.js", "deno.js"}
)
_MODULE_NAMED = re.compile(
    r"(?<![A-Za-z0-9_-])([A-Za-z][\w.-]*)\s+"
    r"(?:module|package|service|crate|component|subsystem|library)(?![A-Za-z])",
    re.IGNORECASE | re.ASCII,
)
# Lists before a plural ("the auth, billing and search modules", "认证、计费和搜索模块") are read
# backwards from the plural by hand over a bounded window: a regex for "name (, name)* and name"
# backtracks quadratically on a long comma-separated line.
_PLURAL = re.compile(
    r"(?<![A-Za-z])(?:modules|packages|services|crates|components|subsystems|libraries)"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)
_LIST_TOKEN = re.compile(r"[A-Za-z][\w.-]*|[,&]", re.ASCII)
_LIST_JOINERS = frozenset({",", "&", "and", "or"})
_LIST_WINDOW = 200
_MODULE_ROOT = re.compile(
    r"(?<![\w/.-])(?:packages|apps|modules|services|crates|libs|internal|cmd|pkg)/([\w.-]+)",
    re.ASCII,
)
_ZH_NAME = r"(?:(?<![A-Za-z0-9_-])[A-Za-z0-9_-]+|[\u4e00-\u9fff]{1,4}?)"
_ZH_MODULE_WORD = r"(?:模块|子系统|组件|服务(?!器))"
_MODULE_ZH = re.compile(rf"({_ZH_NAME})\s*{_ZH_MODULE_WORD}")
_ZH_PLURAL = re.compile(_ZH_MODULE_WORD)
_ZH_BREAK = re.compile(r"[。！？；;：:\n（）()]")
_ZH_SPLIT = re.compile(r"\s*(?:[、，,]|以及|和|及|与)\s*")
_NOT_MODULES = _words(
    "the a an this that these those each every any one single new same other another which "
    "whole entire main python node npm go rust java js typescript javascript pip pypi its our "
    "their my your"
)

# ---------------------------------------------------------------------------------------------
# Stages
# ---------------------------------------------------------------------------------------------

_LIST_MARK = r"(?:(?:\d{1,3}[.)]|[(（]\d{1,3}[)）]|[-*+•])[ \t]+|\d{1,3}、[ \t]*)"
_STAGE_SEP = re.compile(
    rf"(?:^|\n)[ \t]*{_LIST_MARK}"
    r"|(?<![A-Za-z0-9])(?:\d{1,2}\)|[(（]\d{1,2}[)）])[ \t]*"
    r"|(?:[,，][ \t]*)?(?<![A-Za-z])(?:and[ \t]+)?then(?![A-Za-z])"
    r"|[,，;；][ \t]*(?:(?:and[ \t]+)?finally|lastly|最后|其次|随后)(?![A-Za-z])"
    r"|[;；]|→|[ \t]->[ \t]|然后再?|接着|(?<![不一])再(?![次见生])"
    r"|[:：][ \t]*(?=(?:first(?:ly)?|首先|先)(?![A-Za-z进生前]))",
    re.IGNORECASE,
)
# The separators that follow an introduction ("Rewrite the store:" before "1. …" or before
# "first …"): the introduction is the goal itself, not one of its stages.
_INTRO_SEP = re.compile(rf"\n?[ \t]*{_LIST_MARK}|[:：][ \t]*")
_LIST_ITEM = re.compile(rf"^[ \t]*{_LIST_MARK}")
_STAGE_LEAD = re.compile(
    r"^(?:(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|next|finally|lastly|and|then|after\s+that)"
    r"(?![A-Za-z])[,，]?\s*"
    r"|(?:首先|其次|然后|接着|最后|第[一二三四五六七八九十\d]+步)[:：，,]?\s*"
    r"|先(?![进生前]))+",
    re.IGNORECASE,
)
_STAGE_TRIM = " \t\n,，、;；.。:：-—–"

# ---------------------------------------------------------------------------------------------
# Text helpers
# ---------------------------------------------------------------------------------------------

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_ALNUM = re.compile(r"[A-Za-z0-9]")
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "「": "」", "『": "』"}


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


def _mask_inline(text: str) -> str:
    """Inline code spans filled with a control character: neither a separator nor a space."""
    lines = text.split("\n")
    return "\n".join(blank_spans(line, inline_code_spans(line), "\x01") for line in lines)


def _unquote(text: str) -> str:
    while len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        text = text[1:-1].strip()
    return text


def _clean(raw: str) -> str:
    """Whitespace collapsed per line, blank lines dropped, leading punctuation, trailing full
    stops and surrounding quotes removed. Line breaks stay: they separate listed stages."""
    lines = (" ".join(line.split()) for line in raw.split("\n"))
    text = "\n".join(line for line in lines if line)
    for _ in range(3):
        text = text.lstrip(" \n:：,，-—–").rstrip(" \n.。!！")
        text = _unquote(text)
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


def is_coarse(text: str) -> bool:
    """Seed 001 decision 7: an architecture word, more than ``MAX_FILES`` files, or at least
    ``MIN_MODULES`` modules named. Never raises."""
    if _ARCH.search(text):
        return True
    return len(_files(text)) > MAX_FILES or len(_modules(text)) >= MIN_MODULES


def split_stages(text: str) -> tuple[str, ...]:
    """The stages of a goal in order: split at "then", "and then", list items, ";", "；", "然后",
    "再" and "→"; trimmed, connectors ("first", "先", "最后") dropped, empty parts skipped. An
    introduction ending in a colon before a list or a "first" is the goal, not a stage, and is
    dropped. Text in backticks is never split. Never raises."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    masked = _mask_inline(text)
    pieces: list[str] = []
    intro = False  # the first piece introduces the others
    last = 0
    for m in _STAGE_SEP.finditer(masked):
        pieces.append(text[last : m.start()])
        if len(pieces) == 1:
            colon = pieces[0].rstrip().endswith((":", "：")) or m.group(0).startswith((":", "："))
            intro = colon and _INTRO_SEP.fullmatch(m.group(0)) is not None
        last = m.end()
    pieces.append(text[last:])
    if len(pieces) >= 3 and intro:
        pieces = pieces[1:]
    stages = (_stage(piece) for piece in pieces)
    return tuple(s for s in stages if s)


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
        if not _LIST_ITEM.match(masked[pos + 1 : nxt]):
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


def _files(text: str) -> set[str]:
    found: set[str] = set()
    for raw in _PATH_TOKEN.findall(text):
        token = raw.rstrip(".-")
        if not token or token.startswith("//") or token.lower() in _NOT_FILES:
            continue
        if "/" in token or "\\" in token:
            slashes = token.count("/") + token.count("\\")
            if (
                _EXTENSION.search(token)
                or slashes >= 2
                or token.startswith(("./", "../", "~/", "/"))
                or raw.endswith("/")
            ):
                found.add(token.rstrip("/\\"))
        elif _EXTENSION.search(token):
            found.add(token)
    return found


def _modules(text: str) -> set[str]:
    """The distinct module names a text mentions: "X module", "X, Y and Z modules",
    ``packages/x``, "X模块", "X、Y和Z模块"."""
    names: set[str] = set()
    for m in _MODULE_NAMED.finditer(text):
        if m.group(1).lower() not in _NOT_MODULES:
            names.add(m.group(1).lower())
    for m in _PLURAL.finditer(text):
        names.update(_listed_before(text[max(0, m.start() - _LIST_WINDOW) : m.start()]))
    names.update(m.group(1).lower() for m in _MODULE_ROOT.finditer(text))
    names.update(m.group(1) for m in _MODULE_ZH.finditer(text))
    previous = 0
    for m in _ZH_PLURAL.finditer(text):
        window = text[max(previous, m.start() - _LIST_WINDOW) : m.start()]
        breaks = list(_ZH_BREAK.finditer(window))
        window = window[breaks[-1].end() :] if breaks else window
        items = [item.strip() for item in _ZH_SPLIT.split(window) if item.strip()]
        if len(items) >= 2:
            names.update(items)
        previous = m.end()
    return names


def _listed_before(window: str) -> list[str]:
    """The names of "a, b and c" at the end of ``window``, read backwards; a single name (no
    list) is left to the singular rule."""
    tokens = _LIST_TOKEN.findall(window)
    items: list[str] = []
    i = len(tokens) - 1
    while i >= 0:
        name = tokens[i].lower()
        if name in _LIST_JOINERS or name in _NOT_MODULES:
            break
        items.append(name)
        i -= 1
        joined = False
        while i >= 0 and tokens[i].lower() in _LIST_JOINERS:
            joined, i = True, i - 1
        if not joined:
            break
    return items if len(items) >= 2 else []


def _stage(piece: str) -> str:
    stage = " ".join(piece.split()).strip(_STAGE_TRIM)
    stage = _STAGE_LEAD.sub("", stage).strip(_STAGE_TRIM)
    return _unquote(stage)
