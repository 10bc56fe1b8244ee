"""Merge the actions of every guard into one answer, and hold the continuation cap.

Rules, in order: a ``Pause`` wins over any ``Continue``/``Compact``/``Close`` (stopping is always
safe); several ``Continue`` texts become one message (never one per turn); a ``Continue`` beats a
``Close`` (another gate is still open); the ``max_continuations``-th continuation in a row becomes
a ``Pause``. A ``Compact`` or ``ClearContext`` goes out only with the continuation it prepares, and
a clear replaces a compaction (nothing is left to compact). Identical texts are said once. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from msgspec import Struct

from goalkeeper.core.messages import Say
from goalkeeper.core.values import (
    AcceptPlan,
    Action,
    AddCriteria,
    Advise,
    ApproveGoal,
    Ask,
    Block,
    ClearContext,
    Close,
    Compact,
    Continue,
    KeepTests,
    Notify,
    Pause,
    Record,
    Reply,
    Retry,
    SetGoal,
    WriteGoal,
)

ENGINE_WRITES = (SetGoal, WriteGoal, ApproveGoal, AddCriteria, AcceptPlan, KeepTests)
"""Actions the engine carries out after the transaction (files, kept tests, approvals)."""


class Merged(Struct, frozen=True):
    actions: tuple[Action, ...]
    continuations: int
    """Automatic continuations in a row after this answer."""
    deferred: tuple[str, ...] = ()
    """Follow-up advice no action of this answer could carry: kept for the next one."""


def merge_actions(
    actions: Sequence[Action],
    *,
    continuations: int,
    max_continuations: int,
    say: Say,
    follow_up: bool = False,
    deferred: Sequence[str] = (),
    carries_context: bool = False,
) -> Merged:
    """``follow_up``: the host can queue a message for the agent's next run itself (Pi).
    ``deferred``: advice kept from earlier answers. ``carries_context``: this answer can add
    context to the conversation (a session start, a user prompt). Elsewhere, follow-up advice
    rides with a continuation if there is one, or waits in ``Merged.deferred``."""
    blocks = _unique(a.reason for a in actions if isinstance(a, Block))
    advice = [a for a in actions if isinstance(a, Advise) and a.when == "now"]
    static = _unique(a.text for a in advice if a.static)
    now = [t for t in _unique(a.text for a in advice if not a.static) if t not in static]
    later = _unique(
        [*deferred, *(a.text for a in actions if isinstance(a, Advise) and a.when == "next_turn")]
    )
    pauses = _unique(a.reason for a in actions if isinstance(a, Pause))
    continues = _unique(a.text for a in actions if isinstance(a, Continue))
    closes = _unique(a.summary for a in actions if isinstance(a, Close))
    compacts = [a for a in actions if isinstance(a, Compact)]
    clears = [a for a in actions if isinstance(a, ClearContext)]
    replies = [a for a in actions if isinstance(a, Reply)]
    notes = [a for a in actions if isinstance(a, Notify)]
    # files the engine changes after the transaction: kept whatever else is decided
    writes = [a for a in actions if isinstance(a, ENGINE_WRITES)]
    retries = [a for a in actions if isinstance(a, Retry)]
    records: list[Action] = [a for a in actions if isinstance(a, Record)]
    asks = [a for a in actions if isinstance(a, Ask)]

    out: list[Action] = []
    if blocks:
        out.append(Block("\n\n".join(blocks)))
    out.extend(replies[:1])
    if later and carries_context and not continues:
        now, later = _unique([*now, *later]), []
    if static:  # its own action: a host may put it in the system prompt (cache-safe)
        out.append(Advise("\n\n".join(static), static=True))
    if now:
        out.append(Advise("\n\n".join(now)))
    if pauses:
        out.append(Pause("\n".join(pauses)))
    elif continues:
        if continuations >= max_continuations:
            out.append(Pause(say("pause.cap", n=max_continuations)))
            records.append(Record("capped", {"continuations": continuations}))
        else:
            out.extend(clears[:1] or compacts[:1])
            out.append(Continue("\n\n".join(_unique([*continues, *later]))))
            later = []
            continuations += 1
    elif retries:
        out.append(retries[0])
    elif closes:
        out.append(Close("\n".join(closes)))
    if later and follow_up:
        out.append(Advise("\n\n".join(later), "next_turn"))
        later = []
    out.extend(asks[:1])  # one question at a time
    if closes and not any(isinstance(a, Close) for a in out):
        records = [_overruled(r) for r in records]
    seen: set[str] = set()
    for note in notes:
        if note.text not in seen:
            seen.add(note.text)
            out.append(note)
    return Merged(tuple(out) + tuple(writes) + tuple(records), continuations, tuple(later))


def _overruled(record: Action) -> Action:
    """A close that lost to a pause or a continuation did not happen: its record says so
    (``close_overruled``), so the journal never shows a close the user did not get."""
    if isinstance(record, Record) and record.kind == "closed":
        return Record("close_overruled", record.data)
    return record


def _unique(texts: Iterable[str]) -> list[str]:
    seen: list[str] = []
    for text in texts:
        if text and text not in seen:
            seen.append(text)
    return seen
