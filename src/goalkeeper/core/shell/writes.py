"""Which files a shell command writes, read from its text: for normal mode's question gate.

A model that is told "no code before the facts are confirmed" and is refused ``Write`` may reach
for ``cat > app.py <<EOF`` instead. The gate judges the usual ways a command line writes a file:
redirections (``>``, ``>>``, ``&>``, ``>|``), ``tee``, in-place editors (``sed -i``,
``perl -i``) and copies or moves onto a path (``cp``, ``mv``, ``install``). It is a reading of
the text, not a sandbox: a program that writes by itself (``python build.py``) is not seen, and
nothing here runs the command. Where a path lies (``in_project``) is the caller's question.
"""

from __future__ import annotations

import re
import shlex

from goalkeeper.core.shell.line import without_heredoc_bodies, without_redirections

_REDIRECT = re.compile(r"(?:^|[^<>&0-9])(?:[0-9]|&)?>>?\|?\s*(?P<target>[^\s;&|<>()]+)")
"""``> f``, ``>> f``, ``2> f``, ``&> f``, ``>| f``; never ``2>&1`` (the target is ``&1``)."""
_SEPARATORS = re.compile(r"\s*(?:&&|\|\||[;|\n])\s*")
_HARMLESS = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")
_QUOTED = re.compile(r"'[^']*'|\"(?:\\.|[^\"\\])*\"")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*")
_COPIERS = frozenset({"cp", "mv", "install", "rsync"})
_IN_PLACE = frozenset({"sed", "perl", "ruby"})


def written_paths(command: str) -> tuple[str, ...]:
    """The paths ``command`` writes, in order, de-duplicated; () when it writes none that the
    text shows. Heredoc bodies are not read as commands."""
    text = without_heredoc_bodies(command)
    found: list[str] = []
    masked = _QUOTED.sub(
        lambda m: m.group(0)[0] + "_" * (len(m.group(0)) - 2) + m.group(0)[-1], text
    )
    for match in _REDIRECT.finditer(masked):  # inside quotes, "a -> b" is not a redirection
        target = text[match.start("target") : match.end("target")].strip("'\"")
        if target and not target.startswith("&"):
            found.append(target)
    for segment in _SEPARATORS.split(text):
        found.extend(_segment_writes(segment))
    return tuple(p for p in dict.fromkeys(found) if p and not p.startswith("/dev/"))


def in_project(path: str, root: str) -> bool:
    """Whether ``path`` (as the command wrote it, run from the project's root) is in the
    project: a relative path is; an absolute one under ``root`` is; ``/tmp/x``, ``$TMPDIR/x``
    or ``~/x`` elsewhere are not (scratch space is not code)."""
    if path.startswith(("$", "~")):
        return False
    if not path.startswith("/"):
        return True
    root = root.rstrip("/")
    return bool(root) and (path == root or path.startswith(root + "/"))


def _segment_writes(segment: str) -> list[str]:
    try:
        words = shlex.split(segment, comments=True)
    except ValueError:  # an unbalanced quote: judge the plain words
        words = segment.split()
    words = [w for w in without_redirections(words) if not _ASSIGNMENT.fullmatch(w)]
    while words and words[0] in ("sudo", "command", "env", "nohup", "time"):
        words = words[1:]
    if not words:
        return []
    name, args = words[0].rsplit("/", 1)[-1], words[1:]
    operands = [a for a in args if not a.startswith("-") and a not in _HARMLESS]
    if name == "tee":
        return operands
    if name in _IN_PLACE and any(_in_place_flag(a) for a in args):
        return operands[1:] if name == "sed" or _has_program(args) else operands
    if name in _COPIERS and len(operands) >= 2:
        return [operands[-1]]
    return []


def _in_place_flag(arg: str) -> bool:
    if arg.startswith("--"):
        return arg.startswith("--in-place")
    return arg.startswith("-") and "i" in arg[1:3]


def _has_program(args: list[str]) -> bool:
    """``perl -pi -e 's/a/b/' f``: the first operand is the program, not a file."""
    return any(a in ("-e", "-E") or (a.startswith("-") and a.endswith("e")) for a in args)
