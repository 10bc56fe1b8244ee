"""``goalkeeper server``: the warm engine process that answers hook events quickly."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import click

from goalkeeper.cli.common import App, ExitCode, echo_json


@click.group("server")
def server_group() -> None:
    """Inspect or stop the warm engine process of this project.

    Hooks start it on demand; it exits by itself after server_idle_s seconds without
    events, and when goalkeeper's own files change.
    """


@server_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def status(app: App, as_json: bool) -> int:
    """Is an engine process serving this project? Exit 0 if so, 1 if not."""
    from goalkeeper.hosts.hook_channel import socket_path
    from goalkeeper.hosts.transport.hook_server import server_pid

    pid = server_pid(app.project)
    data = {
        "running": pid is not None,
        "pid": pid,
        "socket": socket_path(sys.prefix, str(app.project)),
    }
    if as_json:
        echo_json(data)
    else:
        click.echo(f"running (pid {pid})" if pid else "not running")
    return int(ExitCode.OK if pid else ExitCode.NOT_PASSED)


@server_group.command("stop")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def stop(app: App, as_json: bool) -> int:
    """Stop this project's engine process (hooks keep working in-process). Exit 0."""
    from goalkeeper.hosts.transport.hook_server import server_pid

    pid = server_pid(app.project)
    if pid is None:
        if as_json:
            echo_json({"stopped": None, "running": False})
        else:
            click.echo("not running")
        return int(ExitCode.OK)
    os.kill(pid, signal.SIGTERM)
    for _ in range(50):
        if server_pid(app.project) is None:
            break
        time.sleep(0.05)
    if as_json:
        echo_json({"stopped": pid, "running": server_pid(app.project) is not None})
    else:
        click.echo(f"stopped (pid {pid})")
    return int(ExitCode.OK)


@click.command("serve", hidden=True)
@click.option("--project", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--idle", type=float, default=900.0)
def serve_command(project: Path, idle: float) -> int:
    """Run the engine process in the foreground (hooks start it by themselves)."""
    from goalkeeper.hosts.transport.hook_server import serve

    signal.signal(signal.SIGTERM, _exit_on_signal)
    return serve(project, idle)


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(0)  # unwinds through serve()'s cleanup of the socket and pid files


COMMANDS = (server_group, serve_command)
