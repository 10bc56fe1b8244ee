"""``goalkeeper workflow``: the workflow routes from a shell, for people and scripts.

``list`` reads the catalog. The others act on one agent session's work item, through the same
engine and rules as the agent's tools and the ``/workflow`` command (a transition must be legal
here too). The procedure a change calls for reaches the agent at its next run.

Exit codes, one meaning each: 0 done, 1 refused (the answer is no), 2 a bad argument (an
unknown route), 4 no agent session to act on yet (seed003 D9: 2 used to mean both).
"""

from __future__ import annotations

from typing import Any

import click

from goalkeeper.cli.common import App, ExitCode, echo_json, fail


class NoSessionError(click.ClickException):
    """Nothing to act on: no agent session in this project yet. Its own exit code, so a script
    can tell it from a bad argument (2) and from a refusal (1)."""

    exit_code = int(ExitCode.NO_SESSION)


_SESSION = click.option(
    "--session", "session_id", help="The agent session (default: the most recently active one)."
)
_JSON = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")


@click.group("workflow", short_help="Workflow routes: list, start, status, transition, …")
def workflow_group() -> None:
    """goalkeeper's workflow routes (idea-to-ship, hard-bug, triage, wayfinding, architecture)
    and standalone capabilities, from the catalog (`goalkeeper catalog check` validates it)."""


@workflow_group.command("list")
@_JSON
@click.pass_obj
def list_command(app: App, as_json: bool) -> int:
    """List the routes (with their entry procedure) and the standalone capabilities.

    Exit status: 0.
    """
    from goalkeeper.config import load_config, relevant_env
    from goalkeeper.store.catalog_files import load_catalog

    config = load_config(app.project, relevant_env())
    catalog = load_catalog(app.project, config.catalog).catalog
    routes = [
        {
            "route": r.route,
            "title": r.title,
            "entry": getattr(catalog.entry(r.route), "id", None),
            "description": r.description,
            "procedures": [p.id for p in catalog.definitions(r.route)],
        }
        for r in catalog.routes()
    ]
    capabilities = [
        {"id": p.id, "invocation": p.invocation, "description": p.description or p.id}
        for p in catalog.standalone()
    ]
    if as_json:
        echo_json({"routes": routes, "capabilities": capabilities})
        return int(ExitCode.OK)
    click.echo("Routes:")
    for r in routes:
        click.echo(f"  {r['route']:<13} {r['title']} — {r['description']} (starts at {r['entry']})")
    click.echo("Standalone capabilities (model: the agent may run it; user: only you):")
    for c in capabilities:
        click.echo(f"  {c['id']:<26} [{c['invocation']}] {c['description']}")
    return int(ExitCode.OK)


@workflow_group.command("status")
@_SESSION
@_JSON
@click.pass_obj
def status_command(app: App, session_id: str | None, as_json: bool) -> int:
    """Show the session's active workflow (route, phase, work item), if any.

    Exit status: 0 when a workflow is active, 1 when none is, 4 when there is no agent session
    yet (start the agent, or pass --session).
    """
    return _run(app, session_id, "status", as_json)


@workflow_group.command("start")
@click.argument("route")
@click.argument("task", nargs=-1)
@_SESSION
@_JSON
@click.pass_obj
def start_command(
    app: App, route: str, task: tuple[str, ...], session_id: str | None, as_json: bool
) -> int:
    """Start ROUTE (see `goalkeeper workflow list`) in the session; TASK is not recorded.

    Exit status: 0 when started, 1 when refused (another workflow is active), 2 for an
    unknown route, 4 when there is no agent session yet (start the agent, or pass --session).
    """
    from goalkeeper.config import load_config, relevant_env
    from goalkeeper.store.catalog_files import load_catalog

    catalog = load_catalog(app.project, load_config(app.project, relevant_env()).catalog).catalog
    routes = [r.route for r in catalog.routes()]
    if route not in routes:
        raise fail(f"unknown route {route!r}; the routes are: {', '.join(routes)}")
    return _run(app, session_id, " ".join((route, *task)), as_json)


@workflow_group.command("transition")
@click.argument("target")
@_SESSION
@_JSON
@click.pass_obj
def transition_command(app: App, target: str, session_id: str | None, as_json: bool) -> int:
    """Move the active workflow to TARGET, one of its allowed next procedures.

    Exit status: 0 when moved, 1 when refused (the message lists the allowed ones), 4 when
    there is no agent session yet.
    """
    return _run(app, session_id, f"transition {target}", as_json)


@workflow_group.command("complete")
@_SESSION
@_JSON
@click.pass_obj
def complete_command(app: App, session_id: str | None, as_json: bool) -> int:
    """Complete the active workflow.

    Exit status: 0 when completed, 1 when no workflow is active, 4 when there is no agent
    session yet.
    """
    return _run(app, session_id, "complete", as_json)


@workflow_group.command("cancel")
@click.argument("reason", nargs=-1)
@_SESSION
@_JSON
@click.pass_obj
def cancel_command(app: App, reason: tuple[str, ...], session_id: str | None, as_json: bool) -> int:
    """Cancel the active workflow, with REASON when given.

    Exit status: 0 when cancelled, 1 when no workflow is active, 4 when there is no agent
    session yet.
    """
    return _run(app, session_id, " ".join(("cancel", *reason)), as_json)


def as_prompt(app: App, session_id: str | None, text: str) -> tuple[str, list[Any], Any]:
    """Send ``text`` (a slash command) as the user's prompt in an agent session, through the
    engine with no way to reach the agent: (session, notices, the session row after)."""
    from goalkeeper.config import load_config, relevant_env
    from goalkeeper.core.values import Notify, UserPrompt
    from goalkeeper.engine.supervisor import Supervisor
    from goalkeeper.store.sessions import get_session, list_sessions

    config = load_config(app.project, relevant_env())
    supervisor = Supervisor(app.project, config, host="cli", capabilities=frozenset({"notify"}))
    try:
        if session_id is None:
            store = supervisor.store
            rows = list_sessions(store.connection(), 1) if store.exists() else []
            if not rows:
                raise NoSessionError(
                    "no agent session here yet: start the agent, or pass --session"
                )
            session_id = rows[0].session_id
        actions = supervisor.handle([UserPrompt(session_id, text)]).actions
        row = get_session(supervisor.store.connection(), session_id)
    finally:
        supervisor.store.close()
    return session_id, [a for a in actions if isinstance(a, Notify)], row


def _run(app: App, session_id: str | None, words: str, as_json: bool) -> int:
    session_id, notes, row = as_prompt(app, session_id, f"/workflow {words}")
    active: Any = (row.guards.get("workflow", {}) if row else {}).get("active")
    refused = any(n.level != "info" for n in notes) or (words == "status" and active is None)
    if as_json:
        echo_json(
            {
                "ok": not refused,
                "session": session_id,
                "notices": [n.text for n in notes],
                "workflow": active,
            }
        )
    else:
        for note in notes:
            click.echo(note.text, err=note.level != "info")
    return int(ExitCode.NOT_PASSED if refused else ExitCode.OK)


COMMANDS = (workflow_group,)
