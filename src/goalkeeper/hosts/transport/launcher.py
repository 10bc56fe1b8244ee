"""The portable command Claude Code runs for goalkeeper's hooks and MCP server.

Files a team commits (``.claude/settings.json``, ``.mcp.json``, a plugin's ``hooks.json``) must
name no path of one machine, so the command is a short POSIX shell launcher that finds
goalkeeper when it runs::

    # goalkeeper hook claude …    # a hook: the script itself (Claude Code runs it with sh -c)
    sh -c '<LAUNCHER>' goalkeeper mcp   # the MCP server (Claude Code runs argv directly)

Resolution, first match wins:

1. ``$GOALKEEPER_PYTHON``: an interpreter with goalkeeper, from the user's environment or the
   user's ``~/.claude/settings.json`` ``env`` (the opt-in for a project virtualenv);
2. the interpreter recorded at install time, for the scopes whose files are not committed
   (``--local``, ``--user``: they may name a path of this machine);
3. ``goalkeeper`` on ``PATH`` (pipx, ``uv tool install``, an activated virtualenv outside the
   project): the interpreter named in its ``#!`` line, or the script itself;
4. none: a hook prints one JSON answer whose ``systemMessage`` says goalkeeper is not
   installed and how to install it, and exits 0, so the session is neither broken nor blocked;
   the MCP server writes that line to stderr and exits 1 (Claude Code marks the server failed
   and the session goes on).

**Security.** The project folder is the supervised agent's to write. A launcher that ran
``./.venv/bin/python`` (or anything found through a relative or in-project ``PATH`` entry, or
``python -m`` with the project as the working directory, which puts it first on ``sys.path``)
would let a cheating agent swap goalkeeper for a fake that approves everything. So ``PATH``
entries that are relative or inside the project (``$CLAUDE_PROJECT_DIR``, else the working
directory) are skipped, and Python runs with ``-P`` (no working directory on ``sys.path``) and
``-E`` (no ``PYTHONPATH`` from an environment the project's settings could set). A project
virtualenv is used only when the user names it in their own configuration
(``GOALKEEPER_PYTHON``) or installs with ``--local``/``--user`` from it.

**Speed.** A warm hook costs little more than starting Python, so the hook path is lean: when
the interpreter belongs to a virtualenv whose site-packages holds goalkeeper (or a hatchling
editable ``.pth`` pointing at a source tree), Python starts with ``-S`` (no ``site``, no
``.pth`` hooks) and ``-c`` (no ``runpy``), and the client puts that one folder on ``sys.path``
itself. ``site`` runs only if the event must be handled in-process (``hook_client``). Anything
else (a system Python, a ``pip --user`` install) takes ``python -m goalkeeper``, which is slower
but always right. The shell part forks nothing: ``read``, ``case``, ``[`` and globbing are
builtins.
"""

from __future__ import annotations

import re

from goalkeeper.core.text.lazy_re import lazy_re

NOT_INSTALLED = (
    "goalkeeper is not installed: put `goalkeeper` on PATH (uv tool install "
    "/path/to/goalkeeper, or pipx install /path/to/goalkeeper) or set GOALKEEPER_PYTHON to a "
    "Python that has it; this session runs without goalkeeper."
)
"""Shown to the user (never to the model) when the launcher finds no goalkeeper."""

LEAN_CODE = (
    "import sys;sys.prefix=sys.exec_prefix=sys.argv.pop(1);sys.path.append(sys.argv.pop(1));"
    "from goalkeeper.hosts.hook_client import lean_main;lean_main()"
)
"""The ``-S -c`` client: argv is (venv prefix, folder holding ``goalkeeper``, ``hook``, host).
``sys.prefix`` is set as ``site`` would set it in a virtualenv, because the engine process is
found by it (``hook_client.server_key``). No quotes, ``$``, backslash or backtick: it sits in
double quotes in the script."""

_EDITABLE_PTH = ("_goalkeeper.pth", "_editable_impl_goalkeeper.pth")
"""The ``.pth`` files hatchling writes for an editable install (a source folder per line)."""

PY_FLAGS = "-E -P"


PROJECT_REFS = {"gemini": "$GEMINI_PROJECT_DIR"}
"""How a host's hook command names the project folder, where ``"$CLAUDE_PROJECT_DIR"`` is
wrong. Gemini CLI replaces ``$GEMINI_PROJECT_DIR`` (and ``$CLAUDE_PROJECT_DIR``) in the command
string with the folder already shell-quoted (0.61.0 ``hookRunner.expandCommand``), so inside
double quotes the value would carry the quotes and the in-project ``PATH`` check would never
match: unquoted, the substitution is the quoting."""


def launcher_script(
    python: str | None = None, *, project_ref: str = '"$CLAUDE_PROJECT_DIR"'
) -> str:
    """The POSIX shell script (``$1``…: ``hook claude`` or ``mcp``); ``python``, when given,
    is tried right after ``$GOALKEEPER_PYTHON`` (only for files that stay on this machine);
    ``project_ref``: the shell word naming the project folder (``PROJECT_REFS``).

    No ``${NAME}`` or ``${NAME:-default}``: Claude Code expands those itself in MCP server
    arguments (2.1.332, checked), which would change the script before ``sh`` sees it."""
    if python is not None and "\n" in python:  # the fallback is one line of the script
        raise ValueError(f"an interpreter path with a newline: {python!r}")
    notice_json = '{"systemMessage": "' + NOT_INSTALLED.replace("`", "") + '"}'
    lines = [
        # quoted: `claude plugin validate` warns on an unquoted $CLAUDE_PROJECT_DIR
        f'p="$GOALKEEPER_PYTHON" g= r={project_ref}',
        *([f'[ -n "$p" ] || p={_dq(python)}'] if python else []),
        '[ -n "$r" ] || r=$PWD',
        'if [ -z "$p" ]; then',
        " set -f; IFS=:",
        " for d in $PATH; do",
        "  case $d in /*) ;; *) continue ;; esac",
        '  case $d/ in "$r"/*) continue ;; esac',
        '  if [ -f "$d/goalkeeper" ] && [ -x "$d/goalkeeper" ]; then',
        '   l=; read -r l < "$d/goalkeeper"',
        "   case $l in",
        '    "#!/"*" "*) g=$d/goalkeeper ;;',
        '    "#!/"*python*) p=${l#??} ;;',
        "    *) g=$d/goalkeeper ;;",
        "   esac",
        "   break",
        "  fi",
        " done",
        " unset IFS; set +f",
        "fi",
        'if [ -n "$p" ] && [ -x "$p" ]; then',
        " v=${p%/bin/*}",
        ' if [ "$1" = hook ] && [ -f "$v/pyvenv.cfg" ]; then',
        '  for s in "$v"/lib/python3*/site-packages; do',
        '   if [ -f "$s/goalkeeper/hosts/hook_client.py" ]; then',
        f'    exec "$p" {PY_FLAGS} -S -c "{LEAN_CODE}" "$v" "$s" "$@"',
        "   fi",
        "   for f in " + " ".join(f'"$s/{name}"' for name in _EDITABLE_PTH) + "; do",
        '    e=; [ -f "$f" ] && read -r e < "$f"',
        '    if [ -n "$e" ] && [ -f "$e/goalkeeper/hosts/hook_client.py" ]; then',
        f'     exec "$p" {PY_FLAGS} -S -c "{LEAN_CODE}" "$v" "$e" "$@"',
        "    fi",
        "   done",
        "  done",
        " fi",
        f' exec "$p" {PY_FLAGS} -m goalkeeper "$@"',
        "fi",
        'if [ -n "$g" ]; then exec "$g" "$@"; fi',
        'if [ "$1" = hook ]; then',
        f" echo {_dq(notice_json)}",
        " exit 0",
        "fi",
        f"echo {_dq(NOT_INSTALLED)} >&2",
        "exit 1",
    ]
    return "\n".join(lines)


def hook_command(host: str = "claude", python: str | None = None) -> str:
    """The launcher's public entry point for hooks: the one command string to register for
    every hook event of ``host``. ``python`` bakes in a fallback interpreter: only for
    settings that are never committed.

    Claude Code runs a hook command with ``/bin/sh -c`` (checked on 2.1.332: dash on Debian),
    so the command is the POSIX script itself, not ``sh -c '…'`` inside that shell: a second
    shell would cost a tenth of Python's start-up on every event. Its first line names it
    (``is_goalkeeper_command`` recognises it by that line) and ``set --`` gives the script the
    arguments ``sh -c`` would have."""
    if not host.isalnum():
        raise ValueError(f"not a host name: {host!r}")
    head = f"# goalkeeper hook {host}: finds goalkeeper when it runs (goalkeeper install --help)"
    script = launcher_script(python, project_ref=PROJECT_REFS.get(host, '"$CLAUDE_PROJECT_DIR"'))
    return f"{head}\nset -- hook {host}\n{script}"


def mcp_argv(python: str | None = None, host: str = "") -> list[str]:
    """The launcher's public entry point for the MCP server: ``command`` is ``argv[0]``,
    ``args`` the rest, as ``.mcp.json`` and ``~/.claude.json`` take them. ``host`` (Codex,
    Gemini) ends it with ``--host <host>``: the server names its tools as that host does."""
    return ["sh", "-c", launcher_script(python), "goalkeeper", "mcp", *host_args(host)]


def host_args(host: str) -> list[str]:
    """``goalkeeper mcp``'s arguments naming the host that starts it (none: Claude Code)."""
    if host and not host.isalnum():
        raise ValueError(f"not a host name: {host!r}")
    return ["--host", host] if host else []


_MCP_OURS = lazy_re(r"(?:^|/)goalkeeper$")


def is_goalkeeper_mcp(server: object) -> bool:
    """An MCP server entry written by any version of ``install``: the launcher
    (``sh -c … goalkeeper mcp``), ``<python> -m goalkeeper mcp`` or ``goalkeeper mcp``, each
    perhaps ending in ``--host <host>``."""
    if not isinstance(server, dict):
        return False
    command, args = server.get("command"), server.get("args")
    if not isinstance(command, str) or not isinstance(args, list):
        return False
    argv = [command, *args]
    if argv[-3:-1] == ["mcp", "--host"] and argv[-1].isalnum():  # goalkeeper mcp --host codex
        argv = argv[:-2]
    if argv[-1:] != ["mcp"] or len(argv) < 2:
        return False
    program = argv[-2]
    return bool(_MCP_OURS.search(program)) or argv[-3:-1] == ["-m", "goalkeeper"]


def mcp_host(server: object) -> str:
    """The host a goalkeeper MCP server entry names (``goalkeeper mcp --host codex``), or ""
    (Claude Code's entry, or one an older ``install`` wrote)."""
    args = server.get("args") if isinstance(server, dict) else None
    if isinstance(args, list) and args[-2:-1] == ["--host"] and isinstance(args[-1], str):
        return args[-1]
    return ""


def _dq(text: str) -> str:
    """``text`` inside double quotes in the shell script."""
    return '"' + re.sub(r'(["$`\\])', r"\\\1", text) + '"'
