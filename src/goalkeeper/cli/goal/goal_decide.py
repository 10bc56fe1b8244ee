"""``goalkeeper goal resume``, ``clear`` and ``approve``: the user's decisions on a paused, held or
finished goal. Registered on ``goal``'s group when this module is imported (``cli.app``)."""

from __future__ import annotations

import time
from typing import Any

import click

from goalkeeper.cli.common import App, ExitCode, echo_json, fail
from goalkeeper.cli.goal.goal import goal_group
from goalkeeper.cli.goal.goal_common import _goal_doc, _held_text, _json, _judged, _lang, _trusted
from goalkeeper.config import load_config, relevant_env
from goalkeeper.core.goals.goal import GoalUpdate
from goalkeeper.core.messages import make_say
from goalkeeper.core.values import Notify
from goalkeeper.store.db import Store


@goal_group.command("resume")
@_json
@click.pass_obj
def resume_command(app: App, as_json: bool) -> int:
    """Resume a paused goal from its last failure, counting on: the rounds used stay, and a
    goal paused at its round limit gets as many rounds again.

    It gives the agent more rounds, so it is yours to run, in your own terminal.

    Exit status: 0 when the goal is active (again, or already), 1 when there is no paused
    goal to resume (none, a complete one, or a GOAL.md that cannot be read), 2 inside an
    agent's shell.
    """
    from goalkeeper.cli.trusted import refuse_in_agent_shell
    from goalkeeper.core.goals.goal import resume_update, resumed_rounds
    from goalkeeper.engine.apply import iso, write_goal

    refuse_in_agent_shell("goal resume")
    goal = _trusted(app, _goal_doc(app, "resume", "no goal to resume here").goal)
    if goal.status == "active":
        return _report_resumed(goal, "The goal is active already", as_json)
    if goal.status == "complete":
        raise fail("the goal is complete; set a new one: goalkeeper goal set …", 1)
    config = load_config(app.project, relevant_env())
    say = make_say(_lang(config.lang))
    rounds = resumed_rounds(goal)
    line = say("goal.log.resumed", time=iso(time.time()), attempts=goal.attempts, rounds=rounds)
    store = Store(app.project)
    try:
        updated = write_goal(app.project, resume_update(goal, line), time.time(), store)
    finally:
        store.close()
    return _report_resumed(_trusted(app, updated), "Goal active again", as_json)


def _report_resumed(goal: Any, headline: str, as_json: bool) -> int:
    if as_json:
        fields = {"status": goal.status, "attempts": goal.attempts, "rounds": goal.rounds}
        echo_json({"ok": True, **fields})
    else:
        click.echo(f"{headline}: rounds used {goal.attempts} of {goal.rounds}.")
    return int(ExitCode.OK)


@goal_group.command("clear")
@_json
@click.pass_obj
def clear_command(app: App, as_json: bool) -> int:
    """Stop pursuing the goal: it is archived (never deleted) under .agents/goal/archive/.
    Dropping a goal is yours to decide, so it runs only in your own terminal.

    Exit status: 0, also when there was no goal; 2 inside an agent's shell.
    """
    from goalkeeper.cli.trusted import refuse_in_agent_shell
    from goalkeeper.engine.apply import iso
    from goalkeeper.store.goalfile import archive_goal, load_goal, update_goal
    from goalkeeper.store.trust import close_promise, current_promise

    refuse_in_agent_shell("goal clear")
    doc = load_goal(app.project)
    store = Store(app.project)
    try:
        with store.transaction() as conn:
            promise = current_promise(conn, doc.goal.goal_id if doc and doc.goal else None)
            if promise is not None:
                close_promise(conn, promise.goal_id, "cleared")
    finally:
        store.close()
    from goalkeeper.engine.hidden import drop_hidden_tests

    drop_hidden_tests(app.project)  # they were the cleared goal's
    if doc is None:
        if as_json:
            echo_json({"archived": None})
        else:
            click.echo("No goal.")
        return int(ExitCode.OK)
    config = load_config(app.project, relevant_env())
    say = make_say(_lang(config.lang))
    stamp = iso(time.time())
    if doc.goal is not None:
        update_goal(app.project, GoalUpdate({}, (say("goal.log.cleared", time=stamp),)), now=stamp)
    archived = archive_goal(app.project, now=stamp)
    if as_json:
        echo_json({"archived": str(archived)})
    else:
        click.echo(f"Goal archived to {archived}.")
    return int(ExitCode.OK)


@goal_group.command("approve")
@click.option("--yes", "-y", is_flag=True, help="Do not ask; approve what is shown.")
@_json
@click.pass_obj
def approve_command(app: App, yes: bool, as_json: bool) -> int:
    """Approve the goal as GOAL.md holds it now: its objective, verify commands and
    acceptance criteria become the ones goalkeeper checks.

    GOAL.md is a project file the agent can edit. When it differs from the goal you set (or
    holds a goal nobody set), goalkeeper holds it: nothing in it runs and the goal is not
    proven. This shows what changed; approving makes the change yours. Run it in your own
    terminal: it refuses to run inside an agent's shell.

    Exit status: 0 when approved (or nothing needed approval), 1 when there is no goal or you
    declined, 2 inside an agent's shell.
    """
    from goalkeeper.cli.trusted import refuse_in_agent_shell
    from goalkeeper.core.goals.promise import goal_digest
    from goalkeeper.engine.apply import approve_goal

    refuse_in_agent_shell("goal approve")
    doc = _goal_doc(app, "approve", "no goal here to approve (.agents/goal/GOAL.md does not exist)")
    held = _judged(app, doc.goal)
    if held is None:
        if as_json:
            echo_json({"approved": False, "needed": False})
        else:
            click.echo("Nothing to approve: GOAL.md holds the goal you approved.")
        return int(ExitCode.OK)
    if not as_json:
        click.echo(_held_text(held, doc.path))
    asked = not yes and not as_json
    if asked and not click.confirm("Approve the goal as GOAL.md holds it now?", default=False):
        click.echo("Not approved; the goal stays held.")
        return int(ExitCode.NOT_PASSED)
    config = load_config(app.project, relevant_env())
    say = make_say(_lang(config.lang))
    store = Store(app.project)
    try:
        said = approve_goal(app.project, store, goal_digest(doc.goal), "approve", time.time(), say)
    finally:
        store.close()
    ok = not any(isinstance(a, Notify) and a.level != "info" for a in said)
    notes = [a.text for a in said if isinstance(a, Notify)]
    if as_json:
        echo_json({"approved": ok, "needed": True, "change": list(held.diff), "messages": notes})
    else:
        for note in notes:
            click.echo(note)
    return int(ExitCode.OK if ok else ExitCode.NOT_PASSED)


COMMANDS = ()
