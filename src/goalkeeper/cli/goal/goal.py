"""``goalkeeper goal``: set, inspect, verify, resume and clear the project's goal (GOAL.md)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click
from msgspec import to_builtins

from goalkeeper.cli.common import App, ExitCode, echo_json, fail
from goalkeeper.config import load_config, relevant_env
from goalkeeper.core.goals.goal import GoalUpdate
from goalkeeper.core.messages import make_say
from goalkeeper.core.values import Action, Notify, SetGoal, WriteGoal
from goalkeeper.store.db import Store


@click.group("goal", short_help="Set and follow a goal goalkeeper verifies itself.")
def goal_group() -> None:
    """The project's goal, kept in .agents/goal/GOAL.md and re-fed to the agent every turn.

    At every stop goalkeeper runs the goal's verification itself: a failure sends the agent
    back with the evidence ([n/N]); the same failure twice, or the round limit, pauses and
    asks you; a pass with every acceptance criterion ticked archives the goal.
    """


_json = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")


@goal_group.command("set")
@click.argument("text")
@click.option("--verify", "verify", multiple=True, help="A verification command (repeatable).")
@click.option("--rounds", type=click.IntRange(1, 100), help="Repair rounds before pausing (3).")
@click.option("--timeout", type=click.FloatRange(1, 3600), help="Seconds per command (120).")
@click.option("--replace", is_flag=True, help="Replace an active goal (it is archived first).")
@click.option(
    "--mode",
    type=click.Choice(["quick", "normal"]),
    help="Work on it in quick or normal mode (recorded in GOAL.md as `mode:`).",
)
@click.option(
    "--hidden-tests",
    "hidden_tests",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Acceptance tests the agent never sees: a copy of DIR is laid over the project at "
    "each proof.",
)
@_json
@click.pass_obj
def set_command(
    app: App,
    text: str,
    verify: tuple[str, ...],
    rounds: int | None,
    timeout: float | None,
    replace: bool,
    mode: str | None,
    hidden_tests: Path | None,
    as_json: bool,
) -> int:
    """Set the goal TEXT. The verify command comes from --verify, else from TEXT ("`pytest -q`
    passes"), else from the project for what TEXT asks ("all tests pass" → its test command).
    With --mode the agent works on it in that mode (see `goalkeeper mode`).

    Set in your own terminal, the goal and its verify commands are approved by you. Set from
    an agent's shell, it is only a proposal: nothing in it runs until you approve it with
    `goalkeeper goal approve`; --replace, which archives the goal you set, refuses to run there.

    With --hidden-tests DIR (your own terminal only) goalkeeper keeps a copy of DIR in its
    state folder, never in the project; at each proof DIR's files are laid over the project
    root in a scratch copy and the verify runs there too: the goal is proven only if that
    passes as well. A goal you set without it drops the previous goal's hidden tests.

    Exit status: 0 when the goal was set, 1 when another goal is active (use --replace),
    no verify command could be found (the goal is set; add one), or it waits for approval.
    """
    from goalkeeper.cli.trusted import agent_shell_name
    from goalkeeper.core.goals.verify import verify_request
    from goalkeeper.store.goalfile import load_goal

    if not text.strip():
        raise fail("TEXT is empty; say what must be true when the goal is done")
    asked = verify_request(text)  # --verify is the whole answer; TEXT names every condition
    commands, conditions = (tuple(verify), ()) if verify else (asked.commands, asked.conditions)
    agent = agent_shell_name()
    if agent is not None and replace:  # it would archive the goal the user set
        from goalkeeper.cli.trusted import refuse_in_agent_shell

        refuse_in_agent_shell("goal set --replace")
    if hidden_tests is not None:  # what the agent must not see nor choose
        from goalkeeper.cli.trusted import refuse_in_agent_shell

        refuse_in_agent_shell("goal set --hidden-tests")
        hidden_tests = hidden_tests.resolve()
        if app.project.resolve() in (hidden_tests, *hidden_tests.parents):
            raise fail("--hidden-tests: the folder is inside the project, where the agent reads it")
    action = SetGoal(
        text.strip(),
        tuple(commands),
        conditions,
        (),
        agent or "cli",
        replace,
        rounds,
        timeout,
        trusted=agent is None,
    )
    config = load_config(app.project, relevant_env())
    said = _apply(app, [action], make_say(_lang(config.lang)), config.test_command)
    doc = load_goal(app.project)
    if mode and doc is not None and doc.goal is not None and doc.goal.objective == text.strip():
        _apply(app, [WriteGoal(GoalUpdate({"mode": mode}))], make_say(_lang(config.lang)))
        doc = load_goal(app.project)
    notes = [a.text for a in said if isinstance(a, Notify)]
    ok = doc is not None and doc.goal is not None and doc.goal.objective == text.strip()
    if ok and agent is None:
        hidden_note = _keep_hidden(app, hidden_tests)
        notes += [hidden_note] if hidden_note else []
    ok = ok and not any(n.level != "info" for n in said if isinstance(n, Notify))
    if as_json:
        echo_json({"ok": ok, "goal": _goal_json(doc), "messages": notes})
    else:
        for note in notes:
            click.echo(note)
    return int(ExitCode.OK if ok else ExitCode.NOT_PASSED)


def _keep_hidden(app: App, source: Path | None) -> str | None:
    """Keep the user's hidden tests with the goal just set (or drop the previous goal's)."""
    from goalkeeper.engine.hidden import drop_hidden_tests, keep_hidden_tests

    if source is None:
        drop_hidden_tests(app.project)
        return None
    try:
        count = keep_hidden_tests(app.project, source)
    except (ValueError, OSError) as exc:
        raise fail(f"--hidden-tests: {exc}") from exc
    return f"Hidden acceptance tests: {count} file(s) kept outside the project, run at each proof."


@goal_group.command("status")
@_json
@click.pass_obj
def status_command(app: App, as_json: bool) -> int:
    """Show the goal: status, verify commands, rounds used, criteria, the last failure (its
    output tail and signature) and the latest Progress Log lines.

    Exit status: 0 when a goal exists, 1 when there is none or GOAL.md cannot be used.
    """
    from goalkeeper.store.goalfile import load_goal

    doc = load_goal(app.project)
    held = _judged(app, doc.goal) if doc is not None and doc.goal is not None else None
    if as_json:
        data = _goal_json(doc)
        if data is not None and doc is not None and doc.goal is not None:
            data["approved"] = held is None
            data["held"] = {"kind": held.kind, "change": list(held.diff)} if held else None
        echo_json(data)
        return int(ExitCode.OK if doc is not None and doc.goal else ExitCode.NOT_PASSED)
    if doc is None:
        click.echo('No goal. Set one: goalkeeper goal set "<what must be true>"')
        return int(ExitCode.NOT_PASSED)
    if doc.goal is None:
        problem = doc.problem or "cannot be read"
        click.echo(problem if problem.startswith(doc.path) else f"{doc.path}: {problem}")
        return int(ExitCode.NOT_PASSED)
    goal = _trusted(app, doc.goal) if held is None else doc.goal
    click.echo(f"Goal ({doc.path}): {goal.objective}")
    if held is not None:
        click.echo("  " + _held_text(held, doc.path).replace("\n", "\n  "))
        click.echo("  held: goalkeeper runs none of it until you run `goalkeeper goal approve`")
    click.echo(
        f"  status: {goal.status}" + (f" ({goal.blocked_reason})" if goal.blocked_reason else "")
    )
    click.echo(f"  verify: {', '.join(goal.verify) or '(none)'}")
    click.echo(f"  rounds used: {goal.attempts} of {goal.rounds}; timeout {goal.timeout_s:g} s")
    for criterion in goal.criteria:
        mark = {"done": "[x]", "cancelled": "[-]"}.get(criterion.state, "[ ]")
        click.echo(f"  {mark} {criterion.text}")
    failure = goal.last_failure
    if failure.command:
        click.echo(
            f"  last failure: {failure.command} (exit {failure.exit}),"
            f" signature {failure.signature}"
        )
        for line in (failure.tail or "").strip().splitlines()[-8:]:
            click.echo(f"    | {line}")
    for entry in goal.progress_log[-5:]:
        click.echo(f"  - {entry}")
    return int(ExitCode.OK)


@goal_group.command("verify")
@_json
@click.pass_obj
def verify_command(app: App, as_json: bool) -> int:
    """Run the goal's verification now and record the result in the Progress Log (no repair
    round is spent).

    Exit status: 0 when every command passes, 1 when one fails or there is no goal.
    """
    from goalkeeper.engine.commands import run_verification
    from goalkeeper.engine.ports import SubprocessRunner

    missing = "no goal with a verify command here; set one: goalkeeper goal set --verify …"
    doc = _goal_doc(app, "verify", missing)
    if not doc.goal.verify:
        raise fail(missing, 1)
    goal = doc.goal
    held = _judged(app, goal)
    if held is not None:  # never run a command nobody approved, even from the user's terminal
        raise fail(_held_text(held, doc.path) + "\nNothing was run.", 1)
    goal = _trusted(app, goal)  # the approved time limit, not a raised one
    config = load_config(app.project, relevant_env())
    runner = SubprocessRunner()
    runs = []
    for command in goal.verify:
        if not as_json:
            click.echo(f"running {command} … ", nl=False)
        run = run_verification(
            [command], app.project, runner, goal.timeout_s, sandbox=config.sandbox
        )[0]
        runs.append(run)
        if not as_json:
            click.echo(
                "passed"
                if run.passed
                else ("timed out" if run.timed_out else f"failed (exit {run.exit_code})")
            )
        if not run.passed:
            if not as_json:
                click.echo(
                    "\n".join("  | " + line for line in run.output_tail.strip().splitlines()[-15:])
                )
            break
    passed = all(r.passed for r in runs) and len(runs) == len(goal.verify)
    say = make_say(_lang(config.lang))
    from goalkeeper.engine.apply import iso

    line = say(
        "goal.log.manual_verify", time=iso(time.time()), result="passed" if passed else "failed"
    )
    _apply(app, [WriteGoal(GoalUpdate({}, (line,)))], say)
    if as_json:
        echo_json({"passed": passed, "runs": [to_builtins(r) for r in runs]})
    return int(ExitCode.OK if passed else ExitCode.NOT_PASSED)


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


def _goal_doc(app: App, verb: str, missing: str) -> Any:
    """GOAL.md with its goal, or the error (exit 1) when there is none or it cannot be read."""
    from goalkeeper.store.goalfile import load_goal

    doc = load_goal(app.project)
    if doc is not None and doc.goal is None:
        raise fail(f"{doc.problem}; fix it, then {verb}", 1)
    if doc is None or doc.goal is None:
        raise fail(missing, 1)
    return doc


def _apply(
    app: App, actions: list[Action], say: Any, test_command: str | None = None
) -> tuple[Action, ...]:
    from goalkeeper.engine.apply import apply_goal_actions

    store = Store(app.project)
    try:
        return apply_goal_actions(actions, app.project, say, time.time(), store, test_command)
    finally:
        store.close()


def _promise(app: App, goal_id: str | None) -> Any:
    from goalkeeper.store.trust import current_promise

    store = Store(app.project)
    try:
        with store.transaction() as conn:
            return current_promise(conn, goal_id)
    finally:
        store.close()


def _judged(app: App, goal: Any) -> Any:
    """Why GOAL.md's goal is held (``core.promise.Held``), or None when it is the approved one."""
    from goalkeeper.core.goals.promise import judge_goal

    return judge_goal(goal, _promise(app, goal.goal_id))


def _trusted(app: App, goal: Any) -> Any:
    """The goal with the limits and counters goalkeeper recorded (GOAL.md may be looser)."""
    from goalkeeper.core.goals.promise import trusted_goal

    promise = _promise(app, goal.goal_id)
    return trusted_goal(goal, promise) if promise is not None else goal


def _held_text(held: Any, path: str) -> str:
    what = {
        "unapproved": f"{path} holds a goal nobody approved:",
        "changed": f"{path} differs from the goal you approved:",
        "replaced": f"{path} holds another goal than the one you approved:",
        "missing": f"{path} is gone; the goal you approved:",
    }[held.kind]
    return "\n".join([what, *(f"  {line}" for line in held.diff)])


def _goal_json(doc: Any) -> dict[str, Any] | None:
    if doc is None:
        return None
    goal = doc.goal
    data: dict[str, Any] = {"path": doc.path, "problem": doc.problem}
    if goal is not None:
        data.update(
            objective=goal.objective,
            status=goal.status,
            verify=list(goal.verify),
            attempts=goal.attempts,
            rounds=goal.rounds,
            timeout_s=goal.timeout_s,
            criteria=[{"text": c.text, "state": c.state} for c in goal.criteria],
            last_failure=to_builtins(goal.last_failure),
            blocked_reason=goal.blocked_reason,
            progress_log=list(goal.progress_log),
        )
    return data


def _lang(setting: str) -> Any:
    return setting if setting in ("en", "zh") else "en"


COMMANDS = (goal_group,)
