"""``--session ID``: the one way the CLI turns what a person typed (a full id or the short
prefix ``status`` printed) into a session, with the error a person can act on."""

from __future__ import annotations

import sqlite3

import click

from goalkeeper.cli.common import ExitCode, fail
from goalkeeper.store.sessions import SessionNotFound, latest_session_id, resolve_session_id

SHORT = 12
"""How much of an id ``status`` shows; any unique prefix works as ``--session``."""


def session_for(conn: sqlite3.Connection, wanted: str | None) -> str:
    """The full id ``wanted`` names, or the latest session when it is None. An unknown id, or
    no session at all, exits 4; a prefix several ids start with exits 2 and lists them."""
    if wanted is None:
        latest = latest_session_id(conn)
        if latest is None:
            raise NoSession("goalkeeper has not seen a session here yet")
        return latest
    try:
        return resolve_session_id(conn, wanted)
    except SessionNotFound as exc:
        if exc.candidates:
            raise fail(f"{exc}; pass more of the id") from exc
        raise NoSession(f"{exc}; `goalkeeper status` lists the sessions") from exc


class NoSession(click.ClickException):
    """No session matches: exit status 4 (``ExitCode.NO_SESSION``)."""

    exit_code = int(ExitCode.NO_SESSION)
