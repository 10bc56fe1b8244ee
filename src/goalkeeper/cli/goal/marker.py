"""``goalkeeper marker``: the last [PDCA] marker of a reply."""

from __future__ import annotations

import sys
from typing import IO

import click

from goalkeeper.cli.common import ExitCode, echo_json
from goalkeeper.core.cadence.markers import parse_marker


@click.command("marker", short_help="Print the last [PDCA] marker of a reply.")
@click.option("--json", "as_json", is_flag=True, help='Print {"phase": …, "reason": …}.')
@click.argument("file", type=click.File("rb"), default="-", required=False)
def marker_command(as_json: bool, file: IO[bytes] | None) -> int:
    """Print the phase of the last [PDCA] marker in a reply read from FILE (default: stdin).

    Markers inside fenced code, inline code or block quotes do not count; legacy
    `[PLAN] working|complete|blocked` lines are understood.

    Exit status: 0 when a marker was found, 1 when there is none.
    """
    stream = file if file is not None else sys.stdin.buffer
    text = stream.read().decode("utf-8", "replace")
    marker = parse_marker(text)
    if as_json:
        echo_json(
            {
                "phase": marker.phase if marker else None,
                "reason": marker.reason if marker else None,
                "coordinate": marker.coordinate if marker else None,
                "legacy": marker.legacy if marker else False,
            }
        )
    elif marker is None:
        click.echo("no [PDCA] marker")
    else:
        extra = f": {marker.reason}" if marker.reason else ""
        click.echo(f"{marker.phase}{extra}")
    return int(ExitCode.OK if marker else ExitCode.NOT_PASSED)


COMMANDS = (marker_command,)
