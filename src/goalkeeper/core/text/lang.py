"""Which language a text is written in, as far as goalkeeper speaks it: Chinese or English.

One test for every reader (the plan, the session's prompts, the message catalog), so a session
never reads as Chinese in one place and English in another. Pure; no I/O.
"""

from __future__ import annotations

from typing import Literal

from goalkeeper.core.text.lazy_re import lazy_re

CJK_FIRST, CJK_LAST = "\u3400", "\u9fff"
"""CJK unified ideographs (extension A and the main block): what counts as Chinese."""

_CJK_UTF8 = lazy_re(r"[\xe4-\xe9]|\xe3[\x90-\xbf]")
"""The same characters in UTF-8 read as Latin-1: each is one lead byte E4–E9 (U+4000–U+9FFF)
or E3 followed by 90–BF (U+3400–U+3FFF), and a continuation byte (80–BF) is never either.
``[\\u3400-\\u9fff]`` would say the same, but the regex compiler builds a 64 K-entry map for
it, ~2 ms of every session's first event; this class compiles in microseconds."""


def _as_bytes_text(text: str) -> str:
    return text.encode("utf-8", "surrogatepass").decode("latin-1")


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a CJK character."""
    return not text.isascii() and _CJK_UTF8.search(_as_bytes_text(text)) is not None


def count_cjk(text: str) -> int:
    """How many CJK characters ``text`` holds."""
    return 0 if text.isascii() else len(_CJK_UTF8.findall(_as_bytes_text(text)))


def is_cjk(char: str) -> bool:
    """Whether the one character ``char`` is a CJK character."""
    return CJK_FIRST <= char <= CJK_LAST


def detect_lang(text: str) -> Literal["en", "zh"]:
    """Chinese when the text holds CJK characters in its first few kilobytes, else English."""
    return "zh" if has_cjk(text[:4096]) else "en"
