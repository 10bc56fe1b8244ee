"""``goalkeeper doctor``: whether Codex's sandbox keeps the agent's shell out of goalkeeper's
folders (pure, over config documents already read).

Codex 0.171.0 (codex-offline-e2e.md; ``tests/e2e/test_codex_sandbox.py``) runs the agent's
shell commands under ``sandbox_mode``:

* ``workspace-write``: the shell may write the project, ``/tmp`` (unless
  ``[sandbox_workspace_write] exclude_slash_tmp``), ``$TMPDIR`` (unless
  ``exclude_tmpdir_env_var``) and every ``writable_roots`` entry; its ``.git`` and ``.codex``
  stay read-only. It may read everything.
* ``read-only``: it may write nothing.
* ``danger-full-access`` (also ``--yolo`` / ``--dangerously-bypass-approvals-and-sandbox`` on
  the command line, which no file shows): no sandbox.

Hooks and MCP servers run outside it. So the state, config and runtime folders must lie
outside every writable root; whatever the agent reads there (a secret) it may still use.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from goalkeeper.hosts.command_hooks.findings import Finding, dig
from goalkeeper.hosts.command_hooks.own_folders import NOT_CONFINED, WRITES_CONFINED, inside

FULL = "danger-full-access"


def sandbox_findings(
    configs: Mapping[str, Mapping[str, Any]],
    project: str,
    env: Mapping[str, str],
    folders: Sequence[str],
) -> tuple[str, list[Finding]]:
    """The agent's shell under Codex (``configs``: ``user`` and ``project`` config.toml
    documents), as ``writes confined`` or ``not confined``, and doctor's findings: notes, not
    failures (goalkeeper's hooks run either way, and Codex's own defaults, ``/tmp`` writable,
    are not the user's mistake), each naming the fix. A profile with ``danger-full-access`` is
    noted (it applies when chosen); the mode in force (project over user) decides."""
    from goalkeeper.core.messages import make_say

    say = make_say("en")
    out: list[Finding] = []
    mode = ""
    for layer in ("project", "user"):
        value = dig(configs.get(layer, {}), "sandbox_mode")
        if isinstance(value, str) and not mode:
            mode = value
    full = [f"{layer} config.toml" for layer in ("user", "project")
            if dig(configs.get(layer, {}), "sandbox_mode") == FULL]  # fmt: skip
    for layer in ("user", "project"):
        profiles = dig(configs.get(layer, {}), "profiles")
        for name, profile in profiles.items() if isinstance(profiles, Mapping) else ():
            if dig(profile, "sandbox_mode") == FULL:
                full.append(f"profile {name!r} in the {layer} config.toml")
    if full:
        detail = say("sandbox.codex.full_access", where="; ".join(full))
        out.append(Finding("codex", "sandbox", True, detail, say("sandbox.codex.fix_full_access"),
                           warn=True))  # fmt: skip
    if mode == FULL:
        return NOT_CONFINED, out
    roots = writable_roots(configs, project, env) if mode != "read-only" else []
    for folder in folders:
        for root in roots:
            if inside(folder, root) or inside(root, folder):
                detail = say("sandbox.codex.writable", folder=folder, root=root)
                fix = say("sandbox.codex.fix_writable", root=root)
                out.append(Finding("codex", "sandbox-folders", True, detail, fix, warn=True))
    if any(f.check == "sandbox-folders" for f in out):
        return NOT_CONFINED, out
    out.append(Finding("codex", "sandbox", True, say("sandbox.codex.ok", mode=mode or
                                                     "workspace-write")))  # fmt: skip
    out.append(Finding("codex", "sandbox-reads", True, say("sandbox.codex.reads"), warn=True))
    return WRITES_CONFINED, out


def writable_roots(
    configs: Mapping[str, Mapping[str, Any]], project: str, env: Mapping[str, str]
) -> list[str]:
    """Every folder workspace-write lets the shell write (real paths): the project, ``/tmp``,
    ``$TMPDIR`` and the ``writable_roots`` of every layer and profile (a profile may be chosen
    on any run, so its roots count)."""
    tables: list[object] = []
    for doc in configs.values():
        tables.append(dig(doc, "sandbox_workspace_write"))
        profiles = dig(doc, "profiles")
        for profile in profiles.values() if isinstance(profiles, Mapping) else ():
            tables.append(dig(profile, "sandbox_workspace_write"))
    tables = [t for t in tables if isinstance(t, Mapping)]
    roots = [project]
    if not any(dig(t, "exclude_slash_tmp") is True for t in tables):
        roots.append("/tmp")
    tmpdir = env.get("TMPDIR", "")
    if tmpdir and not any(dig(t, "exclude_tmpdir_env_var") is True for t in tables):
        roots.append(tmpdir)
    for table in tables:
        listed = dig(table, "writable_roots")
        roots += [r for r in listed if isinstance(r, str)] if isinstance(listed, list) else []
    home = env.get("HOME", "")
    out = []
    for root in roots:
        if root.startswith("~/") and home:
            root = home + root[1:]
        if os.path.isabs(root):
            out.append(os.path.realpath(root))
    return list(dict.fromkeys(out))
