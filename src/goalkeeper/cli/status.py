"""``goalkeeper status``: sessions, their PDCA phase and counters, and recent decisions."""

from __future__ import annotations

import time
from typing import Any

import click

from goalkeeper.cli.app import App, ExitCode, echo_json
from goalkeeper.store import journal
from goalkeeper.store.db import Store
from goalkeeper.store.sessions import SessionRow, list_sessions


@click.command("status", short_help="Show sessions, their PDCA phase and recent decisions.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--session", "session_id", help="Only this session's journal.")
@click.option("--limit", default=15, show_default=True, help="How many journal entries to show.")
@click.pass_obj
def status_command(app: App, as_json: bool, session_id: str | None, limit: int) -> int:
    """Show goalkeeper's sessions in this project (phase, rounds, counters) and its recent
    decisions from the journal in .goalkeeper/state.db.

    Exit status: 0 (also when goalkeeper has not run here yet).
    """
    from goalkeeper.hosts.hook_server import server_pid

    store = Store(app.project)
    sessions: list[SessionRow] = []
    entries: list[journal.JournalEntry] = []
    if store.exists():
        conn = store.connection()
        sessions = list_sessions(conn)
        entries = journal.recent(conn, limit, session_id)
        store.close()
    pid = server_pid(app.project)
    rows = [session_json(s) for s in sessions]
    data = {
        "project": str(app.project),
        "state_db": str(store.path) if store.exists() else None,
        "server": {"running": pid is not None, "pid": pid},
        "sessions": rows,
        "recent": [
            {"at": e.at, "session_id": e.session_id, "kind": e.kind, "data": e.data}
            for e in entries
        ],
    }
    if as_json:
        echo_json(data)
        return int(ExitCode.OK)
    if not sessions:
        click.echo(f"goalkeeper has not seen a session in {app.project} yet.")
        return int(ExitCode.OK)
    click.echo(f"Project: {app.project}")
    click.echo(f"Engine process: {'running (pid ' + str(pid) + ')' if pid else 'not running'}")
    for s in rows:
        click.echo(
            f"  {s['session_id'][:12]}  {s['host']:<7} phase={s['phase'] or '-':<9} "
            f"round={s['round']} continuations={s['continuations']} idle={s['idle_rounds']} "
            f"resets={s['resets']}  {_ago(s['updated_at'])}"
        )
    click.echo("Recent:")
    for e in entries:
        click.echo(f"  {_ago(e.at):>8}  {(e.session_id or '-')[:8]}  {e.kind:<9} {_brief(e.data)}")
    return int(ExitCode.OK)


def session_json(s: SessionRow) -> dict[str, Any]:
    cadence = s.guards.get("cadence", {})
    return {
        "session_id": s.session_id,
        "host": s.host,
        "created_at": s.created_at,
        "updated_at": s.updated_at,
        "events": s.events,
        "continuations": s.continuations,
        "lang": s.lang,
        "phase": cadence.get("last_phase"),
        "round": cadence.get("round", 0),
        "idle_rounds": cadence.get("idle_rounds", 0),
        "resets": cadence.get("resets", 0),
        "last_do": cadence.get("last_do"),
        "last_check": cadence.get("last_check"),
    }


def _ago(at: float) -> str:
    seconds = max(0, time.time() - at)
    if seconds < 90:
        return f"{seconds:.0f}s ago"
    if seconds < 5400:
        return f"{seconds / 60:.0f}m ago"
    return f"{seconds / 3600:.0f}h ago"


def _brief(data: dict[str, Any]) -> str:
    if "actions" in data:
        return "; ".join(
            f"{a.get('kind')}: {str(a.get('text', ''))[:70]!r}" for a in data["actions"]
        )
    text = ", ".join(f"{k}={str(v)[:60]}" for k, v in data.items() if k != "traceback")
    return text.replace("\n", " ⏎ ")


COMMANDS = (status_command,)
