"""``goalkeeper watch``: a live terminal view of the project's sessions, redrawn as the journal
grows (``rich.live``); ``--once`` prints one frame for scripts, ``--json`` its data.

The data is ``watch_data.watch_frame`` (what ``status`` computes, plus the newest entries of a
few kinds); this module only draws it. Everything from the agent's side is drawn as
``rich.text.Text`` after ``journal_view.plain``: never as console markup, so a todo subject
like ``[red]`` or an escape sequence cannot restyle or move the view. Nothing here is on a
hook's path: ``watch`` polls the state database from its own process (``stream``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from typing import Any

import click

from goalkeeper.cli.common import App, ExitCode, UserError, echo_json
from goalkeeper.cli.report.journal_view import clip
from goalkeeper.cli.report.session_arg import NoSession, session_for
from goalkeeper.cli.report.status import ago, shortener
from goalkeeper.cli.report.watch_data import SESSIONS, watch_frame
from goalkeeper.store.db import Store

REDRAW_S = 5.0
"""With no new entry, the frame is still redrawn this often (from the data it has: reading the
sessions again is for new entries), so its clock and "… ago" times move on."""
PIPE_WIDTH = 120
"""Columns of a frame printed into a pipe (rich would use 80 and wrap every long line)."""
NONE = "—"
STYLES = {"ok": "green", "bad": "red", "warn": "yellow"}


@click.command("watch", short_help="A live view of the sessions: goal, gates, todos, spend.")
@click.option("--once", is_flag=True, help="Print one frame and exit (for scripts).")
@click.option(
    "--json", "as_json", is_flag=True, help="With --once: print the frame's data as JSON."
)
@click.option(
    "--session", "session_id", metavar="ID", help="Only this session (a full id or a prefix)."
)
@click.option(
    "--sessions",
    "count",
    default=SESSIONS,
    show_default=True,
    type=click.IntRange(1, 50),
    help="How many of the newest sessions to show.",
)
@click.pass_obj
def watch_command(app: App, once: bool, as_json: bool, session_id: str | None, count: int) -> int:
    """Watch goalkeeper's sessions in this project live: for each of the newest sessions its
    phase, the goal and its last verify, the gates still open, todos, how often the agent was
    sent back, what it cost against its budget (when the host records usage) and the last
    thing goalkeeper refused and why. The view is redrawn as goalkeeper journals; Ctrl-C stops.

    --once prints one frame and exits; --once --json prints the frame's data (its shape is in
    cli/report/watch_data.py; the journal's own stream is `status --follow --json`).

    Exit status: 0, 2 bad flags or an ambiguous --session prefix, 4 no session matches
    --session.
    """
    if as_json and not once:
        raise UserError("--json needs --once (the live journal is `status --follow --json`)")
    store = Store(app.project)
    wanted = None
    if session_id is not None:
        if not store.exists():
            raise NoSession(f"goalkeeper has not seen a session in {app.project} yet")
        wanted = session_for(store.connection(), session_id)
        store.close()

    def frame() -> dict[str, Any]:
        try:
            return watch_frame(
                store, str(app.project), time.time(), session_id=wanted, sessions=count
            )
        finally:
            store.close()  # never hold the database between frames

    if as_json:
        echo_json(frame())
        return int(ExitCode.OK)
    from rich.console import Console

    tty = sys.stdout.isatty()
    console = Console(width=None if tty else PIPE_WIDTH, highlight=False)
    if once:
        console.print(render_frame(frame(), live=False))
        return int(ExitCode.OK)
    return _live(console, store, frame, wanted)


def _live(console: Any, store: Store, frame: Any, wanted: str | None) -> int:
    from rich.live import Live

    from goalkeeper.cli.report.stream import JournalFollower

    current = frame()
    follower = JournalFollower(store, current["last_id"])
    drawn = time.monotonic()
    try:
        with Live(render_frame(current), console=console, auto_refresh=False) as live:
            for fresh in follower.follow():
                if fresh:  # every engine transaction journals: the sessions changed
                    current = frame()
                elif time.monotonic() - drawn < REDRAW_S:
                    continue
                live.update(render_frame({**current, "at": time.time()}), refresh=True)
                drawn = time.monotonic()
    except KeyboardInterrupt:
        return int(ExitCode.OK)
    return int(ExitCode.OK)  # the follower never ends by itself


def render_frame(data: Mapping[str, Any], *, live: bool = True) -> Any:
    """The frame as a rich renderable: a header line, then one panel per session."""
    from rich.console import Group
    from rich.text import Text

    head = Text()
    head.append("goalkeeper watch", style="bold")
    head.append(f"  {clip(data['project'], 80)}  ")
    head.append(time.strftime("%H:%M:%S", time.localtime(data["at"])), style="dim")
    if live:
        head.append("  (Ctrl-C stops)", style="dim")
    parts: list[Any] = [head]
    if not data["sessions"]:
        parts.append(Text(f"goalkeeper has not seen a session here yet. {NONE}"))
    short = shortener([s["session_id"] for s in data["sessions"]])
    parts += [_panel(s, short(s["session_id"])) for s in data["sessions"]]
    return Group(*parts)


def _panel(s: Mapping[str, Any], shown_id: str) -> Any:
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for label, value, cat in session_lines(s):
        grid.add_row(Text(label), Text(value, style=STYLES.get(cat, "")))
    title = Text()
    title.append(f"session {shown_id}", style="bold")
    title.append(
        f" {s['host'] or '?'} · phase {s['phase'] or NONE} · round {s['round']} · "
        f"{ago(s['updated_at'])}"
    )
    return Panel(grid, title=title, title_align="left")


def session_lines(s: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(label, text, category)`` per line of one session's panel; ``—`` where nothing is
    known (no goal, no usage recorded)."""
    goal = s.get("goal")
    if goal and goal.get("objective"):
        goal_text = f"{clip(goal['objective'], 100)} ({goal['status']})"
        goal_cat = "ok" if goal.get("proven") else "warn" if goal["status"] == "blocked" else ""
    else:
        goal_text, goal_cat = NONE, ""
    verify = s.get("last_verify")
    gates = s.get("open_gates")
    gates_text = NONE if gates is None else "all passed" if not gates else ", ".join(gates)
    cont = s["continuations"]
    refusal = s.get("last_refusal")
    verdict = s["verdict"]
    return [
        ("Goal", goal_text, goal_cat),
        (
            "Verify",
            f"{verify['text']} ({ago(verify['at'])})" if verify else NONE,
            ("ok" if verify["passed"] else "bad") if verify else "",
        ),
        ("Open gates", gates_text, "" if gates is None else "bad" if gates else "ok"),
        ("Todos", _todos(s["todos"]), "bad" if s["todos"]["refused"] else ""),
        (
            "Continued",
            f"sent back {cont['sent_back']} time(s)" + (", cap reached" if cont["capped"] else ""),
            "warn" if cont["capped"] else "",
        ),
        ("Spend", _spend(s["spend"].get("usage")), ""),
        *_budget(s["spend"].get("budget")),
        (
            "Refused",
            f"{refusal['text']} ({ago(refusal['at'])})" if refusal else NONE,
            "bad" if refusal else "",
        ),
        (
            "Verdict",
            f"{verdict['state']}: {clip(verdict['reason'], 120)}",
            {"proven": "ok", "closed": "ok", "paused": "warn", "capped": "warn"}.get(
                verdict["state"], ""
            ),
        ),
    ]


def _todos(todos: Mapping[str, Any]) -> str:
    counts = todos["counts"]
    if not counts:
        return NONE
    text = ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))
    if todos["open"]:
        text += "; open: " + "; ".join(
            f"#{t['id']} {clip(t['subject'], 50)}" for t in todos["open"]
        )
    if todos["refused"]:
        text += "; refused: " + ", ".join(f"#{i}" for i in todos["refused"])
    return text


def _spend(usage: Mapping[str, Any] | None) -> str:
    """The session's tokens and money so far, and what the last continuation cost."""
    if not isinstance(usage, Mapping):
        return NONE
    text = _tokens(usage) + (f", {_usd(usage.get('usd'))}" if usage.get("usd") is not None else "")
    since = usage.get("since_last")
    if isinstance(since, Mapping):
        text += f"; last continuation {_tokens(since)}"
        if since.get("usd") is not None:
            text += f", {_usd(since.get('usd'))}"
        if usage.get("changed") is False:
            text += ", nothing changed"
    return text


def _tokens(usage: Mapping[str, Any]) -> str:
    def n(key: str) -> int:
        value = usage.get(key)
        return int(value) if isinstance(value, int | float) else 0

    cache = n("cache_read_tokens") + n("cache_write_tokens")
    return (
        f"{n('input_tokens'):,} in, {n('output_tokens'):,} out"
        + (f", {cache:,} cache" if cache else "")
        + " tokens"
    )


def _usd(value: object) -> str:
    return f"${value:,.2f}" if isinstance(value, int | float) else NONE


def _budget(budget: Mapping[str, Any] | None) -> list[tuple[str, str, str]]:
    if not isinstance(budget, Mapping):
        return [("Budget", NONE, "")]
    unit = str(budget.get("unit"))

    def amount(value: object) -> str:
        if unit == "usd":
            return _usd(value)
        return f"{value:,}" if isinstance(value, int | float) else NONE

    limit, spent = budget.get("limit"), budget.get("spent")
    share = (
        f" ({spent / limit:.0%})"
        if isinstance(limit, int | float) and isinstance(spent, int | float) and limit
        else ""
    )
    state = str(budget.get("state"))
    text = (
        f"{amount(spent)} of {amount(limit)}{'' if unit == 'usd' else ' ' + clip(unit, 20)}"
        f"{share} per {clip(budget.get('scope'), 20)}: {clip(state, 20)}"
    )
    return [("Budget", text, "bad" if state == "spent" else "warn")]


COMMANDS = (watch_command,)
