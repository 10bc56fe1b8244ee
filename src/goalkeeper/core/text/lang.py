"""Which language a text is written in, as far as goalkeeper speaks it: Chinese or English.

One test for every reader (the plan, the session's prompts, the message catalog), so a session
never reads as Chinese in one place and English in another. Pure; no I/O.
"""

from __future__ import annotations

from typing import Literal

from goalkeeper.core.text.lazy_re import lazy_re

CJK = lazy_re(r"[\u3400-\u9fff]")


def detect_lang(text: str) -> Literal["en", "zh"]:
    """Chinese when the text holds CJK characters in its first few kilobytes, else English."""
    return "zh" if CJK.search(text[:4096]) else "en"
