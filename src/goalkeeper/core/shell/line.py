"""Reading a shell command line as words, without running it.

The check gate (``verification``) and the edit detector (``shell_writes``) both read the
commands an agent ran; they cut a line at its operators, split each part into words and drop
heredoc bodies the same way, here. This is a careful reading, not a shell: whatever it cannot
read as words comes back as no words, and a caller that needs certainty treats that as
"not proven". ``simple_commands`` goes further for the write reader (``writes``): each simple
command with its redirections, its words marked literal or not, and the command lines nested
in it, with ``(( … ))``, ``$(( … ))`` and ``[[ … ]]`` read as comparisons. Pure.
"""

from __future__ import annotations

import re
import shlex

from msgspec import Struct

from goalkeeper.core.text.lazy_re import lazy_re

OPERATORS = ("&&", "||", "|&", ";;", ";", "|", "&", "\n", "(", ")")
"""Control operators, longest first (``&&`` before ``&``)."""
_REDIRECT = lazy_re(r"^\d*(?:&>>?|>>?&?|<<?<?|<&|>\|)")
ASSIGNMENT = lazy_re(r"^[A-Za-z_][A-Za-z0-9_]*=")
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


# ---------------------------------------------------------------------------------------------
# Simple commands with their redirections: what ``core.shell.writes`` reads
# ---------------------------------------------------------------------------------------------


class Word(Struct, frozen=True):
    """One shell word: ``text`` with its quotes removed and escapes applied, ``raw`` as written.
    ``literal`` is False when the shell would expand it into something the text does not show:
    a variable, ``$(…)``, backticks, arithmetic, a leading ``~`` or braces (``{a,b}``)."""

    text: str
    raw: str
    literal: bool = True


class Redirect(Struct, frozen=True):
    """A redirection: its operator (``>``, ``>>``, ``>|``, ``&>``, ``&>>``, ``>&``, ``<>``,
    ``<``, ``<<``, ``<<<``, ``<&``) and its target word (None when the line ends first)."""

    op: str
    target: Word | None


class Simple(Struct, frozen=True):
    """A simple command: its words, its redirections, and the command lines it holds
    (``$(…)``, backticks, ``<(…)``, ``>(…)``): those run too."""

    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...]
    inner: tuple[str, ...] = ()


_REDIRECT_OPS = ("&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", ">>", ">|", ">&", ">", "<")
_CONTROL = ("&&", "||", "|&", ";;", ";&", ";", "|", "&", "\n", "(", ")")
_KEYWORDS = frozenset({"if", "elif", "then", "else", "while", "until", "do", "!", "{", "time"})


def simple_commands(text: str) -> list[Simple]:
    """``text`` (a command line without heredoc bodies) as simple commands, read as bash reads
    them: an operator or a ``>`` inside quotes or escaped (``test a \\> b``) is a character of
    a word; ``$(( 1 > 2 ))``, ``(( x > 3 ))`` and ``[[ a > b ]]`` compare, they redirect
    nothing. Never raises; unbalanced quotes or parentheses end the line."""
    return _Scanner(text).run()


class _Scanner:
    """One pass over the text; the nested parts (``$(…)``) are kept as text for the caller to
    read again, so the depth of a line costs one pass per level."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.out: list[Simple] = []
        self.words: list[Word] = []
        self.redirects: list[Redirect] = []
        self.inner: list[str] = []
        self.pending: str | None = None  # a redirection waiting for its target
        self.cond = False  # inside [[ … ]]

    def run(self) -> list[Simple]:
        s, n = self.s, len(self.s)
        while self.i < n:
            c = s[self.i]
            if c in " \t":
                self.i += 1
            elif c == "\\" and s.startswith("\\\n", self.i):
                self.i += 2
            elif c == "#":
                while self.i < n and s[self.i] != "\n":
                    self.i += 1
            elif self.cond and s.startswith(("&&", "||"), self.i):
                self.i += 2  # [[ a && b ]]: logic inside the test
            elif self.cond and c not in ";&|\n":
                self._word()
            elif s.startswith("((", self.i) and self.pending is None and not self.cond:
                end = _closing(s, self.i)  # arithmetic: compares; only a $(…) in it runs
                self.inner.extend(_substitutions(s[self.i + 2 : end - 2]))
                self.i = end
            elif (op := _starts(s, self.i, _REDIRECT_OPS)) is not None:
                self._redirect(op)
            elif (op := _starts(s, self.i, _CONTROL)) is not None:
                self.cond = False  # `[[ a; …`: bash refuses the line; read on, to be safe
                self._end()
                self.i += len(op)
            else:
                self._word()
        self._end()
        return self.out

    def _redirect(self, op: str) -> None:
        s = self.s
        after = self.i + len(op)
        if op in ("<", ">") and s.startswith("(", after):  # <(cmd) >(cmd): a command, a word
            end = _closing(s, after)
            self.inner.append(s[after + 1 : end - 1])
            self._add(Word(s[self.i : end], s[self.i : end], False))
            self.i = end
            return
        if self.pending is not None:
            self.redirects.append(Redirect(self.pending, None))
        self.pending = op
        self.i = after

    def _word(self) -> None:
        start = self.i
        text, literal = self._read_word()
        raw = self.s[start : self.i]
        if self.cond:  # [[ … ]]: its words compare; only a command inside may write
            if raw.startswith("]]"):
                self.cond, self.i = False, start + 2
            return
        before_redirect = _starts(self.s, self.i, ("<", ">")) is not None
        if self.pending is None and before_redirect and re.fullmatch(r"\d+|\{[A-Za-z_]\w*\}", raw):
            return  # ``2>``, ``{fd}>``: the descriptor of the redirection that follows
        if raw == "[[" and self.pending is None and all(w.raw in _KEYWORDS for w in self.words):
            self.cond = True
            return
        self._add(Word(text, raw, literal))

    def _add(self, word: Word) -> None:
        if self.pending is not None:
            self.redirects.append(Redirect(self.pending, word))
            self.pending = None
        else:
            self.words.append(word)

    def _read_word(self) -> tuple[str, bool]:
        s, n = self.s, len(self.s)
        out: list[str] = []
        literal = True
        braces = 0
        first = self.i
        while self.i < n:
            c = s[self.i]
            if c in " \t\n" or (self.cond and c in ";&|"):
                break
            if not self.cond and (
                _starts(s, self.i, _REDIRECT_OPS) or _starts(s, self.i, _CONTROL)
            ):
                break
            if c == "\\":
                out.append(s[self.i + 1 : self.i + 2])
                self.i += 2
            elif c == "'":
                end = s.find("'", self.i + 1)
                end = n if end < 0 else end
                out.append(s[self.i + 1 : end])
                self.i = end + 1
            elif c == '"':
                literal = self._double_quoted(out) and literal
            elif c == "$" and s.startswith("$'", self.i):
                end = self.i + 2
                while end < n and s[end] != "'":
                    end += 2 if s[end] == "\\" else 1
                out.append(ansi_c(s[self.i + 2 : end]))
                self.i = end + 1
            elif c in "$`":
                self._expansion(out)
                literal = False
            else:
                if c == "~" and self.i == first:
                    literal = False
                braces += 1 if c == "{" else 0
                if c == "}" and braces and self.i > first + 1:
                    literal = False  # {a,b}, {1..3}: more than one word, or another one
                out.append(c)
                self.i += 1
        return "".join(out), literal

    def _double_quoted(self, out: list[str]) -> bool:
        s, n = self.s, len(self.s)
        self.i += 1
        literal = True
        while self.i < n and s[self.i] != '"':
            c = s[self.i]
            if c == "\\" and self.i + 1 < n and s[self.i + 1] in '$`"\\\n':
                out.append(s[self.i + 1])
                self.i += 2
            elif c in "$`" and self.i + 1 < n:
                self._expansion(out)
                literal = False
            else:
                out.append(c)
                self.i += 1
        self.i += 1
        return literal

    def _expansion(self, out: list[str]) -> None:
        """``$x``, ``${x}``, ``$(( … ))``, ``$( … )`` or backticks: kept as written (it is not
        known); a command substitution is kept to be read as a command line too."""
        s, n, start = self.s, len(self.s), self.i
        if s.startswith("$((", start):
            self.i = _closing(s, start + 1)
            self.inner.extend(_substitutions(s[start + 3 : self.i - 2]))
        elif s.startswith("$(", start):
            self.i = _closing(s, start + 1)
            self.inner.append(s[start + 2 : self.i - 1])
        elif s.startswith("${", start):
            end = s.find("}", start)
            self.i = n if end < 0 else end + 1
        elif s[start] == "`":
            end = start + 1
            while end < n and s[end] != "`":
                end += 2 if s[end] == "\\" else 1
            self.inner.append(s[start + 1 : end])
            self.i = end + 1
        else:
            m = re.match(r"\$(?:[A-Za-z_]\w*|[0-9#?$!@*-])?", s[start:])
            self.i = start + (m.end() if m else 1)
        out.append(s[start : self.i])

    def _end(self) -> None:
        if self.pending is not None:
            self.redirects.append(Redirect(self.pending, None))
            self.pending = None
        if self.words or self.redirects or self.inner:
            self.out.append(Simple(tuple(self.words), tuple(self.redirects), tuple(self.inner)))
        self.words, self.redirects, self.inner = [], [], []


_ANSI_C = lazy_re(
    r"\\(?:x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.DOTALL
)
_ANSI_C_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b"}
_ANSI_C_SIMPLE |= {"E": "\x1b", "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def ansi_c(body: str) -> str:
    """The text of a ``$'…'`` word as bash decodes it (``$'goal\\x6beeper'`` is ``goalkeeper``):
    ``\\xHH``, ``\\uHHHH``, ``\\UHHHHHHHH``, octal ``\\NNN``, ``\\cX`` and the letter escapes."""

    def one(m: re.Match[str]) -> str:
        esc = m.group(0)[1:]
        head = esc[0]
        try:
            if head in "xuU":
                return chr(int(esc[1:], 16))
            if head.isdigit():
                return chr(int(esc, 8) & 0xFF)
        except (ValueError, OverflowError):
            return ""
        if head == "c":
            return chr(ord(esc[1]) & 0x1F)
        return _ANSI_C_SIMPLE.get(head, "\\" + head)

    return _ANSI_C.sub(one, body)


def _substitutions(text: str) -> list[str]:
    """The command lines of the ``$(…)`` and backticks in ``text``, an arithmetic expression
    (``(( $(cmd) > 1 ))`` runs ``cmd``); nested arithmetic is searched too."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("$((", i):
            end = _closing(text, i + 1)
            out.extend(_substitutions(text[i + 3 : end - 2]))
            i = end
        elif text.startswith("$(", i):
            end = _closing(text, i + 1)
            out.append(text[i + 2 : end - 1])
            i = end
        elif text[i] == "`":
            end = text.find("`", i + 1)
            end = n if end < 0 else end
            out.append(text[i + 1 : end])
            i = end + 1
        else:
            i += 1
    return out


def _starts(s: str, i: int, ops: tuple[str, ...]) -> str | None:
    return next((op for op in ops if s.startswith(op, i)), None)


def _closing(s: str, i: int) -> int:
    """The index after the ``)`` that closes the ``(`` at ``i`` (quotes respected); the end of
    ``s`` when none does."""
    depth, n = 0, len(s)
    quote: str | None = None
    while i < n:
        c = s[i]
        if quote is not None:
            if c == "\\" and quote == '"':
                i += 1
            elif c == quote:
                quote = None
        elif c == "\\":
            i += 1
        elif c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n
