"""What the trust guard refuses on an agent's shell line, read with the shell's quoting undone.

Without a sandbox the agent's shell runs as the user, so no reading of its text can stop a
determined agent; this closes the cheap ways (README, Security model). A line is refused when
a command it runs (``core.shell.commands``: quotes removed, wrappers and nested shells taken
apart) is

* one of goalkeeper's host entry points: ``goalkeeper hook|mcp|bridge|server``, ``python -m
  goalkeeper…`` of any of them, or Python code that drives goalkeeper's modules; the host
  starts those, the agent has no reason to (``entry``);
* a command that approves on the user's behalf, in any quoting or wrapper (``approval``);
* a command the text cannot show (a variable or substitution as the command word, ``eval
  "$x"``, a shell reading a script from a pipe) on a line that names goalkeeper in any
  spelling or an approval verb (``opaque``);

or when a word on it names one of goalkeeper's folders — the state home, the config home, the
runtime folder, the legacy ``.goalkeeper/`` in the project, the hosts' records of the user's
prompts (``~/.claude/projects``, ``~/.codex/sessions``) — directly, through a glob
(``.goal*``, ``~/.local/state/goal*``), after a variable (``$X/goalkeeper``), or, for a command
that deletes or moves (``rm``, ``find -delete``, ``mv``), a folder that holds one (``folder``).
A mention in text a data program prints or keeps is not a command. Pure.
"""

from __future__ import annotations

import posixpath
import re

from msgspec import Struct

from goalkeeper.core.shell.commands import Command, Reading, module_of, read_commands
from goalkeeper.core.shell.line import Word, base
from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.guards.spec import Context

ENTRY_POINTS = frozenset({"hook", "mcp", "bridge", "server"})
"""goalkeeper subcommands only a host starts (its hooks, its MCP server, Pi's bridge, the
warm engine)."""
_GOAL_APPROVALS = frozenset({"approve", "accept-tests", "resume", "clear"})
_GLOBAL_VALUED = frozenset({"-C", "--project"})
_VERBS = frozenset({"approve", "accept-tests", "allow"})
_SUBCOMMANDS = ENTRY_POINTS | {"goal", "plan", "allow"}
_DESTROYERS = frozenset(
    {"rm", "rmdir", "unlink", "shred", "mv", "rsync", "chmod", "chown", "trash", "gio"}
)
_CODE_WORDS = lazy_re(
    r"approve|accept|allow|resume|clear|hook|mcp|bridge|server|cli|main|store|state|sqlite"
    r"|system|subprocess|popen|exec|run"
)
"""Words that make Python code naming goalkeeper a use of it, not a mention."""


class Refusal(Struct, frozen=True):
    """Why a line is refused: ``kind`` (entry, approval, opaque, folder) and what was found."""

    kind: str
    detail: str


class Folder(Struct, frozen=True):
    """A folder of goalkeeper's; ``holders``: whether deleting a folder that holds it counts
    (not for the legacy ``.goalkeeper/``, which nothing uses once migrated)."""

    path: str
    holders: bool = True


def shell_refusal(command: str, ctx: Context) -> Refusal | None:
    """Why ``command`` (an agent's shell line) is refused, or None."""
    reading = read_commands(command)
    for cmd in reading.commands:
        found = goalkeeper_use(cmd)
        if found is not None:
            return found
    for code in reading.code:
        if names_goalkeeper(code) and _CODE_WORDS.search(code.lower()):
            return Refusal("entry", code.strip().splitlines()[0][:80] if code.strip() else "")
    folder = named_folder(reading, ctx)
    if folder is not None:
        return Refusal("folder", folder)
    if reading.opaque and _mentions(reading, command):
        return Refusal("opaque", reading.opaque[0])
    return None


def goalkeeper_use(cmd: Command) -> Refusal | None:
    """An entry point or an approving subcommand of goalkeeper that ``cmd`` runs."""
    words = cmd.words
    if not words[0].literal:
        return None
    args: tuple[Word, ...] | None = None
    if base(words[0].text).removesuffix(".exe") == "goalkeeper":
        args = words[1:]
    else:
        module = module_of(words)
        if module is not None and module[0].split(".")[0] == "goalkeeper":
            if module[0] != "goalkeeper":
                return Refusal("entry", f"python -m {module[0]}")
            args = module[1]
    if args is None:
        return None
    sub = _subcommand(args)
    if not sub:
        return Refusal("approval", "goalkeeper") if cmd.fed else None
    head, verb = sub[0], sub[1] if len(sub) > 1 else ""
    if head in ENTRY_POINTS:
        return Refusal("entry", f"goalkeeper {head}")
    if head == "allow" or (head == "plan" and verb == "accept"):
        return Refusal("approval", " ".join(["goalkeeper", *sub[:2]]).strip())
    if head == "goal" and verb in _GOAL_APPROVALS:
        return Refusal("approval", f"goalkeeper goal {verb}")
    if cmd.fed and head in ("goal", "plan") and not verb:
        return Refusal("approval", f"goalkeeper {head}")
    return None


def _subcommand(args: tuple[Word, ...]) -> list[str]:
    """goalkeeper's subcommand words after its global options (``-C DIR``, ``--verbose``)."""
    i = 0
    while i < len(args) and args[i].text.startswith("-"):
        i += 2 if args[i].text in _GLOBAL_VALUED else 1
    return [w.text for w in args[i : i + 2]]


def names_goalkeeper(text: str) -> bool:
    """Whether ``text`` names goalkeeper in any spelling its letters keep (``goal""keeper``,
    ``goal\\keeper``, ``g=goal; k=keeper``)."""
    letters = re.sub(r"[^a-z]", "", text.lower())
    return (
        "goalkeeper" in letters
        or "alkeeper" in letters
        or ("goal" in letters and "keeper" in letters)
    )


def _mentions(reading: Reading, command: str) -> bool:
    """A line whose unreadable part could be goalkeeper: its name in any spelling, an
    approval verb, or an opaque command whose first argument is a goalkeeper subcommand."""
    texts = [w.text for w in reading.words]
    if names_goalkeeper(command + " " + " ".join(texts)):
        return True
    if any(t in _VERBS for t in texts) or re.search(r"(?<![\w-])(approve|accept-tests)", command):
        return True
    for cmd in reading.commands:
        if not cmd.words[0].literal:
            rest = [w.text for w in cmd.words[1:] if not w.text.startswith("-")]
            if rest and rest[0] in _SUBCOMMANDS:
                return True
    return False


def folders(ctx: Context) -> list[Folder]:
    """goalkeeper's folders as this configuration places them."""
    root = ctx.project.rstrip("/") or "/"
    config = ctx.config
    out = [Folder(posixpath.join(root, ".goalkeeper"), holders=False)]
    for path in (config.state_home, config.config_home, config.runtime_dir):
        if path:
            out.append(Folder(posixpath.normpath(path)))
    if config.home:  # the hosts' own records of what the user typed (``user_prompt_shown``)
        for record in HOST_RECORDS:
            out.append(Folder(posixpath.join(config.home, record), holders=False))
    return out


HOST_RECORDS = (".claude/projects", ".claude/sessions", ".codex/sessions")
"""Where Claude Code and Codex (default homes) record the user's prompts and live sessions,
which decide whether a prompt is the user's: the agent's shell may not name them either."""


def named_folder(reading: Reading, ctx: Context) -> str | None:
    """The first word of ``reading`` that names one of goalkeeper's folders (or, on a command
    that deletes or moves, a folder holding one), as written; None when none does."""
    protected = folders(ctx)
    home = ctx.config.home
    root = ctx.project.rstrip("/") or "/"
    bases = [root]
    for cmd in reading.commands:  # `cd ~/.local/state && rm -rf goalkeeper`
        if base(cmd.words[0].text) in ("cd", "pushd") and len(cmd.words) > 1:
            place = _place(cmd.words[1].text, home, root)
            if place is not None:
                bases.append(place)
    destroys = any(_destroys(cmd) for cmd in reading.commands)
    for word in reading.words:
        for text in _candidates(word):
            if _names(text, protected, home, bases, destroys):
                return word.raw
    return None


def _candidates(word: Word) -> list[str]:
    text = word.text
    if not text or (text.startswith("-") and "=" not in text):
        return []
    out = [text]
    # NAME=path, --output=path, of=path, UNIX-LISTEN:path,fork, a PATH-like list
    out += [p for p in re.split(r"[=:,]", text)[1:] if p.startswith(("/", "~", "$", "."))]
    return out


def _names(text: str, protected: list[Folder], home: str, bases: list[str], wide: bool) -> bool:
    place = _place(text, home, "")
    if place is None:  # an expansion the text cannot resolve: judge what follows it
        tail = re.split(r"\$\{[^}]*\}|\$\(|\$[A-Za-z_]\w*|`", text)[-1]
        return any(
            part.strip("*?") and _component(part, name)
            for part in tail.split("/")
            for name in ("goalkeeper", ".goalkeeper")
        )
    paths = [place] if place.startswith("/") else [posixpath.join(b, place) for b in bases]
    for path in paths:
        parts = _parts(posixpath.normpath(path))
        for folder in protected:
            want = _parts(folder.path)
            n = min(len(parts), len(want))
            if not all(_component(parts[i], want[i]) for i in range(n)):
                continue
            if len(parts) >= len(want) or (wide and folder.holders):
                return True
    return False


def _place(text: str, home: str, root: str) -> str | None:
    """``text`` with ``~`` and ``$HOME`` resolved (relative to ``root`` when given); None when
    another expansion is left."""
    for prefix in ("$HOME", "${HOME}", "~"):
        if home and (text == prefix or text.startswith(prefix + "/")):
            text = home + text[len(prefix) :]
            break
    if "$" in text or "`" in text or text.startswith("~"):
        return None
    if root and not text.startswith("/"):
        text = posixpath.join(root, text)
    return text


def _parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p]


def _component(pattern: str, name: str) -> bool:
    """Whether a path component as written (perhaps a glob) matches ``name``; as in bash, a
    glob that does not start with a dot matches no dot-file."""
    import fnmatch

    if pattern == name:
        return True
    if not any(c in pattern for c in "*?["):
        return False
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatch.fnmatchcase(name, pattern)


def _destroys(cmd: Command) -> bool:
    name = base(cmd.words[0].text) if cmd.words[0].literal else ""
    if name in _DESTROYERS:
        return True
    texts = [w.text for w in cmd.words]
    return name == "find" and any(t in ("-delete", "-exec", "-execdir") for t in texts)
