"""``goalkeeper plan``: the plan goalkeeper would use, as it reads it."""

from __future__ import annotations

import click

from goalkeeper.cli.common import App, ExitCode, echo_json
from goalkeeper.cli.goal.render import plan_json
from goalkeeper.config import load_config
from goalkeeper.store.documents import load_plan

STATE_MARK = {"open": "[ ]", "done": "[x]", "cancelled": "[-]"}


@click.group(
    "plan",
    invoke_without_command=True,
    short_help="Show the plan goalkeeper would use and what keeps it open.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (see docs/cli.md).")
@click.pass_context
def plan_command(ctx: click.Context, as_json: bool) -> int:
    """Show the plan goalkeeper would use: path, SWOT, objective, key results, story-map leaves
    and what keeps each gate open.

    The plan is the newest-modified plan/*.md other than plan/plan.md.

    Exit status: 0 when a plan was found and read, 1 when there is none or it is unusable.
    """
    if ctx.invoked_subcommand is not None:
        return int(ExitCode.OK)
    app: App = ctx.obj
    config = load_config(app.project, _env())
    doc = load_plan(app.project, config.plan_dir)
    data = plan_json(doc)
    if as_json:
        echo_json(data)
    else:
        _print(data, config.plan_dir)
    return int(ExitCode.OK if doc is not None and doc.plan is not None else ExitCode.NOT_PASSED)


@plan_command.command("accept")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def accept_command(app: App, as_json: bool) -> int:
    """Accept the plan's commitments as they are now, changed by the agent.

    An agent may cut one commitment with a concrete reason, but a close after it dropped most
    (or all) of the plan's open key results and story-map leaves since you last wrote, or
    rewrote the objective, waits for you. This accepts the plan as it is now; a later change
    needs accepting again. Run it in your own terminal: it refuses to run inside an agent's
    shell.

    Exit status: 0 when accepted, 1 when there is no usable plan, 2 inside an agent's shell.
    """
    import time

    from goalkeeper.cli.common import fail
    from goalkeeper.cli.trusted import refuse_in_agent_shell
    from goalkeeper.core.cadence.commitments import commitments_digest
    from goalkeeper.store.db import Store
    from goalkeeper.store.trust import accept_plan

    refuse_in_agent_shell("plan accept")
    config = load_config(app.project, _env())
    doc = load_plan(app.project, config.plan_dir)
    if doc is None or doc.plan is None:
        raise fail("no usable plan here to accept (see `goalkeeper plan`)", 1)
    digest = commitments_digest(doc.plan)
    store = Store(app.project)
    try:
        with store.transaction() as conn:
            accept_plan(conn, digest, doc.path, time.time())
    finally:
        store.close()
    if as_json:
        echo_json({"accepted": doc.path, "digest": digest})
    else:
        click.echo(f"Accepted {doc.path} as it is now; the agent may close on it.")
    return int(ExitCode.OK)


def _print(data: dict[str, object], plan_dir: str) -> None:
    if data["path"] is None:
        click.echo(f"No plan file in {plan_dir}/ (plan/<topic>.md; plan/plan.md is ignored).")
        return
    click.echo(f"Plan: {data['path']}")
    if data["problem"]:
        click.echo(f"  unusable: {data['problem']}")
        return
    if data["note"]:
        click.echo(f"  note: {data['note']}")
    swot = data["swot"]
    assert isinstance(swot, dict)
    for letter in "SWOT":
        if swot[letter]:
            click.echo(f"  {letter}: {swot[letter]}")
    click.echo(f"Objective: {data['objective'] or '(none)'}")
    krs = data["key_results"]
    assert isinstance(krs, list)
    click.echo(f"Key results ({len(krs)}):")
    for kr in krs:
        click.echo(f"  {STATE_MARK[kr['state']]} {kr['text']}")
    leaves = data["map"]["leaves"]  # type: ignore[index]
    click.echo(f"Story map leaves ({len(leaves)}):")
    for leaf in leaves:
        path = " › ".join([*leaf["path"], leaf["text"]])
        click.echo(f"  {STATE_MARK[leaf['state']]} {path}")
    gates = data["gates"]
    assert isinstance(gates, dict)
    for gate in ("okr", "map"):
        verdict = "passes" if gates[gate]["passed"] else f"open: {len(gates[gate]['open'])}"
        click.echo(f"Gate {gate}: {verdict}")


def _env() -> dict[str, str]:
    from goalkeeper.config import relevant_env

    return relevant_env()


COMMANDS = (plan_command,)
