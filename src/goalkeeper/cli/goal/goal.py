"""``goalkeeper goal``: set, inspect and verify the project's goal (GOAL.md); resume, clear and
approve are in ``goal_decide``, accept-tests in ``goal_tests``."""

from __future__ import annotations

import time
from pathlib import Path

import click
from msgspec import to_builtins

from goalkeeper.cli.common import App, ExitCode, echo_json, fail
from goalkeeper.cli.goal.goal_common import (
    _apply,
    _goal_doc,
    _goal_json,
    _held_text,
    _json,
    _judged,
    _lang,
    _trusted,
)
from goalkeeper.config import load_config, relevant_env
from goalkeeper.core.goals.goal import GoalUpdate
from goalkeeper.core.messages import make_say
from goalkeeper.core.values import Notify, SetGoal, WriteGoal


@click.group("goal", short_help="Set and follow a goal goalkeeper verifies itself.")
def goal_group() -> None:
    """The project's goal, kept in .agents/goal/GOAL.md and re-fed to the agent every turn.

    At every stop goalkeeper runs the goal's verification itself: a failure sends the agent
    back with the evidence ([n/N]); the same failure twice, or the round limit, pauses and
    asks you; a pass with every acceptance criterion ticked archives the goal.
    """


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


COMMANDS = (goal_group,)
