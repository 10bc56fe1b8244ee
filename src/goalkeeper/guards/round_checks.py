"""A round's checks as every guard judges them: which commands count, which were announced
before they ran, and what the round's recorded tool calls prove.

The cadence guard's check gate (seed 000 §5) and normal mode's verify phase (seed 004 §3) ask
the same question, "did a verification run, and finish after the last change?", so they must
get the same answer: the commands that count are the user's (``evidence_commands``,
``test_command``, the approved goal's verify, the key results' commands the user last saw),
never the agent's; a recorded command the host never announced did not run. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from goalkeeper.core.cadence.gates import (
    RoundEvidence,
    change_filter,
    command_digest,
    declared_commands,
    evaluate_round,
)
from goalkeeper.core.values import Settled
from goalkeeper.guards.spec import Context

MAX_ANNOUNCED = 64  # shell commands remembered per round: more than a round runs, a few KB
RECORD_FOLDERS = (".agents", ".goalkeeper")
"""goalkeeper's and the agent's bookkeeping: a write there is not a change to check again."""


def announce(announced: str, command: object) -> str | None:
    """The announced digests (space-separated) with ``command`` added, or None when it is not
    a shell command line."""
    if not isinstance(command, str) or not command.strip():
        return None
    return " ".join([*announced.split(), command_digest(command)][-MAX_ANNOUNCED:])


def judge_round(
    ev: Settled,
    ctx: Context,
    *,
    tools: int | None,
    announced: str | None,
    named: Sequence[str] = (),
) -> RoundEvidence:
    """What the round that ``ev`` ends proves. ``announced``: the digests of the commands
    announced since the last stop, None when the host does not announce them; ``named``: the
    commands the plan's key results named (the user's, as they last saw them)."""
    promise = ctx.promise
    trusted = [*ctx.config.evidence_commands]
    trusted += [ctx.config.test_command] if ctx.config.test_command else []
    trusted += list(promise.verify) if promise is not None and promise.open else []
    return evaluate_round(
        ev.activity.runs,
        tools=tools,
        unreadable=ev.activity.unreadable,
        declared=declared_commands(trusted, named),
        seen=announced.split() if announced is not None else None,
        is_change=is_change(ctx),
    )


def is_change(ctx: Context) -> Callable[[str], bool]:
    """Whether a written path is a project change (not the plan or the bookkeeping folders)."""
    return change_filter(ctx.project, (ctx.config.plan_dir, *RECORD_FOLDERS))
