"""The mechanical anti-triggers of goal detection (seed 001 decision 8): cues in a prompt that a
goal phrase is not the user's own goal for the agent.

A phrase that reads like a goal often is not one. It can be *material*: text the user asks to
translate, summarize, proofread or quote back ("Translate to Chinese: My goal is …"). It can be
someone else's words ("my boss said: get every test green"), the user's own plan ("I'll keep
going until …"), a past event ("yesterday I kept going until …"), a hypothesis ("suppose our goal
is …"), or a description of code ("write a loop that keeps going until …"). Its end can be a time,
not a state of the work ("keep going until lunch"), or a question to answer ("goal: explain how
…"), or a trivial edit. Each cue is read from a fixed place: the start of the prompt, the
sentence before the trigger, the clause before it, or the goal text after it. Misses are cheap
(the user can type ``/goal``), so the cues lean towards "no goal". Pure; never raises.
"""

from __future__ import annotations

import re

from goalkeeper.core.text.lazy_re import lazy_re

Kind = str
"""The trigger's kind, as ``detect`` names it: ``line``, ``en``, ``zh``, ``until``, ``upto``,
``till``, ``get`` or ``zhget``."""

UNTIL_KINDS = frozenset({"until", "upto", "till"})
"""Triggers that state an end to work towards ("keep going until …", "一直做到 …")."""
IMPERATIVE_KINDS = frozenset({"get", "zhget"})
"""Triggers that are an order whose object is the end state ("get every test green")."""

# ---------------------------------------------------------------------------------------------
# Material: a request to transform the text that follows
# ---------------------------------------------------------------------------------------------

MATERIAL_WINDOW = 160
"""How far into the prompt the transform request's colon or question mark may be."""
_TRANSFORM = lazy_re(
    r"\A\s*(?:(?:can|could|would)\s+you\s+|please\s+|pls\s+|help\s+me\s+|kindly\s+)?"
    r"(?:translate|summari[sz]e|proofread|paraphrase|rephrase|reword|polish|quote|repeat|"
    r"echo|tl;?dr|copy[- ]?edit|(?:correct|fix|check)\s+the\s+(?:grammar|spelling))(?![A-Za-z])"
    r"|\A\s*[^，,。：:\n]{0,8}?(?:翻译|总结|概括|润色|复述|转述|改写|校对|摘要|照抄|原样)",
    re.IGNORECASE,
)
_MATERIAL_MARK = lazy_re(r"[:：?？]")


def material_start(masked: str) -> int | None:
    """Where the material starts when the prompt opens with a request to transform text that
    follows a colon or a question ("Summarize this email for me:", "帮我把这句话翻译成英文：");
    None otherwise. A goal phrase after that point belongs to the material."""
    if not _TRANSFORM.match(masked):
        return None
    mark = _MATERIAL_MARK.search(masked, 0, MATERIAL_WINDOW)
    return mark.end() if mark else None


# ---------------------------------------------------------------------------------------------
# The sentence and the clause before a trigger
# ---------------------------------------------------------------------------------------------

# Reported speech: a speech verb or hearsay marker before the trigger in the same sentence. A
# first-person speaker ("as I said, my goal is …") is still the user talking.
_REPORTED_EN = lazy_re(
    r"(?<![A-Za-z])(?:said|says|told|mentioned|claimed|claims|wrote|stated|explained|"
    r"according\s+to|reportedly|apparently|allegedly|supposedly)(?![A-Za-z])",
    re.IGNORECASE,
)
_FIRST_PERSON = lazy_re(
    r"(?:^|[^A-Za-z])(?:i|we)(?:['’](?:ve|d))?(?:\s+(?:already|just|also|have|had|previously))?\s*$",
    re.IGNORECASE,
)
_REPORTED_ZH = lazy_re(
    r"据说|听说|据称|据报道|传言|"
    r"(?:他|她|它|人家|有人|别人|对方|同事|老板|客户|用户|大家|老师|经理|领导)(?:们)?"
    r"(?:曾经?|也|还|又|就)?(?:说|讲|提到|表示|称|认为|觉得|写道|跟我说)"
)
_OPEN_QUOTE = lazy_re(r"[\"“「『']\s*$")
_HYPOTHESIS = lazy_re(
    r"(?<![A-Za-z])(?:if|suppose|supposing|imagine|assume|assuming|hypothetically|"
    r"what\s+if|in\s+case)(?![A-Za-z])"
    r"|如果|假设|假如|要是|假定|万一|倘若",
    re.IGNORECASE,
)
# What may stand before an order to the agent in its clause: nothing, or words addressing it.
_ADDRESS_EN = lazy_re(
    r"(?:\s|[,;:—–-]|please|pls|just|now|so|and|then|also|ok(?:ay)?|alright|right|you|"
    r"i\s+want\s+you\s+to|i\s+need\s+you\s+to|i['’]d\s+like\s+you\s+to|"
    r"you\s+(?:should|must|need\s+to|have\s+to))*",
    re.IGNORECASE,
)
_ADDRESS_ZH = lazy_re(r"(?:\s|请|你|您|麻烦|帮我|再|先|就|那就|然后|现在|并且?|接着|\x01)*")
_CLAUSE_EN = lazy_re(r"[,;:—–]|(?<![A-Za-z])(?:and|then)(?![A-Za-z])", re.IGNORECASE)
_CLAUSE_ZH = lazy_re(r"[，,；;：:、]")
# A clause whose subject is not the agent ("我会一直改到", "它会一直重试直到"), or that tells of
# the past ("昨天我一直改到", "已经").
_NOT_AGENT_ZH = lazy_re(r"[我他她它咱]|昨天|前天|上周|上次|之前|刚才|已经|曾经")
# The sentence asks for code that loops ("写一个单元测试，一直重试直到 …").
_CODE_ZH = lazy_re(r"写(?:一)?个|编写|实现(?:一)?个(?!功能)|新增(?:一)?个|让(?:这个|那个|它)")


def lead_rejects(kind: Kind, sentence: str, clause: str) -> bool:
    """Whether the text before a trigger shows it is not the user's goal for the agent:
    reported speech, an open quote, a hypothesis; for an order or an end to work towards, a
    clause that does not address the agent ("I'll keep going until", "make the loop keep going
    until"); in Chinese, a subject other than the agent, the past, or a request for code."""
    if _reported(sentence) or _HYPOTHESIS.search(sentence):
        return True
    if kind in ("get", "until"):
        scope = sentence if kind == "get" else clause
        return _ADDRESS_EN.fullmatch(scope) is None
    if kind == "zhget":
        return _ADDRESS_ZH.fullmatch(clause) is None
    if kind in ("upto", "till"):
        return bool(_NOT_AGENT_ZH.search(clause) or _CODE_ZH.search(sentence))
    return False


def clause_of(sentence: str, kind: Kind) -> str:
    """The clause of ``sentence`` that ends at the trigger: after its last comma, colon,
    semicolon or dash, or (in English) its last "and" or "then"."""
    pattern = _CLAUSE_ZH if kind in ("zhget", "upto", "till") else _CLAUSE_EN
    cuts = list(pattern.finditer(sentence))
    return sentence[cuts[-1].end() :] if cuts else sentence


def _reported(lead: str) -> bool:
    """Reported speech or hearsay before the trigger, in the same sentence."""
    if _REPORTED_ZH.search(lead):
        return True
    for m in _REPORTED_EN.finditer(lead):
        if not _FIRST_PERSON.search(lead[: m.start()]):
            return True
    stripped = lead.rstrip()
    return bool(_OPEN_QUOTE.search(stripped)) and bool(stripped[:-1].strip())


# ---------------------------------------------------------------------------------------------
# The goal text after a trigger
# ---------------------------------------------------------------------------------------------

_TRIVIAL = lazy_re(
    r"(?<![A-Za-z])(?:typos?|misspell\w*|spelling|whitespace|indentation|reformat\w*|"
    r"rename\s+(?:(?:a|the|this|that|one)\s+)?(?:local\s+)?"
    r"(?:variable|var|parameter|param|argument|field)s?|"
    r"format(?:ting)?\s+(?:the|this|that|a)\s+(?:file|code|line)s?|"
    r"(?:update|bump)\s+(?:the\s+)?(?:copyright|version)(?:\s+(?:year|number))?)(?![A-Za-z])"
    r"|错别字|笔误|拼写错误|改个名|改名字|重命名变量|变量改名|改下变量名|格式化|缩进|空格"
    r"|把(?:局部)?变量[^，,。]{0,30}?(?:改名|重命名)",
    re.IGNORECASE,
)
# An end that is a time or an event of the user's, not a state of the work.
_TIME_END = lazy_re(
    r"\A(?:lunch(?:time)?|noon|midnight|tonight|tomorrow|morning|evening|dinner|"
    r"(?:the\s+)?(?:morning|afternoon|evening|weekend)|(?:the\s+)?end\s+of\s+(?:the\s+)?"
    r"(?:day|week|sprint|meeting)|eod|\d{1,2}(?::\d{2})?\s*(?:am|pm|o['’]clock)|\d{1,2}:\d{2}|"
    r"\d{1,2}(?=\s*(?:[,;]|\.?\s*$|then\b|and\s+then\b))|"
    r"(?:i|we)\s+(?:get|come|am|are)\s+back|(?:i|we)['’](?:m|re)\s+back|(?:i|we)\s+return|"
    r"(?:i|we)\s+(?:say|tell\s+you)|you\s+hear\s+from\s+me|(?:my|our|the)\s+(?:meeting|call|"
    r"standup|break)|(?:next\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    r")(?![A-Za-z])"
    r"|\A(?:午饭|午餐|中午|午休|晚饭|晚上|下午|上午|早上|明天|明早|今晚|下班|周[一二三四五六日末]|"
    r"星期|[0-9一二三四五六七八九十两]+\s*点|我回来|我们回来|开完会|会议结束|天黑)",
    re.IGNORECASE,
)
# A goal that asks for an answer, not for a change to the work.
_QUESTION = lazy_re(
    r"\A(?:please\s+)?(?:explain|tell\s+me|describe|show\s+me|teach\s+me|walk\s+me\s+through|"
    r"help\s+me\s+understand|answer|what|why|how|who|where|which)(?![A-Za-z])"
    r"|\A(?:请|帮我|你)?(?:给我|跟我|帮我|向我)?(?:讲讲|讲一下|讲解|解释|告诉我|介绍|说明一下|说说|"
    r"回答|为什么|什么是|怎么|如何)",
    re.IGNORECASE,
)


def goal_rejects(kind: Kind, goal: str) -> bool:
    """Whether the goal text itself says it is no goal: a question to answer, or (after
    "until") a time instead of a state of the work."""
    if _QUESTION.match(goal):
        return True
    return kind in UNTIL_KINDS and _TIME_END.match(goal) is not None


def is_trivial(goal: str) -> bool:
    """A typo, a renamed variable, a formatted file: too small to hold a loop."""
    return _TRIVIAL.search(goal) is not None
