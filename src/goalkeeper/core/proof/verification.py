"""Whether a shell command line is a verification, and whether its exit status is the runner's.

A ``[PDCA] check`` counts only when a verification ran (seed 000 §5, "Check 用可复跑证据证伪"):
a test runner (``test_runners``), or a command the user declared. The command line is the
agent's, so it is read for the ways a cheating agent makes a runner's name run something else
(an alias, a function, ``PATH=./fake``) — then nothing in it is a verification — and for the
ways it hides the runner's exit status (``pytest || true``, ``pytest | tail``, ``trap``) — then
it is a check but not a passing one. Pure; never raises.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from goalkeeper.core.proof.test_runners import (
    SHADOWING,
    defines_function,
    inline_script,
    is_declared,
    is_test_run,
    only_prints_info,
    program_words,
)
from goalkeeper.core.shell.line import (
    ASSIGNMENT,
    base,
    cut_line,
    part_words,
    without_heredoc_bodies,
)

_MASKING = frozenset({";", "||", "|", "|&", "&", ";;"})
"""An operator after which the command line's exit status is no longer the verification's."""
MAX_COMMAND_CHARS = 20_000


def find_verification(command: str, declared: Sequence[str] = ()) -> tuple[str, bool] | None:
    """The part of ``command`` that is a verification, and whether the command line masks its
    exit status (``pytest || true``, ``pytest | tail``, ``pytest; echo``); None when no part
    is. Each part between ``&&``, ``||``, ``;``, ``|`` and newlines is judged alone, inside
    ``sh -c '…'`` too; heredoc bodies are data. Never raises."""
    return _find(command[:MAX_COMMAND_CHARS], declared, depth=0)


def _find(command: str, declared: Sequence[str], depth: int) -> tuple[str, bool] | None:
    text = without_heredoc_bodies(command)
    if text.strip() in declared:
        return text.strip(), False  # the user's own command line, word for word
    segments = cut_line(text)
    parsed = [(part_words(segment), op) for segment, op in segments]
    if any(_shadows(words) for words, _op in parsed):
        return None
    pipefail = any("pipefail" in words for words, _op in parsed)
    masking = _MASKING - {"|", "|&"} if pipefail else _MASKING
    for i, (words, op) in enumerate(parsed):
        before = parsed[:i]
        if not words or op == "&" or any(o == "||" for _w, o in before):
            continue  # in the background, or run only if what came before failed
        if any(_first(w) in _ENDS_SHELL for w, _o in before):
            return None  # the shell ended before it
        keywords = list(itertools.takewhile(lambda w: w in _KEYWORDS, words))
        found = _judge(words[len(keywords) :], declared, depth)
        if found is None:
            continue
        masked = found == "masked" or any(o in masking for _w, o in parsed[i:])
        masked = masked or any(_first(w) in _MASKS for w, _o in before)
        masked = masked or any(k in _TESTING_KEYWORDS for k in keywords)
        return segments[i][0].strip(), masked
    return None


_KEYWORDS = frozenset({"if", "elif", "then", "else", "while", "until", "do", "{", "!"})
_TESTING_KEYWORDS = frozenset({"if", "elif", "while", "until", "!"})
"""``if pytest; then …``: the runner ran, but the line's exit status is the branch's."""


_ENDS_SHELL = frozenset({"exit", "return", "exec", "logout"})
_MASKS = frozenset({"trap", "source", "."})
"""Before a runner, these may change what its exit status says (a trap on EXIT) or what the
runner's name means (a sourced file can define a function of that name): it still counts as a
check, but not as a passing one."""
_POISON = frozenset({"alias", "eval", "shopt", "hash", "enable", "declare", "typeset", "unset"})


def _shadows(words: list[str]) -> bool:
    """A part that can make a runner's name run something else: an alias, a function, ``hash
    -p``, ``eval``, or setting ``PATH`` (and friends) anywhere in the command line."""
    if not words:
        return False
    if _first(words) in _POISON or any(defines_function(w) for w in words):
        return True
    return any(ASSIGNMENT.match(w) and w.split("=", 1)[0] in SHADOWING for w in words)


def _first(words: list[str]) -> str:
    return base(words[0]) if words else ""


def _judge(words: list[str], declared: Sequence[str], depth: int) -> str | None:
    """``yes``, ``masked`` (a nested command line masks it) or None."""
    program = program_words(words)
    if program is None:
        return None
    name = base(program[0])
    if is_declared(words, declared) or is_declared(program, declared):
        return None if only_prints_info(program) else "yes"
    if name in ("sh", "bash", "zsh", "dash") and depth < 2:
        script = inline_script(program[1:])
        if script is not None:
            found = _find(script, declared, depth + 1)
            if found is not None:
                return "masked" if found[1] else "yes"
        return None
    return "yes" if is_test_run(program) else None
