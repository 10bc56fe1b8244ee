"""Render ``docs/cli.md`` from the commands' own ``--help``, so the two cannot drift.

Regenerate with ``python -m goalkeeper.cli.docs > docs/cli.md``; a test fails when it is stale.
"""

from __future__ import annotations

import click
from click.testing import CliRunner

from goalkeeper.cli.app import _register_commands, cli

HEADER = """# goalkeeper command line

Generated from `--help` by `python -m goalkeeper.cli.docs > docs/cli.md`; do not edit by hand.
"""


def render_cli_docs() -> str:
    _register_commands()
    paths: list[list[str]] = [[]]
    for name in sorted(cli.commands):
        command = cli.commands[name]
        if command.hidden:
            continue
        paths.append([name])
        if isinstance(command, click.Group):
            paths.extend([name, sub] for sub in sorted(command.commands))
    return "\n".join([HEADER, *(_section(path) for path in paths)])


def _section(path: list[str]) -> str:
    result = CliRunner().invoke(cli, [*path, "--help"], prog_name="goalkeeper", terminal_width=100)
    title = " ".join(["goalkeeper", *path])
    return f"## `{title}`\n\n```text\n{result.output}```\n"


if __name__ == "__main__":
    click.echo(render_cli_docs(), nl=False)
