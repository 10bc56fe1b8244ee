import click

COMMANDS: tuple[click.Command, ...] = ()
