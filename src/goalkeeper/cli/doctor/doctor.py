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

import os
from collections.abc import Mapping
from pathlib import Path

import click
import msgspec

import goalkeeper
from goalkeeper.cli.common import App, ExitCode, echo_json
from goalkeeper.cli.doctor.checks import CHECKS
from goalkeeper.cli.doctor.probe import Context, HostReport, Prober, git_root

HOSTS = ("claude", "codex", "gemini", "pi")
NAMES = {"claude": "Claude Code", "codex": "Codex CLI", "gemini": "Gemini CLI", "pi": "Pi"}


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
