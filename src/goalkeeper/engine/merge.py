"""Merge the actions of every guard into one answer, and hold the continuation cap.

Rules, in order: a ``Pause`` wins over any ``Continue``/``Compact``/``Close`` (stopping is always
safe); several ``Continue`` texts become one message (never one per turn); a ``Continue`` beats a
``Close`` (another gate is still open); the ``max_continuations``-th continuation in a row becomes
a ``Pause``. Identical texts are said once. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from goalkeeper.core.messages import Say
from goalkeeper.core.values import (
    Action,
    Advise,
    Block,
    Close,
    Compact,
    Continue,
    Notify,
    Pause,
    Record,
)


@dataclass(frozen=True, slots=True)
class Merged:
    actions: tuple[Action, ...]
    continuations: int
    """Automatic continuations in a row after this answer."""


def merge_actions(
    actions: Sequence[Action], *, continuations: int, max_continuations: int, say: Say
) -> Merged:
    blocks = _unique(a.reason for a in actions if isinstance(a, Block))
    advice = _unique(a.text for a in actions if isinstance(a, Advise))
    pauses = _unique(a.reason for a in actions if isinstance(a, Pause))
    continues = _unique(a.text for a in actions if isinstance(a, Continue))
    closes = _unique(a.summary for a in actions if isinstance(a, Close))
    compacts = [a for a in actions if isinstance(a, Compact)]
    notes = [a for a in actions if isinstance(a, Notify)]
    records: list[Action] = [a for a in actions if isinstance(a, Record)]

    out: list[Action] = []
    if blocks:
        out.append(Block("\n\n".join(blocks)))
    if advice:
        out.append(Advise("\n\n".join(advice)))
    if pauses:
        out.append(Pause("\n".join(pauses)))
    elif continues:
        if continuations >= max_continuations:
            out.append(Pause(say("pause.cap", n=max_continuations)))
            records.append(Record("capped", {"continuations": continuations}))
        else:
            out.extend(compacts[:1])
            out.append(Continue("\n\n".join(continues)))
            continuations += 1
    elif closes:
        out.append(Close("\n".join(closes)))
    seen: set[str] = set()
    for note in notes:
        if note.text not in seen:
            seen.add(note.text)
            out.append(note)
    return Merged(tuple(out) + tuple(records), continuations)


def _unique(texts: Iterable[str]) -> list[str]:
    seen: list[str] = []
    for text in texts:
        if text and text not in seen:
            seen.append(text)
    return seen
