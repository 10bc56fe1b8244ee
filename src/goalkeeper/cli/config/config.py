"""``goalkeeper config``: the resolved configuration and where it came from."""

from __future__ import annotations

import click

from goalkeeper.cli.common import App, ExitCode, echo_json
from goalkeeper.config import Config, load_config, relevant_env


@click.command("config", short_help="Show the resolved configuration and its warnings.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def config_command(app: App, as_json: bool) -> int:
    """Show every setting as resolved from defaults, your ~/.config/goalkeeper/config.toml,
    [tool.goalkeeper] in pyproject.toml, .goalkeeper.toml, pi-todone's PI_TODONE_* variables
    and GOALKEEPER_* variables (the same values the hooks use), where each came from, and any
    warnings. "held" lists project settings that wait for your `goalkeeper allow`.

    Exit status: 0, or 1 when a setting was invalid (it fell back, see the warnings).
    """
    config = load_config(app.project, relevant_env())
    settings = config.to_dict()
    origin = {**dict.fromkeys(settings, "default"), **dict(config.sources)}
    if as_json:
        data = {"settings": settings, "sources": origin, "warnings": list(config.warnings)}
        echo_json({**data, "held": list(config.held)})
    else:
        docs = _docs()
        for key, value in settings.items():
            came = "" if origin[key] == "default" else f"  [from {origin[key]}]"
            click.echo(f"{key:<22} {value!r:<10} {docs.get(key, '')}{came}")
        for warning in config.warnings:
            click.echo(f"warning: {warning}", err=True)
    return int(ExitCode.NOT_PASSED if config.warnings else ExitCode.OK)


def _docs() -> dict[str, str]:
    """The first line of each field's docstring in config.py, for the table."""
    import ast
    import inspect
    import itertools

    tree = ast.parse(inspect.getsource(Config))
    cls = tree.body[0]
    body = cls.body if isinstance(cls, ast.ClassDef) else []
    docs: dict[str, str] = {}
    for node, following in itertools.pairwise(body):
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        if isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant):
            docs[node.target.id] = str(following.value.value).strip().splitlines()[0]
    return docs


COMMANDS = (config_command,)
