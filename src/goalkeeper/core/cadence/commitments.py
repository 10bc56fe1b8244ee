"""Commitments change only with the user (issue 11, item 3).

The plan's objective, key results and story-map leaves are what the user was promised. The
agent may cut one with a concrete reason (seed 000: "完成 = 每个承诺都有证据，或已被显式取消并留下
理由"), but cancelling most of the open commitments in one cycle (between two messages of the
user), or all of them, or rewriting the objective, is a material change: a close is held until
the user accepts the plan as it is (``goalkeeper plan accept``, or the host's dialog). Deleting a
commitment counts as cancelling it. A reason that says nothing ("not needed", "n/a", "不需要")
is no reason. Pure; no I/O.
"""

from __future__ import annotations

import re

from msgspec import Struct

from goalkeeper.core.cadence.plan import Plan
from goalkeeper.core.text.lang import count_cjk
from goalkeeper.core.text.lazy_re import lazy_re

_REASON_TAIL = lazy_re(
    r"\s*(?:[(（]\s*(?:cancel(?:l?ed)?|取消|已取消|作废)\s*[:：][^)）]*[)）]"
    r"|\s[—–-]{1,2}\s.*|[(（][^)）]*[)）])\s*$",
    re.IGNORECASE,
)
_VAGUE = lazy_re(
    r"^(?:not\s+(?:needed|necessary|required|relevant|important|applicable)|no\s+longer\s+"
    r"(?:needed|necessary|required|relevant)|unneeded|unnecessary|irrelevant|n/?a|none|skip(?:ped)?"
    r"|out\s+of\s+scope|won'?t\s+(?:do|fix)|wontfix|later|tbd|todo|obsolete|deprecated|done|ok"
    r"|no\s+time|time|too\s+hard|hard|blocked|cancel(?:l?ed)?|removed|dropped|not\s+now"
    r"|不需要|不必要|无需|不用|没必要|跳过|以后|暂不|不做|不相关|范围外|超出范围|已完成|取消|没时间|太难)$",
    re.IGNORECASE,
)
MIN_REASON_WORDS = 2  # "nobody asked" says why; "later" does not
MIN_REASON_CJK = 4


class Commitments(Struct, frozen=True):
    """What the user was promised at the start of a cycle: the objective and the open items."""

    objective: str | None
    open_items: tuple[str, ...]


class MaterialChange(Struct, frozen=True):
    """A change of the plan only the user may accept: the objective rewritten, or most or all
    open commitments dropped (cancelled or deleted)."""

    objective_changed: bool
    dropped: tuple[str, ...]
    total: int


def item_key(text: str) -> str:
    """A commitment's identity: its text without a cancellation reason, case and spacing."""
    previous = None
    key = text
    while previous != key:  # "(cancelled: x) — y" can carry more than one tail
        previous = key
        key = _REASON_TAIL.sub("", key)
    return re.sub(r"\s+", " ", key).strip().lower()


def commitments_of(plan: Plan) -> Commitments:
    keys = [item_key(kr.text) for kr in plan.key_results if kr.state == "open"]
    keys += [item_key(leaf.text) for leaf in plan.leaves if leaf.state == "open"]
    objective = _norm(plan.objective) if plan.objective else None
    return Commitments(objective, tuple(dict.fromkeys(keys)))


def judge_commitments(baseline: Commitments, plan: Plan) -> MaterialChange | None:
    """None when the plan keeps the cycle's promise closely enough for the agent to close on
    its own; else what changed. One cancellation (with a reason) is the agent's to make."""
    kept = {item_key(kr.text) for kr in plan.key_results if kr.state != "cancelled"}
    kept |= {item_key(leaf.text) for leaf in plan.leaves if leaf.state != "cancelled"}
    dropped = tuple(k for k in baseline.open_items if k not in kept)
    total = len(baseline.open_items)
    objective_changed = (
        baseline.objective is not None
        and plan.objective is not None
        and _norm(plan.objective) != baseline.objective
    ) or (baseline.objective is not None and plan.objective is None)
    most = len(dropped) >= 2 and 2 * len(dropped) > total
    if objective_changed or most:
        return MaterialChange(objective_changed, dropped, total)
    return None


def commitments_digest(plan: Plan) -> str:
    """What the user accepts with ``goalkeeper plan accept``: the objective and every item with
    its state, so a later change needs accepting again."""
    import hashlib

    parts = [f"objective:{_norm(plan.objective or '')}"]
    parts += [f"kr:{kr.state}:{item_key(kr.text)}" for kr in plan.key_results]
    parts += [f"leaf:{leaf.state}:{item_key(leaf.text)}" for leaf in plan.leaves]
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def vague_cancellations(plan: Plan) -> tuple[str, ...]:
    """Cancelled items whose reason says nothing about why."""
    items = [(kr.text, kr.reason) for kr in plan.key_results if kr.state == "cancelled"]
    items += [(leaf.text, leaf.reason) for leaf in plan.leaves if leaf.state == "cancelled"]
    return tuple(text for text, reason in items if reason is not None and is_vague(reason))


def is_vague(reason: str) -> bool:
    """A reason too short or too generic to say why (``not needed``, ``n/a``, ``不需要``)."""
    text = re.sub(r"[\s.。!！,，;；]+$", "", reason.strip())
    if _VAGUE.match(text):
        return True
    cjk = count_cjk(text)
    if cjk:
        return cjk < MIN_REASON_CJK and len(text.split()) < MIN_REASON_WORDS
    return len(text.split()) < MIN_REASON_WORDS


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()
