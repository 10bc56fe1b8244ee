"""What the ``goal`` subcommands share: GOAL.md and the promise the user approved, read the same way
by each, the goal's actions applied through the engine's applier, and the JSON of a goal."""

from __future__ import annotations

import time
from typing import Any

import click
from msgspec import to_builtins

from goalkeeper.cli.common import App, fail
from goalkeeper.core.values import Action
from goalkeeper.store.db import Store

_json = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")


def _goal_doc(app: App, verb: str, missing: str) -> Any:
    """GOAL.md with its goal, or the error (exit 1) when there is none or it cannot be read."""
    from goalkeeper.store.goalfile import load_goal

    doc = load_goal(app.project)
    if doc is not None and doc.goal is None:
        raise fail(f"{doc.problem}; fix it, then {verb}", 1)
    if doc is None or doc.goal is None:
        raise fail(missing, 1)
    return doc


def _apply(
    app: App, actions: list[Action], say: Any, test_command: str | None = None
) -> tuple[Action, ...]:
    from goalkeeper.engine.apply import apply_goal_actions

    store = Store(app.project)
    try:
        return apply_goal_actions(actions, app.project, say, time.time(), store, test_command)
    finally:
        store.close()


def _promise(app: App, goal_id: str | None) -> Any:
    from goalkeeper.store.trust import current_promise

    store = Store(app.project)
    try:
        with store.transaction() as conn:
            return current_promise(conn, goal_id)
    finally:
        store.close()


def _judged(app: App, goal: Any) -> Any:
    """Why GOAL.md's goal is held (``core.promise.Held``), or None when it is the approved one."""
    from goalkeeper.core.goals.promise import judge_goal

    return judge_goal(goal, _promise(app, goal.goal_id))


def _trusted(app: App, goal: Any) -> Any:
    """The goal with the limits and counters goalkeeper recorded (GOAL.md may be looser)."""
    from goalkeeper.core.goals.promise import trusted_goal

    promise = _promise(app, goal.goal_id)
    return trusted_goal(goal, promise) if promise is not None else goal


def _held_text(held: Any, path: str) -> str:
    what = {
        "unapproved": f"{path} holds a goal nobody approved:",
        "changed": f"{path} differs from the goal you approved:",
        "replaced": f"{path} holds another goal than the one you approved:",
        "missing": f"{path} is gone; the goal you approved:",
    }[held.kind]
    return "\n".join([what, *(f"  {line}" for line in held.diff)])


def _goal_json(doc: Any) -> dict[str, Any] | None:
    if doc is None:
        return None
    goal = doc.goal
    data: dict[str, Any] = {"path": doc.path, "problem": doc.problem}
    if goal is not None:
        data.update(
            objective=goal.objective,
            status=goal.status,
            verify=list(goal.verify),
            attempts=goal.attempts,
            rounds=goal.rounds,
            timeout_s=goal.timeout_s,
            criteria=[{"text": c.text, "state": c.state} for c in goal.criteria],
            last_failure=to_builtins(goal.last_failure),
            blocked_reason=goal.blocked_reason,
            progress_log=list(goal.progress_log),
        )
    return data


def _lang(setting: str) -> Any:
    return setting if setting in ("en", "zh") else "en"
