"""The back-off of API-error retries (seed 001 §5): attempt number → delay. Pure; no I/O.

Seed 001 asks for per-iteration exponential back-off, 10 retries in about 37 minutes, then the
goal is blocked with a strategy-change prompt. 4 s doubling, capped at 150 × the base (10 min
at the default 4 s), gives 4, 8, …, 512, 600, 600 s: 2220 s = 37 min for the 10 retries. The
goal guard (which counts the retries a hook sees) and ``goalkeeper run`` (which sleeps them and
starts the session again) read the same schedule, so they never disagree on a delay.
"""

from __future__ import annotations

RETRIES = 10
"""Retries before the goal is blocked (``core.goals.goal.DEFAULT_RETRIES`` is this number)."""
BASE_MS = 4000.0
"""The first delay; the ``retry_base_ms`` setting may only lower it from a project file."""
CAP_FACTOR = 150
"""The longest delay as a multiple of the base: 600 s / 4 s, so a smaller base (tests) keeps
the schedule's shape."""


def retry_delay_s(attempt: int, base_ms: float = BASE_MS) -> float:
    """The wait before retry ``attempt`` (1-based): ``base × 2^(attempt-1)``, at most
    ``CAP_FACTOR × base``. A non-positive attempt or base waits nothing."""
    if attempt < 1 or base_ms <= 0:
        return 0.0
    return base_ms / 1000.0 * min(1 << min(attempt - 1, 32), CAP_FACTOR)


def retry_schedule(retries: int = RETRIES, base_ms: float = BASE_MS) -> tuple[float, ...]:
    """Every retry's delay in order (``retry_delay_s`` for 1 … ``retries``)."""
    return tuple(retry_delay_s(n, base_ms) for n in range(1, retries + 1))
