"""The driver to the guards' controller: carry out what the guards asked for that touches the
world (``apply_actions``), after the event's transaction. Kept tests and an accepted plan go into
the state database. For the goal: create GOAL.md (inferring verify commands from the project when
the goal named none, and fingerprinting the test files for the tamper check) and record the
promise the user approved with it, apply changes to it (mirroring the repair counters into the
state database, where the agent cannot undo them), approve a changed goal. Running its
verification is ``commands``'s.

Runs outside the state transaction: a verification can take minutes and must not hold the
database lock. Failures here never crash a hook: they become a notice for the user.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goalkeeper.core.goals.goal import (
    DEFAULT_ROUNDS,
    DEFAULT_TIMEOUT_S,
    Criterion,
    Goal,
    GoalUpdate,
)
from goalkeeper.core.messages import Lang, Say
from goalkeeper.core.values import (
    AcceptPlan,
    Action,
    AddCriteria,
    Advise,
    ApproveGoal,
    KeepTests,
    Notify,
    SetGoal,
    WriteGoal,
)

if TYPE_CHECKING:
    from goalkeeper.config import Config
    from goalkeeper.engine.ports import Clock
    from goalkeeper.store.conditions import ConditionCheck
    from goalkeeper.store.db import Store
    from goalkeeper.store.sessions import SessionRow


def apply_actions(
    actions: Sequence[Action],
    project: Path,
    store: Store,
    config: Config,
    clock: Clock,
    session: SessionRow,
) -> tuple[Action, ...] | None:
    """Carry out the actions of one event that change the world, after its transaction: keep
    the tests a ``KeepTests`` names, record a plan the user accepted, and the goal's actions
    (``apply_goal_actions``). What the agent and the user should hear; None when no goal
    action asked for anything to be said."""
    for action in actions:
        if isinstance(action, KeepTests):
            from goalkeeper.store.test_baseline import keep_tests

            with store.transaction() as conn:
                keep_tests(conn, action.key, project, clock.now())
        if isinstance(action, AcceptPlan):  # the user's answer in a host dialog
            from goalkeeper.store.documents import load_plan
            from goalkeeper.store.trust import accept_plan

            doc = load_plan(project, config.plan_dir)
            with store.transaction() as conn:
                accept_plan(conn, action.digest, doc.path if doc else "", clock.now())
    if not any(isinstance(a, SetGoal | WriteGoal | ApproveGoal | AddCriteria) for a in actions):
        return None
    from goalkeeper.core.messages import make_say

    lang: Lang = "zh" if session.lang == "zh" else "en"
    return apply_goal_actions(
        actions,
        project,
        make_say(lang),
        clock.now(),
        store,
        config.test_command,  # the user's (approved) one: as for todo evidence
    )


def apply_goal_actions(
    actions: Sequence[Action],
    project: Path,
    say: Say,
    now: float,
    store: Store,
    test_command: str | None = None,
) -> tuple[Action, ...]:
    """Execute ``SetGoal``, ``WriteGoal``, ``ApproveGoal`` and ``AddCriteria``; return what the
    agent and the user should hear. ``test_command`` is the user's approved one: a goal that
    asks for passing tests runs it, as the todo evidence does (``store.project.project_tests``)."""
    from goalkeeper.store.goalfile import GoalFileError

    said: list[Action] = []
    for action in actions:
        try:
            if isinstance(action, SetGoal):
                said.extend(_set_goal(action, project, say, now, store, test_command))
            elif isinstance(action, WriteGoal):
                apply_write(project, action.update, now, store)
            elif isinstance(action, ApproveGoal):
                said.extend(approve_goal(project, store, action.digest, action.source, now, say))
            elif isinstance(action, AddCriteria):
                add_criteria(project, store, action)
        except (GoalFileError, OSError) as exc:
            said.append(Notify(f"goalkeeper: {exc}", "error"))
    return tuple(said)


def apply_write(project: Path, update: GoalUpdate, now: float, store: Store) -> None:
    """``WriteGoal``: GOAL.md and its goal's record, or only the record of ``update.goal_id``
    when GOAL.md now holds another goal (the user's goal proven while the agent's replacement
    waits for the user: the replacement is neither written nor archived)."""
    if update.goal_id is not None:
        from goalkeeper.store.goalfile import load_goal

        doc = load_goal(project)
        if doc is None or doc.goal is None or doc.goal.goal_id != update.goal_id:
            _record(store, update.goal_id, update, update.fields.get("status"))
            return
    write_goal(project, update, now, store)


def write_goal(project: Path, update: GoalUpdate, now: float, store: Store) -> Goal:
    """Apply ``update`` to GOAL.md and mirror the repair counters it sets (attempts, status,
    limits) into the goal's approved record; a finished goal's promise is closed."""
    from goalkeeper.store.goalfile import update_goal

    goal = update_goal(project, update, now=iso(now))
    if goal.goal_id:
        _record(store, goal.goal_id, update, goal.status)
    return goal


def _record(store: Store, goal_id: str, update: GoalUpdate, status: object) -> None:
    from goalkeeper.store.trust import close_promise, record_progress

    with store.transaction() as conn:
        record_progress(conn, goal_id, update.fields)
        if update.archive:
            close_promise(conn, goal_id, "complete" if status == "complete" else "cleared")


def approve_goal(
    project: Path, store: Store, digest: str | None, source: str, now: float, say: Say
) -> list[Action]:
    """Record the promise GOAL.md makes now as the user's (``digest``: only if it is still the
    promise the user was shown; None: whatever it holds, for ``goalkeeper goal approve`` after
    the user saw it). The repair counters recorded so far carry over."""
    from goalkeeper.core.goals.promise import goal_digest, promise_of
    from goalkeeper.store.goalfile import load_goal, update_goal
    from goalkeeper.store.test_baseline import load_baseline, restore_baseline, take_baseline
    from goalkeeper.store.trust import close_others, get_promise, save_promise

    doc = load_goal(project)
    goal = doc.goal if doc is not None else None
    if goal is None or (digest is not None and goal_digest(goal) != digest):
        return [Notify(say("trust.goal.approve_stale"), "warning")]
    goal_id = goal.goal_id
    if not goal_id:
        goal_id = new_goal_id(now)
        goal = update_goal(project, GoalUpdate({"id": goal_id}), now=iso(now))
    with store.transaction() as conn:
        old = get_promise(conn, goal_id)
        promise = promise_of(goal, goal_id=goal_id, source=source, now=now)
        if old is not None:
            promise = _carry(promise, old)
        save_promise(conn, promise)
        close_others(conn, goal_id, "replaced")
        kept = restored = None
        if load_baseline(conn, goal_id) is None:  # the state was lost (or predates baselines)
            restored = restore_baseline(conn, goal_id, project, now)
            if restored is None:
                kept = take_baseline(conn, goal_id, project, now, backup=True, commands=goal.verify)
    said: list[Action] = [Notify(say("trust.goal.approved"))]
    if restored is not None:
        said.append(Notify(say("trust.goal.tests_restored", n=restored)))
    if kept is not None:
        said.append(Notify(say("trust.goal.tests_kept_now", n=kept)))  # approved all the same
    return said


def add_criteria(project: Path, store: Store, action: AddCriteria) -> bool:
    """Record the criteria the agent added to the approved goal as part of it, so the proof
    must meet them too and removing them later is a change the user is shown. The boundary's
    own check: only if GOAL.md still makes the promise the guard saw and still only adds to
    the approved one (``added_criteria``); the approval, limits and counters stay as they were."""
    from msgspec.structs import replace

    from goalkeeper.core.goals.promise import added_criteria, goal_digest
    from goalkeeper.store.goalfile import load_goal
    from goalkeeper.store.trust import get_promise, save_promise

    doc = load_goal(project)
    goal = doc.goal if doc is not None else None
    if goal is None or goal.goal_id != action.goal_id or goal_digest(goal) != action.digest:
        return False
    with store.transaction() as conn:
        promise = get_promise(conn, action.goal_id)
        if promise is None or added_criteria(goal, promise) != action.criteria:
            return False
        save_promise(conn, replace(promise, criteria=tuple(c.text for c in goal.criteria)))
    return True


def _carry(promise: Any, old: Any) -> Any:
    """An approved change keeps the counters goalkeeper recorded: the rounds used, a pause."""
    from msgspec.structs import replace

    blocked = old.status == "blocked" or promise.status == "blocked"
    return replace(
        promise,
        attempts=max(promise.attempts, old.attempts),
        status="blocked" if blocked else "active",
        blocked_reason=(promise.blocked_reason or old.blocked_reason) if blocked else None,
    )


def new_goal_id(now: float) -> str:
    return "g-" + datetime.fromtimestamp(now, tz=UTC).strftime("%Y%m%dT%H%M%S")


def _set_goal(
    action: SetGoal, project: Path, say: Say, now: float, store: Store, test_command: str | None
) -> list[Action]:
    from goalkeeper.core.goals.goal import restates_the_check
    from goalkeeper.core.goals.promise import promise_of
    from goalkeeper.core.goals.size import route_for
    from goalkeeper.store.conditions import resolve_conditions
    from goalkeeper.store.goalfile import create_goal, load_goal
    from goalkeeper.store.test_baseline import take_baseline
    from goalkeeper.store.trust import close_others, save_promise

    existing = load_goal(project)
    live = existing is not None and existing.goal is not None and not action.replace
    if live and existing and existing.goal and existing.goal.status != "complete":
        key = "goal.exists.blocked" if existing.goal.status == "blocked" else "goal.exists"
        return [Notify(say(key, objective=existing.goal.objective), "warning")]
    # each named condition to its command, or kept as a criterion for the user
    checks = resolve_conditions(project, action.conditions, test_command)
    inferred = tuple(c for check in checks for c in check.commands)
    verify = tuple(dict.fromkeys((*action.verify, *inferred)))  # every condition the goal names
    criteria = [Criterion(say("goal.criterion.command", command=c), "open") for c in verify]
    unchecked = [check.condition for check in checks if not check.commands]
    criteria += [
        Criterion(say("goal.criterion.unchecked", words=c.words), "open") for c in unchecked
    ]
    stages = [stage for stage in action.stages if not (verify and restates_the_check(stage))]
    criteria += [
        Criterion(say("goal.criterion.stage", n=i, stage=stage), "open")
        for i, stage in enumerate(stages, start=1)
    ]
    if action.trusted:
        source = say(f"goal.source.{action.source}")
    else:  # ``goalkeeper goal set`` from an agent's shell: the source is the agent's name
        source = say("goal.source.agent", agent=action.source)
    stamp = iso(now)
    goal = Goal(
        objective=action.objective,
        verify=tuple(verify),
        criteria=tuple(criteria),
        progress_log=(say("goal.log.set", time=stamp, source=source, objective=action.objective),),
        goal_id=new_goal_id(now),
        created=stamp,
        updated=stamp,
        route=route_for(action.objective)
        if action.stages
        else None,  # the workflow guard starts it
        rounds=action.rounds or DEFAULT_ROUNDS,
        timeout_s=action.timeout_s or DEFAULT_TIMEOUT_S,
    )
    path = create_goal(project, goal, replace=action.replace)
    with store.transaction() as conn:  # the tests as they are now are the ones to keep
        take_baseline(conn, goal.goal_id or "", project, now, backup=True, commands=verify)
    if action.trusted:  # the user set it: its promise is theirs, and replaces any other
        with store.transaction() as conn:
            save_promise(
                conn, promise_of(goal, goal_id=goal.goal_id or "", source=action.source, now=now)
            )
            close_others(conn, goal.goal_id or "", "replaced")
    shown = path.relative_to(project).as_posix() if path.is_relative_to(project) else str(path)
    verify_text = ", ".join(f"`{c}`" for c in verify) or say("goal.anchors.none")
    said: list[Action] = [
        Advise(say("goal.recorded", path=shown, objective=action.objective, verify=verify_text)),
        Notify(
            say("goal.recorded_user", source=source, objective=action.objective, verify=verify_text)
        ),
    ]
    if checks:
        said.append(_conditions_notice(checks, say))
    if not verify:
        said.append(Notify(say("goal.no_verify_user"), "warning"))
    if not action.trusted:
        said.append(Notify(say("trust.goal.proposed", path=shown, agent=action.source), "warning"))
    return said


def _conditions_notice(checks: Sequence[ConditionCheck], say: Say) -> Notify:
    """What each condition the goal names became (issue 23: nothing is dropped silently); a
    warning when one has no command, since the goal cannot be proven until the user settles it."""
    lines = [
        say(
            "goal.condition.checked",
            words=c.condition.words,
            commands=", ".join(f"`{x}`" for x in c.commands),
        )
        if c.commands
        else say("goal.condition.unchecked", words=c.condition.words)
        for c in checks
    ]
    text = say("goal.conditions_user", items="\n".join(lines))
    return Notify(text, "info" if all(c.commands for c in checks) else "warning")


def iso(now: float) -> str:
    return datetime.fromtimestamp(now, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
