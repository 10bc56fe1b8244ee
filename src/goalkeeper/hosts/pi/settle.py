"""When has Pi truly settled? (``../shared/reference/pi-host.md`` §8.)

Pi ≥ 0.80.6 says so itself: ``agent_before_settle`` (the last moment to ask for one more turn)
and ``agent_settled``. Pi 0.73.x does not, and its ``agent_end`` is not final: an automatic
retry after a transient error, a compaction (then a retry) or a queued message may follow, and
continuing the agent then would start a second run beside Pi's own. So on 0.73.x a run counts
as settled only when no run is going, no compaction is going, no retry can still come, and
nothing has happened for a quiet window; a retry is expected after an ``error`` stop that looks
transient while Pi's retry budget lasts, for as long as Pi's back-off for that attempt.

``SettleTracker`` is that rule as a value-level state machine: events in, "arm a timer for
this long" / "cancel it" out; the bridge owns the clock and the timer. Once Pi has shown its
own settle events, the tracker stands down for good.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from msgspec import Struct

from goalkeeper.core.text.lazy_re import lazy_re

QUIET_S = 0.5
"""Long enough for the other extensions' reactions (a chained run starts 2–6 ms after
``agent_end``) and Pi's own compaction start; short enough not to be noticed."""
_TRANSIENT = lazy_re(
    r"overload|rate.?limit|too many requests|\b429\b|\b5\d\d\b|connection|network|timed? ?out|"
    r"temporar|unavailable|ECONNRESET|ETIMEDOUT|fetch failed",
    re.IGNORECASE,
)


class RetrySettings(Struct, frozen=True):
    """Pi's agent-level retry (settings ``retry``): its defaults unless the settings say else."""

    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000

    def delay_s(self, attempt: int) -> float:
        """Pi waits ``base × 2^attempt`` before retry number ``attempt + 1``."""
        return float(self.base_delay_ms * 2 ** min(attempt, 16)) / 1000


class RunEnd(Struct, frozen=True):
    """What an ``agent_end`` said: how the run stopped and its last assistant text."""

    stop_reason: str = "stop"
    error: str | None = None
    last_text: str = ""

    @property
    def aborted(self) -> bool:
        return self.stop_reason == "aborted"


class Arm(Struct, frozen=True):
    """Settle in ``delay_s`` unless something happens first; ``generation`` names this timer."""

    delay_s: float
    generation: int


class SettleTracker:
    """The 0.73.x settle heuristic. Not thread-safe: the bridge calls it under its lock."""

    def __init__(self, retry: RetrySettings | None = None, quiet_s: float = QUIET_S) -> None:
        self.retry = retry or RetrySettings()
        self.quiet_s = quiet_s
        self.native = False
        self.running = False
        self.compacting = False
        self.attempt = 0
        self.last: RunEnd | None = None
        self.generation = 0

    def on_event(self, name: str, data: dict[str, Any]) -> Arm | None:
        """The timer to arm after this event (it replaces any earlier one), or None. A run, a
        prompt or a compaction starting voids the pending timer; other events leave it be."""
        if name in ("agent_before_settle", "agent_settled"):
            self.native = True
        if self.native:
            self.generation += 1
            return None
        if name == "agent_start":
            self.running = True
            self.compacting = False  # a run starts: any compaction is over (0.73.x may not say so)
            self.generation += 1
        elif name in ("input", "before_agent_start"):
            self.attempt = 0  # a new prompt: Pi's retry count starts over too
            self.compacting = False
            self.generation += 1
        elif name == "session_before_compact":
            self.compacting = True
            self.generation += 1
        elif name == "session_compact":
            self.compacting = False
            if not self.running and self.last is not None:
                return self._arm(self.quiet_s)
        elif name == "agent_end":
            self.running = False
            self.last = run_end(data)
            return self._arm(self._delay(self.last))
        return None

    def fire(self, generation: int) -> RunEnd | None:
        """The run to settle on when timer ``generation`` rings, or None when it is stale or Pi
        is busy again. A settle is taken once."""
        if self.native or generation != self.generation or self.running or self.compacting:
            return None
        ended, self.last = self.last, None
        self.attempt = 0
        return ended

    def _delay(self, end: RunEnd) -> float:
        if end.aborted:
            return 0.0
        if end.stop_reason != "error":
            self.attempt = 0
            return self.quiet_s
        retry = self.retry
        if (
            retry.enabled
            and self.attempt < retry.max_retries
            and _TRANSIENT.search(end.error or "")
        ):
            delay = retry.delay_s(self.attempt) + self.quiet_s
            self.attempt += 1
            return delay
        return self.quiet_s

    def _arm(self, delay: float) -> Arm:
        self.generation += 1
        return Arm(delay, self.generation)


SETTLES_ITSELF = (0, 80, 6)
"""The first published Pi with ``agent_before_settle`` and ``agent_settled``."""


def settles_itself(version: str | None) -> bool:
    """Whether a Pi of this version (``"0.80.6"``, ``"1.6.0-beta.1"``) has its own settle events."""
    if not version:
        return False
    parts = re.findall(r"\d+", version.split("-", 1)[0])[:3]
    if len(parts) < 3:
        return False
    return tuple(int(p) for p in parts) >= SETTLES_ITSELF


def run_end(data: dict[str, Any]) -> RunEnd:
    stop = data.get("stopReason")
    error = data.get("errorMessage")
    text = data.get("lastText")
    return RunEnd(
        stop_reason=stop if isinstance(stop, str) and stop else "stop",
        error=error if isinstance(error, str) and error else None,
        last_text=text if isinstance(text, str) else "",
    )


SETTINGS_MAX_BYTES = 1024 * 1024


def retry_settings(project: Path, env: dict[str, str]) -> RetrySettings:
    """Pi's ``retry`` settings: global (``PI_CODING_AGENT_DIR`` or ``~/.pi/agent``) then the
    project's ``.pi/settings.json``. Unreadable files and odd values are ignored."""
    agent_dir = env.get("PI_CODING_AGENT_DIR") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".pi", "agent"
    )
    merged: dict[str, Any] = {}
    from goalkeeper.store.safe_read import read_capped

    for path in (Path(agent_dir) / "settings.json", project / ".pi" / "settings.json"):
        try:  # the project's file is the agent's: a FIFO there must not hang the bridge
            data = json.loads(read_capped(path, SETTINGS_MAX_BYTES).decode("utf-8"))
        except (OSError, ValueError, RecursionError):
            continue
        retry = data.get("retry") if isinstance(data, dict) else None
        if isinstance(retry, dict):
            merged.update(retry)
    defaults = RetrySettings()
    enabled = merged.get("enabled")
    return RetrySettings(
        enabled=enabled if isinstance(enabled, bool) else defaults.enabled,
        max_retries=_count(merged.get("maxRetries"), defaults.max_retries),
        base_delay_ms=_count(merged.get("baseDelayMs"), defaults.base_delay_ms),
    )


def _count(value: object, default: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10_000_000:
        return value
    return default
