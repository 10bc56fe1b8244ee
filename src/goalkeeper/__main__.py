"""Entry point of the ``goalkeeper`` command and of ``python -m goalkeeper``.

``hook`` is dispatched before anything else is imported: hooks run as a fresh process on every
agent event, so they must not pay for click, rich or the engine unless they need them.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["hook"] and not {"-h", "--help"} & set(args):
        from goalkeeper.hosts.hook_client import exit_process, run_client

        if argv is None:  # the process is this hook: it ends as the launcher's client does
            exit_process(run_client(args[1:], whole_process=True))
        return run_client(args[1:])
    from goalkeeper.cli.app import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
