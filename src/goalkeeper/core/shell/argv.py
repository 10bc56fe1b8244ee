"""Which command lines goalkeeper may run: a user-approved command, plus arguments that only
select tests (the trust boundary; seed 002 checked evidence).

The agent names the command it claims ran (``pytest -q tests/test_a.py``). goalkeeper re-runs it
only when it is one of the approved commands followed by arguments that choose *which* tests
run, judged per runner: pytest's paths, ``-k``, ``-m``, ``-q``/``-v``/``-x``, ``--lf``; npm's
``-- <paths>``; cargo's package and test-name filters; go's packages and ``-run``. Anything that
changes *what* the command does — a plugin (``pytest -p``), a config file (``-c``,
``make -f``, ``cargo --config``), a shell (``npm --script-shell``), a report written anywhere
(``--junitxml``), an exec wrapper (``go test -exec``) — refuses the re-run, with the argument
named. Short options are never combined (``-qp evil`` is refused, not read as ``-q -p``).
A command is always run as an argument vector; only text the user typed may need a shell.
Pure; the caller says which paths are inside the project.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence

from msgspec import Struct

from goalkeeper.core.text.lazy_re import LazyPattern, lazy_re

SHELL_SYNTAX = lazy_re(r"[;&|<>`$()\n\r*?\[\]{}~!#]|^\s*[A-Za-z_][A-Za-z0-9_]*=")
"""Text a shell would interpret (operators, substitutions, globs, an env assignment first):
such a command runs through ``/bin/sh -c``, which only the user's own text may do."""
_SHELL_OPERATORS = lazy_re(r"[;&|<>`\n\r]|\$\(|\$\{")
_QUOTED = lazy_re(r"'[^']*'|\"(?:\\.|[^\"\\])*\"")


class Rerun(Struct, frozen=True):
    """What goalkeeper may run for a claimed command: ``argv``, or ``refusal`` (a stable id
    for the message catalog's ``trust.rerun.<refusal>``) with ``detail`` (the argument at fault,
    or the approved commands)."""

    argv: tuple[str, ...] | None
    refusal: str | None = None
    detail: str = ""


def needs_shell(command: str) -> bool:
    """Whether ``command`` means something different as an argument vector than in a shell."""
    if SHELL_SYNTAX.search(command):
        return True
    try:
        shlex.split(command)
    except ValueError:
        return True
    return False


def command_argv(command: str) -> tuple[str, ...]:
    """The argument vector that runs ``command`` as its author meant it: its words, or
    ``/bin/sh -c`` for text that needs a shell (callers pass only approved text)."""
    if needs_shell(command):
        return ("/bin/sh", "-c", command)
    return tuple(shlex.split(command))


def decide_rerun(claimed: str, approved: Sequence[str], inside: Callable[[str], bool]) -> Rerun:
    """May goalkeeper re-run ``claimed``? Only an ``approved`` command (word for word) followed by
    test-selection arguments of its runner; ``inside(path)`` tells a path in the project. The
    longest approved prefix decides."""
    shell_entries = [a.strip() for a in approved if a.strip() and needs_shell(a)]
    if claimed.strip() in shell_entries:  # the user's own shell text: only exactly as approved
        return Rerun(("/bin/sh", "-c", claimed.strip()))
    if _SHELL_OPERATORS.search(_QUOTED.sub("''", claimed)):  # `-run 'A|B'` is one argument
        return Rerun(None, "shell")
    if "\x00" in claimed:
        return Rerun(None, "unparsable")
    try:
        words = shlex.split(claimed)
    except ValueError:
        return Rerun(None, "unparsable")
    best: list[str] | None = None
    for entry in approved:
        if not entry.strip() or entry.strip() in shell_entries:
            continue
        prefix = shlex.split(entry)
        if words[: len(prefix)] == prefix and (best is None or len(prefix) > len(best)):
            best = prefix
    if best is None:
        listed = ", ".join(f"`{a}`" for a in approved if a.strip()) or "-"
        return Rerun(None, "not_approved", listed)
    extra = words[len(best) :]
    bad = _RUNNERS[runner_of(best)](extra, inside)
    if bad is not None:
        return Rerun(None, "argument", bad)
    return Rerun(tuple(words))


def runner_of(words: Sequence[str]) -> str:
    """The test runner an approved command starts: ``pytest``, ``npm``, ``make``, ``cargo``,
    ``go``, or ``exact`` (an unknown program: no argument may be added)."""
    head = [w.rsplit("/", 1)[-1] for w in words[:5]]
    if "pytest" in head or "py.test" in head:
        return "pytest"
    if head and head[0] in ("npm", "pnpm", "yarn"):
        rest = head[1:]
        if rest[:1] == ["test"] or rest[:2] == ["run", "test"]:
            return "npm"
        return "exact"
    if head and head[0] in ("make", "gmake"):
        return "make"
    if head[:2] == ["cargo", "test"]:
        return "cargo"
    if head[:2] == ["go", "test"]:
        return "go"
    return "exact"


# ---------------------------------------------------------------------------------------------
# Per runner: the first argument that is not test selection, or None
# ---------------------------------------------------------------------------------------------

Check = Callable[[Sequence[str], Callable[[str], bool]], "str | None"]


def _exact(extra: Sequence[str], inside: Callable[[str], bool]) -> str | None:
    return extra[0] if extra else None


_PYTEST_FLAGS = frozenset(
    {"-q", "-qq", "-v", "-vv", "-vvv", "-x", "--exitfirst", "--lf", "--last-failed", "--ff"}
    | {"--failed-first", "--sw", "--stepwise", "-l", "--showlocals", "--no-header"}
    | {"--no-summary", "-s", "--capture=no", "--nf", "--new-first", "--quiet", "--verbose"}
)
_PYTEST_VALUED = {
    "-k": lazy_re(r".+"),
    "-m": lazy_re(r".+"),
    "--tb": lazy_re(r"auto|long|short|line|native|no"),
    "--maxfail": lazy_re(r"\d{1,6}"),
    "--durations": lazy_re(r"\d{1,6}"),
    "--color": lazy_re(r"yes|no|auto"),
}
_REPORT_CHARS = lazy_re(r"-r[a-zA-Z]{1,12}")
_ATTACHED = lazy_re(r"-[km][^=]+")
"""``-kEXPR`` and ``-mEXPR``: a selection expression attached to its option."""


def _pytest(extra: Sequence[str], inside: Callable[[str], bool]) -> str | None:
    i = 0
    paths_only = False
    while i < len(extra):
        word = extra[i]
        if paths_only or not word.startswith("-"):
            if not _test_path(word, inside, node_ids=True):
                return word
        elif word == "--":
            paths_only = True
        elif word in _PYTEST_FLAGS or _REPORT_CHARS.fullmatch(word) or _ATTACHED.fullmatch(word):
            pass
        else:
            last = _valued(word, extra, i, _PYTEST_VALUED)
            if last is None:
                return word
            i = last
        i += 1
    return None


def _npm(extra: Sequence[str], inside: Callable[[str], bool]) -> str | None:
    """``npm test -- <paths>`` (pnpm and yarn pass paths on without ``--`` too)."""
    rest = list(extra[1:]) if extra[:1] == ["--"] else list(extra)
    for word in rest:
        if word.startswith("-") or not _test_path(word, inside):
            return word
    return None


_NAME = lazy_re(r"[A-Za-z0-9_][A-Za-z0-9_:.-]{0,199}")
_CRATE = lazy_re(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,99}(@[0-9A-Za-z.+-]{1,40})?")
_CARGO_FLAGS = frozenset(
    {"-q", "--quiet", "-v", "--verbose", "--lib", "--bins", "--tests", "--doc", "--all"}
    | {"--workspace", "--offline", "--locked", "--frozen", "--no-fail-fast"}
)
_CARGO_VALUED = {"-p": _CRATE, "--package": _CRATE, "--test": _NAME, "--exclude": _CRATE}
_HARNESS_FLAGS = frozenset(
    {"--exact", "--nocapture", "--ignored", "--include-ignored", "-q", "--quiet"}
    | {"--show-output", "--no-capture"}
)


def _cargo(extra: Sequence[str], inside: Callable[[str], bool]) -> str | None:
    i = 0
    harness = False
    while i < len(extra):
        word = extra[i]
        if harness:
            if word in _HARNESS_FLAGS or re.fullmatch(r"--test-threads=\d{1,4}", word):
                pass
            elif word.startswith("-") or not _NAME.fullmatch(word):
                return word
        elif word == "--":
            harness = True
        elif word in _CARGO_FLAGS:
            pass
        elif word.startswith("-"):
            last = _valued(word, extra, i, _CARGO_VALUED)
            if last is None:
                return word
            i = last
        elif not _NAME.fullmatch(word):  # a test-name filter
            return word
        i += 1
    return None


_GO_FLAGS = frozenset({"-v", "-short", "-failfast"})
_GO_VALUED = {"-run": lazy_re(r".{1,200}"), "-count": lazy_re(r"\d{1,4}")}


def _go(extra: Sequence[str], inside: Callable[[str], bool]) -> str | None:
    i = 0
    while i < len(extra):
        word = extra[i]
        if not word.startswith("-"):  # a package: relative, inside the module
            target = word.removesuffix("/...") if word != "./..." else "."
            if not (word == "./..." or word.startswith(("./", "../"))) or not inside(target):
                return word
        elif word in _GO_FLAGS or word.lstrip("-") in {f.lstrip("-") for f in _GO_FLAGS}:
            pass
        else:  # go takes -flag and --flag alike
            last = _valued("-" + word.lstrip("-"), extra, i, _GO_VALUED)
            if last is None:
                return word
            i = last
        i += 1
    return None


def _valued(
    word: str, extra: Sequence[str], i: int, patterns: Mapping[str, LazyPattern]
) -> int | None:
    """An option with a value (``--opt=value`` or ``--opt value``) that ``patterns`` allows with
    that value: the index of its last word in ``extra``; None when it is not one, or its value
    does not fit."""
    name, eq, value = word.partition("=")
    pattern = patterns.get(name)
    if pattern is None:
        return None
    if not eq:
        if i + 1 >= len(extra):
            return None
        i += 1
        value = extra[i]
    return i if pattern.fullmatch(value) else None


_RUNNERS: dict[str, Check] = {
    "pytest": _pytest,
    "npm": _npm,
    "make": _exact,  # `make test -f evil.mk`, `make test --eval=…`, `make test VAR=…`: never
    "cargo": _cargo,
    "go": _go,
    "exact": _exact,
}


def _test_path(word: str, inside: Callable[[str], bool], *, node_ids: bool = False) -> bool:
    """A test file or folder inside the project (``tests/test_a.py::test_b[x]`` with node
    ids), never an option and never outside."""
    path = word.split("::", 1)[0] if node_ids else word
    if not path or path.startswith(("-", "@")) or "\x00" in path:  # @file: arguments from a file
        return False
    return inside(path)
