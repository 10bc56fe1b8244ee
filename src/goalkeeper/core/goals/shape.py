"""The shape of a goal (issue 23): a request to the agent that carries its own completion
condition, read from the sentence rather than from a list of known phrases.

The phrase triggers of ``core.goals.detect`` know the sentences they were tuned on ("keep going
until", "一直做到", "get every test green"); users also write "一直做下去，直到 npm test 全部通过",
"所有测试通过为止", "you're done when the chaos tests pass", "修完再停". What these share is a
*completion condition* (until, till, only when, done when, 直到, 为止, 再停, 才算完成 …) inside a
sentence that asks the agent to act now. This module finds that sentence and rejects it when its
form says it is not an order to the agent: a question, the past, someone else's words, a quote, a
hypothesis, the user's own plan ("I'll keep going until"), a description of code or of a program
("this script runs until"), a negation ("no need to …"), a time bound ("until lunch") or a trivial
edit. A false trigger keeps an agent busy with work nobody asked for, so every doubt is a "no".

The goal it returns is the request with its condition, without what the user asks for after it
("…, then stop", "…，然后停下来总结"): that is an instruction for the end, not part of the goal.
Pure; no I/O; never raises.
"""

from __future__ import annotations

import re

from goalkeeper.core.goals.cues import goal_rejects, is_trivial, lead_rejects
from goalkeeper.core.text.lazy_re import lazy_re

__all__ = ["is_negated", "is_past", "shape_goal", "trim_trailing"]

MAX_SENTENCES = 24
"""Sentences examined per prompt: a goal is stated near the top; a longer prompt is pasted text."""
MAX_SENTENCE = 600
"""Characters in one sentence beyond which it is pasted text, not a request (and not re-read)."""

# A sentence ends at a full stop, a question or exclamation mark, or a line break.
_SENTENCE = lazy_re(r"[^。！？!?\n]+?(?:[。！？!?]+|\.(?=\s|$)|(?=\n)|$)")
# The completion condition. Hyphenated words ("--until-green") and code are not conditions.
_COND_EN = lazy_re(
    r"(?<![\w-])(?:until|till|til)(?![\w-])"
    r"|(?<![\w-])(?:only\s+)?(?:stop|finish)\s+only\s+(?:when|once|after)(?![\w-])"
    r"|(?<![\w-])only\s+(?:stop|finish|consider\s+it\s+done|call\s+it\s+done)\s+(?:when|once|after)"
    r"|(?<![\w-])(?:done|finished|complete|over)\s+(?:only\s+)?(?:when|once)(?![\w-])"
    r"|(?<![\w-])can\s+stop\s+only\s+(?:when|once|after)(?![\w-])"
    r"|(?<![\w-])(?:only\s+)?counts?\s+as\s+done\s+(?:when|once)(?![\w-])",
    re.IGNORECASE,
)
_COND_ZH = lazy_re(
    r"直到|为止|再停|才算(?:完成|结束|完|数|好)|才(?:能|可以)停"
    r"|(?:做|改|修|干|弄|搞|试|跑|优化|迭代|提|压|降)(?:下去)?到(?!底)"
)
# What makes a sentence something other than an order to the agent, now.
_PAST_EN = lazy_re(
    r"(?<![A-Za-z])(?:yesterday|last\s+(?:week|month|year|sprint|quarter|time|night)|previously|"
    r"ago|was|were|did|kept|worked|went|had|got|shipped|dropped|used\s+to)"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)
_PAST_ZH = lazy_re(r"昨天|前天|上周|上次|上个|去年|以前|之前|当时|曾经|已经|后来|刚才|那时")
_DONE_ZH = lazy_re(r"(?:完成|做到|上线|实现|做完|达到|搞定)了")
_QUESTION_EN = lazy_re(
    r"\A\W*(?:what|why|how|when|which|who|where|should|shall|is|are|do|does|did|can\s+you\s+"
    r"(?:explain|tell)|could|would)(?![A-Za-z])",
    re.IGNORECASE,
)
_QUESTION_ZH = lazy_re(r"吗|呢|要不要|是不是|有没有|能不能|什么|怎么|为什么|是否|多久|多少")
# A subject other than the agent: the user's plan, someone else, a program.
_SUBJECT_EN = lazy_re(
    r"\A\W*(?:i|we|he|she|they|it|this|that|these|those|the|a|an|my|our|his|her|their|"
    r"someone|somebody|everyone|nobody|i['’]ll|we['’]ll|i['’]m|we['’]re|it['’]s|that['’]s)"
    r"(?![A-Za-z'’])",
    re.IGNORECASE,
)
_ADDRESS_EN = lazy_re(
    r"\A\W*(?:i\s+(?:want|need)\s+you\s+to|i['’]d\s+like\s+you\s+to)(?![A-Za-z])",
    re.IGNORECASE,
)
_SUBJECT_ZH = lazy_re(r"[我他她它]|咱|这个(?:脚本|程序|函数|循环|代理)|那个|代理|脚本会|程序会")
_HELPER_ZH = lazy_re(r"帮我|给我|跟我|告诉我|让我")
_NEGATION_EN = lazy_re(
    r"(?<![A-Za-z])(?:(?:don['’]?t|do\s+not|no\s+need\s+to|never)\s+(?:keep|continue|go\s+on|"
    r"work|bother|need)|no\s+need)(?![A-Za-z])",
    re.IGNORECASE,
)
_NEGATION_ZH = lazy_re(r"不用|不需要|没必要|不必|别再")
_CODE_EN = lazy_re(
    r"(?<![A-Za-z])(?:write|implement|add|create|make)\s+(?:a|an|the|me\s+a)\s+(?:[\w-]+\s+){0,3}?"
    r"(?:loop|function|helper|script|method|flag|option|command|decorator|class|hook|job)"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)
# "a progress bar that keeps going until …": a description of something to build.
_RELATIVE_EN = lazy_re(
    r"(?<![A-Za-z])(?:that|which|who)\s+(?:keeps?|runs?|loops?|retries|waits?|polls?|goes|"
    r"continues|blocks|spins|repeats)(?![A-Za-z])",
    re.IGNORECASE,
)
# Waiting, reading or holding back until something: a bound on an action, not work to finish.
_WAIT_EN = lazy_re(
    r"\A\W*(?:please\s+|just\s+|only\s+)?(?:wait|sleep|scroll|read|hold(?:\s+off)?|pause|idle|"
    r"stay|sit|look|browse|skim|listen)(?![A-Za-z])"
    r"|(?<![A-Za-z])(?:don['’]?t|do\s+not|never|no)\s+(?!stop|give\s+up|quit|report|come\s+back|"
    r"return|finish|end|rest|let\s+up)[A-Za-z]+",
    re.IGNORECASE,
)
_WAIT_ZH = lazy_re(r"\A\W*(?:先|请|你)?(?:等|读|看|滚|翻|停在|别动|不要动)")
# An end that is a place in what is read, or the user's next move: "until line 50", "直到这里".
_PLACE_END = lazy_re(
    r"\A(?:(?:line|page|row|step|chapter|section)\s+\d|the\s+(?:first|next|last|end)\b|"
    r"you\s+(?:see|find|hit|reach|get\s+to|notice)\b|here\b|this\s+point|now\b)"
    r"|\A(?:这|那|此|第\s*\d)",
    re.IGNORECASE,
)
_CODE_ZH = lazy_re(r"写一?个|编写|实现一?个(?!功能)|新增一?个|加一?个")
_QUOTES = lazy_re(r"[\"“”「」『』]")
# The clause of a sentence that starts a condition sentence of its own ("You're done when …",
# "只有 … 才能停"): its task is in the sentence before.
_DONE_LEAD = lazy_re(
    r"\A\W*(?:you['’]re|you\s+are|it['’]s|it\s+is|the\s+task\s+is|it\s+only|only|you\s+can|"
    r"the\s+(?:job|work|task)\s+(?:is|only)|"
    r"done|finished)(?![A-Za-z])|\A\W*只有",
    re.IGNORECASE,
)
# What the user asks for once the goal is reached: not part of the goal.
_TRAILING = lazy_re(
    r"(?:[,;:—–]\s*|\s+)(?:and\s+)?(?:then\s+|after\s+that\s+|afterwards\s+)"
    r"(?:stop|summari[sz]e|report|tell\s+me|push|commit|ping\s+me|let\s+me\s+know|wait|pause|"
    r"halt|open\s+a\s+pr)(?![A-Za-z]).*\Z"
    r"|[，,；;]\s*(?:然后|之后|接着|完了|再)?\s*(?:停下|停止|停|总结|汇报|告诉我|通知我|提交|推送)"
    r"(?!到).*\Z",
    re.IGNORECASE | re.DOTALL,
)
_VAGUE = lazy_re(
    r"(?:(?:it['’]?s\s+|it\s+is\s+|you['’]re\s+|you\s+are\s+)?(?:done|finished|complete|"
    r"perfect|good|good\s+enough|ready|over|satisfied|happy|ok|okay)|完美|完|好|结束|满意|可以|"
    r"差不多|没问题)(?:为止|再停|了)?",
    re.IGNORECASE,
)
_EDGE = " \t\n,，;；:：.。!！-—–"


def trim_trailing(goal: str) -> str:
    """``goal`` without the instruction for its end: "X until Y, then stop" is "X until Y"."""
    cut = _TRAILING.search(goal)
    trimmed = goal[: cut.start()] if cut else goal
    trimmed = trimmed.strip(_EDGE)
    return trimmed or goal


def is_past(text: str) -> bool:
    """Whether ``text`` tells of the past ("last quarter our goal was", "已经完成了")."""
    return bool(_PAST_EN.search(text) or _PAST_ZH.search(text) or _DONE_ZH.search(text))


def is_negated(lead: str) -> bool:
    """Whether the words before a goal phrase waive it ("no need to", "不用一直做到")."""
    return bool(_NEGATION_EN.search(lead) or _NEGATION_ZH.search(lead))


def shape_goal(text: str, masked: str, limit: int) -> str | None:
    """The first sentence before ``limit`` of ``masked`` (the prompt with code and quotes
    blanked) that asks the agent to reach a completion condition, as a goal taken from ``text``;
    None when there is none."""
    previous = ""
    for count, m in enumerate(_SENTENCE.finditer(masked, 0, limit)):
        if count >= MAX_SENTENCES:
            break
        sentence = m.group(0)
        if len(sentence) > MAX_SENTENCE:
            return None
        cond = _COND_EN.search(sentence) or _COND_ZH.search(sentence)
        if cond is not None and not _rejects(sentence, cond.start(), cond.end()):
            goal = text[m.start() : m.end()].strip(_EDGE)
            if _DONE_LEAD.match(sentence) and previous:
                goal = f"{previous} {goal}"
            goal = trim_trailing(goal)
            if is_trivial(goal):
                return None
            if _VAGUE.fullmatch(sentence[cond.end() :].strip(_EDGE)):
                return None  # "keep going until done", "一直做到完美为止": no end to reach
            return goal
        if sentence.strip(_EDGE):
            previous = text[m.start() : m.end()].strip(" \t\n")
    return None


def _rejects(sentence: str, start: int, end: int) -> bool:
    """Whether the form of the sentence says it is no order to the agent."""
    body = sentence.strip()
    if "\x01" in sentence[start:end] or body.endswith(("?", "？")):
        return True
    lead = sentence[:start]
    after = sentence[end:].strip(_EDGE)
    if not after and not lead.strip(_EDGE):
        return True
    if _QUOTES.search(sentence) or lead_rejects("shape", lead, lead):
        return True
    if after and (goal_rejects("until", after) or _PLACE_END.match(after)):
        return True  # "until lunch", "直到下班为止", "until line 50"
    cjk = _COND_ZH.search(sentence) is not None and _COND_EN.search(sentence) is None
    if cjk:
        bare = _HELPER_ZH.sub("", sentence)
        return bool(
            _PAST_ZH.search(sentence)
            or _QUESTION_ZH.search(sentence)
            or _SUBJECT_ZH.search(bare[:start])
            or _NEGATION_ZH.search(sentence)
            or _CODE_ZH.search(lead)
            or _WAIT_ZH.match(sentence)
            or after.startswith(("我", "咱"))
        )
    address = _ADDRESS_EN.match(lead)
    if address is not None:
        lead = lead[address.end() :]
    elif _SUBJECT_EN.match(lead) and not _DONE_LEAD.match(sentence):
        return True
    return bool(
        _PAST_EN.search(sentence)
        or _QUESTION_EN.match(body)
        or _NEGATION_EN.search(lead)
        or _CODE_EN.search(lead)
        or _RELATIVE_EN.search(lead)
        or _WAIT_EN.search(lead)
    )
