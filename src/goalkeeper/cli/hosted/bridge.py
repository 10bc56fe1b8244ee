"""``goalkeeper bridge pi``: the process goalkeeper's Pi extension talks to."""

from __future__ import annotations

import click

from goalkeeper.cli.common import App


@click.command("bridge", short_help="Serve goalkeeper's Pi extension (JSON lines on stdio).")
@click.argument("host", type=click.Choice(["pi"]))
@click.pass_obj
def bridge_command(app: App, host: str) -> int:
    """Serve the goalkeeper extension running inside Pi: JSON lines on stdin and stdout,
    one process per Pi session (the extension starts it; `goalkeeper install pi` installs
    the extension). The project is the folder given with -C (the extension passes Pi's
    working directory). Not meant to be run by hand; the protocol is described in
    goalkeeper/hosts/pi/protocol.py.

    Exit status: 0 when the extension closes stdin or Pi shuts the session down.
    """
    from goalkeeper.hosts.pi.bridge import main

    return main(app.project)


COMMANDS = (bridge_command,)
