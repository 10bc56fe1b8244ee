"""The trust guard: no tool call of the agent may write what holds the user's approvals, or run
the commands that grant them.

goalkeeper keeps what the user approved (a goal's promise, the config files' digests, the
repair counters) in its state folder outside the project, and the user's own settings in their
config file. A write tool aimed there, or a shell command that names goalkeeper's folders, is
refused; so is a shell command that runs ``goalkeeper allow`` or ``goalkeeper goal approve``,
``accept-tests``, ``resume`` or ``clear`` (which also refuse to run in an agent's shell by
themselves) or one of goalkeeper's host entry points, in any quoting (``trust_shell``). It
reads the call's text: it is a guard, not a sandbox (the host's sandbox is the wall). A mention
that only ``echo``, ``printf``, a ``cat`` heredoc or a commit message keeps (the agent telling
the user which command to run) is not refused. Pure.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any, ClassVar

from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.tools import SHELL_TOOLS, WRITE_TOOLS, shell_command, tool_target
from goalkeeper.core.values import Block, Event, Record, ToolCall
from goalkeeper.guards.spec import Context, Verdict

STATE_DIR = ".goalkeeper"
_APPROVAL = lazy_re(
    r"(?<![\w.-])goalkeeper(?:\s+(?:-C|--project)(?:=|\s+)\S+|\s+--?[\w-]+)*"
    r"\s+(?P<sub>allow|plan\s+accept|goal\s+(?:approve|accept-tests|resume|clear))(?![\w-])"
)
"""goalkeeper subcommands that approve on the user's behalf (or free the agent of its goal),
after any global options."""
_STATE_WORD = lazy_re(r"(?:^|[\s'\"=/:(<>])\.goalkeeper(?=$|[\s'\"/;&|)<>])")


class TrustGuard:
    name: ClassVar[str] = "trust"

    def initial_state(self) -> None:
        return None

    def load_state(self, raw: Mapping[str, Any]) -> None:
        return None

    def dump_state(self, state: None) -> dict[str, Any]:
        return {}

    def on_event(self, event: Event, state: None, ctx: Context) -> Verdict[None]:
        if not isinstance(event, ToolCall):
            return Verdict()
        if event.name in WRITE_TOOLS:
            path = tool_target(event.input)
            if path and host_file(path, ctx):
                return _refuse(ctx.say("trust.host_config_write", path=path), event.name)
            if path and protected(path, ctx):
                return _refuse(ctx.say("trust.state_write", path=path), event.name)
        elif event.name in SHELL_TOOLS:
            command = shell_command(event.input)
            approval = approval_command(command)
            if approval is not None:
                return _refuse(ctx.say("trust.approval_command", command=approval), event.name)
            if _STATE_WORD.search(command) or _names_user_file(command, ctx):
                return _refuse(ctx.say("trust.state_write", path=STATE_DIR + "/"), event.name)
            written = _shell_host_file(command, ctx)
            if written is not None:
                return _refuse(ctx.say("trust.host_config_write", path=written), event.name)
            from goalkeeper.guards.trust_shell import shell_refusal

            found = shell_refusal(command, ctx)
            if found is not None:
                key = _REFUSALS[found.kind]
                return _refuse(ctx.say(key, command=found.detail, path=found.detail), event.name)
        return Verdict()


_REFUSALS = {
    "entry": "trust.entry_command",
    "approval": "trust.approval_command",
    "opaque": "trust.opaque_command",
    "folder": "trust.state_folder",
}
"""The catalog message of each kind of line ``trust_shell`` refuses."""


def protected(path: str, ctx: Context) -> bool:
    """Whether a tool writing ``path`` (absolute, or relative to the project) would write
    goalkeeper's state folder or the user's config file."""
    root = ctx.project.rstrip("/") or "/"
    full = posixpath.normpath(path if path.startswith("/") else posixpath.join(root, path))
    state = posixpath.join(root, STATE_DIR)
    if full == state or full.startswith(state + "/"):
        return True
    user = ctx.config.user_file
    if user and (full == user or full == posixpath.normpath(user)):
        return True
    home = posixpath.normpath(ctx.config.state_home) if ctx.config.state_home else ""
    return bool(home) and (full == home or full.startswith(home + "/"))


def host_file(path: str, ctx: Context) -> bool:
    """Whether ``path`` (absolute, or relative to the project) is one of the host's own
    configuration files that run goalkeeper (``Context.host_files``)."""
    if not ctx.host_files:
        return False
    root = ctx.project.rstrip("/") or "/"
    if path.startswith(("/", "~/")):
        full = posixpath.normpath(path)
    else:
        full = posixpath.normpath(posixpath.join(root, path))
    return full in {posixpath.normpath(f) for f in ctx.host_files}


def _shell_host_file(command: str, ctx: Context) -> str | None:
    """The host configuration file a shell line writes, moves, links or removes, if any (read
    as the question gate reads writes; the host lists ``~/…`` forms of the user's files too)."""
    names = {posixpath.basename(f) for f in ctx.host_files}
    if not any(name in command for name in names):
        return None  # a line that names no host file writes none: no reading it (every Bash)
    from goalkeeper.core.shell.writes import read_writes

    found = read_writes(command)
    for path in (*found.paths, *found.links, *found.removed, *found.unknown):
        if host_file(path, ctx):
            return path
    if found.unknown:
        return found.unknown[0]  # a target it cannot place, next to a host file's name
    return None


def approval_command(command: str) -> str | None:
    """The approving goalkeeper command a shell line names (``goalkeeper goal approve``), or
    None. Read from the raw text, so wrappers (``env -u X``, ``python -m``, ``xargs``) and
    nested shells (``bash -c "…"``) cannot hide it; a mention that is only text a data program
    prints or keeps (``printf '… goalkeeper goal accept-tests …' >> NOTES.md``, a ``cat``
    heredoc, a commit message) is not a command."""
    match = _APPROVAL.search(command)
    if match is None or _only_mentioned(command):
        return None
    return "goalkeeper " + " ".join(match.group("sub").split())


DATA_PROGRAMS = frozenset(
    {"echo", "printf", "cat", "tee", "grep", "egrep", "fgrep", "rg", "head", "tail", "wc"}
    | {"true", ":", "test", "["}
)
"""Programs that only print, search or keep the text they are given: none runs it."""
_GIT_DATA = frozenset({"commit", "tag"})
"""``git commit -m …`` / ``git tag -m …``: the message is kept, not run."""
_EXPANDS = ("$(", "`", "<(", ">(")
"""Expansions that run a command inside a data program's arguments (outside single quotes)."""


def _only_mentioned(command: str) -> bool:
    """Whether every part of ``command`` that names an approval is a data program's text that
    nothing runs: no command substitution in it, not piped into a program that could run it,
    and a heredoc that names one is read by a data program."""
    from goalkeeper.core.shell.line import cut_line, split_heredocs

    line, heredocs = split_heredocs(command)
    for opener, body in heredocs:
        if _APPROVAL.search(body) and not all(_data(part) for part, _ in cut_line(opener)):
            return False
    parts = cut_line(line)
    for index, (part, op) in enumerate(parts):
        if _APPROVAL.search(part) is None:
            continue
        if not _data(part) or _expands(part):
            return False
        if op in ("|", "|&") and not all(_data(p) for p, _ in parts[index + 1 :]):
            return False
    return True


def _expands(part: str) -> bool:
    """Whether ``part`` has a command substitution outside single quotes (which keep
    `` `…` `` and ``$(…)`` as text; double quotes do not)."""
    quote = ""
    i = 0
    while i < len(part):
        c = part[i]
        if quote == "'":
            quote = "" if c == "'" else quote
        elif c == "\\":
            i += 1  # the next character is literal
        elif part.startswith(_EXPANDS, i):
            return True
        elif c == '"':
            quote = "" if quote == '"' else '"'
        elif c == "'" and not quote:
            quote = "'"
        i += 1
    return False


def _data(part: str) -> bool:
    from goalkeeper.core.shell.line import ASSIGNMENT, base, part_words

    words = part_words(part)
    while words and ASSIGNMENT.match(words[0]):
        words = words[1:]
    if not words:
        return False  # unreadable, or nothing but assignments: not proven harmless
    program = base(words[0])
    if program == "git":
        return len(words) > 1 and words[1] in _GIT_DATA
    return program in DATA_PROGRAMS


def _names_user_file(command: str, ctx: Context) -> bool:
    """The user's config file or goalkeeper's state folder named on a shell line."""
    user, home = ctx.config.user_file, ctx.config.state_home
    if user and (user in command or "goalkeeper/config.toml" in command):
        return True
    return bool(home) and (home in command or "state/goalkeeper" in command)


def _refuse(reason: str, tool: str) -> Verdict[None]:
    return Verdict((Block(reason), Record("trust_refused", {"tool": tool})))
