"""``goalkeeper doctor``: per host, whether goalkeeper's hooks will actually run in this project
for this user, and if not, why and the one command that fixes it.

A host skips hooks it does not trust without a word (Codex 0.171.0, Pi 1.6.0 in print mode, Gemini
CLI in an untrusted folder): an install can look done and do nothing. So doctor reads every file the
host would read, asks each host's own checks (pure functions beside its configuration code:
``hosts.claude.doctor``, ``hosts.codex.config.layer_findings``,
``hosts.gemini.settings.layer_findings``/``folder_trust``, ``cli.install.pi.pi_findings``, reusing
each host's "is this handler ours" test), and probes the launcher.

**Untrusted input.** The project is the supervised agent's to write, so every file is read as
``safe_read`` reads it (a regular file only, size-capped: a FIFO cannot hang doctor), a file
that does not parse is a finding ("unreadable: …"), never a crash, and doctor writes nothing.
The only thing it runs is goalkeeper's own launcher text (``install.launcher_version``, with
the interpreter install would have baked in, never one a file names), under a timeout.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click
import msgspec
from msgspec import Struct

import goalkeeper
from goalkeeper.cli.common import App, ExitCode, echo_json
from goalkeeper.hosts.command_hooks.findings import Finding

HOSTS = ("claude", "codex", "gemini", "pi")
NAMES = {"claude": "Claude Code", "codex": "Codex CLI", "gemini": "Gemini CLI", "pi": "Pi"}
PROBE_TIMEOUT_S = 20.0
MAX_BYTES = 16 * 1024 * 1024


class HostReport(Struct, frozen=True):
    """One host: ``healthy``, ``problem`` or ``not installed`` (nothing of goalkeeper's is
    configured for it: not a failure)."""

    host: str
    status: str
    findings: tuple[Finding, ...] = ()
    shell: str = ""
    """The agent's shell: ``confined``, ``writes confined`` or ``not confined`` by the host's
    sandbox ("" when goalkeeper is not installed for the host)."""
    guarantees: dict[str, str] = msgspec.field(default_factory=dict)
    """Each guarantee of the README's security model: ``holds`` or ``best effort``."""


class Reader:
    """Reads the files one host's checks need; a file that exists but cannot be used becomes an
    ``unreadable`` finding (and the host counts as configured: nobody can tell otherwise)."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.problems: list[Finding] = []

    def text(self, path: Path) -> str | None:
        from goalkeeper.store.safe_read import UnsafeFile, read_capped

        try:
            return read_capped(path, MAX_BYTES).decode("utf-8")
        except UnsafeFile as exc:
            if exc.kind != "missing":
                self._unreadable(path, exc.reason)
        except (OSError, UnicodeDecodeError) as exc:
            self._unreadable(path, str(exc))
        return None

    def json(self, path: Path) -> dict[str, Any] | None:
        """The file's JSON object; ``None`` when it is missing or unreadable."""
        text = self.text(path)
        if text is None:
            return None
        if not text.strip():
            return {}
        try:
            data = json.loads(text)
        except ValueError as exc:
            self._unreadable(path, f"not valid JSON ({exc})")
            return None
        if not isinstance(data, dict):
            self._unreadable(path, "does not hold a JSON object")
            return None
        return data

    def toml(self, path: Path) -> dict[str, Any] | None:
        import tomllib

        text = self.text(path)
        if text is None:
            return None
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            self._unreadable(path, f"not valid TOML ({exc})")
            return None

    def _unreadable(self, path: Path, why: str) -> None:
        self.problems.append(
            Finding(self.host, "readable", False, f"unreadable: {path}: {why}", f"fix {path}")
        )


class Context(Struct, frozen=True):
    project: Path
    """The project folder, real (hosts key their trust by the real path)."""
    home: Path
    env: dict[str, str]
    git_root: str | None


def git_root(folder: Path) -> str | None:
    for item in (folder, *folder.parents):
        if (item / ".git").exists():
            return str(item)
    return None


class Prober:
    """Runs goalkeeper's own launcher once per interpreter fallback and environment."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.seen: dict[tuple[str | None, str], str | None] = {}

    def finding(self, host: str, python: str | None, extra: dict[str, str]) -> Finding:
        from goalkeeper.cli.install.common import launcher_version

        key = (python, json.dumps(extra, sort_keys=True))
        if key not in self.seen:
            self.seen[key] = launcher_version(self.ctx.project, python, extra, PROBE_TIMEOUT_S)
        out = self.seen[key]
        if out is None:
            return Finding(
                host,
                "runnable",
                False,
                "the hooks' launcher finds no goalkeeper from here: every hook would only say "
                "goalkeeper is not installed",
                "put `goalkeeper` on PATH (uv tool install, pipx) or set GOALKEEPER_PYTHON="
                f"{sys.executable} where you start the agent",
            )
        version = out.split()[-1] if out.split() else ""
        if version != goalkeeper.__version__:
            return Finding(
                host,
                "runnable",
                False,
                f"the launcher finds goalkeeper {version or '?'}, this is {goalkeeper.__version__}",
                "upgrade the goalkeeper on PATH (or the one GOALKEEPER_PYTHON names)",
            )
        return Finding(host, "runnable", True, f"the launcher finds goalkeeper {version}")

    def hooks(
        self,
        host: str,
        layers: list[tuple[str, list[str]]],
        command_for: Callable[[str | None], str],
        extra: dict[str, str] | None = None,
    ) -> list[Finding]:
        """``current`` and ``runnable`` for the configured ``layers`` (layer, its commands):
        a command this goalkeeper would write tells the interpreter it falls back to."""
        from goalkeeper.cli.install.common import baked_python

        out: list[Finding] = []
        for layer, commands in layers:
            python: str | None = None
            fallbacks = [None]
            if layer != "project":
                fallbacks.append(baked_python(layer, self.ctx.project))  # type: ignore[arg-type]
            known = {command_for(p): p for p in fallbacks}
            if all(c in known for c in commands):
                python = known[commands[0]] if commands else None
            else:
                scope = "" if layer == "project" else f" --{layer}"
                out.append(
                    Finding(
                        host,
                        "current",
                        True,
                        f"{layer}: goalkeeper's hook command differs from this goalkeeper's "
                        "(another version, or edited)",
                        f"goalkeeper install {host}{scope}",
                        warn=True,
                    )
                )
            out.append(self.finding(host, python, extra or {}))
        return out


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


def report(
    host: str, findings: list[Finding], shell: str = "", walls: list[Finding] | None = None
) -> HostReport:
    """The host's status from its findings; ``shell`` and the sandbox's findings (``walls``),
    with the last line saying what the agent's shell can do and so which guarantees hold."""
    from goalkeeper.core.messages import make_say
    from goalkeeper.hosts.command_hooks.own_folders import guarantees

    unique = list(dict.fromkeys([*findings, *(walls or [])]))
    if shell:
        key = "sandbox.shell." + shell.replace(" ", "_")
        unique.append(Finding(host, "shell", True, make_say("en")(key)))
    status = "healthy" if all(f.ok for f in unique) else "problem"
    return HostReport(host, status, tuple(unique), shell, guarantees(shell) if shell else {})


def diagnose(project: Path, env: Mapping[str, str], hosts: tuple[str, ...]) -> list[HostReport]:
    """Every host's report for ``project`` (read only; runs only goalkeeper's launcher)."""
    real = Path(os.path.realpath(project))
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    ctx = Context(real, home, dict(env), git_root(real))
    probe = Prober(ctx)
    return [CHECKS[host](ctx, probe) for host in hosts]


@click.command("doctor", short_help="Check that goalkeeper's hooks will really run, per agent.")
@click.option(
    "--host",
    "hosts",
    multiple=True,
    type=click.Choice(HOSTS),
    help="Only this agent (repeatable). Default: all four.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def doctor_command(app: App, hosts: tuple[str, ...], as_json: bool) -> int:
    """Say, per agent (Claude Code, Codex CLI, Gemini CLI, Pi), whether goalkeeper's hooks will
    actually run in this project for you, and if not, why and the command that fixes it.

    Agents skip hooks they do not trust without a word: Codex runs a hook only when your
    ~/.codex/config.toml trusts its current hash (and the project), Gemini CLI runs none in a
    folder it does not trust, Pi skips an untrusted project's extensions in print mode, and
    Claude Code honours disableAllHooks. doctor checks where goalkeeper is configured (project,
    local, user; the plugin), that trust, the MCP server the hooks point the agent at, and
    that the hooks' launcher finds this goalkeeper (the same version).

    It also says whether the agent's shell is confined by the host's sandbox, and so which of
    goalkeeper's guarantees hold (README: Security model; --json: "shell", "guarantees"):
    Claude Code's sandbox on in your user settings with goalkeeper's folders denied, no unix
    sockets and no escape hatch (goalkeeper install claude --sandbox); Codex's workspace-write
    with goalkeeper's folders outside every writable root (never danger-full-access or
    --yolo); Gemini CLI's sandbox holds its hooks too and Pi has none. Without a confined
    shell goalkeeper still works, on its text checks: a note, not a failure.

    It only reads (a file it cannot parse is reported "unreadable"), never writes, and runs
    nothing but goalkeeper's own launcher with --version.

    Exit status: 0 when every agent with goalkeeper configured is healthy (agents without it
    are "not installed", which is fine), 1 when any has a problem.
    """
    reports = diagnose(app.project, os.environ, tuple(dict.fromkeys(hosts)) or HOSTS)
    ok = all(r.status != "problem" for r in reports)
    if as_json:
        echo_json(
            {
                "project": str(app.project),
                "version": goalkeeper.__version__,
                "ok": ok,
                "hosts": [{**msgspec.to_builtins(r), "name": NAMES[r.host]} for r in reports],
            }
        )
    else:
        render(app.project, reports)
    return int(ExitCode.OK if ok else ExitCode.NOT_PASSED)


MARKS = {"ok": "  ok ", "warn": " note", "fail": " FAIL"}


def render(project: Path, reports: list[HostReport]) -> None:
    from goalkeeper.cli.report.journal_view import plain

    click.echo(f"goalkeeper {goalkeeper.__version__} doctor: {project}")
    for rep in reports:
        name = NAMES[rep.host]
        if rep.status == "not installed":
            click.echo(f"\n{name}: not installed (goalkeeper install {rep.host})")
            continue
        click.echo(f"\n{name}: {rep.status}")
        for f in rep.findings:
            mark = MARKS["fail" if not f.ok else "warn" if f.warn else "ok"]
            click.echo(f"{mark} {f.check}: {plain(f.detail)}")
            if f.fix and (not f.ok or f.warn):
                click.echo(f"       fix: {plain(f.fix)}")


COMMANDS = (doctor_command,)
