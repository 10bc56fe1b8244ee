"""Which files a shell command writes, read from its text: for normal mode's question gate and
the check gate's "a file changed after the check".

A model that is told "no code before the facts are confirmed" and is refused ``Write`` may reach
for ``cat > app.py <<EOF`` instead. The reader takes the line apart as bash would
(``line.simple_commands``: quotes, escapes, ``$(…)``, ``(( … ))`` and ``[[ … ]]`` are not
redirections) and judges each simple command: redirections (``>``, ``>>``, ``&>``, ``>|``,
``<>``), ``tee``, in-place editors (``sed -i``, ``perl -i``), copies, moves and links onto a path
(``cp``, ``mv``, ``install``, ``ln``, ``rsync``, with ``-t DIR`` too), ``dd of=``, ``truncate``,
``touch``, downloads (``curl -o``, ``wget -O``), archives (``tar -cf``), removals (``rm``, the
sources of ``mv``), and the command lines a line runs itself (``bash -c '…'``, ``bash <<<``,
``eval``, ``$(…)``, a heredoc fed to a shell, ``find -exec``, ``xargs``). What it cannot read as
a path (``> "$f"``, ``tee ~/x``, ``bash -c "$cmd"``, a program named by a variable, ``patch``,
``tar -x``, ``git checkout``) is reported as unknown, for the caller to treat as a write it
cannot place. It is a reading of the text, not a sandbox: a
program that writes by itself (``python build.py``) is not seen, and nothing here runs the
command. Where a path lies is ``places.locate``'s question. Pure.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from msgspec import Struct, field

from goalkeeper.core.shell.commands import KEYWORDS, WRAPPERS, has_c_option, is_assignment
from goalkeeper.core.shell.line import (
    Redirect,
    Simple,
    Word,
    base,
    simple_commands,
    split_heredocs,
)
from goalkeeper.core.shell.options import read_options
from goalkeeper.core.values import ToolRun

MAX_DEPTH = 4
"""Command lines inside command lines read (``bash -c "eval '…'"``); deeper is unknown."""
MAX_CHARS = 50_000
"""A longer command line is read this far; the rest is unknown."""

_FILE_WRITES = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh"})
_WRAPPERS = {**WRAPPERS, "busybox": ""}
"""The wrappers ``commands`` looks through; busybox is one here (``commands`` reads it as a
shell)."""
_LINKERS = frozenset({"ln", "link"})
_REMOVERS = frozenset({"rm", "unlink", "rmdir", "shred"})
_COPIERS = frozenset({"cp", "mv", "install", "rsync", "ln"})


class Writes(Struct, frozen=True):
    """What a command line writes: ``paths`` as written (literal ones), ``unknown``: targets it
    cannot read as a path (as written), ``links``: links it makes (``ln``, ``cp -s``), through
    which a later write lands somewhere else; ``removed``: see below."""

    paths: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    """Paths it removes (``rm``, ``unlink``, the sources of ``mv``): a change to the project
    too, which the check gate does not count (``rm -rf .pytest_cache`` after a run)."""


class _Found(Struct):
    paths: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def target(self, word: Word, into: list[str] | None = None) -> None:
        if not word.literal:
            self.unknown.append(word.raw)
        elif word.text and not word.text.startswith("/dev/"):
            (self.paths if into is None else into).append(word.text)

    def removal(self, word: Word) -> None:
        self.target(word, self.removed)


def read_writes(command: str) -> Writes:
    """What ``command`` writes, each list in order and de-duplicated. Heredoc bodies are data,
    unless a shell reads them (``bash <<EOF``). Never raises."""
    found = _Found()
    if len(command) > MAX_CHARS:
        found.unknown.append(command[MAX_CHARS - 20 : MAX_CHARS] + "…")
    _read(command[:MAX_CHARS], found, 0)
    lists = (found.paths, found.unknown, found.links, found.removed)
    return Writes(*(tuple(dict.fromkeys(v)) for v in lists))


def written_paths(command: str) -> tuple[str, ...]:
    """The paths ``command`` writes that its text names (``read_writes(command).paths``): the
    check gate's reading of "a file changed". () when it writes none the text shows."""
    return read_writes(command).paths


def run_writes(run: ToolRun) -> tuple[str, ...]:
    """The files a recorded tool call wrote: an edit's path, what a finished shell command's
    line writes; nothing for a call refused or failed (it wrote nothing)."""
    if run.outcome in ("refused", "failed"):
        return ()
    if run.kind == "edit":
        return (run.path,) if run.path else ()
    if run.kind == "shell" and run.outcome != "unfinished":
        return written_paths(run.command)
    return ()


def _read(command: str, found: _Found, depth: int) -> None:
    if depth > MAX_DEPTH:
        found.unknown.append(command.strip()[:80])
        return
    text, docs = split_heredocs(command)
    for simple in simple_commands(text):
        _simple(simple, found, depth)
    for opener, body in docs:  # ``bash <<'EOF'``: the body is a script
        if any(_is_shell_reading_stdin(s) for s in simple_commands(opener)):
            _read(body, found, depth + 1)


def _simple(simple: Simple, found: _Found, depth: int) -> None:
    for redirect in simple.redirects:
        if redirect.op not in _FILE_WRITES or redirect.target is None:
            continue
        target = redirect.target
        if redirect.op == ">&" and (target.text.isdigit() or target.text == "-"):
            continue  # 2>&1, >&-: a descriptor, not a file
        found.target(target)
    for inner in simple.inner:
        _read(inner, found, depth + 1)
    _command(list(simple.words), found, depth, simple.redirects)


def _command(
    words: list[Word], found: _Found, depth: int, redirects: tuple[Redirect, ...] = ()
) -> None:
    """The writes of one command's words (wrappers such as ``sudo`` or ``xargs`` taken off)."""
    fed = False  # under xargs: more operands come from its input
    while words and (words[0].raw in KEYWORDS or is_assignment(words[0])):
        words = words[1:]
    while words and words[0].literal and base(words[0].text) in _WRAPPERS:
        name = base(words[0].text)
        fed = fed or name == "xargs"
        rest, values = read_options(words[1:], _WRAPPERS[name], first_operand_ends=True)
        if name == "env" and "S" in values:
            _read(values["S"].text, found, depth + 1)
        if name == "timeout" and rest:
            rest = rest[1:]  # the duration
        words = [w for w in rest if not (name in ("env", "sudo") and is_assignment(w))]
        words = list(_drop_assignments(words)) if name == "env" else words
    if not words:
        return
    if not words[0].literal:
        found.unknown.append(words[0].raw)  # ``$CMD args``, ``"$(which tee)" f``: who knows
        return
    name, args = base(words[0].text), words[1:]
    before = len(found.paths) + len(found.unknown)
    _program(name, args, found, depth, redirects)
    if fed and len(found.paths) + len(found.unknown) == before and name in _OPERAND_WRITERS:
        found.unknown.append(f"xargs {name}")  # ``xargs sed -i …``: the files come from input


_OPERAND_WRITERS = frozenset(
    {"tee", "sed", "perl", "ruby", "touch", "truncate", "dd"} | _COPIERS | _REMOVERS
)
_PATCHERS = frozenset({"patch", "unzip", "cpio"})
"""Programs whose targets are named in their input (a diff, an archive), not on the line."""


def _program(
    name: str, args: list[Word], found: _Found, depth: int, redirects: tuple[Redirect, ...]
) -> None:
    if name == "tee":
        for word in read_options(args, "")[0]:
            found.target(word)
    elif name == "sed":
        _sed(args, found)
    elif name in ("perl", "ruby"):
        _perl(args, found)
    elif name in _COPIERS or name in _LINKERS:
        _copy(name, args, found)
    elif name == "dd":
        for word in args:
            if word.text.startswith("of="):
                found.target(Word(word.text[3:], word.raw, word.literal))
    elif name == "truncate":
        for word in read_options(args, "sr")[0]:
            found.target(word)
    elif name == "touch":
        for word in read_options(args, "dtr")[0]:
            found.target(word)
    elif name in _SHELLS:
        _shell(args, found, depth, redirects)
    elif name == "eval":
        if all(w.literal for w in args):
            _read(" ".join(w.text for w in args), found, depth + 1)
        else:
            found.unknown.append(" ".join(w.raw for w in [Word("eval", "eval"), *args]))
    elif name == "find":
        _find(args, found, depth)
    elif name in _REMOVERS:
        for word in read_options(args, "ns" if name == "shred" else "")[0]:
            found.removal(word)
    elif name in ("curl", "wget"):
        _download(name, args, found)
    elif name == "tar":
        _tar(args, found)
    elif name in _PATCHERS or (name == "git" and _git_changes_the_tree(args)):
        found.unknown.append(" ".join([name, *(w.raw for w in args)])[:80])
    elif name in ("source", ".") and args and not args[0].literal:
        found.unknown.append(f"{name} {args[0].raw}")  # source <(…): a script it cannot see


def _sed(args: list[Word], found: _Found) -> None:
    """``sed -i[SUFFIX] [-e SCRIPT | -f FILE]… [SCRIPT] FILE…``: the files after the script."""
    operands, values = read_options(args, "efl", optional="i", long_values=("expression", "file"))
    if "i" not in values and "in-place" not in values:
        return
    scripted = any(k in values for k in ("e", "f", "expression", "file"))
    for word in operands if scripted else operands[1:]:
        found.target(word)


def _perl(args: list[Word], found: _Found) -> None:
    """``perl -pi[.bak] -e PROGRAM FILE…`` (the files), ``perl -i SCRIPT FILE…`` (after it)."""
    operands, values = read_options(args, "eEIMx", optional="i0l")
    if "i" not in values:
        return
    for word in operands if ("e" in values or "E" in values) else operands[1:]:
        found.target(word)


def _copy(name: str, args: list[Word], found: _Found) -> None:
    """``cp SRC… DEST``, ``cp -t DIR SRC…`` (``DIR/<name>`` each), ``ln [-s] TARGET [LINK]``."""
    takes = {"install": "mogSt", "rsync": "eTf"}.get(name, "tS")
    operands, values = read_options(
        args, takes, long_values=("target-directory", "suffix", "mode", "owner", "group")
    )
    if name == "install" and ("d" in values or "directory" in values):
        return  # directories made, no file written
    target_dir = values.get("t") or values.get("target-directory")
    links = name in _LINKERS or any(k in values for k in ("s", "l", "link", "symbolic-link"))
    if name == "rsync":
        target_dir, links = None, False
    written: list[Word] = []
    if target_dir is not None:
        if not target_dir.literal:
            found.unknown.append(target_dir.raw)
            return
        for word in operands or [Word("", "")]:
            leaf = posixpath.basename(word.text.rstrip("/")) if word.literal else ""
            joined = posixpath.join(target_dir.text, leaf) if leaf else target_dir.text
            written.append(Word(joined, joined, True))
    elif name in _LINKERS and len(operands) == 1:
        leaf = posixpath.basename(operands[0].text.rstrip("/"))
        written.append(Word(leaf, leaf, operands[0].literal))
    elif len(operands) >= 2:
        written.append(operands[-1])
    if name == "mv":  # the sources leave their place
        for word in operands if target_dir is not None else operands[:-1]:
            found.removal(word)
    for word in written:
        found.target(word)
        if links:
            found.links.append(word.raw if not word.literal else word.text)


def _shell(args: list[Word], found: _Found, depth: int, redirects: tuple[Redirect, ...]) -> None:
    """``bash -c 'LINE'`` and ``bash <<< 'LINE'`` (the line is read), ``bash <<EOF`` (the body
    is, by ``_read``), ``bash script.sh`` or ``bash < script.sh`` (a program: not seen), and
    a shell reading a line the text does not show (``curl … | sh``, ``bash < <(…)``): unknown."""
    for i, word in enumerate(args):
        if has_c_option(word):
            line = args[i + 1] if i + 1 < len(args) else None
            if line is None:
                return
            if line.literal:
                _read(line.text, found, depth + 1)
            else:
                found.unknown.append(f"{word.raw} {line.raw}")
            return
    if any(not w.text.startswith(("-", "+")) for w in args):
        return  # a script file
    for redirect in redirects:
        target = redirect.target
        if target is None or redirect.op in ("<<", "<<-"):
            continue
        if redirect.op == "<<<":
            if target.literal:
                _read(target.text, found, depth + 1)
            else:
                found.unknown.append(target.raw)
            return
        if redirect.op in ("<", "<&", "<>"):
            if not target.literal:
                found.unknown.append(target.raw)  # bash < <(curl …)
            return  # else a script file on its input: a program, not seen
    if not any(r.op in ("<<", "<<-") for r in redirects):
        found.unknown.append("a script on the shell's input")


def _download(name: str, args: list[Word], found: _Found) -> None:
    """``curl -o FILE``, ``wget -O FILE`` write FILE; ``curl -O`` and a plain ``wget`` write a
    file named by the URL (unknown); a plain ``curl`` prints."""
    takes = "oHdXuAeErTwF" if name == "curl" else "OPoaeUtTwQl"
    operands, values = read_options(
        args, takes, long_values=("output", "output-document", "directory-prefix")
    )
    out = values.get("o" if name == "curl" else "O") or values.get(
        "output" if name == "curl" else "output-document"
    )
    if out is not None:
        if out.text != "-":
            found.target(out)
    elif (name == "curl" and ("O" in values or "remote-name" in values)) or (
        name == "wget" and operands
    ):
        found.unknown.append(" ".join([name, *(w.raw for w in args)])[:80])


def _find(args: list[Word], found: _Found, depth: int) -> None:
    """``find … -exec CMD {} ;`` runs CMD; ``-fprint FILE`` writes FILE."""
    i = 0
    while i < len(args):
        flag = args[i].text
        if flag in ("-fprint", "-fprint0", "-fls", "-fprintf") and i + 1 < len(args):
            found.target(args[i + 1])
        if flag in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next(
                (j for j in range(i + 1, len(args)) if args[j].text in (";", "+")), len(args)
            )
            _command(args[i + 1 : end], found, depth + 1)
            i = end
        i += 1


_GIT_TREE = frozenset(
    {"apply", "am", "checkout", "switch", "restore", "merge", "pull", "rebase", "cherry-pick"}
    | {"revert", "clean", "rm", "mv", "stash"}
)
"""git subcommands that change files of the work tree the line does not name."""


def _git_changes_the_tree(args: list[Word]) -> bool:
    words = [w.text for w in args]
    i = 0
    while i < len(words) and words[i].startswith("-"):  # git -C dir, git -c k=v
        i += 2 if words[i] in ("-C", "-c") else 1
    sub = words[i] if i < len(words) else ""
    rest = words[i + 1 :]
    if sub == "stash":
        return not rest or rest[0] not in ("list", "show")
    if sub == "reset":
        return any(w in ("--hard", "--merge", "--keep") for w in rest)
    return sub in _GIT_TREE


def _tar(args: list[Word], found: _Found) -> None:
    """``tar -czf out.tgz …`` writes the archive; ``tar xf``, ``tar --extract`` write the
    files the archive names (unknown)."""
    if args and args[0].text[:1] not in ("-", ""):  # old style: ``tar czf out.tgz``
        args = [Word("-" + args[0].text, args[0].raw, args[0].literal), *args[1:]]
    _, values = read_options(args, "fCbTXKLNgV", long_values=("file", "directory"))
    if any(k in values for k in ("x", "extract", "get")):
        found.unknown.append(" ".join(["tar", *(w.raw for w in args)])[:80])
    elif any(k in values for k in ("c", "r", "u", "A", "create", "append", "update")):
        archive = values.get("f") or values.get("file")
        if archive is not None and archive.text != "-":
            found.target(archive)


def _is_shell_reading_stdin(simple: Simple) -> bool:
    words = [w for w in simple.words if not is_assignment(w)]
    if not words or base(words[0].text) not in _SHELLS:
        return False
    return any(r.op in ("<<", "<<-") for r in simple.redirects) and not any(
        w.text.startswith("-") and "c" in w.text and not w.text.startswith("--") for w in words[1:]
    )


def _drop_assignments(words: Sequence[Word]) -> Sequence[Word]:
    i = 0
    while i < len(words) and is_assignment(words[i]):
        i += 1
    return words[i:]
