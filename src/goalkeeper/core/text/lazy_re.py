"""Regular expressions compiled when first used, not when their module is imported.

A hook's first event imports most of goalkeeper, and compiling the ~150 module-level patterns
of the goal, plan and test-output readers cost ~25 ms of it, though one event uses a handful.
``lazy_re(...)`` stands where ``re.compile(...)`` stood. The first call of any method compiles
the pattern and puts the compiled pattern's own methods on the instance, so every later call
costs what a plain compiled pattern's does (one attribute lookup, no wrapper in between).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class LazyPattern:
    """``re.Pattern[str]``'s reading methods, compiled on first use."""

    def __init__(self, pattern: str, flags: int | re.RegexFlag = 0) -> None:
        self.pattern = pattern
        self.flags = int(flags)

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if not yet)."""
        found: re.Pattern[str] | None = self.__dict__.get("_compiled")
        if found is None:
            found = re.compile(self.pattern, self.flags)
            self.__dict__["_compiled"] = found
            for name in _METHODS:  # shadow the class's methods: no wrapper from now on
                self.__dict__[name] = getattr(found, name)
        return found

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def subn(
        self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0
    ) -> tuple[str, int]:
        return self.compiled.subn(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)

    def __repr__(self) -> str:
        return f"lazy_re({self.pattern!r}, {self.flags})"


def lazy_re(pattern: str, flags: int | re.RegexFlag = 0) -> LazyPattern:
    """A pattern compiled the first time it is used (see the module docstring)."""
    return LazyPattern(pattern, flags)
