"""Reading a shell command line as words, without running it.

The check gate (``verification``) and the edit detector (``shell_writes``) both read the
commands an agent ran; they cut a line at its operators, split each part into words and drop
heredoc bodies the same way, here. This is a careful reading, not a shell: whatever it cannot
read as words comes back as no words, and a caller that needs certainty treats that as
"not proven". Pure.
"""

from __future__ import annotations

import re
import shlex

OPERATORS = ("&&", "||", "|&", ";;", ";", "|", "&", "\n", "(", ")")
"""Control operators, longest first (``&&`` before ``&``)."""
_REDIRECT = re.compile(r"^\d*(?:&>>?|>>?&?|<<?<?|<&|>\|)")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
"""A leading ``NAME=value`` word."""


def cut_line(text: str) -> list[tuple[str, str]]:
    """The command line cut at unquoted operators: (part, the operator after it)."""
    out: list[tuple[str, str]] = []
    buf: list[str] = []
    quote: str | None = None
    depth = 0  # inside $( … ) or backticks nothing is cut: it belongs to its word
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if quote is not None:
            buf.append(c)
            if c == "\\" and quote == '"' and i + 1 < n:
                buf.append(text[i + 1])
                i += 1
            elif c == quote:
                quote = None
            i += 1
            continue
        if c == "\\" and i + 1 < n:
            buf.append(text[i : i + 2])
            i += 2
            continue
        if c in "'\"":
            quote = c
            buf.append(c)
            i += 1
            continue
        if c == "#" and (not buf or buf[-1][-1:].isspace()):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("$(", i) or c == "`":
            depth += 1 if c != "`" or depth == 0 else -1
            buf.append(text[i : i + 2] if c == "$" else c)
            i += 2 if c == "$" else 1
            continue
        if depth and c == ")":
            depth -= 1
            buf.append(c)
            i += 1
            continue
        if depth:
            buf.append(c)
            i += 1
            continue
        op = next((o for o in OPERATORS if text.startswith(o, i)), None)
        if op == "&" and ((buf and buf[-1][-1:] in "<>") or text.startswith("&>", i)):
            op = None  # a redirection (2>&1, &> file), not an operator
        if op is None:
            buf.append(c)
            i += 1
            continue
        out.append(("".join(buf), op))
        buf = []
        i += len(op)
    out.append(("".join(buf), ""))
    return [(seg, op) for seg, op in out if seg.strip()]


def part_words(segment: str) -> list[str]:
    """A part's words without redirections; [] when it cannot be read as words."""
    try:
        raw = shlex.split(segment, comments=False)
    except ValueError:
        return []
    return without_redirections(raw)


def without_redirections(words: list[str]) -> list[str]:
    """``words`` without redirections (``> f``, ``2>/dev/null``, ``< in``, ``2>&1``) and their
    targets: those are not a command's operands."""
    out: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        redirect = _REDIRECT.match(word)
        if redirect:
            skip = redirect.end() == len(word)  # the target is the next word
            continue
        out.append(word)
    return out


def base(word: str) -> str:
    return word.rstrip("/").rsplit("/", 1)[-1]


def without_heredoc_bodies(command: str) -> str:
    """``cat <<EOF … EOF``: keep the command line, drop the body (its text is data)."""
    return split_heredocs(command)[0]


def split_heredocs(command: str) -> tuple[str, list[tuple[str, str]]]:
    """The command line without heredoc bodies, and each heredoc as (the line that opened it,
    its body): whether a body is data depends on the command that reads it (``cat`` or
    ``bash``)."""
    out: list[str] = []
    docs: list[tuple[str, str]] = []
    body: list[str] = []
    opener = ""
    end: str | None = None
    for line in command.split("\n"):
        if end is not None:
            if line.strip() == end:
                docs.append((opener, "\n".join(body)))
                end, body = None, []
            else:
                body.append(line)
            continue
        out.append(line)
        marker = re.search(r"<<-?\s*['\"]?(?P<word>[A-Za-z_][A-Za-z0-9_]*)['\"]?", line)
        if marker:
            end, opener = marker.group("word"), line
    if end is not None:
        docs.append((opener, "\n".join(body)))  # unterminated: the rest is its body
    return "\n".join(out), docs
