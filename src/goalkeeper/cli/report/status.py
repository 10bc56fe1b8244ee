"""``goalkeeper status``: the sessions goalkeeper sees, one session on one screen (its goal,
todos, workflow, mode and verdict), and the journal as readable lines, once or live
(``--follow``).

Ids are shown shortened but every shown id works as ``--session`` (a unique prefix; see
``cli.report.session_arg``). Colour only on a terminal and never with ``NO_COLOR``; text from the
agent's side is shown without control characters (``journal_view.plain``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import click

from goalkeeper.cli.common import App, ExitCode, echo_json
from goalkeeper.cli.report.journal_view import category, clip, describe
from goalkeeper.cli.report.session_arg import SHORT, NoSession, session_for
from goalkeeper.cli.report.stream import JournalFollower, stream_record
from goalkeeper.store import journal
from goalkeeper.store.db import Store
from goalkeeper.store.sessions import SessionRow, list_sessions

COLOURS = {"ok": "green", "bad": "red", "warn": "yellow", "run": "blue"}


@click.command("status", short_help="Show sessions, their PDCA phase and recent decisions.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (--follow: one a line, versioned; see docs/journal.md).",
)
@click.option(
    "--session", "session_id", metavar="ID", help="This session (a full id or a unique prefix)."
)
@click.option("--limit", default=15, show_default=True, help="How many journal entries to show.")
@click.option(
    "--follow", "-f", is_flag=True, help="Keep printing new journal entries; Ctrl-C stops."
)
@click.pass_obj
def status_command(
    app: App, as_json: bool, session_id: str | None, limit: int, follow: bool
) -> int:
    """Show goalkeeper's sessions in this project, the latest one (or --session) on one
    screen: phase and counters, goal, todos, workflow, mode and verdict; then its recent
    decisions from the journal in goalkeeper's state folder for this project (outside it;
    --json names it as state_dir), one readable line each.

    --follow keeps watching the journal and prints each entry as it is written, until Ctrl-C.

    Exit status: 0 (also when goalkeeper has not run here yet), 2 an ambiguous --session
    prefix (the candidates are listed), 4 no session matches --session.
    """
    from goalkeeper.hosts.transport.hook_server import server_pid

    store = Store(app.project)
    if not store.exists() and session_id is not None:
        raise NoSession(f"goalkeeper has not seen a session in {app.project} yet")
    sessions: list[SessionRow] = []
    entries: list[journal.JournalEntry] = []
    focus: dict[str, Any] | None = None
    start = 0
    wanted = None
    if store.exists():
        conn = store.connection()
        sessions = list_sessions(conn)
        wanted = session_for(conn, session_id) if session_id is not None else None
        entries = journal.recent(conn, limit, wanted)
        start = journal.last_id(conn)
        shown = wanted or (sessions[0].session_id if sessions else None)
        focus = focus_json(store, shown) if shown else None
        store.close()
    pid = server_pid(app.project)
    short = shortener([s.session_id for s in sessions] + [e.session_id or "" for e in entries])
    data = {
        "project": str(app.project),
        "state_db": str(store.path) if store.exists() else None,
        "state_dir": str(store.path.parent),
        "server": {"running": pid is not None, "pid": pid},
        "sessions": [session_json(s) for s in sessions],
        "session": focus,
        "recent": [stream_record(e) for e in entries],
    }
    if as_json and not follow:
        echo_json(data)
        return int(ExitCode.OK)
    colour = use_colour()
    if as_json:
        for e in entries:
            _line_out(json.dumps(stream_record(e), ensure_ascii=False))
    elif not sessions and not follow:
        click.echo(f"goalkeeper has not seen a session in {app.project} yet.")
        return int(ExitCode.OK)
    else:
        _overview(app, pid, data, sessions, focus, entries, short, colour)
    if follow:
        return _follow(store, start, wanted, as_json, colour, short)
    return int(ExitCode.OK)


def _overview(
    app: App,
    pid: int | None,
    data: dict[str, Any],
    sessions: list[SessionRow],
    focus: dict[str, Any] | None,
    entries: list[journal.JournalEntry],
    short: Any,
    colour: bool,
) -> None:
    def bold(text: str) -> str:
        return click.style(text, bold=True) if colour else text

    click.echo(f"Project: {app.project}")
    click.echo(f"State: {data['state_dir']}")
    click.echo(f"Engine process: {'running (pid ' + str(pid) + ')' if pid else 'not running'}")
    if sessions:
        click.echo(bold("Sessions") + " (newest first; any shown id works as --session):")
    for s in data["sessions"]:
        click.echo(
            f"  {short(s['session_id']):<{SHORT}}  {s['host']:<7} phase={s['phase'] or '-':<9} "
            f"round={s['round']} continuations={s['continuations']} idle={s['idle_rounds']} "
            f"resets={s['resets']}  {ago(s['updated_at'])} ({_clock(s['updated_at'])})"
        )
    if focus is not None:
        click.echo("")
        click.echo(bold(f"Session {short(focus['session_id'])}") + f" ({focus['host'] or '?'})")
        for label, value, cat in _focus_lines(focus):
            text = click.style(value, fg=COLOURS.get(cat)) if colour and cat in COLOURS else value
            click.echo(f"  {label:<9} {text}")
    click.echo("")
    click.echo(bold("Recent:") if entries else "Recent: nothing in the journal yet.")
    for e in entries:
        click.echo(_entry_text(e, short, colour))


def _follow(
    store: Store, start: int, wanted: str | None, as_json: bool, colour: bool, short: Any
) -> int:
    """Poll the journal for entries after ``start`` until Ctrl-C (or the pipe closes)."""
    if not as_json:
        _line_out(f"Following {store.path} (Ctrl-C stops) …")
    try:
        for fresh in JournalFollower(store, start, wanted).follow():
            for e in fresh:
                line = json.dumps(stream_record(e), ensure_ascii=False) if as_json else None
                _line_out(line if line is not None else _entry_text(e, short, colour))
    except KeyboardInterrupt:
        return int(ExitCode.OK)
    except BrokenPipeError:  # `status --follow | head`
        return int(ExitCode.OK)
    return int(ExitCode.OK)  # the follower never ends by itself


def _line_out(text: str) -> None:
    click.echo(text)
    sys.stdout.flush()  # a live view piped into another program must not wait for a buffer


def use_colour() -> bool:
    """Colour on a terminal, unless NO_COLOR is set (no-color.org) or TERM is ``dumb``."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


def _entry_text(e: journal.JournalEntry, short: Any, colour: bool) -> str:
    text = describe(e.kind, e.data)
    cat = category(e.kind, e.data)
    kind = f"{e.kind:<13}"
    if colour:
        kind = click.style(kind, fg=COLOURS.get(cat), bold=cat in ("ok", "bad"))
        stamp = click.style(f"{_clock(e.at)} {ago(e.at):>7}", dim=True)
    else:
        stamp = f"{_clock(e.at)} {ago(e.at):>7}"
    return f"  {stamp}  {short(e.session_id or '-'):<{SHORT}}  {kind} {text}"


def focus_json(store: Store, session_id: str) -> dict[str, Any]:
    """One session's goal, todos, workflow, mode and verdict (from the proof)."""
    from goalkeeper.cli.report.data import session_proof

    proof = session_proof(store, session_id)
    todos = proof["todos"]
    counts: dict[str, int] = {}
    for t in todos:
        counts[t["status"]] = counts.get(t["status"], 0) + 1
    return {
        **proof["session"],
        "goal": proof["goal"],
        "todos": {
            "counts": counts,
            "open": [
                {"id": t["id"], "subject": t["subject"], "status": t["status"]}
                for t in todos
                if t["status"] in ("pending", "in_progress")
            ][:5],
            "refused": [t["id"] for t in todos if t["evidence"] == "refused"],
        },
        "verdict": proof["verdict"],
        "runs": len(proof["runs"]),
        "continuations": proof["continuations"],
    }


def _focus_lines(focus: dict[str, Any]) -> list[tuple[str, str, str]]:
    goal = focus.get("goal")
    if goal and goal.get("objective"):
        goal_text = (
            f"{clip(goal['objective'], 80)} — {goal['status']}, verify: "
            f"{', '.join(goal['verify']) or 'none'}, {goal['failed_rounds']} failed round(s)"
        )
        goal_cat = "ok" if goal.get("proven") else "warn" if goal["status"] == "blocked" else ""
    else:
        goal_text, goal_cat = "none", ""
    todos = focus["todos"]
    counts = todos["counts"]
    if counts:
        todo_text = ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))
        if todos["open"]:
            todo_text += "; open: " + "; ".join(
                f"#{t['id']} {clip(t['subject'], 50)}" for t in todos["open"]
            )
        if todos["refused"]:
            todo_text += "; refused: " + ", ".join(f"#{i}" for i in todos["refused"])
    else:
        todo_text = "none"
    workflow = focus.get("workflow")
    if isinstance(workflow, dict):
        wf = (
            f"{clip(workflow.get('route'), 40)} {clip(workflow.get('workItemId') or '', 40)}, "
            f"phase {workflow.get('phase')} ({workflow.get('status')})"
        )
    else:
        wf = "none"
    mode = focus.get("mode") or "off"
    if focus.get("mode_phase"):
        mode += f", phase {focus['mode_phase']}"
    verdict = focus["verdict"]
    state = verdict["state"]
    vcat = {"proven": "ok", "closed": "ok", "paused": "warn", "capped": "warn"}.get(state, "")
    cont = focus["continuations"]
    return [
        ("Goal", goal_text, goal_cat),
        ("Todos", todo_text, "bad" if todos["refused"] else ""),
        ("Workflow", wf, ""),
        ("Mode", mode, ""),
        (
            "Ran",
            f"{focus['runs']} command(s) run by goalkeeper; sent back "
            f"{cont['sent_back']} time(s)" + (", cap reached" if cont["capped"] else ""),
            "",
        ),
        ("Verdict", f"{state}: {clip(verdict['reason'], 120)}", vcat),
    ]


def shortener(ids: list[str]) -> Any:
    """``id → shown id``: the first ``SHORT`` characters when no other id shares them, else
    the whole id, so a shown id is always a unique prefix."""
    known = {i for i in ids if i}
    heads: dict[str, int] = {}
    for i in known:
        heads[i[:SHORT]] = heads.get(i[:SHORT], 0) + 1

    def short(session_id: str) -> str:
        head = session_id[:SHORT]
        return head if heads.get(head, 0) <= 1 else session_id

    return short


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


def _clock(at: float) -> str:
    """The local time of day, with the date when it is not today."""
    today = time.strftime("%Y-%m-%d")
    day = time.strftime("%Y-%m-%d", time.localtime(at))
    return time.strftime("%H:%M:%S" if day == today else "%Y-%m-%d %H:%M", time.localtime(at))


def ago(at: float) -> str:
    seconds = max(0, time.time() - at)
    if seconds < 90:
        return f"{seconds:.0f}s ago"
    if seconds < 5400:
        return f"{seconds / 60:.0f}m ago"
    if seconds < 172_800:
        return f"{seconds / 3600:.0f}h ago"
    return f"{seconds / 86400:.0f}d ago"


COMMANDS = (status_command,)
