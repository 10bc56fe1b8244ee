"""Each host's doctor check: read every file the host would read, ask the host's own pure checks
(beside its configuration code in ``hosts/<host>/``), probe the launcher, and say whether the
host's sandbox confines the agent's shell."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from goalkeeper.cli.doctor.probe import Context, HostReport, Prober, Reader, report
from goalkeeper.hosts.command_hooks.findings import Finding


def check_claude(ctx: Context, probe: Prober) -> HostReport:
    from goalkeeper.hosts.claude import doctor as cd
    from goalkeeper.hosts.claude.settings import (
        CLAUDE_JSON,
        MCP_FILE,
        hook_command,
        is_goalkeeper_command,
        settings_path,
    )
    from goalkeeper.hosts.command_hooks.findings import dig, our_commands

    r = Reader("claude")
    docs: dict[str, tuple[Path, dict[str, Any]]] = {}
    for layer in ("user", "project", "local"):
        path = settings_path(layer, ctx.project, ctx.home)
        doc = r.json(path)
        if doc is not None:
            docs[layer] = (path, doc)
    managed = [(Path(p), r.json(Path(p))) for p in cd.MANAGED_FILES]
    claude_json = r.json(ctx.home / CLAUDE_JSON) or {}
    mcp_json = r.json(ctx.project / MCP_FILE) or {}
    configured = [
        (layer, our_commands(doc.get("hooks"), is_goalkeeper_command))
        for layer, (_, doc) in docs.items()
    ]
    configured = [(layer, cmds) for layer, cmds in configured if cmds]
    plugin = any(cd.plugin_enabled(doc) for _, doc in docs.values())
    if not (configured or plugin or r.problems):
        return HostReport("claude", "not installed")
    found: list[Finding] = list(r.problems)
    for layer, _ in configured:
        found += cd.layer_findings(layer, str(docs[layer][0]), docs[layer][1])
    if plugin:
        found.append(Finding("claude", "plugin", True, f"plugin {cd.PLUGIN_ID} enabled"))
    for path, doc in [*docs.values(), *((p, d) for p, d in managed if d is not None)]:
        found += cd.switch_findings(str(path), doc, managed=str(path) in cd.MANAGED_FILES)
    layers = [doc for _, doc in docs.values()]
    found.append(cd.mcp_finding(layers, mcp_json, claude_json, str(ctx.project), plugin=plugin))
    found.append(cd.trust_finding(claude_json, str(ctx.project), ctx.git_root))
    user_env = dig(docs.get("user", (None, {}))[1], "env", "GOALKEEPER_PYTHON")
    extra = {"GOALKEEPER_PYTHON": user_env} if isinstance(user_env, str) else {}
    found += probe.hooks("claude", configured or [("project", [])], hook_command, extra)
    by_layer = {layer: doc for layer, (_, doc) in docs.items()}
    for _, doc in managed:
        if doc is not None:
            by_layer.setdefault("managed", doc)
    return report("claude", found, *claude_shell(by_layer, ctx))


def claude_shell(layers: dict[str, dict[str, Any]], ctx: Context) -> tuple[str, list[Finding]]:
    """Whether Claude Code's sandbox confines the agent's Bash, from every settings layer."""
    from goalkeeper.hosts.claude import sandbox as cs
    from goalkeeper.hosts.command_hooks.own_folders import (
        CONFINED,
        NOT_CONFINED,
        goalkeeper_folders,
    )

    folders = goalkeeper_folders(ctx.env)
    box = cs.effective(layers, str(ctx.home))
    shell = CONFINED if cs.is_confined(box, folders) else NOT_CONFINED
    return shell, cs.sandbox_findings(box, folders)


def check_codex(ctx: Context, probe: Prober) -> HostReport:
    from goalkeeper.hosts.codex import config as cc
    from goalkeeper.hosts.codex.hook import codex_home
    from goalkeeper.hosts.command_hooks.findings import our_commands
    from goalkeeper.hosts.transport.launcher import hook_command

    r = Reader("codex")
    home = Path(codex_home(ctx.env))
    user_config = r.toml(home / "config.toml") or {}
    layers = {
        "project": (ctx.project / ".codex" / "hooks.json", ctx.project / ".codex" / "config.toml"),
        "user": (home / "hooks.json", home / "config.toml"),
    }
    found: list[Finding] = []
    configured: list[tuple[str, list[str]]] = []
    for layer, (hooks_path, config_path) in layers.items():
        doc = r.json(hooks_path)
        commands = our_commands(doc.get("hooks"), cc._our_command) if doc else []
        if not doc or not commands:
            continue
        configured.append((layer, commands))
        layer_config = user_config if layer == "user" else (r.toml(config_path) or {})
        keys = (str(ctx.project), *([ctx.git_root] if ctx.git_root else ()))
        keys = tuple(dict.fromkeys(keys)) if layer == "project" else ()
        found += cc.layer_findings(layer, str(hooks_path), doc, user_config, layer_config, keys)
    if not (configured or r.problems):
        return HostReport("codex", "not installed")
    found = [*r.problems, *found]
    found += probe.hooks("codex", configured, lambda p: hook_command("codex", p))
    return report("codex", found, *codex_shell(r, ctx, user_config))


def codex_shell(r: Reader, ctx: Context, user_config: dict[str, Any]) -> tuple[str, list[Finding]]:
    """Whether Codex's sandbox keeps goalkeeper's folders out of the agent's writable roots."""
    from goalkeeper.hosts.codex.sandbox import sandbox_findings
    from goalkeeper.hosts.command_hooks.own_folders import goalkeeper_folders

    project_config = r.toml(ctx.project / ".codex" / "config.toml") or {}
    configs = {"user": user_config, "project": project_config}
    env = {**ctx.env, "HOME": str(ctx.home)}
    return sandbox_findings(configs, str(ctx.project), env, goalkeeper_folders(ctx.env))


def check_gemini(ctx: Context, probe: Prober) -> HostReport:
    from goalkeeper.hosts.command_hooks.findings import our_commands
    from goalkeeper.hosts.gemini import settings as gs

    r = Reader("gemini")
    gemini = ctx.home / ".gemini"
    docs: dict[str, tuple[Path, dict[str, Any]]] = {}
    for layer in ("user", "project"):
        path = gs.settings_path(layer, ctx.project, ctx.home)
        doc = r.json(path)
        if doc is not None:
            docs[layer] = (path, doc)
    configured = [
        (layer, our_commands(doc.get("hooks"), gs.is_goalkeeper_command))
        for layer, (_, doc) in docs.items()
    ]
    configured = [(layer, cmds) for layer, cmds in configured if cmds]
    if not (configured or r.problems):
        return HostReport("gemini", "not installed")
    seen = r.json(gemini / "trusted_hooks.json") or {}
    found: list[Finding] = []
    for layer, _ in configured:
        path, doc = docs[layer]
        found += gs.layer_findings(layer, str(path), doc, seen.get(str(ctx.project)))
    for path, doc in docs.values():
        found += gs.switch_findings(str(path), doc)
    folders_path = ctx.env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or str(
        gemini / "trustedFolders.json"
    )
    folders = r.json(Path(folders_path))
    user = docs.get("user", (None, {}))[1]
    found.append(gs.folder_trust(user, folders, str(ctx.project), ctx.env))
    found = [*r.problems, *found]
    found += probe.hooks("gemini", configured, gs.hook_command)
    return report("gemini", found, *unconfined("gemini"))


def check_pi(ctx: Context, probe: Prober) -> HostReport:
    from goalkeeper.cli.install.pi import pi_findings
    from goalkeeper.hosts.pi.install import agent_dir, extension_path

    del probe  # the extension names its interpreter; doctor does not run it
    r = Reader("pi")
    agent = agent_dir(ctx.env)
    found: list[Finding] = []
    installed = False
    for layer in ("project", "user"):
        path = extension_path(layer, ctx.project, ctx.env)
        text = r.text(path)
        if text is None:
            continue
        installed = True
        trust = r.json(agent / "trust.json") if layer == "project" else None
        settings = r.json(agent / "settings.json") or {}
        found += pi_findings(layer, path, text, trust, settings, ctx.project)
    if not (installed or r.problems):
        return HostReport("pi", "not installed")
    return report("pi", [*r.problems, *found], *unconfined("pi"))


def unconfined(host: str) -> tuple[str, list[Finding]]:
    """Gemini CLI's sandbox holds its hooks too (no wall between them and the agent's shell);
    Pi has none: the agent's shell is not confined in goalkeeper's sense."""
    from goalkeeper.core.messages import make_say
    from goalkeeper.hosts.command_hooks.own_folders import NOT_CONFINED

    note = Finding(host, "sandbox", True, make_say("en")(f"sandbox.{host}"), warn=True)
    return NOT_CONFINED, [note]


CHECKS: dict[str, Callable[[Context, Prober], HostReport]] = {
    "claude": check_claude,
    "codex": check_codex,
    "gemini": check_gemini,
    "pi": check_pi,
}
