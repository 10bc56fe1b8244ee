"""Codex CLI configuration that runs goalkeeper: ``hooks.json`` groups, hook-trust records and
the MCP server, as pure functions over documents (the CLI in ``cli/install/codex`` reads and
writes the files).

* ``hooks.json`` (``<repo>/.codex/hooks.json`` or ``$CODEX_HOME/hooks.json``): one group per
  event (``HOOK_EVENTS``) appended to the user's, each with one handler running the portable
  launcher (``launcher.hook_command("codex")``). goalkeeper's handlers are recognised by the
  launcher's first line, so a re-install updates them in place and uninstall removes exactly
  them.
* ``config.toml``: Python has no TOML writer here, so goalkeeper writes one clearly delimited
  block (``BEGIN``/``END`` lines) and removes exactly it; the user's own text is never
  rewritten. ``tomllib`` checks that the result still parses and that no table goalkeeper
  would add is already the user's.
* Trust (Codex 0.171.0 skips untrusted or modified hooks without a word): one
  ``[hooks.state."<hooks file>:<event label>:<group>:<handler>"] trusted_hash`` per handler,
  the hash as codex-rs ``command_hook_hash`` computes it (``trusted_hash``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from goalkeeper.hosts.codex.hook import HOOK_EVENTS, PRE_TOOL_MATCHER
from goalkeeper.hosts.command_hooks.findings import Finding

HOOK_TIMEOUT_S = 60
EVENT_LABELS = {
    "PreToolUse": "pre_tool_use",
    "PermissionRequest": "permission_request",
    "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "Stop": "stop",
}
MATCHER_EVENTS = frozenset(
    {
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "SessionStart",
        "SubagentStart",
        "SubagentStop",
    }
)
"""The events whose ``matcher`` Codex applies (and hashes); for the others it is ignored."""
MARK = "# goalkeeper hook codex"
PYTHON_VAR = "GOALKEEPER_PYTHON"
FORWARDED_TO_MCP = (PYTHON_VAR, "GOALKEEPER_STATE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME")
"""Codex starts an MCP server with only a few variables of its own environment; ``env_vars``
forwards these: the interpreter the launcher reads first (the user's opt-in), and where the
user's state and config folders are, so the server reads and writes the same state database
as the hooks (without them a user who sets ``XDG_STATE_HOME`` would get two)."""
BEGIN = "# >>> goalkeeper (goalkeeper install codex; goalkeeper uninstall codex removes it):"
END = "# <<< goalkeeper"
"""The block's first line is ``BEGIN`` and its label (which install wrote it: ``user``, or
``project <path>``), so installs into several projects keep one block each in the user's
``config.toml``; its last line is ``END`` and the same label."""


def our_group(event: str, command: str) -> dict[str, Any]:
    group: dict[str, Any] = {
        "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}]
    }
    if event == "PreToolUse":
        group = {"matcher": PRE_TOOL_MATCHER, **group}
    return group


def is_ours(group: object) -> bool:
    """A matcher group holding one of goalkeeper's handlers."""
    handlers = group.get("hooks") if isinstance(group, dict) else None
    return isinstance(handlers, list) and any(
        isinstance(h, dict) and str(h.get("command", "")).startswith(MARK) for h in handlers
    )


def add_hooks(doc: Mapping[str, Any], command: str) -> tuple[dict[str, Any], list[str]]:
    """``doc`` with goalkeeper's group for each event (replaced where present, else appended),
    and what changed. Raises ``ValueError`` when ``hooks`` is not the object Codex reads."""
    out = dict(doc)
    hooks = out.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("its 'hooks' is not a JSON object")
    hooks = dict(hooks)
    changes: list[str] = []
    for event in HOOK_EVENTS:
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            raise ValueError(f"its hooks.{event} is not a list")
        wanted = our_group(event, command)
        mine = [i for i, g in enumerate(groups) if is_ours(g)]
        if mine and len(mine) == 1 and groups[mine[0]] == wanted:
            continue
        kept = [g for g in groups if not is_ours(g)]
        hooks[event] = [*kept, wanted]
        changes.append(f"{'updated' if mine else 'added'} the {event} hook")
    out["hooks"] = hooks
    return out, changes


def remove_hooks(
    doc: Mapping[str, Any], created: tuple[str, ...]
) -> tuple[dict[str, Any], list[str]]:
    """``doc`` without goalkeeper's groups; the event lists (and ``hooks``) install created
    (``created``: ``"hooks"`` and event names) go when they are left empty."""
    out = dict(doc)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out, []
    hooks = dict(hooks)
    changes: list[str] = []
    for event, groups in list(hooks.items()):
        if not isinstance(groups, list) or not any(is_ours(g) for g in groups):
            continue
        kept = [g for g in groups if not is_ours(g)]
        changes.append(f"removed the {event} hook")
        if kept or event not in created:
            hooks[event] = kept
        else:
            del hooks[event]
    if hooks or "hooks" not in created:
        out["hooks"] = hooks
    else:
        del out["hooks"]
    return out, changes


def trusted_hash(event: str, group: Mapping[str, Any], handler: Mapping[str, Any]) -> str:
    """Codex's hash of one command handler as it was reviewed (codex-rs ``command_hook_hash``:
    the handler's fields with defaults filled, ``None`` fields dropped, canonical JSON, SHA-256).
    A handler changed after it was trusted (even its timeout) no longer matches: Codex skips it."""
    norm: dict[str, Any] = {
        "type": "command",
        "command": handler["command"],
        "timeout": max(1, int(handler.get("timeout", 600))),
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage") is not None:
        norm["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": EVENT_LABELS[event], "hooks": [norm]}
    if event in MATCHER_EVENTS and group.get("matcher") is not None:
        identity["matcher"] = group["matcher"]
    canon = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canon.encode("utf-8")).hexdigest()


def trust_records(hooks_file: str, doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(key, trusted_hash)`` for each of goalkeeper's handlers in ``doc``, keyed by the
    hooks file's absolute path and the handler's position, as Codex looks them up."""
    records: list[tuple[str, str]] = []
    hooks = doc.get("hooks")
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        if event not in EVENT_LABELS or not isinstance(groups, list):
            continue
        for gi, group in enumerate(groups):
            if not is_ours(group):
                continue
            for hi, handler in enumerate(group["hooks"]):
                if isinstance(handler, dict) and handler.get("type") == "command":
                    key = f"{hooks_file}:{EVENT_LABELS[event]}:{gi}:{hi}"
                    records.append((key, trusted_hash(event, group, handler)))
    return records


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string (a JSON string literal, ASCII only, is one)."""
    return json.dumps(text, ensure_ascii=True)


def _begin(label: str) -> str:
    return f"{BEGIN} {label}"


def _end(label: str) -> str:
    return f"{END} {label}"


def toml_block(
    label: str,
    mcp_argv: list[str] | None,
    records: list[tuple[str, str]],
    project_trust: str | None,
) -> str:
    """goalkeeper's delimited block of ``config.toml`` tables ("" when there is nothing)."""
    lines: list[str] = []
    if mcp_argv:
        lines += [
            "[mcp_servers.goalkeeper]",
            f"command = {toml_string(mcp_argv[0])}",
            "args = [" + ", ".join(toml_string(a) for a in mcp_argv[1:]) + "]",
            "env_vars = [" + ", ".join(toml_string(v) for v in FORWARDED_TO_MCP) + "]",
            "",
        ]
    for key, digest in records:
        lines += [f"[hooks.state.{toml_string(key)}]", f"trusted_hash = {toml_string(digest)}", ""]
    if project_trust:
        lines += [f"[projects.{toml_string(project_trust)}]", 'trust_level = "trusted"', ""]
    if not lines:
        return ""
    return "\n".join([_begin(label), *lines[:-1], _end(label)]) + "\n"


def split_block(text: str, label: str) -> tuple[str, str]:
    """``text`` without goalkeeper's block for ``label``, and that block ("" when absent).
    Only lines that are exactly its first and last line delimit it."""
    begin, end = _begin(label) + "\n", "\n" + _end(label) + "\n"
    start = text.find(begin)
    while start > 0 and text[start - 1] != "\n":
        start = text.find(begin, start + 1)
    if start < 0:
        return text, ""
    stop = text.find(end, start)
    if stop < 0:
        return text, ""
    stop += len(end)
    return text[:start] + text[stop:], text[start:stop]


def with_block(text: str, block: str) -> tuple[str, bool]:
    """``text`` (holding no block of ours) with ``block`` appended, and whether a newline had
    to be added before it (the receipt keeps that, so uninstall restores the bytes)."""
    if not block:
        return text, False
    sep = bool(text) and not text.endswith("\n")
    return text + ("\n" if sep else "") + block, sep


def without_block(text: str, label: str, separated: bool) -> str:
    """``text`` with goalkeeper's block (and the newline install put before it) taken out."""
    rest, block = split_block(text, label)
    if not block or not separated:
        return rest
    start = text.find(block)
    if start > 0 and text[start - 1] == "\n":
        return text[: start - 1] + text[start + len(block) :]
    return rest


def user_tables(text: str, label: str) -> dict[str, Any]:
    """``config.toml`` without goalkeeper's block for ``label``, parsed; raises ``ValueError``
    when it is not valid TOML (never written over, then)."""
    import tomllib

    rest, _ = split_block(text, label)
    try:
        return tomllib.loads(rest)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"is not valid TOML ({exc})") from exc


def check_toml(text: str) -> None:
    """Raise ``ValueError`` unless ``text`` parses (a table goalkeeper adds clashed)."""
    import tomllib

    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"would not be valid TOML with goalkeeper's tables ({exc})") from exc


def _our_command(command: object) -> bool:
    return isinstance(command, str) and command.startswith(MARK)


def layer_findings(
    layer: str,
    hooks_file: str,
    doc: Mapping[str, Any],
    user_config: Mapping[str, Any],
    layer_config: Mapping[str, Any],
    project_keys: tuple[str, ...] = (),
) -> list[Finding]:
    """``goalkeeper doctor``'s findings for one Codex layer holding goalkeeper's hooks
    (``layer``: ``project`` or ``user``), all from documents already read: ``doc`` the hooks
    file, ``user_config`` ``$CODEX_HOME/config.toml`` (where Codex reads trust: records in a
    project's config are ignored, codex-offline-e2e.md §6), ``layer_config`` the layer's own
    ``config.toml`` (the MCP server), ``project_keys`` the ``[projects."<path>"]`` keys that
    would trust a project layer (the project folder, then its git root), first match wins.

    Codex 0.171.0 runs a handler only when ``[hooks.state."<file>:<event>:<group>:<handler>"]
    trusted_hash`` equals its current hash (``trusted_hash``); a handler changed since (even its
    timeout) is "modified", and ``enabled = false`` there disables it: all three are skipped
    without a word. Without project trust the whole ``<repo>/.codex/`` layer is ignored
    (hooks and MCP servers alike). Sources: codex-rs ``hooks`` (``command_hook_hash``), the
    offline recipe (``/work/shared/reference/codex-offline-e2e.md`` §5, §6)."""
    from goalkeeper.hosts.command_hooks.findings import coverage, dig, handler_events, stale_mcp
    from goalkeeper.hosts.transport.launcher import mcp_host

    scope = " --user" if layer == "user" else ""
    fix = f"goalkeeper install codex{scope} --trust"
    found = handler_events(doc.get("hooks"), HOOK_EVENTS, _our_command)
    out = [
        coverage(
            "codex", f"{layer} {hooks_file}", found, HOOK_EVENTS, f"goalkeeper install codex{scope}"
        )
    ]
    if project_keys:
        out.append(_project_trust(dig(user_config, "projects"), project_keys, fix))
    untrusted, stale, disabled = [], [], []
    state = dig(user_config, "hooks", "state")
    records = trust_records(hooks_file, doc)
    for key, digest in records:
        entry = state.get(key) if isinstance(state, dict) else None
        label = key.rsplit(":", 3)[1]
        if isinstance(entry, dict) and entry.get("enabled") is False:
            disabled.append(label)
        elif not isinstance(entry, dict) or "trusted_hash" not in entry:
            untrusted.append(label)
        elif entry.get("trusted_hash") != digest:
            stale.append(label)
    problems = [
        *([f"not trusted: {', '.join(untrusted)}"] if untrusted else []),
        *([f"changed since trusted (stale hash): {', '.join(stale)}"] if stale else []),
        *([f"disabled (enabled = false): {', '.join(disabled)}"] if disabled else []),
    ]
    if problems:
        detail = f"{len(records) - len(untrusted) - len(stale) - len(disabled)} of {len(records)} "
        detail += f"handlers trusted; {'; '.join(problems)}: Codex skips those without a word"
        fix_text = (
            fix
            if not disabled
            else f"remove `enabled = false` from [hooks.state] in the user config, then {fix}"
        )
        out.append(Finding("codex", "trust", False, detail, fix_text))
    elif records:
        out.append(Finding("codex", "trust", True, f"all {len(records)} handlers trusted"))
    server = dig(layer_config, "mcp_servers", "goalkeeper")
    if not isinstance(server, dict):
        out.append(
            Finding(
                "codex",
                "mcp",
                False,
                f"no 'goalkeeper' MCP server in the {layer} config.toml: the hooks point the "
                "agent at mcp__goalkeeper__* tools",
                f"goalkeeper install codex{scope}",
            )
        )
    elif server.get("enabled") is False:
        out.append(
            Finding(
                "codex",
                "mcp",
                False,
                "the 'goalkeeper' MCP server has enabled = false",
                "remove `enabled = false` from [mcp_servers.goalkeeper]",
            )
        )
    elif mcp_host(server) != "codex":
        out.append(
            stale_mcp("codex", f"the {layer} config.toml", f"goalkeeper install codex{scope}")
        )
    else:
        out.append(Finding("codex", "mcp", True, f"'goalkeeper' MCP server in the {layer} config"))
    return out


def _project_trust(projects: object, keys: tuple[str, ...], fix: str) -> Finding:
    for key in keys:
        level = projects.get(key, {}) if isinstance(projects, dict) else {}
        level = level.get("trust_level") if isinstance(level, dict) else None
        if level == "trusted":
            return Finding("codex", "project-trust", True, f"project {key} is trusted")
        if level is not None:
            return Finding(
                "codex",
                "project-trust",
                False,
                f'project {key} has trust_level = "{level}": Codex ignores its .codex/ layer',
                fix,
            )
    return Finding(
        "codex",
        "project-trust",
        False,
        f"project {keys[0]} is not trusted: Codex ignores its .codex/ layer (hooks and MCP server)",
        fix,
    )
