"""The commands a shell line runs, with the shell's quoting undone, for the trust guard.

A text match on the raw line loses to quoting: ``goal""keeper``, ``'goalkeeper'``,
``\\goalkeeper`` and ``$'goal\\x6beeper'`` are all ``goalkeeper`` to bash. So the line is read as
bash reads it (``line.simple_commands``: quotes removed, escapes applied, ``$'…'`` decoded),
wrappers are taken off (``env -u X``, ``exec``, ``nohup``, ``sudo``, ``timeout 5``, ``xargs``,
``uv run``), and the command lines a line runs itself are read too: ``sh -c '…'``, ``bash -lc``,
``eval '…'``, ``$(…)``, backticks, a heredoc fed to a shell, ``find -exec``, ``git -c
alias.x='!…'``. What it cannot read — a command word that is a variable or a substitution
(``$g goal approve``), ``eval "$x"``, a shell or Python reading a script from a pipe — is
reported as opaque, for the caller to judge with the words it can see. Every word it read is
kept (``Reading.words``), so a caller can look for paths in them. Pure; never raises.
"""

from __future__ import annotations

from msgspec import Struct, field

from goalkeeper.core.shell.line import Simple, Word, base, simple_commands, split_heredocs
from goalkeeper.core.shell.options import read_options

MAX_DEPTH = 6
"""Command lines inside command lines read (``bash -c "eval '…'"``); deeper is opaque."""
MAX_CHARS = 50_000

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "fish", "busybox"})
KEYWORDS = frozenset(
    {"if", "elif", "then", "else", "while", "until", "do", "!", "{", "}", "time", "exec"}
)
WRAPPERS: dict[str, str] = {  # a program that runs the rest of its words: its value options
    "sudo": "ugCDhprtUT",
    "doas": "uC",
    "env": "uCS",
    "nohup": "",
    "command": "",
    "builtin": "",
    "time": "fo",
    "nice": "n",
    "ionice": "cnp",
    "timeout": "ks",
    "stdbuf": "ioe",
    "chrt": "",
    "unbuffer": "",
    "setsid": "",
    "xargs": "IiLlnPsdEa",
    "nsenter": "tUmnipuSG",
    "unshare": "",
    "flock": "wE",
    "script": "",
}
_RUNNERS = {"uv": ("run", "tool"), "uvx": (), "pipx": ("run",), "poetry": ("run",)}
_RUNNERS |= {"pdm": ("run",), "hatch": ("run",), "rye": ("run",), "pipenv": ("run",)}
"""Tools that run a command or a package's script: their subcommand words, then the command."""
_RUNNER_VALUES = frozenset({"--with", "--from", "--python", "-p", "--spec", "-e", "--env"})
PYTHONS = ("python", "pypy")


class Command(Struct, frozen=True):
    """One command a line runs: its words (wrappers taken off, the program first); ``fed``:
    under ``xargs``, more arguments come from its input."""

    words: tuple[Word, ...]
    fed: bool = False


class Reading(Struct, frozen=True):
    """What ``read_commands`` found: the commands, the code it cannot see (as written), every
    word and redirection target read (assignments included), and the text of code handed to
    an interpreter (``python -c``, a heredoc read by ``python``)."""

    commands: tuple[Command, ...] = ()
    opaque: tuple[str, ...] = ()
    words: tuple[Word, ...] = ()
    code: tuple[str, ...] = ()


class _Found(Struct):
    commands: list[Command] = field(default_factory=list)
    opaque: list[str] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    code: list[str] = field(default_factory=list)


def read_commands(line: str) -> Reading:
    """The commands ``line`` runs, as bash would read them. Never raises."""
    found = _Found()
    if len(line) > MAX_CHARS:
        found.opaque.append(line[MAX_CHARS - 20 : MAX_CHARS])
    _read(line[:MAX_CHARS], found, 0)
    return Reading(
        tuple(found.commands), tuple(found.opaque), tuple(found.words), tuple(found.code)
    )


def _read(text: str, found: _Found, depth: int) -> None:
    if depth > MAX_DEPTH:
        found.opaque.append(text.strip()[:80])
        return
    line, docs = split_heredocs(text)
    for simple in simple_commands(line):
        _simple(simple, found, depth)
    for opener, body in docs:
        readers = [_reader(s) for s in simple_commands(opener)]
        if "shell" in readers:
            _read(body, found, depth + 1)
        elif "python" in readers:
            found.code.append(body)


def _reader(simple: Simple) -> str:
    """Which interpreter reads a heredoc's body as code: ``shell``, ``python``, or ""."""
    words = [w for w in simple.words if not is_assignment(w)]
    if not words or not any(r.op in ("<<", "<<-") for r in simple.redirects):
        return ""
    name = base(words[0].text)
    if name in SHELLS and not any(has_c_option(w) for w in words[1:]):
        return "shell"
    return "python" if name.startswith(PYTHONS) else ""


def _simple(simple: Simple, found: _Found, depth: int) -> None:
    found.words.extend(simple.words)
    found.words.extend(r.target for r in simple.redirects if r.target is not None)
    for inner in simple.inner:
        _read(inner, found, depth + 1)
    _command(list(simple.words), found, depth, simple)


def _command(words: list[Word], found: _Found, depth: int, simple: Simple | None) -> None:
    fed = False
    while True:
        while words and (words[0].raw in KEYWORDS or is_assignment(words[0])):
            words = words[1:]
        if not words or not words[0].literal:
            break
        name = base(words[0].text)
        if name in WRAPPERS:
            fed = fed or name == "xargs"
            rest, values = read_options(words[1:], WRAPPERS[name], first_operand_ends=True)
            if name == "env" and "S" in values:
                _read(values["S"].text, found, depth + 1)
            if name == "timeout" and rest:
                rest = rest[1:]  # the duration
            if name == "script" and "c" in values:
                _read(values["c"].text, found, depth + 1)
            words = rest
        elif name in _RUNNERS:
            words = _after_runner(name, words[1:])
        else:
            break
    if not words:
        return
    if not words[0].literal:
        found.opaque.append(" ".join(w.raw for w in words)[:200])
        found.commands.append(Command(tuple(words), fed))
        return
    found.commands.append(Command(tuple(words), fed))
    name, args = base(words[0].text), words[1:]
    if name in SHELLS:
        _shell(args, found, depth, simple)
    elif name == "eval":
        if all(w.literal for w in args):
            _read(" ".join(w.text for w in args), found, depth + 1)
        else:
            found.opaque.append(" ".join(["eval", *(w.raw for w in args)])[:200])
    elif name in ("source", ".") and args and not args[0].literal:
        found.opaque.append(f"{name} {args[0].raw}")
    elif name.startswith(PYTHONS):
        _python(args, found, simple)
    elif name == "find":
        _find(args, found, depth)
    elif name == "git":
        _git_aliases(args, found, depth)


def _after_runner(name: str, args: list[Word]) -> list[Word]:
    """``uv run [opts] CMD``, ``uvx [opts] CMD``, ``pipx run CMD``: the words from CMD on."""
    subcommands = _RUNNERS[name]
    i = 0
    if subcommands:
        while i < len(args) and args[i].text.startswith("-"):
            i += 2 if args[i].text in _RUNNER_VALUES else 1
        if i < len(args) and args[i].text in subcommands:
            i += 1
            if i < len(args) and args[i - 1].text == "tool" and args[i].text == "run":
                i += 1
        elif name != "uvx":
            return []  # `uv pip …`, `poetry install`: runs no command of the line's
    while i < len(args) and args[i].text.startswith("-"):
        i += 2 if args[i].text.split("=")[0] in _RUNNER_VALUES and "=" not in args[i].text else 1
    return args[i:]


def has_c_option(word: Word) -> bool:
    """``-c`` (alone or among short options, ``-lc``): a shell's next word is the line it runs."""
    text = word.text
    return text.startswith("-") and not text.startswith("--") and "c" in text


def _shell(args: list[Word], found: _Found, depth: int, simple: Simple | None) -> None:
    """``sh -c LINE`` (read), a script file (a program, not seen), or a shell reading its
    script from its input: a heredoc (read by ``_read``), ``<<< LINE`` (read), or a pipe or
    redirection it cannot see (opaque)."""
    for i, word in enumerate(args):
        if has_c_option(word):
            line = args[i + 1] if i + 1 < len(args) else None
            if line is None:
                return
            if line.literal:
                _read(line.text, found, depth + 1)
            else:
                found.opaque.append(f"{word.raw} {line.raw}")
            return
    if any(not w.text.startswith(("-", "+")) for w in args):
        return  # a script file
    redirects = simple.redirects if simple is not None else ()
    for redirect in redirects:
        target = redirect.target
        if target is None or redirect.op in ("<<", "<<-"):
            return
        if redirect.op == "<<<":
            if target.literal:
                _read(target.text, found, depth + 1)
            else:
                found.opaque.append(target.raw)
            return
    found.opaque.append("a script on the shell's input")


def _python(args: list[Word], found: _Found, simple: Simple | None) -> None:
    """``python -c CODE`` (its code kept for the caller), ``python -m MOD`` (a command named
    by the module: kept by ``module_of``), a script file (not seen), or code read from input."""
    for i, word in enumerate(args):
        text = word.text
        if not text.startswith("-") or text == "-":
            if text == "-":
                break
            return  # a script file
        flags = text[1:]
        if "c" in flags and not text.startswith("--"):
            code = flags[flags.index("c") + 1 :] or (args[i + 1].text if i + 1 < len(args) else "")
            if i + 1 < len(args) and not flags[flags.index("c") + 1 :] and not args[i + 1].literal:
                found.opaque.append(f"{word.raw} {args[i + 1].raw}")
            found.code.append(code)
            return
        if "m" in flags and not text.startswith("--"):
            return  # a module: ``module_of`` reads it
    if simple is None or not any(r.op in ("<<", "<<-") for r in simple.redirects):
        found.opaque.append("python reading code from its input")


def module_of(words: tuple[Word, ...]) -> tuple[str, tuple[Word, ...]] | None:
    """``python -m MOD ARGS``: (MOD, ARGS); None for any other command."""
    if not words or not base(words[0].text).startswith(PYTHONS):
        return None
    args = words[1:]
    for i, word in enumerate(args):
        text = word.text
        if not text.startswith("-") or text.startswith("--") or text == "-":
            return None
        flags = text[1:]
        if "c" in flags:
            return None
        if "m" in flags:
            attached = flags[flags.index("m") + 1 :]
            if attached:
                return attached, args[i + 1 :]
            if i + 1 < len(args):
                return args[i + 1].text, args[i + 2 :]
            return None
    return None


def _find(args: list[Word], found: _Found, depth: int) -> None:
    """``find … -exec CMD {} ;`` runs CMD."""
    i = 0
    while i < len(args):
        if args[i].text in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next(
                (j for j in range(i + 1, len(args)) if args[j].text in (";", "+")), len(args)
            )
            _command(list(args[i + 1 : end]), found, depth + 1, None)
            i = end
        i += 1


def _git_aliases(args: list[Word], found: _Found, depth: int) -> None:
    """``git -c alias.x='!CMD' x``: an alias that starts with ``!`` is a shell command."""
    for i, word in enumerate(args):
        if word.text == "-c" and i + 1 < len(args):
            key, _, value = args[i + 1].text.partition("=")
            if key.lower().startswith("alias.") and value.startswith("!"):
                _read(value[1:], found, depth + 1)
        elif not word.text.startswith("-"):
            return


def is_assignment(word: Word) -> bool:
    """``NAME=value`` before a command (or as ``env``'s argument)."""
    name, eq, _ = word.raw.partition("=")
    return bool(eq) and name.isidentifier()
