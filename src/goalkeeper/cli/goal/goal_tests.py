"""``goalkeeper goal accept-tests``: accept the changes to the goal's protected tests."""

from __future__ import annotations

import difflib
import time

import click

from goalkeeper.cli.common import App, ExitCode, echo_json, fail
from goalkeeper.cli.goal.goal import goal_group
from goalkeeper.cli.trusted import refuse_in_agent_shell

MAX_DIFF_LINES = 200


@goal_group.command("accept-tests")
@click.option("--yes", "-y", is_flag=True, help="Do not ask; accept what is shown.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def accept_tests_command(app: App, yes: bool, as_json: bool) -> int:
    """Accept the test files and test configuration as they are now as the ones to check.

    When the goal was set, goalkeeper kept its tests (every test file, conftest.py, pytest's
    settings, package.json's scripts, the Makefile ...); it also keeps them at your first
    prompt of each session, for todos with a test gate. A verification or a test gate that
    passes only with changes to them is not proven: goalkeeper runs it again against the
    original tests. If the change was right (a test that was wrong), accept it here: this shows
    the diff and makes the tests as they are now the ones the goal and the sessions' test gates
    are checked against. Run it in your own terminal: it refuses to run inside an agent's shell.

    Exit status: 0 when accepted (or nothing changed), 1 when nothing is kept to accept or you
    declined, 2 inside an agent's shell.
    """
    refuse_in_agent_shell("goal accept-tests")
    from goalkeeper.core.proof.protected import changed_tests
    from goalkeeper.store.db import Store
    from goalkeeper.store.goalfile import load_goal
    from goalkeeper.store.test_baseline import (
        current_state,
        load_baseline,
        session_keys,
        take_baseline,
    )
    from goalkeeper.store.trust import current_promise

    doc = load_goal(app.project)
    goal_id = doc.goal.goal_id if doc is not None and doc.goal is not None else None
    store = Store(app.project)
    try:
        with store.transaction() as conn:
            promise = current_promise(conn, goal_id)
            keys = ([promise.goal_id] if promise is not None else []) + session_keys(conn)
            baseline = load_baseline(conn, keys[0]) if keys else None
        if not keys:
            raise fail("no approved goal here and no session's tests kept: nothing to accept", 1)
        changes = (
            changed_tests(baseline.digests, current_state(app.project, baseline))
            if baseline
            else ()
        )
        if baseline is not None and not changes:
            if as_json:
                echo_json({"accepted": False, "changes": []})
            else:
                click.echo("Nothing to accept: the tests are as they were.")
            return int(ExitCode.OK)
        if not as_json:
            click.echo(_diff(app, baseline, changes))
        asked = not yes and not as_json
        if asked and not click.confirm("Accept these tests as the ones to check?", default=False):
            click.echo("Not accepted; goalkeeper checks against the original tests.")
            return int(ExitCode.NOT_PASSED)
        with store.transaction() as conn:
            for key in keys:
                goal = promise is not None and key == promise.goal_id
                verify = doc.goal.verify if goal and doc is not None and doc.goal else None
                kept = take_baseline(
                    conn, key, app.project, time.time(), backup=goal, commands=verify
                )
    finally:
        store.close()
    if as_json:
        listed = [{"path": c.path, "kind": c.kind} for c in changes]
        echo_json({"accepted": True, "changes": listed, "protected": kept})
    else:
        click.echo(f"Accepted: goalkeeper now checks against these tests ({kept} files).")
    return int(ExitCode.OK)


def _diff(app: App, baseline: object, changes: tuple[object, ...]) -> str:
    """A unified diff of every changed protected file, bounded."""
    from goalkeeper.store.safe_read import UnsafeFile, read_capped

    lines: list[str] = []
    contents = getattr(baseline, "contents", {})
    for change in changes:
        path = str(getattr(change, "path", ""))
        before = contents.get(path, b"").decode("utf-8", "replace").splitlines()
        try:
            on_disk = app.project / path.removeprefix("runner:")
            now = read_capped(on_disk, 1_000_000, within=app.project)
            after = now.decode("utf-8", "replace").splitlines()
        except UnsafeFile:
            after = []
        lines += difflib.unified_diff(before, after, f"a/{path}", f"b/{path}", lineterm="")
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"… {len(lines) - MAX_DIFF_LINES} more lines"]
    return "\n".join(lines) or "(no baseline was kept for this goal; the tests as they are now)"


COMMANDS = ()
