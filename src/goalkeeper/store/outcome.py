"""What a headless run came to, read from goalkeeper's own journal (``goalkeeper run``).

A CI job must learn whether the work is *proven*, and the agent's words cannot tell it: an
agent may say "done" when it is not. So the outcome is derived only from what goalkeeper itself
decided and recorded while the agent ran (its ``decision`` entries and its records), and from
the goal's state afterwards. ``decide`` is pure (plain journal entries in, one value out) so the
mapping is tested without an agent; ``read_run`` is the one place that reads the entries.

The proof (``proof_of``) is what goalkeeper ran itself: the verification runs of a proven goal
(and a replay against the original tests), the commands it re-ran for a completed todo, the
runs of the check phase. ``goalkeeper report`` may build a richer proof reader; this one is
deliberately small and documented here, in one function.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from msgspec import Struct, field

from goalkeeper.store.journal import JournalEntry, _data

OutcomeName = Literal["done", "not_done", "blocked", "error", "awaiting"]
EXIT_CODES: dict[OutcomeName, int] = {
    "done": 0,
    "not_done": 1,
    "blocked": 2,
    "error": 3,
    "awaiting": 4,  # closed, but resting on claims only the user can accept (store.claims)
}

GoalStatus = Literal["none", "active", "blocked", "held", "complete"]
"""The project's goal after the run: ``none`` (no GOAL.md: none set, or proven and archived),
``held`` (GOAL.md changed from what the user approved), else GOAL.md's own status."""

_BLOCKING_RECORDS = frozenset({"goal_blocked", "goal_held", "goal_tests_held", "plan_tests_held"})
"""Records after which only the user can move the work on (resume, approve, accept tests)."""
_USER_HONEST_EXITS = frozenset({"blocked_same", "blocked_stalled"})
"""The agent said it is blocked, the same way, round after round: it needs the user."""


REVIEW_NOT_DONE = (
    "goalkeeper proved the goal (its verification passed); review not done: the agent stopped "
    "before the fresh reviewer it was asked for finished"
)
"""The goal was proven at a stop whose answer was the review round (seed 002's verification
duty), and that round never reached its stop: cut by --max-turns or --max-minutes, killed, or
failed. The proof stands; the missing review is said, not turned into "not done"."""
REPLACEMENT_WAITS = (
    "; GOAL.md now holds another goal you have not approved: `goalkeeper goal approve` or "
    "`goalkeeper goal clear`"
)
"""Said after a proof when GOAL.md is ``held`` with the goal proven: the agent rewrote it into
another goal, which goalkeeper left in place for the user (``guards.goal_in_force``)."""


class AgentExit(Struct, frozen=True):
    """How the agent process ended, as goalkeeper saw it (not what the agent said)."""

    started: bool = True
    returncode: int | None = 0
    timed_out: bool = False
    """goalkeeper's own --max-minutes ended it."""
    error: str = ""
    """Why it could not run or did not finish (goalkeeper's words)."""


class RunOutcome(Struct, frozen=True):
    outcome: OutcomeName
    reason: str
    continuations: int = 0
    proof: list[dict[str, Any]] = field(default_factory=list)
    sessions: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.outcome]

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "exit": self.exit_code,
            "reason": self.reason,
            "continuations": self.continuations,
            "sessions": list(self.sessions),
            "proof": self.proof,
        }


def decide(
    entries: Sequence[JournalEntry],
    goal: GoalStatus,
    agent: AgentExit,
    awaiting: Sequence[str] = (),
) -> RunOutcome:
    """The run's outcome from goalkeeper's journal entries of the run (oldest first), the goal
    after it, and how the agent process ended.

    0 ``done``: goalkeeper's last decision closed the work (every gate passed, or the goal's
    verification passed and it was archived) and no goal is left open. 2 ``blocked``: the last
    decision paused for the user (a question, a blocked or held goal, tests only the user can
    accept, the agent honestly stuck), or the goal is blocked or held. 3 ``error``: the agent
    could not run, died on a signal, or its last turn ended on an API error, and nothing was
    proven. A goal proven at a stop answered with the review round is ``done`` however that
    round ended, its reason saying the review was not done; so is one proven while GOAL.md holds
    another goal the user never approved (``held``), its reason saying so. 1 ``not_done``:
    anything else (paused at a cap, stuck, stopped early, cut by --max-turns or --max-minutes,
    no goal or plan that could prove anything). 4 ``awaiting``: it would be ``done``, but
    ``awaiting`` names completed todos whose claims goalkeeper could not check and the user
    has not accepted (seed 002): the proof rests on them."""
    sessions = tuple(dict.fromkeys(e.session_id for e in entries if e.session_id))
    continuations = sum(1 for e in entries if "Continue" in _kinds(e))
    proof = proof_of(entries)

    def out(name: OutcomeName, reason: str) -> RunOutcome:
        return RunOutcome(name, reason, continuations, proof, sessions)

    if not agent.started:
        return out("error", agent.error or "the agent could not be started")
    last = _last_decision(entries)
    kinds = _kinds(last) if last is not None else []
    since = _decided_at(entries, last) if last is not None else 0
    records = {e.kind for e in entries if last is not None and since <= e.id <= last.id}
    proved = "goal_complete" in records
    review_cut = "Continue" in kinds and proved and "review_asked" in records
    # The user's goal proven while GOAL.md holds a goal they never approved (the agent's
    # replacement, left for them): the proof stands, what waits is said.
    waits = goal == "held" and proved
    if ("Close" in kinds or review_cut) and (goal in ("none", "complete") or waits):
        if awaiting:
            why = "closed, but it rests on claims goalkeeper could not check: "
            return out("awaiting", why + ", ".join(awaiting) + " (`goalkeeper todo accept ID`)")
        if review_cut:  # the review is a request made after the proof, never part of it
            reason = REVIEW_NOT_DONE
        else:
            reason = _text(last, "Close") or "goalkeeper closed the work: proven"
        return out("done", reason + (REPLACEMENT_WAITS if waits else ""))
    if goal in ("blocked", "held"):
        return out("blocked", _text(last, "Pause") or f"the goal is {goal}: it waits for you")
    if "Pause" in kinds:
        reason = _text(last, "Pause")
        user = last is not None and _honest_user_exit(entries, last)
        if "Ask" in kinds or records & _BLOCKING_RECORDS or user:
            return out("blocked", reason)
        return out("not_done", reason)
    if agent.timed_out:
        return out("not_done", agent.error or "the time limit (--max-minutes) ended the run")
    api_error = last_turn_error(entries)
    if api_error:
        return out("error", f"the agent's last turn failed: {api_error}")
    if agent.returncode is not None and agent.returncode < 0:
        return out("error", f"the agent was killed by signal {-agent.returncode}")
    if not sessions:
        return out("error", agent.error or "goalkeeper saw no event of the agent's session")
    if "Close" in kinds:
        return out("not_done", f"goalkeeper closed the plan, but the goal is still {goal}")
    exited = f" (it exited with status {agent.returncode})" if agent.returncode else ""
    if "Continue" in kinds:
        why = "the agent stopped while goalkeeper was still continuing it"
        return out("not_done", f"{why}{exited}: its own limit (--max-turns) or an early exit")
    if agent.returncode:
        why = f"the agent exited with status {agent.returncode} before goalkeeper let it stop"
        return out("not_done", agent.error or why)
    return out("not_done", "nothing was proven: no goal or plan of this run was closed")


def proof_of(entries: Sequence[JournalEntry]) -> list[dict[str, Any]]:
    """What goalkeeper ran itself during the run, oldest first: one item per run, with
    ``source`` (``goal``, ``goal_tests_replay``, ``todo``, ``check``) and what was recorded of
    it (``command``, ``argv``, ``exit``, ``seconds``, ``output_sha256`` where known)."""
    proof: list[dict[str, Any]] = []
    for entry in entries:
        data = entry.data
        if entry.kind == "goal_complete":
            proof += [_run("goal", r, entry) for r in _dicts(data.get("verify"))]
            protected = data.get("protected_tests")
            if isinstance(protected, dict):
                replays = _dicts(protected.get("replay"))
                proof += [_run("goal_tests_replay", r, entry) for r in replays]
        elif entry.kind == "todo_completed":
            for command in _dicts(data.get("commands")):
                item = _run("todo", command, entry)
                item["todo"] = data.get("id")
                proof.append(item)
        elif entry.kind == "check":
            proof += [_run("check", r, entry) for r in _dicts(data.get("ran"))]
    return proof


def read_run(project: Path, after_id: int, session_id: str | None) -> list[JournalEntry]:
    """The journal entries written after entry ``after_id`` (the run's start), of
    ``session_id`` when it is known (another session in the same project is not this run)."""
    from goalkeeper.store.db import Store

    store = Store(project)
    if not store.exists():
        return []
    try:
        conn = store.connection()
        query = "SELECT id, session_id, at, kind, data FROM journal WHERE id > ?"
        params: tuple[object, ...] = (after_id,)
        if session_id is not None:
            query += " AND session_id = ?"
            params += (session_id,)
        rows = conn.execute(query + " ORDER BY id", params).fetchall()
    finally:
        store.close()
    return [JournalEntry(r[0], r[1], r[2], r[3], _data(r[4])) for r in rows]


def last_entry_id(project: Path) -> int:
    """The newest journal entry's id (0 for none): where a run's own entries begin."""
    from goalkeeper.store.db import Store

    store = Store(project)
    if not store.exists():
        return 0
    try:
        row = store.connection().execute("SELECT MAX(id) FROM journal").fetchone()
    except sqlite3.Error:
        return 0
    finally:
        store.close()
    return int(row[0] or 0)


def goal_status(project: Path) -> GoalStatus:
    """The goal after the run, as goalkeeper recorded it: GOAL.md is the agent's to edit, so
    its own ``status: complete`` counts for nothing; the approved promise's status does, and a
    GOAL.md that differs from it (or is gone while it is open) is ``held``."""
    from goalkeeper.core.goals.promise import judge_goal
    from goalkeeper.store.db import Store
    from goalkeeper.store.goalfile import load_goal
    from goalkeeper.store.trust import current_promise

    doc = load_goal(project)
    goal = doc.goal if doc is not None else None
    store = Store(project)
    if not store.exists():
        return "none" if goal is None else "held"  # a GOAL.md nobody approved
    try:
        with store.transaction() as conn:
            promise = current_promise(conn, goal.goal_id if goal is not None else None)
    finally:
        store.close()
    if judge_goal(goal, promise) is not None:
        return "held"
    if promise is not None and promise.open:
        return "blocked" if promise.status == "blocked" else "active"
    if goal is None or goal.status == "complete":
        return "none" if goal is None else "complete"
    return "active" if goal.status in ("active", "needs-upgrade") else "blocked"


def _kinds(entry: JournalEntry | None) -> list[str]:
    if entry is None or entry.kind != "decision":
        return []
    return [str(a.get("kind")) for a in _dicts(entry.data.get("actions"))]


def _text(entry: JournalEntry | None, kind: str) -> str:
    if entry is None:
        return ""
    found = (a for a in _dicts(entry.data.get("actions")) if a.get("kind") == kind)
    return str(next(found, {}).get("text") or "")


def _last_decision(entries: Sequence[JournalEntry]) -> JournalEntry | None:
    """The last decision that ended or continued a turn (tool replies and blocks are not)."""
    for entry in reversed(entries):
        if {"Close", "Pause", "Continue"} & set(_kinds(entry)):
            return entry
    return None


def _decided_at(entries: Sequence[JournalEntry], decision: JournalEntry) -> int:
    """The first entry id of the event that led to ``decision`` (its records come before it,
    after the previous event's decision)."""
    start = decision.id
    for entry in reversed(entries):
        if entry.id >= decision.id:
            continue
        if entry.kind == "decision":
            break
        start = entry.id
    return start


def _honest_user_exit(entries: Sequence[JournalEntry], decision: JournalEntry) -> bool:
    since = _decided_at(entries, decision)
    return any(
        e.kind == "honest_exit" and e.data.get("kind") in _USER_HONEST_EXITS
        for e in entries
        if since <= e.id < decision.id
    )


def last_turn_error(entries: Sequence[JournalEntry]) -> str:
    """The error of the run's last settled turn (Claude Code's StopFailure, Pi's API error)."""
    for entry in reversed(entries):
        if entry.kind == "event" and entry.data.get("type") == "Settled":
            return str(entry.data.get("error") or "")
    return ""


def _run(source: str, run: dict[str, Any], entry: JournalEntry) -> dict[str, Any]:
    item: dict[str, Any] = {"source": source, "at": entry.at}
    command = run.get("command", run.get("cmd"))
    item["command"] = command
    for key in ("argv", "exit", "timed_out", "seconds", "output_sha256", "verdict", "status"):
        if key in run:
            item[key] = run[key]
    return item


def _dicts(value: object) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
