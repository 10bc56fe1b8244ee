"""Render catalog messages in the session's language.

``make_say(lang)`` returns the ``Say`` callable guards use; every model-facing or user-facing
sentence goes through it, so no guard holds inline text. Rendering never raises: a missing key
falls back to English, then to the key itself, and a missing field stays visible as ``{field}``
(a visible flaw beats a crashed hook). Pure; no I/O.
"""

from __future__ import annotations

from typing import Literal, Protocol

from goalkeeper.core.text.lang import detect_lang

Lang = Literal["en", "zh"]
LangSetting = Literal["auto", "en", "zh"]

# One catalog per language, assembled from one module per concern (cadence, todos, …): the
# general one (``en`` / ``zh``), then ``<concern>_<lang>``. A language's modules are imported
# the first time something is said in it, so an English session never loads the Chinese text.
CONCERNS = ("", "todos", "goal", "workflow", "modes", "trust", "proof", "security", "review")
_loaded: dict[str, dict[str, str]] = {}


def catalog(lang: Lang) -> dict[str, str]:
    """Every message of ``lang``, by key (the dictionary is shared: read it, do not change it)."""
    found = _loaded.get(lang)
    if found is None:
        from importlib import import_module

        found = {}
        for concern in CONCERNS:
            name = f"{concern}_{lang}" if concern else lang
            found.update(import_module(f"goalkeeper.core.messages.{name}").MESSAGES)
        _loaded[lang] = found
    return found


class Say(Protocol):
    def __call__(self, key: str, /, **fields: object) -> str: ...


class _KeepMissing(dict[str, object]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def render(lang: Lang, key: str, /, **fields: object) -> str:
    """Literal braces in a template are written ``{{`` and ``}}`` (str.format rules)."""
    template = catalog(lang).get(key) or catalog("en").get(key) or key
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
