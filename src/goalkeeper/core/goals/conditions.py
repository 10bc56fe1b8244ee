"""The conditions a goal names in prose, each kept whole (seed 004 §4.5; issue 23).

"pytest passes and coverage is at least 80%" names two conditions; a verify made of ``pytest``
alone proves part of the goal and calls it the goal. So every condition is kept with what the
user said of it: its kind (tests, types, lint, build, coverage), the tool they named ("ruff 无告警"
is ruff, not whatever linter the project happens to configure), the folder ("every test in
tests/unit"), the threshold ("at least 80%"). The project layer (``store.conditions``) turns
each into a command the project can run, or leaves it as a criterion the goal cannot be proven
without.

Pure; never raises on any text.
"""

from __future__ import annotations

import re

from goalkeeper.core.goals.verify import VERIFY_KINDS, command_kind, prose_verify_spans
from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.values import GoalCondition

_TOOLS = {
    "types": ("mypy", "pyright", "tsc"),
    "lint": ("ruff", "eslint", "flake8", "pylint", "golangci-lint", "clippy"),
}
"""Tools a user may name for a kind, as they are spelled on the command line."""
_TOOL_WORD = lazy_re(
    r"(?<![\w-])(mypy|pyright|tsc|ruff|eslint|flake8|pylint|golangci-lint|clippy)(?![\w-])",
    re.IGNORECASE,
)
_NAMED_TOOL = lazy_re(
    r"(?<![\w-])(?P<tool>mypy|pyright|tsc|ruff|eslint|flake8|pylint|golangci-lint)(?![\w-])"
    r"[^.;。！？\n]{0,30}?"
    r"(?:\b(?:is\s+|are\s+|runs\s+|stays\s+)?(?:clean|passes|pass|green|happy|quiet)\b"
    r"|\b(?:has|have|reports?|shows?|gives?|with|finds?)\s+no\s+"
    r"(?:\w+\s+)?(?:errors?|warnings?|issues?|complaints?|findings?|problems?)\b"
    r"|(?:无|没有|零)(?:任何)?(?:错误|警告|告警|报错|问题)|干净|通过)",
    re.IGNORECASE,
)
_PERCENT = r"(?P<n>\d{1,3})(?:\.\d+)?\s*(?:%|％|percent\b)"
_COVERAGE = lazy_re(
    r"(?<![\w-])(?:test\s+|line\s+|code\s+|branch\s+)?coverage\b[^.;。！？\n]{0,40}?"
    + _PERCENT
    + r"|"
    + _PERCENT.replace("?P<n>", "?P<m>")
    + r"\s+(?:test\s+|line\s+|code\s+)?coverage\b"
    r"|覆盖率[^。；！？\n]{0,12}?(?P<z>\d{1,3})(?:\.\d+)?\s*(?:%|％)",
    re.IGNORECASE,
)
_TESTS_IN = lazy_re(
    r"(?<![\w-])(?:every|all|each|the)\s+(?:of\s+the\s+)?(?:unit\s+|integration\s+)?tests?\s+"
    r"(?:in|under|inside|from)\s+(?:the\s+)?`?(?P<path>[\w.][\w./-]*/?)`?"
    r"[^.;。！？\n]{0,20}?\b(?:pass|passes|passing|succeed|succeeds|are\s+green|is\s+green)\b"
    r"|`?(?P<zpath>[\w.][\w./-]*/)`?\s*(?:目录)?(?:下|里|中|内)?的?(?:所有|全部|每个)?"
    r"(?:测试|用例)[^。；！？\n]{0,6}?(?:通过|全绿)",
    re.IGNORECASE,
)


def named_conditions(prose: str, commands: tuple[str, ...] = ()) -> tuple[GoalCondition, ...]:
    """Every condition ``prose`` names that none of ``commands`` (the text's explicit ones)
    already is, in the fixed order tests, types, lint, build, coverage; each kind once, with the
    most specific words the text gives for it. Never raises."""
    covered: set[str | None] = {command_kind(c) for c in commands}
    if any(_coverage_command(c) for c in commands):
        covered.add("coverage")
    found: dict[str, GoalCondition] = {}
    m = _TESTS_IN.search(prose)
    if m is not None and "tests" not in covered:
        path = (m.group("path") or m.group("zpath") or "").strip("`")
        found["tests"] = GoalCondition("tests", _words(m.group(0)), path=path)
    for verify_kind, words in prose_verify_spans(prose):
        kind: str = verify_kind
        if kind in covered or kind in found:
            continue
        tool = _tool_in(words, kind)
        found[kind] = GoalCondition(kind, _words(words), tool=tool)
    for m in _NAMED_TOOL.finditer(prose):
        tool = m.group("tool").lower()
        kind = next(k for k, tools in _TOOLS.items() if tool in tools)
        if kind not in covered and (kind not in found or not found[kind].tool):
            found[kind] = GoalCondition(kind, _words(m.group(0)), tool=tool)
    m = _COVERAGE.search(prose)
    if m is not None and "coverage" not in covered:
        n = int(m.group("n") or m.group("m") or m.group("z"))
        if 0 < n <= 100:
            found["coverage"] = GoalCondition("coverage", _words(m.group(0)), threshold=n)
    order: tuple[str, ...] = (*VERIFY_KINDS, "coverage")
    return tuple(found[k] for k in order if k in found)


def _tool_in(words: str, kind: str) -> str:
    for m in _TOOL_WORD.finditer(words):
        if m.group(1).lower() in _TOOLS.get(kind, ()):
            return m.group(1).lower()
    return ""


def _coverage_command(command: str) -> bool:
    """A command that itself enforces a coverage minimum (``--cov-fail-under=80``,
    ``coverage report --fail-under 80``, ``c8 --check-coverage`` …)."""
    return any(
        flag in command
        for flag in ("--cov-fail-under", "--fail-under", "--check-coverage", "coverageThreshold")
    )


def _words(text: str) -> str:
    return " ".join(text.split()).strip(" ,，;；")
