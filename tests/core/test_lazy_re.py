"""A lazy pattern answers exactly as the compiled one, and compiles only when first used."""

from __future__ import annotations

import re

from goalkeeper.core.text.lazy_re import lazy_re


def test_a_lazy_pattern_is_not_compiled_until_it_is_used() -> None:
    pattern = lazy_re(r"(unbalanced")  # compiling would raise: it must not happen yet
    assert pattern.pattern == "(unbalanced"


def test_every_method_answers_as_the_compiled_pattern() -> None:
    text = "FAILED tests/a.py::t1 - x\nfailed tests/b.py::t2\nok"
    compiled = re.compile(r"^failed\s+(\S+)", re.IGNORECASE | re.MULTILINE)
    for first in ("search", "findall", "sub", "split"):  # whichever method compiles it
        lazy = lazy_re(r"^failed\s+(\S+)", re.IGNORECASE | re.MULTILINE)
        getattr(lazy, first)(*(("-", text) if first == "sub" else (text,)))
        assert lazy.search(text).group(1) == compiled.search(text).group(1)  # type: ignore[union-attr]
        assert lazy.match(text, 0) is not None and lazy.fullmatch("failed x") is not None
        assert [m.span() for m in lazy.finditer(text)] == [
            m.span() for m in compiled.finditer(text)
        ]
        assert lazy.findall(text) == compiled.findall(text)
        assert lazy.sub("-", text) == compiled.sub("-", text)
        assert lazy.subn("-", text, 1) == compiled.subn("-", text, 1)
        assert lazy.split(text) == compiled.split(text)


def test_after_its_first_use_a_lazy_pattern_calls_the_compiled_methods_directly() -> None:
    lazy = lazy_re(r"\d+")
    assert lazy.search("a1") is not None
    assert lazy.search == lazy.compiled.search  # the bound method of re.Pattern, no wrapper
