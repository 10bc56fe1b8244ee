"""What the user approved for a goal, and how GOAL.md may differ from it (the trust boundary).

A goal's promise — its objective, its verify commands and its acceptance criteria — is fixed
when the *user* sets the goal (a prompt, ``goalkeeper goal set`` in their terminal) or approves a
change (``goalkeeper goal approve``, a host dialog). It lives in the state database with its
limits and the repair counters goalkeeper recorded. GOAL.md shows it for people, but GOAL.md is
a project file the agent can write: a GOAL.md whose promise differs from the approved one is
*held* — nothing in it runs until the user approves, while the goal in force (``goal_in_force``)
is still verified — and its limits and counters can only be made stricter than the recorded
ones. Ticking a criterion is progress, not a change of the promise; adding criteria makes it
stricter, so it is recorded with its reason rather than held (``added_criteria``). Pure; no I/O.
"""

from __future__ import annotations

import re
from typing import Literal

from msgspec import Struct
from msgspec.structs import replace

from goalkeeper.core.goals.goal import (
    DEFAULT_RETRIES,
    DEFAULT_ROUNDS,
    DEFAULT_TIMEOUT_S,
    Criterion,
    Goal,
)

OPEN_STATUSES = ("active", "blocked")
"""A promise still being pursued (not complete, not cleared)."""
ACTED_ON = ("active", "needs-upgrade")
"""GOAL.md statuses goalkeeper verifies at a stop."""


class Promise(Struct, frozen=True):
    """A goal as the user approved it, with what goalkeeper recorded of its repair loop."""

    goal_id: str
    objective: str
    verify: tuple[str, ...]
    criteria: tuple[str, ...]
    rounds: int = DEFAULT_ROUNDS
    timeout_s: float = DEFAULT_TIMEOUT_S
    retries: int = DEFAULT_RETRIES
    source: str = "prompt"
    """Who fixed it: ``prompt``, ``command`` (``/gk-goal``), ``cli``, ``approve``, ``dialog``."""
    approved_at: float = 0.0
    attempts: int = 0
    """Repair rounds goalkeeper counted: GOAL.md may show more, never fewer."""
    status: str = "active"
    """``active``, ``blocked`` (goalkeeper paused it), ``complete`` or ``cleared``."""
    blocked_reason: str | None = None

    @property
    def digest(self) -> str:
        return promise_digest(self.objective, self.verify, self.criteria)

    @property
    def open(self) -> bool:
        return self.status in OPEN_STATUSES


HeldKind = Literal["unapproved", "changed", "replaced", "missing"]


class Held(Struct, frozen=True):
    """GOAL.md is not the goal the user approved. ``unapproved``: no goal was approved (the
    agent wrote one, or it predates approvals); ``changed``: the approved goal's objective,
    verify or criteria were edited; ``replaced``: GOAL.md holds another goal than the open one;
    ``missing``: GOAL.md is gone while the approved goal is open. ``diff`` shows the change
    line by line, ``digest`` is the promise GOAL.md now makes (what an approval would accept)."""

    kind: HeldKind
    diff: tuple[str, ...]
    digest: str


def promise_digest(objective: str, verify: tuple[str, ...], criteria: tuple[str, ...]) -> str:
    import hashlib

    blob = "\n".join(promise_lines(objective, verify, criteria))
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def promise_lines(objective: str, verify: tuple[str, ...], criteria: tuple[str, ...]) -> list[str]:
    """The promise as lines a person can compare: the objective, each command, each criterion
    (whitespace normalised; its tick is not part of it)."""
    return (
        [f"objective: {_norm(objective)}"]
        + [f"verify: {command.strip()}" for command in verify]
        + [f"criterion: {_norm(text)}" for text in criteria]
    )


def promise_of(goal: Goal, *, goal_id: str, source: str, now: float, attempts: int = 0) -> Promise:
    """The promise ``goal`` makes, approved now by ``source``."""
    return Promise(
        goal_id=goal_id,
        objective=goal.objective,
        verify=goal.verify,
        criteria=tuple(c.text for c in goal.criteria),
        rounds=goal.rounds,
        timeout_s=goal.timeout_s,
        retries=goal.retries_max,
        source=source,
        approved_at=now,
        attempts=max(attempts, goal.attempts),
        status="blocked" if goal.status == "blocked" else "active",
        blocked_reason=goal.blocked_reason if goal.status == "blocked" else None,
    )


def goal_digest(goal: Goal) -> str:
    return promise_digest(goal.objective, goal.verify, tuple(c.text for c in goal.criteria))


def judge_goal(goal: Goal | None, promise: Promise | None) -> Held | None:
    """None when GOAL.md keeps the approved promise (or there is neither); else why it is held.
    A GOAL.md goalkeeper would act on (active or needing an upgrade) is judged, and so is any
    GOAL.md while the approved goal is open: ``status: complete`` or ``blocked`` written over an
    open goal does not end it (``trusted_goal``), so its promise still counts. A paused or
    finished GOAL.md with no open goal runs nothing anyway."""
    if goal is None:
        if promise is not None and promise.open:
            return Held("missing", tuple(f"- {line}" for line in _lines(promise)), "")
        return None
    is_open = promise is not None and promise.open
    if goal.status not in ACTED_ON and not is_open:
        return None
    digest = goal_digest(goal)
    if promise is None or not promise.open:
        return Held("unapproved", tuple(f"+ {line}" for line in _goal_lines(goal)), digest)
    if promise.goal_id != goal.goal_id:
        return Held("replaced", _diff(_lines(promise), _goal_lines(goal)), digest)
    if digest != promise.digest and not added_criteria(goal, promise):
        return Held("changed", _diff(_lines(promise), _goal_lines(goal)), digest)
    return None


def added_criteria(goal: Goal, promise: Promise) -> tuple[str, ...]:
    """The acceptance criteria GOAL.md adds to the open approved goal when adding them is its
    only change to the promise (the same goal, objective and verify commands, every approved
    criterion still there word for word): more conditions to meet, never fewer, so they are
    recorded with their reason instead of held (seed 001: a criteria change with a logged
    reason; only material changes are the user's). A new or changed verify command is not an
    addition: it would run, so it waits for the user. () for any other GOAL.md."""
    if not promise.open or promise.goal_id != goal.goal_id:
        return ()
    if _norm(goal.objective) != _norm(promise.objective):
        return ()
    if tuple(c.strip() for c in goal.verify) != tuple(c.strip() for c in promise.verify):
        return ()
    approved = {_norm(text) for text in promise.criteria}
    texts = [c.text for c in goal.criteria]
    if not approved <= {_norm(text) for text in texts}:
        return ()
    return tuple(dict.fromkeys(text for text in texts if _norm(text) not in approved))


_REASON = re.compile(
    r"\b(?:because|reason|since|so that|why)\b|因为|原因|理由|由于|为了", re.IGNORECASE
)


def change_reason(goal: Goal) -> str | None:
    """Why the agent says it changed the criteria: the latest Progress Log entry that gives a
    reason ("because …", "原因：…"), or None when it gave none (recorded as such)."""
    return next((entry for entry in reversed(goal.progress_log) if _REASON.search(entry)), None)


def goal_in_force(goal: Goal, promise: Promise) -> Goal:
    """The approved goal as goalkeeper verifies it while GOAL.md holds a change the user has
    not accepted: the promise's objective, verify commands and criteria, never GOAL.md's; a
    criterion counts as ticked only where GOAL.md still has it word for word and ticked (one
    the agent removed or reworded is open); limits and counters as ``trusted_goal`` makes
    them. So the held edit is neither run nor counted, and honest work still proves the goal."""
    states = {_norm(c.text): c for c in goal.criteria}
    criteria = tuple(
        states.get(_norm(text)) or Criterion(text, "open") for text in promise.criteria
    )
    in_force = replace(
        goal,
        objective=promise.objective,
        verify=promise.verify,
        criteria=criteria,
        goal_id=promise.goal_id,
    )
    return trusted_goal(in_force, promise)


def trusted_goal(goal: Goal, promise: Promise) -> Goal:
    """``goal`` with no limit above the approved one and no counter below the recorded one: a
    GOAL.md edit can make the loop stricter, never longer (``rounds: 1000``, ``attempts: 0``,
    ``status: active`` after a pause). Its status is goalkeeper's: an open goal ends only when
    goalkeeper proves it or pauses it, so ``status: complete`` or ``blocked`` written into
    GOAL.md leaves it active (the agent's honest exit is the ``[GOAL] blocked:`` marker, which
    the user is told about)."""
    if not promise.open:
        status, reason = goal.status, goal.blocked_reason
    elif promise.status == "blocked":
        status, reason = "blocked", promise.blocked_reason or goal.blocked_reason
    else:
        status, reason = (goal.status if goal.status in ACTED_ON else "active"), None
    return replace(
        goal,
        rounds=min(goal.rounds, promise.rounds),
        timeout_s=min(goal.timeout_s, promise.timeout_s),
        retries_max=min(goal.retries_max, promise.retries),
        attempts=max(goal.attempts, promise.attempts),
        status=status,
        blocked_reason=reason,
    )


def _lines(promise: Promise) -> list[str]:
    return promise_lines(promise.objective, promise.verify, promise.criteria)


def _goal_lines(goal: Goal) -> list[str]:
    return promise_lines(goal.objective, goal.verify, tuple(c.text for c in goal.criteria))


def _diff(before: list[str], after: list[str]) -> tuple[str, ...]:
    """``- line`` for what the approved promise had and GOAL.md lacks, ``+ line`` for the
    reverse, in the order of the approved promise, then GOAL.md's."""
    import difflib  # only when a goal is held

    out: list[str] = []
    for line in difflib.unified_diff(before, after, n=0, lineterm=""):
        if line.startswith(("---", "+++", "@@")):
            continue
        out.append(f"{line[0]} {line[1:]}")
    return tuple(out)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip())
