"""``goalkeeper report``: the proof of a session, as Markdown for a pull request, an HTML page
with a timeline, or JSON for scripts. The data comes from ``cli.report.data.session_proof``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from goalkeeper.cli.common import App, ExitCode
from goalkeeper.cli.report.session_arg import NoSession, session_for
from goalkeeper.store.db import Store


@click.command(
    "report", short_help="Show the proof of a session: what was claimed, what was verified."
)
@click.option(
    "--session", "session_id", metavar="ID", help="The session: a full id or a unique prefix."
)
@click.option("--last", is_flag=True, help="The latest session (the default).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "html", "json"]),
    default="md",
    show_default=True,
    help="Markdown to paste into a PR, a standalone HTML page, or JSON.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file instead of standard output.",
)
@click.pass_obj
def report_command(
    app: App, session_id: str | None, last: bool, fmt: str, output: Path | None
) -> int:
    """Show what the agent claimed in a session and what goalkeeper verified: every verify and
    evidence command goalkeeper ran (argv, exit, duration, output digest and tail), the
    protected test files and any replay against them, the todos with their evidence, the
    plan's gates at each close attempt, the continuations and the pauses.

    Everything the agent wrote is escaped; the HTML page runs no script.

    Exit status: 0 the report was written (whatever its verdict; the JSON's verdict.state
    says proven, closed, paused, capped or open), 2 an ambiguous session prefix or both
    --session and --last, 4 no such session (or none yet).
    """
    from goalkeeper.cli.report.data import session_proof

    if session_id is not None and last:
        raise click.UsageError("--session and --last name a session each: pass one")
    store = Store(app.project)
    if not store.exists():
        raise NoSession(f"goalkeeper has not seen a session in {app.project} yet")
    try:
        proof = session_proof(store, session_for(store.connection(), session_id))
    finally:
        store.close()
    if fmt == "json":
        text = json.dumps(proof, ensure_ascii=False, indent=2) + "\n"
    elif fmt == "html":
        from goalkeeper.cli.report.html import render_html

        text = render_html(proof) + "\n"
    else:
        from goalkeeper.cli.report.md import render_markdown

        text = render_markdown(proof)
    if output is not None:
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=False)
    return int(ExitCode.OK)


COMMANDS = (report_command,)
