"""``goalkeeper run -- codex exec …``: Codex CLI with goalkeeper's hooks and MCP server for one
run, installing nothing into the project.

Codex 0.171.0 takes configuration for one invocation as ``-c key=value`` (TOML values): the
hooks go in as ``hooks.<Event>=[…]`` and the MCP server as ``mcp_servers.goalkeeper.…``. Codex
runs a hook only when it is trusted, and ignores trust records given with ``-c`` (it says
"session-flags: `hooks.state…` is ignored"); its key for such a hook is
``/<session-flags>/config.toml:<event>:<group>:<handler>`` (seen in its hook_run_id). So the
run records the trust of exactly goalkeeper's handlers at those keys in the user's
``$CODEX_HOME/config.toml``, in goalkeeper's labelled block (``run``), kept for later runs and
removed by ``goalkeeper uninstall codex --user``. ``--dangerously-bypass-hook-trust`` is not
used: it would also run hooks the agent may have written into the project's ``.codex/``,
outside every guard.

When goalkeeper's hooks are installed (``goalkeeper install codex``), the run uses them as they
are, and refuses when they are not trusted (Codex would skip them without a word).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from goalkeeper.cli.run.agent import RunError, program_name, run_process
from goalkeeper.store.outcome import AgentExit

FLAGS_SOURCE = "/<session-flags>/config.toml"
RUN_LABEL = "run"


def run_codex(
    project: Path, argv: Sequence[str], limit_s: float | None, as_json: bool
) -> tuple[AgentExit, str | None]:
    from goalkeeper.hosts.codex import config as cc
    from goalkeeper.hosts.codex.hook import codex_home
    from goalkeeper.hosts.transport.launcher import hook_command, mcp_argv

    head = _exec_at(argv)
    home = Path(codex_home(os.environ))
    installed = installed_hooks(project, home)
    if installed is not None:
        if not trusted(installed, home):
            raise RunError(
                f"goalkeeper's hooks in {installed} are not trusted, and Codex skips untrusted "
                "hooks without a word: run `goalkeeper install codex --trust` (or review them "
                "in Codex's /hooks)"
            )
        click.echo(f"goalkeeper: using the goalkeeper installed in {installed}", err=True)
        return run_process(list(argv), project, dict(os.environ), limit_s, as_json), None
    command = hook_command("codex", sys.executable)  # never written to a file: this machine's
    doc, _ = cc.add_hooks({}, command)
    _trust_flag_hooks(home / "config.toml", cc.trust_records(FLAGS_SOURCE, doc))
    flags = codex_flags(doc["hooks"], mcp_argv(sys.executable, host="codex"))
    command_line = [*argv[: head + 1], *flags, *argv[head + 1 :]]
    return run_process(command_line, project, dict(os.environ), limit_s, as_json), None


def codex_flags(hooks: dict[str, Any], server: list[str]) -> list[str]:
    """``-c`` options carrying goalkeeper's hooks and MCP server, as TOML values."""
    from goalkeeper.hosts.codex.config import FORWARDED_TO_MCP, toml_string

    flags: list[str] = []
    for event, groups in hooks.items():
        flags += ["-c", f"hooks.{event}=[" + ", ".join(_inline(g) for g in groups) + "]"]
    flags += ["-c", f"mcp_servers.goalkeeper.command={toml_string(server[0])}"]
    flags += ["-c", "mcp_servers.goalkeeper.args=[" + ", ".join(map(toml_string, server[1:])) + "]"]
    forwarded = ", ".join(map(toml_string, FORWARDED_TO_MCP))
    flags += ["-c", f"mcp_servers.goalkeeper.env_vars=[{forwarded}]"]
    return flags


def _inline(value: Any) -> str:
    """``value`` (JSON data: tables, arrays, strings, integers) as a TOML inline value."""
    from goalkeeper.hosts.codex.config import toml_string

    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={_inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return toml_string(str(value))


def _exec_at(argv: Sequence[str]) -> int:
    """Where ``exec`` is in the command: goalkeeper run supervises headless Codex only."""
    if program_name(argv[0]) != "codex":
        raise RunError("goalkeeper run supervises Codex as `codex exec …`")
    for i, arg in enumerate(argv[1:], 1):
        if arg in ("exec", "e"):
            return i
        if not arg.startswith("-"):
            break
    raise RunError("goalkeeper run supervises Codex headless: `goalkeeper run -- codex exec …`")


def installed_hooks(project: Path, home: Path) -> Path | None:
    """The hooks file that already holds goalkeeper's handlers (project first), if any."""
    from goalkeeper.hosts.codex import config as cc
    from goalkeeper.hosts.command_hooks.json_doc import JsonFileError, read_document

    for path in (Path(os.path.realpath(project)) / ".codex" / "hooks.json", home / "hooks.json"):
        try:
            doc, _ = read_document(path)
        except JsonFileError:
            continue
        hooks = doc.get("hooks")
        groups = hooks.values() if isinstance(hooks, dict) else ()
        if any(cc.is_ours(g) for gs in groups if isinstance(gs, list) for g in gs):
            return path
    return None


def trusted(hooks_file: Path, home: Path) -> bool:
    """Whether the user's config trusts every goalkeeper handler of ``hooks_file`` as it is."""
    import tomllib

    from goalkeeper.hosts.codex import config as cc
    from goalkeeper.hosts.command_hooks.json_doc import read_document

    doc, _ = read_document(hooks_file)
    try:
        tables = tomllib.loads(_read(home / "config.toml"))
    except tomllib.TOMLDecodeError:
        return False
    state = (tables.get("hooks") or {}).get("state") or {}
    records = cc.trust_records(str(hooks_file), doc)
    return bool(records) and all(
        isinstance(state.get(key), dict) and state[key].get("trusted_hash") == digest
        for key, digest in records
    )


def _trust_flag_hooks(config: Path, records: list[tuple[str, str]]) -> None:
    """goalkeeper's ``run`` block of trust records in the user's config.toml, written once."""
    from goalkeeper.hosts.codex import config as cc
    from goalkeeper.hosts.command_hooks.json_doc import write_text

    old = _read(config)
    block = cc.toml_block(RUN_LABEL, None, records, None)
    if cc.split_block(old, RUN_LABEL)[1] == block:
        return
    rest = cc.without_block(old, RUN_LABEL, False)
    new, _ = cc.with_block(rest, block)
    try:
        cc.user_tables(old, RUN_LABEL)
        cc.check_toml(new)
    except ValueError as exc:
        raise RunError(f"{config} {exc}") from exc
    write_text(config, new)
    click.echo(
        f"goalkeeper: recorded Codex's trust of goalkeeper's run hooks in {config}", err=True
    )


def _read(path: Path) -> str:
    """The user's config.toml ("" when there is none), read as install reads it: never a FIFO,
    a device or an unbounded file."""
    from goalkeeper.hosts.command_hooks.json_doc import JsonFileError, read_text

    try:
        return read_text(path) or ""
    except JsonFileError as exc:
        raise RunError(str(exc)) from None
