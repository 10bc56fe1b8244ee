"""``goalkeeper catalog``: check the workflow catalog goalkeeper would use in this project."""

from __future__ import annotations

import click

from goalkeeper.cli.common import App, ExitCode, echo_json
from goalkeeper.config import load_config, relevant_env


@click.group("catalog", short_help="Check the workflow catalog (routes and procedures).")
def catalog_group() -> None:
    """The workflow catalog: the built-in routes and procedures, extended or overridden by a
    user catalog (the `catalog` setting: a JSON file with a procedures/ folder next to it).
    """


@catalog_group.command(
    "check", short_help="Validate the built-in and user catalogs; exit 1 on any problem."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def check_command(app: App, as_json: bool) -> int:
    """Validate the built-in catalog merged with the configured user catalog: unique ids and
    files, every file present and classified, targets and aliases resolving, one complete
    entry per route from which each of its procedures is reachable, no orphan reference, and
    every entry deliverable as a workflow would deliver it: no `requires` cycle (its path is
    shown) and no bundle over 64 KiB (its size is shown).

    A user catalog with problems is not used (the built-in catalog alone is); its problems are
    listed with the others.

    Exit status: 0 when there are no problems, 1 when there are any.
    """
    from goalkeeper.core.workflows.resolver import deliverability_problems
    from goalkeeper.store.catalog_files import NOT_USED, load_catalog

    config = load_config(app.project, relevant_env())
    loaded = load_catalog(app.project, config.catalog)
    catalog = loaded.catalog
    problems = loaded.problems
    if loaded.user_catalog is None:  # a merged catalog was resolved whole as it loaded
        problems = (*problems, *deliverability_problems(catalog, loaded.read))
    routes = catalog.routes()
    if as_json:
        echo_json(
            {
                "ok": not problems,
                "entries": len(catalog.entries),
                "routes": [r.route for r in routes],
                "user_catalog": str(loaded.user_catalog) if loaded.user_catalog else None,
                "problems": list(problems),
            }
        )
    elif problems:
        for problem in problems:
            click.echo(problem)
        count = sum(1 for p in problems if not p.endswith(NOT_USED))
        click.echo(f"{count} catalog problem{'' if count == 1 else 's'}", err=True)
    else:
        click.echo(f"catalog OK: {len(catalog.entries)} entries, {len(routes)} routes")
    return int(ExitCode.NOT_PASSED if problems else ExitCode.OK)


COMMANDS = (catalog_group,)
