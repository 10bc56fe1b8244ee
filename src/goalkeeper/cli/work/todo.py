"""``goalkeeper todo``: the todo tool from a shell, for any agent with a shell and for people.

Every call goes through the engine exactly as the MCP tool's do, with the same gates.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from goalkeeper.cli.common import App, ExitCode, echo_json, fail
from goalkeeper.config import load_config, relevant_env
from goalkeeper.core.todos.tree import Task, task_from_json
from goalkeeper.core.values import Block, Reply, ToolCall

if TYPE_CHECKING:
    from goalkeeper.store.db import Store

MARKS = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]", "deleted": "[-]"}


@click.group("todo", short_help="Create, update and show the session's todo tree.")
def todo_group() -> None:
    """The todo tool from a shell: the same tree, the same evidence gates as the MCP tool.

    The session is --session, else CLAUDE_CODE_SESSION_ID or GOALKEEPER_SESSION, else the
    most recently active session in this project, else "default".
    """


_session = click.option("--session", help="Session id (default: see `goalkeeper todo --help`).")
_json = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")


@todo_group.command("list")
@_session
@_json
@click.option("--all", "show_all", is_flag=True, help="Also show deleted tasks.")
@click.pass_obj
def list_command(app: App, session: str | None, as_json: bool, show_all: bool) -> int:
    """Draw the todo tree. Exit status: 0."""
    return _run(app, session, {"action": "list"}, as_json, show_all=show_all)


@todo_group.command("get")
@click.argument("task_id", type=int)
@_session
@_json
@click.pass_obj
def get_command(app: App, task_id: int, session: str | None, as_json: bool) -> int:
    """Show one task with its metadata. Exit status: 0, or 1 when there is no such task."""
    return _run(app, session, {"action": "get", "id": task_id}, as_json)


@todo_group.command("create")
@click.argument("subject")
@click.option("--parent", type=int, help="Parent task id (metadata.parentId).")
@click.option("--gate", help="Hard duty: test, audit or test,audit.")
@click.option("--blocked-by", help="Comma-separated ids this task depends on.")
@click.option("--description")
@_session
@_json
@click.pass_obj
def create_command(
    app: App,
    subject: str,
    parent: int | None,
    gate: str | None,
    blocked_by: str | None,
    description: str | None,
    session: str | None,
    as_json: bool,
) -> int:
    """Create a task. Exit status: 0, or 1 when it is refused (e.g. an unknown parent)."""
    call: dict[str, Any] = {"action": "create", "subject": subject}
    metadata: dict[str, Any] = {}
    if parent is not None:
        metadata["parentId"] = parent
    if gate:
        metadata["gate"] = [g.strip() for g in gate.split(",") if g.strip()]
    if metadata:
        call["metadata"] = metadata
    if blocked_by:
        call["blockedBy"] = _ids(blocked_by)
    if description:
        call["description"] = description
    return _run(app, session, call, as_json)


@todo_group.command("update")
@click.argument("task_id", type=int)
@click.option("--status", type=click.Choice(["pending", "in_progress", "completed", "deleted"]))
@click.option("--evidence", help="Completion evidence: JSON, or a bare command.")
@click.option("--subject")
@click.option("--blocked-by", help="Comma-separated ids this task depends on.")
@_session
@_json
@click.pass_obj
def update_command(
    app: App,
    task_id: int,
    status: str | None,
    evidence: str | None,
    subject: str | None,
    blocked_by: str | None,
    session: str | None,
    as_json: bool,
) -> int:
    """Update a task; completing one needs --evidence. Exit status: 0, or 1 when refused."""
    call: dict[str, Any] = {"action": "update", "id": task_id}
    if status:
        call["status"] = status
    if subject:
        call["subject"] = subject
    if blocked_by is not None:
        call["blockedBy"] = _ids(blocked_by)
    if evidence is not None:
        try:
            call["metadata"] = {"evidence": json.loads(evidence)}
        except ValueError:
            call["metadata"] = {"evidence": evidence}  # a bare command; normalization decides
    return _run(app, session, call, as_json)


@todo_group.command("call")
@click.argument("payload")
@_session
@_json
@click.pass_obj
def call_command(app: App, payload: str, session: str | None, as_json: bool) -> int:
    """Send one raw todo tool call (the MCP tool's JSON arguments). Exit status: 0 or 1."""
    try:
        call = json.loads(payload)
    except ValueError as exc:
        raise fail(f"PAYLOAD is not valid JSON ({exc})") from exc
    return _run(app, session, call, as_json)


@todo_group.command("accept")
@click.argument("task_id", type=int)
@_session
@_json
@click.pass_obj
def accept_command(app: App, task_id: int, session: str | None, as_json: bool) -> int:
    """Accept a completed task that awaits you (seed 002).

    A completion goalkeeper could not check (evidence of kind "effect", or a review it cannot
    read) is not refused but left to you: the stop names it, `goalkeeper report` shows it
    unverified, and `goalkeeper run` ends "awaiting acceptance" (exit 4) while one waits.
    Check the work, then accept it here. Run it in your own terminal: it refuses to run
    inside an agent's shell.

    Exit status: 0 when accepted, 1 when the session has no such claim, 2 inside an agent's
    shell.
    """
    import time

    from goalkeeper.cli.trusted import refuse_in_agent_shell
    from goalkeeper.store.claims import accept, awaiting
    from goalkeeper.store.db import Store

    refuse_in_agent_shell("todo accept")
    sid = session or _default_session(app)
    store = Store(app.project)
    try:
        with store.transaction() as conn:
            claim = accept(conn, sid, task_id, time.time())
            left = awaiting(conn, sid) if claim is not None else ()
    finally:
        store.close()
    if claim is None:
        raise fail(
            f"todo #{task_id} of session {sid} awaits no acceptance (only completions "
            "goalkeeper could not check do; see `goalkeeper report`)",
            int(ExitCode.NOT_PASSED),
        )
    if as_json:
        echo_json({"accepted": claim.to_json(), "awaiting": [c.to_json() for c in left]})
    else:
        click.echo(f"Accepted #{claim.task_id} {claim.subject} ({claim.what}).")
        if left:
            click.echo("Still awaiting: " + ", ".join(f"#{c.task_id}" for c in left))
    return int(ExitCode.OK)


def _run(
    app: App, session: str | None, call: object, as_json: bool, *, show_all: bool = False
) -> int:
    from goalkeeper.engine.supervisor import Supervisor

    sid = session or _default_session(app)
    config = load_config(app.project, relevant_env())
    supervisor = Supervisor(app.project, config, host="cli", capabilities=frozenset({"block"}))
    try:
        actions = supervisor.handle([ToolCall(sid, "todo", call)]).actions  # type: ignore[arg-type]
        refused = "\n\n".join(a.reason for a in actions if isinstance(a, Block))
        result = next((a.data for a in actions if isinstance(a, Reply)), None)
        if as_json:
            data = {"ok": not refused, "session": sid, "result": result}
            echo_json({**data, "refused": refused or None})
        elif refused:
            click.echo(refused, err=True)
        elif result is not None:
            _print(result, show_all, lambda: _stored_tasks(supervisor.store, sid))
    finally:
        supervisor.store.close()
    return int(ExitCode.NOT_PASSED if refused else ExitCode.OK)


def _stored_tasks(store: Store, session: str) -> tuple[Task, ...]:
    """The whole tree, for drawing it: the tool's reply is bounded (a summary past a few dozen
    tasks), a listing asked for in a shell is not."""
    from goalkeeper.store.todo_tasks import TaskTable

    with store.transaction() as conn:
        return TaskTable(conn, session).all_tasks()


def _print(result: dict[str, Any], show_all: bool, stored: Callable[[], tuple[Task, ...]]) -> None:
    if result.get("action") in ("create", "update", "get") and isinstance(result.get("task"), dict):
        task = task_from_json(result["task"])
        if task is not None:
            click.echo(f"#{task.id} {MARKS[task.status]} {task.subject}")
            if result.get("action") == "get" and task.metadata:
                click.echo(json.dumps(dict(task.metadata), ensure_ascii=False, indent=2))
            return
    tasks = [t for t in stored() if show_all or t.status != "deleted"]
    if not tasks:
        click.echo("No todos in this session.")
        return
    ids = {t.id for t in tasks}
    children: dict[int, list[Task]] = {}
    for t in tasks:
        if t.parent_id in ids:
            children.setdefault(t.parent_id, []).append(t)
    roots = [t for t in tasks if t.parent_id not in ids]
    for i, root in enumerate(roots):
        _draw(root, children, "", i == len(roots) - 1, top=True)


def _draw(
    task: Task, children: dict[int, list[Task]], prefix: str, last: bool, *, top: bool = False
) -> None:
    branch = "" if top else ("└─ " if last else "├─ ")
    notes = []
    gate = task.metadata.get("gate")
    if gate:
        notes.append(f"gate: {gate if isinstance(gate, str) else json.dumps(gate)}")
    checks = task.metadata.get("verification")
    if isinstance(checks, list) and checks:
        states = {c.get("status") for c in checks if isinstance(c, dict)}
        notes.append("unverified claims" if "unverified" in states else "evidence checked")
    if task.blocked_by:
        notes.append("after " + ", ".join(f"#{d}" for d in task.blocked_by))
    extra = f"  ({'; '.join(notes)})" if notes else ""
    click.echo(f"{prefix}{branch}#{task.id} {MARKS[task.status]} {task.subject}{extra}")
    mine = children.get(task.id, [])
    inner = prefix + ("" if top else ("   " if last else "│  "))
    for i, child in enumerate(mine):
        _draw(child, children, inner, i == len(mine) - 1)


def _ids(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise fail(f"--blocked-by takes comma-separated ids, not {text!r}") from exc


def _default_session(app: App) -> str:
    for name in ("CLAUDE_CODE_SESSION_ID", "GOALKEEPER_SESSION"):
        if os.environ.get(name):
            return os.environ[name]
    from goalkeeper.store.db import Store
    from goalkeeper.store.sessions import list_sessions

    store = Store(app.project)
    if store.exists():
        try:
            rows = list_sessions(store.connection(), limit=1)
        finally:
            store.close()
        if rows:
            return rows[0].session_id
    return "default"


COMMANDS = (todo_group,)
