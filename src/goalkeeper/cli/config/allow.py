"""``goalkeeper allow``: approve the project's goalkeeper settings (the ``direnv allow`` model)."""

from __future__ import annotations

import time

import click

from goalkeeper.cli.common import App, ExitCode, echo_json
from goalkeeper.cli.trusted import refuse_in_agent_shell


@click.command("allow", short_help="Approve this project's goalkeeper settings (yours only).")
@click.option(
    "--revoke",
    is_flag=True,
    help="Withdraw the approval: project files may then only make goalkeeper stricter again.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def allow_command(app: App, revoke: bool, as_json: bool) -> int:
    """Approve [tool.goalkeeper] in pyproject.toml and .goalkeeper.toml as they are now.

    These files belong to the project, so the agent can write them. Until you approve them,
    a setting there that would let goalkeeper run another command (evidence-commands,
    test-command), read another catalog, turn confinement off or raise a limit
    (max-continuations, stuck, timeouts, ...) does not apply; settings that only make
    goalkeeper stricter always do. Approval records a digest of each file's goalkeeper table:
    if the table changes, those settings fall back until you approve again. Settings in your
    own ~/.config/goalkeeper/config.toml need no approval.

    Run it in your own terminal: it refuses to run inside an agent's shell.

    Exit status: 0 when approved (or revoked), 2 inside an agent's shell.
    """
    refuse_in_agent_shell("allow --revoke" if revoke else "allow")
    from goalkeeper.config import project_tables
    from goalkeeper.pinning import allow_project, needs_approval

    if revoke:
        from goalkeeper.store.db import Store
        from goalkeeper.store.trust import revoke_config

        store = Store(app.project)
        try:
            with store.transaction() as conn:
                removed = revoke_config(conn)
        finally:
            store.close()
        if as_json:
            echo_json({"revoked": removed})
        else:
            click.echo(f"Approval withdrawn ({removed} file(s)).")
        return int(ExitCode.OK)
    tables = project_tables(app.project)
    digests = allow_project(app.project, time.time())
    if as_json:
        echo_json({"approved": [{"file": n, "digest": d} for n, d in digests.items()]})
        return int(ExitCode.OK)
    if not tables:
        click.echo(
            "No goalkeeper settings in pyproject.toml or .goalkeeper.toml: nothing to approve."
        )
        return int(ExitCode.OK)
    for path, table in tables:
        click.echo(f"Approved {path.name} ({digests[path.name][:12]}):")
        for key, value in table.items():
            mark = "*" if needs_approval(str(key).replace("-", "_").lower()) else " "
            click.echo(f"  {mark} {key} = {value!r}")
    click.echo("(* needed your approval.) Change the table and it needs approving again.")
    return int(ExitCode.OK)


COMMANDS = (allow_command,)
