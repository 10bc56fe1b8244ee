"""``goalkeeper gates``: do the plan's OKR and map gates pass?"""

from __future__ import annotations

import click
from msgspec.structs import replace

from goalkeeper.cli.common import App, ExitCode, echo_json
from goalkeeper.cli.goal.render import gates_json
from goalkeeper.config import load_config, relevant_env
from goalkeeper.core.cadence.gates import evaluate_plan_gates
from goalkeeper.core.cadence.plan import has_commitments
from goalkeeper.store.documents import load_plan


@click.command("gates")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def gates_command(app: App, as_json: bool) -> int:
    """Check the OKR gate (no open key result) and the map gate (no open story-map leaf).

    A cancelled item needs its reason: `- [-] … (cancelled: <reason>)`. The check gate
    depends on the session's PDCA history; `goalkeeper status` shows it.

    Exit status: 0 when both gates pass, 1 when one is open or there is no usable plan (a plan
    with no key result and no story-map leaf commits to nothing, so it is not one).
    """
    config = load_config(app.project, relevant_env())
    doc = load_plan(app.project, config.plan_dir)
    plan = doc.plan if doc is not None else None
    empty = plan is not None and not has_commitments(plan)
    report = evaluate_plan_gates(plan) if plan is not None and not empty else None
    passed = report is not None and report.passed
    if empty and doc is not None:
        doc = replace(doc, problem="it has no key result and no story-map leaf")
    if as_json:
        echo_json(
            {
                "path": doc.path if doc else None,
                "passed": passed,
                "gates": gates_json(report),
                "problem": None if report else (doc.problem if doc else "no plan file"),
            }
        )
    elif report is None:
        problem = doc.problem if doc else f"no plan file in {config.plan_dir}/"
        click.echo(f"Gates not checked: {problem}.")
    else:
        click.echo(f"Plan: {doc.path if doc else ''}")
        for result in report.results:
            if result.passed:
                click.echo(f"  {result.gate}: passes")
                continue
            click.echo(f"  {result.gate}: {len(result.open)} open")
            for item in result.open:
                why = {
                    "no_reason": " (cancelled without a reason)",
                    "short": " (ticked, but short of its target)",
                }.get(item.problem, "")
                click.echo(f"    - line {item.line}: {item.text}{why}")
    return int(ExitCode.OK if passed else ExitCode.NOT_PASSED)


COMMANDS = (gates_command,)
