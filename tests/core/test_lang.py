"""The CJK test every reader shares: the same verdict as the plain ``[\\u3400-\\u9fff]`` class,
for every character, read from the UTF-8 bytes (``core/text/lang``)."""

from __future__ import annotations

import re

from goalkeeper.core.text.lang import count_cjk, detect_lang, has_cjk, is_cjk

PLAIN = re.compile(r"[\u3400-\u9fff]")


def test_every_character_is_judged_as_the_plain_class_judges_it() -> None:
    for cp in [*range(0x80, 0xD800), *range(0xE000, 0x110000, 7)]:
        char = chr(cp)
        text = f"a{char}→{char}"
        want = len(PLAIN.findall(text))
        assert count_cjk(text) == want, hex(cp)
        assert has_cjk(text) is (want > 0), hex(cp)
        assert is_cjk(char) is (want > 0), hex(cp)


def test_a_lone_surrogate_is_not_cjk_and_does_not_raise() -> None:
    assert not has_cjk("\ud800 plan")
    assert count_cjk("\udfff中") == 1


def test_the_language_of_a_text() -> None:
    assert detect_lang("目标：把测试跑通 → done") == "zh"
    assert detect_lang("goal: 0 → 1 failing tests") == "en"
    assert detect_lang("x" * 5000 + "中文") == "en"  # only the first few kilobytes count
