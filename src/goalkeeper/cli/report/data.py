"""The proof of one session, gathered from goalkeeper's own state: what the agent claimed and
what goalkeeper verified.

``session_proof`` is the one place that reads it (``goalkeeper report`` renders it as Markdown,
HTML or JSON; ``goalkeeper run --json`` embeds it). Everything comes from the project's state
database (``store.db``): the journal (every command goalkeeper ran, each close attempt, each
decision), the session row (counters, mode, workflow), the todo table (tasks and what goalkeeper
wrote into their ``verification``), the approved promise of the goal and its protected test
files. Text the agent wrote (todo subjects, output tails, messages) is returned as it is:
renderers escape.

The JSON shape (``PROOF_VERSION`` 1)::

    {"version": 1, "session": {...}, "verdict": {"state", "reason"},
     "goal": {...} | null, "runs": [...], "protected_tests": {...} | null,
     "todos": [...], "close_attempts": [...], "checks": [...], "continuations": {...},
     "pauses": [...], "timeline": [...]}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from goalkeeper.cli.report.journal_view import category, clip, describe
from goalkeeper.store import journal
from goalkeeper.store.claims import Claim, session_claims
from goalkeeper.store.db import Store
from goalkeeper.store.sessions import SessionRow, get_session
from goalkeeper.store.test_baseline import load_baseline
from goalkeeper.store.todo_tasks import TaskTable
from goalkeeper.store.trust import get_promise

PROOF_VERSION = 1
RUN_KINDS = ("verify_run", "evidence_run", "replay_run")
VERDICTS = ("proven", "closed", "paused", "capped", "open")
"""``proven``: the goal's verify passed (goal_complete); ``closed``: the plan's gates passed;
``paused``: goalkeeper paused the loop for the user; ``capped``: the continuation cap ended it;
``open``: none of these yet (the agent is working, or it stopped and was sent back)."""


def session_proof(store: Store, session_id: str) -> dict[str, Any]:
    """The proof of ``session_id`` (a full id: resolve a prefix first with
    ``store.sessions.resolve_session_id``) as a JSON-ready dict; see the module for the shape.
    Reads only; a session goalkeeper never saw gives an empty proof with verdict ``open``."""
    conn = store.connection()
    row = get_session(conn, session_id)
    entries = journal.session_entries(conn, session_id)
    tasks = TaskTable(conn, session_id).all_tasks()
    goal_id = _goal_id(row)
    promise = get_promise(conn, goal_id) if goal_id else None
    baseline = load_baseline(conn, goal_id) if goal_id else None
    claims = {c.task_id: c for c in session_claims(conn, session_id)}

    runs = [_run(e) for e in entries if e.kind in RUN_KINDS]
    closes = [_close(e) for e in entries if e.kind in ("refused", "closed", "close_overruled")]
    decisions = [e for e in entries if e.kind == "decision"]
    pauses = [
        {"at": e.at, "reason": str(a.get("text") or "")}
        for e in decisions
        for a in _actions(e.data)
        if a.get("kind") == "Pause"
    ]
    continued = sum(1 for e in decisions for a in _actions(e.data) if a.get("kind") == "Continue")
    capped = any(e.kind == "capped" for e in entries)
    return {
        "version": PROOF_VERSION,
        "session": _session(row, session_id, entries),
        "verdict": _verdict(entries),
        "goal": _goal(promise, entries) if promise is not None or goal_id else None,
        "runs": runs,
        "protected_tests": _protected(baseline, entries),
        "hidden_tests": _hidden(entries),
        "todos": [_todo(t, entries, claims.get(t.id)) for t in tasks],
        "close_attempts": closes,
        "checks": [
            {"at": e.at, "status": e.data.get("status"), "ran": e.data.get("ran") or []}
            for e in entries
            if e.kind == "check"
        ],
        "continuations": {
            "sent_back": continued,
            "counter": row.continuations if row else 0,
            "capped": capped,
        },
        "pauses": pauses,
        "timeline": [
            {
                "id": e.id,
                "at": e.at,
                "kind": e.kind,
                "category": category(e.kind, e.data),
                "text": describe(e.kind, e.data),
            }
            for e in entries
            if e.kind != "todo"  # a todo op is also its tool call's answer: once is enough
        ],
    }


def _goal_id(row: SessionRow | None) -> str | None:
    if row is None:
        return None
    for guard in ("goal", "workflow"):
        value = row.guards.get(guard, {}).get("goal_id")
        if isinstance(value, str) and value:
            return value
    return None


def _actions(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    actions = data.get("actions")
    return [a for a in actions if isinstance(a, Mapping)] if isinstance(actions, list) else []


def _session(
    row: SessionRow | None, session_id: str, entries: list[journal.JournalEntry]
) -> dict[str, Any]:
    cadence = row.guards.get("cadence", {}) if row else {}
    modes = row.guards.get("modes", {}) if row else {}
    workflow = row.guards.get("workflow", {}).get("active") if row else None
    return {
        "session_id": session_id,
        "host": row.host if row else None,
        "started_at": row.created_at if row else (entries[0].at if entries else None),
        "updated_at": row.updated_at if row else (entries[-1].at if entries else None),
        "events": row.events if row else 0,
        "phase": cadence.get("last_phase"),
        "round": cadence.get("round", 0),
        "mode": modes.get("mode"),
        "mode_phase": modes.get("phase"),
        "workflow": workflow if isinstance(workflow, dict) else None,
        "journal_entries": len(entries),
    }


def _verdict(entries: list[journal.JournalEntry]) -> dict[str, str]:
    """The last thing that ended (or held) the loop: a proven goal, a close, a pause, the cap,
    or a stop goalkeeper let stand (with what it told the user). "The user spoke since" only
    when the host showed a prompt as the user's *after* such an end: the prompt that started
    the session, a prompt the host's record does not show as the user's, and goalkeeper's own
    messages are not the user speaking."""
    state, reason = "open", "goalkeeper has not let the agent stop yet"
    ended = False  # a pause, a close, the cap or a stop left standing came before
    stop = False  # the entries since the last Settled event answer that stop
    for e in entries:
        if e.kind == "event":
            stop = e.data.get("type") == "Settled"
            if stop and state in ("open", "stood"):
                state, reason, ended = "stood", "the agent stopped and goalkeeper let it", True
            elif _user_spoke(e) and ended and state != "proven":
                state, reason, ended = (
                    "open",
                    "the user spoke since; goalkeeper is watching again",
                    False,
                )
        elif e.kind == "goal_complete":
            state, reason, ended = "proven", "the goal's verify commands passed", True
        elif e.kind == "closed":
            gates = e.data.get("gates")
            named = ", ".join(str(g) for g in gates) if isinstance(gates, list) else "quick mode"
            state, reason, ended = "closed", f"the plan's gates passed: {named or 'none'}", True
        elif e.kind == "capped":
            count = e.data.get("continuations")
            state, reason, ended = "capped", f"continuation cap reached ({count})", True
        elif e.kind == "decision":
            kinds = [str(a.get("kind")) for a in _actions(e.data)]
            for action in _actions(e.data):
                if action.get("kind") == "Pause":
                    state, reason, ended = "paused", clip(action.get("text") or "", 300), True
            if stop and state == "stood" and "Continue" in kinds:
                state, reason, ended = "open", "goalkeeper has not let the agent stop yet", False
            elif stop and state == "stood":
                told = next((a for a in _actions(e.data) if a.get("kind") == "Notify"), None)
                if told is not None:
                    reason = "the agent stopped and goalkeeper let it: " + clip(
                        told.get("text") or "", 300
                    )
    if state == "stood":
        state = "open"
    return {"state": state, "reason": reason}


def _user_spoke(e: journal.JournalEntry) -> bool:
    """A prompt the host showed as the user's (``UserPrompt.verified``; older journals did not
    record it and count as shown)."""
    return e.data.get("type") == "UserPrompt" and e.data.get("verified", True) is not False


def _run(e: journal.JournalEntry) -> dict[str, Any]:
    return {"at": e.at, "kind": e.kind.removesuffix("_run"), **e.data}


def close_summary(close: Mapping[str, Any]) -> str:
    """What a close rested on, in words: the plan, its counts, the check round and what the
    agent ran in it (as goalkeeper read it from the transcript), cancelled commitments."""
    parts = []
    if close.get("plan"):
        parts.append(f"plan {close['plan']}")
    for key, label in (("key_results", "key results"), ("leaves", "story-map leaves")):
        counts = close.get(key)
        if isinstance(counts, Mapping):
            parts.append(f"{label} {counts.get('done')}/{counts.get('total')} done")
    check = close.get("check")
    if isinstance(check, Mapping):
        ran = ", ".join(
            f"{r.get('command')} {r.get('verdict')}"
            for r in check.get("ran") or []
            if isinstance(r, Mapping)
        )
        parts.append(
            f"check round {check.get('round')}: {check.get('status')}"
            + (f" (the agent ran: {ran})" if ran else "")
        )
    for c in close.get("cancelled") or []:
        if isinstance(c, Mapping):
            parts.append(
                f"cancelled {c.get('kind')} {c.get('text')!s}: {c.get('reason') or 'no reason'}"
            )
    return "; ".join(parts)


def _close(e: journal.JournalEntry) -> dict[str, Any]:
    outcome = {"refused": "refused", "closed": "closed"}.get(e.kind, "overruled")
    data = dict(e.data)
    return {"at": e.at, "outcome": outcome, "gates": data.pop("gates", []), **data}


def _goal(promise: Any, entries: list[journal.JournalEntry]) -> dict[str, Any]:
    failed = sum(1 for e in entries if e.kind == "goal_failed")
    proven = next((e.data for e in reversed(entries) if e.kind == "goal_complete"), None)
    if promise is None:
        return {"goal_id": None, "failed_rounds": failed, "proven": proven is not None}
    return {
        "goal_id": promise.goal_id,
        "objective": promise.objective,
        "verify": list(promise.verify),
        "criteria": list(promise.criteria),
        "status": promise.status,
        "attempts": promise.attempts,
        "blocked_reason": promise.blocked_reason,
        "failed_rounds": failed,
        "proven": proven is not None,
    }


def _protected(baseline: Any, entries: list[journal.JournalEntry]) -> dict[str, Any] | None:
    held = [e.data for e in entries if e.kind in ("goal_tests_held", "plan_tests_held")]
    replays = [_run(e) for e in entries if e.kind == "replay_run"]
    complete = next((e.data for e in reversed(entries) if e.kind == "goal_complete"), None)
    if baseline is None and not held and not replays:
        return None
    return {
        "files": sorted(baseline.digests) if baseline is not None else [],
        "at_proof": complete.get("protected_tests") if complete else None,
        "held": held,
        "replays": replays,
    }


def _hidden(entries: list[journal.JournalEntry]) -> dict[str, Any] | None:
    """Whether the user's hidden acceptance tests ran (never what they are): how often they
    held a pass, and whether the proof ran with them."""
    failed = sum(1 for e in entries if e.kind == "goal_hidden_failed")
    complete = next((e.data for e in reversed(entries) if e.kind == "goal_complete"), None)
    at_proof = complete.get("hidden_tests") if complete else None
    if not failed and at_proof is None:
        return None
    return {"failed": failed, "at_proof": at_proof}


def _todo(task: Any, entries: list[journal.JournalEntry], claim: Claim | None) -> dict[str, Any]:
    """A task with its evidence: ``verified`` (every claim checked), ``unverified`` (completed
    with claims goalkeeper could not check), ``refused`` (a completion goalkeeper refused and
    the task is not completed), ``none`` (no completion claimed). ``acceptance``: for a
    completion only the user can settle (seed 002), ``awaiting`` or ``accepted``."""
    completions = [
        e.data for e in entries if e.kind == "todo_completed" and e.data.get("id") == task.id
    ]
    refusals = [
        {"at": e.at, "reason": e.data.get("reason"), "count": e.data.get("count")}
        for e in entries
        if e.kind == "todo_refused" and e.data.get("id") == task.id
    ]
    verification = task.metadata.get("verification")
    last = completions[-1] if completions else None
    if task.status == "completed" and last is not None:
        evidence = "unverified" if last.get("unverified") else "verified"
    elif task.status == "completed":
        evidence = "unverified"  # completed with no gate goalkeeper checked
    elif refusals:
        evidence = "refused"
    else:
        evidence = "none"
    return {
        "id": task.id,
        "subject": task.subject,
        "status": task.status,
        "gate": task.metadata.get("gate"),
        "evidence": evidence,
        "verification": verification if isinstance(verification, list) else [],
        "unverified": (last or {}).get("unverified", []),
        "commands": (last or {}).get("commands", []),
        "refusals": refusals,
        "acceptance": _acceptance(task, claim),
    }


def _acceptance(task: Any, claim: Claim | None) -> str | None:
    if claim is None or task.status != "completed":
        return None
    return "accepted" if claim.accepted_at is not None else "awaiting"
