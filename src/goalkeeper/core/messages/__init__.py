"""Render catalog messages in the session's language.

``make_say(lang)`` returns the ``Say`` callable guards use; every model-facing or user-facing
sentence goes through it, so no guard holds inline text. Rendering never raises: a missing key
falls back to English, then to the key itself, and a missing field stays visible as ``{field}``
(a visible flaw beats a crashed hook). Pure; no I/O.
"""

from __future__ import annotations

from typing import Literal, Protocol

from goalkeeper.core.messages import en as catalog_en
from goalkeeper.core.messages import goal_en as catalog_goal_en
from goalkeeper.core.messages import goal_zh as catalog_goal_zh
from goalkeeper.core.messages import modes_en as catalog_modes_en
from goalkeeper.core.messages import modes_zh as catalog_modes_zh
from goalkeeper.core.messages import proof_en as catalog_proof_en
from goalkeeper.core.messages import proof_zh as catalog_proof_zh
from goalkeeper.core.messages import todos_en as catalog_todos_en
from goalkeeper.core.messages import todos_zh as catalog_todos_zh
from goalkeeper.core.messages import trust_en as catalog_trust_en
from goalkeeper.core.messages import trust_zh as catalog_trust_zh
from goalkeeper.core.messages import workflow_en as catalog_workflow_en
from goalkeeper.core.messages import workflow_zh as catalog_workflow_zh
from goalkeeper.core.messages import zh as catalog_zh
from goalkeeper.core.text.lang import detect_lang

Lang = Literal["en", "zh"]
LangSetting = Literal["auto", "en", "zh"]

# One catalog per language, assembled from one module per concern (cadence, todos, …).
CATALOGS: dict[Lang, dict[str, str]] = {
    "en": {
        **catalog_en.MESSAGES,
        **catalog_todos_en.MESSAGES,
        **catalog_goal_en.MESSAGES,
        **catalog_workflow_en.MESSAGES,
        **catalog_modes_en.MESSAGES,
        **catalog_trust_en.MESSAGES,
        **catalog_proof_en.MESSAGES,
    },
    "zh": {
        **catalog_zh.MESSAGES,
        **catalog_todos_zh.MESSAGES,
        **catalog_goal_zh.MESSAGES,
        **catalog_workflow_zh.MESSAGES,
        **catalog_modes_zh.MESSAGES,
        **catalog_trust_zh.MESSAGES,
        **catalog_proof_zh.MESSAGES,
    },
}


class Say(Protocol):
    def __call__(self, key: str, /, **fields: object) -> str: ...


class _KeepMissing(dict[str, object]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def render(lang: Lang, key: str, /, **fields: object) -> str:
    """Literal braces in a template are written ``{{`` and ``}}`` (str.format rules)."""
    template = CATALOGS[lang].get(key) or CATALOGS["en"].get(key) or key
    try:
        return template.format_map(_KeepMissing(fields))
    except (ValueError, IndexError, AttributeError, KeyError):
        return template


def make_say(lang: Lang) -> Say:
    def say(key: str, /, **fields: object) -> str:
        return render(lang, key, **fields)

    return say


def resolve_lang(setting: LangSetting, *samples: str | None) -> Lang:
    """``auto`` follows the first sample that has text (the plan, then the user's words)."""
    if setting != "auto":
        return setting
    for sample in samples:
        if sample:
            return detect_lang(sample)
    return "en"
