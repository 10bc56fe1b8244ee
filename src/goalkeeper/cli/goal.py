"""``goalkeeper goal``: set, inspect, verify, resume and clear the project's goal (GOAL.md)."""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

import click

from goalkeeper.cli.app import App, ExitCode, echo_json, fail
from goalkeeper.config import load_config, relevant_env
from goalkeeper.core.goal import GoalUpdate
from goalkeeper.core.messages import make_say
from goalkeeper.core.values import Notify, SetGoal


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
    as_json: bool,
) -> int:
    """Set the goal TEXT. The verify command comes from --verify, else from TEXT ("`pytest -q`
    passes"), else from the project for what TEXT asks ("all tests pass" → its test command).
    With --mode the agent works on it in that mode (see `goalkeeper mode`).

    Exit status: 0 when the goal was set, 1 when another goal is active (use --replace) or
    no verify command could be found (the goal is set; add one).
    """
    from goalkeeper.core.verify import parse_verify_commands, prose_verify_kinds
    from goalkeeper.engine.goal_io import apply_goal_actions
    from goalkeeper.store.goalfile import load_goal

    if not text.strip():
        raise fail("TEXT is empty; say what must be true when the goal is done")
    commands = verify or parse_verify_commands(text)
    kinds = () if commands else (prose_verify_kinds(text) or ("tests",))
    action = SetGoal(
        text.strip(), tuple(commands), tuple(kinds), (), "cli", replace, rounds, timeout
    )
    config = load_config(app.project, relevant_env())
    said = apply_goal_actions([action], app.project, make_say(_lang(config.lang)), time.time())
    doc = load_goal(app.project)
    if mode and doc is not None and doc.goal is not None and doc.goal.objective == text.strip():
        from goalkeeper.engine.goal_io import iso
        from goalkeeper.store.goalfile import update_goal

        update_goal(app.project, GoalUpdate({"mode": mode}), now=iso(time.time()))
        doc = load_goal(app.project)
    notes = [a.text for a in said if isinstance(a, Notify)]
    ok = doc is not None and doc.goal is not None and doc.goal.objective == text.strip()
    ok = ok and not any(n.level != "info" for n in said if isinstance(n, Notify))
    if as_json:
        echo_json({"ok": ok, "goal": _goal_json(doc), "messages": notes})
    else:
        for note in notes:
            click.echo(note)
    return int(ExitCode.OK if ok else ExitCode.NOT_PASSED)


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
    if as_json:
        echo_json(_goal_json(doc))
        return int(ExitCode.OK if doc is not None and doc.goal else ExitCode.NOT_PASSED)
    if doc is None:
        click.echo('No goal. Set one: goalkeeper goal set "<what must be true>"')
        return int(ExitCode.NOT_PASSED)
    if doc.goal is None:
        problem = doc.problem or "cannot be read"
        click.echo(problem if problem.startswith(doc.path) else f"{doc.path}: {problem}")
        return int(ExitCode.NOT_PASSED)
    goal = doc.goal
    click.echo(f"Goal ({doc.path}): {goal.objective}")
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
    from goalkeeper.core.values import WriteGoal
    from goalkeeper.engine.goal_io import apply_goal_actions, run_verification
    from goalkeeper.engine.ports import SubprocessRunner
    from goalkeeper.store.goalfile import load_goal

    doc = load_goal(app.project)
    if doc is not None and doc.goal is None:
        raise fail(f"{doc.problem}; fix it, then verify", 1)
    if doc is None or doc.goal is None or not doc.goal.verify:
        raise fail("no goal with a verify command here; set one: goalkeeper goal set --verify …", 1)
    goal = doc.goal
    runs = []
    for command in goal.verify:
        if not as_json:
            click.echo(f"running {command} … ", nl=False)
        run = run_verification([command], app.project, SubprocessRunner(), goal.timeout_s)[0]
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
    config = load_config(app.project, relevant_env())
    say = make_say(_lang(config.lang))
    from goalkeeper.engine.goal_io import iso

    line = say(
        "goal.log.manual_verify", time=iso(time.time()), result="passed" if passed else "failed"
    )
    apply_goal_actions([WriteGoal(GoalUpdate({}, (line,)))], app.project, say, time.time())
    if as_json:
        echo_json({"passed": passed, "runs": [asdict(r) for r in runs]})
    return int(ExitCode.OK if passed else ExitCode.NOT_PASSED)


@goal_group.command("resume")
@_json
@click.pass_obj
def resume_command(app: App, as_json: bool) -> int:
    """Resume a paused goal from its last failure, counting on: the rounds used stay, and a
    goal paused at its round limit gets as many rounds again.

    Exit status: 0 when the goal is active (again, or already), 1 when there is no paused
    goal to resume (none, a complete one, or a GOAL.md that cannot be read).
    """
    from goalkeeper.core.goal import resume_update, resumed_rounds
    from goalkeeper.engine.goal_io import iso
    from goalkeeper.store.goalfile import load_goal, update_goal

    doc = load_goal(app.project)
    if doc is not None and doc.goal is None:
        raise fail(f"{doc.problem}; fix it, then resume", 1)
    if doc is None or doc.goal is None:
        raise fail("no goal to resume here", 1)
    goal = doc.goal
    if goal.status == "active":
        return _report_resumed(goal, "The goal is active already", as_json)
    if goal.status == "complete":
        raise fail("the goal is complete; set a new one: goalkeeper goal set …", 1)
    config = load_config(app.project, relevant_env())
    say = make_say(_lang(config.lang))
    rounds = resumed_rounds(goal)
    line = say("goal.log.resumed", time=iso(time.time()), attempts=goal.attempts, rounds=rounds)
    updated = update_goal(app.project, resume_update(goal, line), now=iso(time.time()))
    return _report_resumed(updated, "Goal active again", as_json)


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

    Exit status: 0, also when there was no goal.
    """
    from goalkeeper.engine.goal_io import iso
    from goalkeeper.store.goalfile import archive_goal, load_goal, update_goal

    doc = load_goal(app.project)
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
            last_failure=asdict(goal.last_failure),
            blocked_reason=goal.blocked_reason,
            progress_log=list(goal.progress_log),
        )
    return data


def _lang(setting: str) -> Any:
    return setting if setting in ("en", "zh") else "en"


COMMANDS = (goal_group,)
