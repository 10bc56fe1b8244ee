"""When a Pi 0.73.x run has truly settled: ``SettleTracker`` driven with the event names and
slim payloads the extension forwards, and Pi's retry settings read from its settings files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.hosts.pi.settle import (
    QUIET_S,
    Arm,
    RetrySettings,
    RunEnd,
    SettleTracker,
    retry_settings,
    run_end,
    settles_itself,
)


def end(stop: str = "stop", error: str | None = None, text: str = "done") -> dict[str, Any]:
    """The slim ``agent_end`` payload the extension sends."""
    data: dict[str, Any] = {"stopReason": stop, "lastText": text}
    if error is not None:
        data["errorMessage"] = error
    return data


def ended_run(tracker: SettleTracker, **kw: Any) -> Arm:
    """``agent_start`` then ``agent_end``: the timer the end arms."""
    assert tracker.on_event("agent_start", {}) is None
    arm = tracker.on_event("agent_end", end(**kw))
    assert arm is not None
    return arm


# -- plain runs ------------------------------------------------------------------------------


def test_a_plain_run_settles_once_after_the_quiet_window() -> None:
    """A run that stops arms the quiet window; its timer gives the run once, then nothing."""
    tracker = SettleTracker()
    arm = ended_run(tracker, text="[PDCA] do")
    assert arm.delay_s == QUIET_S == 0.5
    assert tracker.fire(arm.generation) == RunEnd("stop", None, "[PDCA] do")
    assert tracker.fire(arm.generation) is None


def test_each_timer_has_its_own_generation() -> None:
    """A later arm replaces the earlier one: only the newest generation settles."""
    tracker = SettleTracker()
    first = ended_run(tracker, text="one")
    second = ended_run(tracker, text="two")
    assert second.generation > first.generation
    assert tracker.fire(first.generation) is None
    assert tracker.fire(second.generation) == RunEnd("stop", None, "two")


def test_a_run_starting_again_voids_the_timer() -> None:
    """A chained run (another extension's follow-up) starting after agent_end: no settle."""
    tracker = SettleTracker()
    arm = ended_run(tracker)
    assert tracker.on_event("agent_start", {}) is None
    assert tracker.fire(arm.generation) is None
    later = tracker.on_event("agent_end", end(text="after the chain"))
    assert later is not None
    assert tracker.fire(later.generation) == RunEnd("stop", None, "after the chain")


@pytest.mark.parametrize("name", ["input", "before_agent_start"])
def test_a_new_prompt_voids_the_timer(name: str) -> None:
    """A prompt arriving in the quiet window means Pi is busy again."""
    tracker = SettleTracker()
    arm = ended_run(tracker)
    assert tracker.on_event(name, {"text": "next"}) is None
    assert tracker.fire(arm.generation) is None


@pytest.mark.parametrize(
    "name",
    ["turn_end", "tool_call", "tool_result", "message_end", "session_start", "session_shutdown"],
)
def test_other_events_leave_the_pending_timer_alone(name: str) -> None:
    """Trailing notifications after agent_end neither arm nor void the settle."""
    tracker = SettleTracker()
    arm = ended_run(tracker, text="last words")
    assert tracker.on_event(name, {"turnIndex": 3, "toolName": "bash"}) is None
    assert tracker.fire(arm.generation) == RunEnd("stop", None, "last words")


def test_no_settle_while_a_run_is_going() -> None:
    """A timer ringing while a run is going settles nothing."""
    tracker = SettleTracker()
    assert tracker.on_event("agent_start", {}) is None
    assert tracker.fire(tracker.generation) is None


@pytest.mark.parametrize("stop", ["length", "toolUse", "stop"])
def test_completed_stops_wait_the_quiet_window(stop: str) -> None:
    """Every non-error, non-abort stop reason waits the quiet window."""
    assert ended_run(SettleTracker(), stop=stop).delay_s == QUIET_S


def test_an_aborted_run_settles_at_once() -> None:
    """The user pressed Escape: no retry follows, so no waiting."""
    tracker = SettleTracker()
    arm = ended_run(tracker, stop="aborted", text="")
    assert arm.delay_s == 0.0
    settled = tracker.fire(arm.generation)
    assert settled is not None and settled.aborted


def test_the_quiet_window_is_configurable() -> None:
    """A tracker made with another quiet window uses it."""
    assert ended_run(SettleTracker(quiet_s=0.2)).delay_s == 0.2


# -- errors and Pi's automatic retry ---------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        "503 Service Unavailable",
        "429 rate limit exceeded",
        "Rate-limit reached",
        "Too Many Requests",
        "overloaded_error: Overloaded",
        "502 Bad Gateway",
        "fetch failed",
        "read ECONNRESET",
        "Request timed out",
        "network error",
        "connection refused",
        "temporarily unavailable",
    ],
)
def test_a_transient_error_waits_for_pis_retry(message: str) -> None:
    """Pi retries a transient error after its back-off: settle only after that and the quiet."""
    arm = ended_run(SettleTracker(), stop="error", error=message)
    assert arm.delay_s == 2.0 + QUIET_S


def test_retry_back_off_doubles_until_the_budget_is_spent() -> None:
    """base × 2^attempt per retry; after max_retries the error settles after the quiet window."""
    tracker = SettleTracker(RetrySettings(max_retries=3, base_delay_ms=2000))
    delays = [
        ended_run(tracker, stop="error", error="503 Service Unavailable").delay_s for _ in range(4)
    ]
    assert delays == [2.5, 4.5, 8.5, QUIET_S]
    assert tracker.attempt == 3


def test_the_error_settles_when_no_retry_came() -> None:
    """The back-off passed with no agent_start: the error run is settled on, with its message."""
    tracker = SettleTracker()
    arm = ended_run(tracker, stop="error", error="429 rate limit", text="partial")
    assert tracker.fire(arm.generation) == RunEnd("error", "429 rate limit", "partial")
    assert tracker.attempt == 0  # a settle starts the count over


def test_the_retry_run_voids_the_error_timer() -> None:
    """Pi's retry starts (agent_start) within the back-off: the error is not settled on."""
    tracker = SettleTracker()
    arm = ended_run(tracker, stop="error", error="503 Service Unavailable")
    assert tracker.on_event("agent_start", {}) is None
    assert tracker.fire(arm.generation) is None
    ok = tracker.on_event("agent_end", end(text="recovered"))
    assert ok is not None and ok.delay_s == QUIET_S
    assert tracker.fire(ok.generation) == RunEnd("stop", None, "recovered")


def test_a_success_starts_the_retry_count_over() -> None:
    """A run that stops normally resets the attempts, so the next error waits the base delay."""
    tracker = SettleTracker()
    ended_run(tracker, stop="error", error="503")
    ended_run(tracker, stop="error", error="503")
    ended_run(tracker)
    assert ended_run(tracker, stop="error", error="503").delay_s == 2.5


def test_a_new_prompt_starts_the_retry_count_over() -> None:
    """``input`` is a new prompt: Pi's retry count starts over, and so does goalkeeper's."""
    tracker = SettleTracker()
    ended_run(tracker, stop="error", error="503")
    ended_run(tracker, stop="error", error="503")
    assert tracker.attempt == 2
    tracker.on_event("input", {"text": "try again", "source": "interactive"})
    assert tracker.attempt == 0
    assert ended_run(tracker, stop="error", error="503").delay_s == 2.5


@pytest.mark.parametrize(
    "message", ["invalid x-api-key", "authentication_error: bad key", "Bad request", None]
)
def test_a_non_transient_error_settles_after_the_quiet_window(message: str | None) -> None:
    """An error Pi will not retry (or one without a message) waits only the quiet window."""
    tracker = SettleTracker()
    arm = ended_run(tracker, stop="error", error=message)
    assert arm.delay_s == QUIET_S
    assert tracker.attempt == 0
    settled = tracker.fire(arm.generation)
    assert settled is not None and settled.stop_reason == "error" and settled.error == message


def test_with_retry_off_every_error_settles_after_the_quiet_window() -> None:
    """``retry.enabled: false`` in Pi's settings: no back-off is waited for."""
    tracker = SettleTracker(RetrySettings(enabled=False))
    assert ended_run(tracker, stop="error", error="503").delay_s == QUIET_S


def test_delay_uses_the_configured_base() -> None:
    """Pi's ``baseDelayMs`` sets the first wait; the exponent is capped."""
    retry = RetrySettings(base_delay_ms=100)
    assert [retry.delay_s(n) for n in range(3)] == [0.1, 0.2, 0.4]
    assert retry.delay_s(100) == retry.delay_s(16)


# -- compaction ------------------------------------------------------------------------------


def test_compaction_after_a_run_voids_then_re_arms() -> None:
    """Threshold compaction after agent_end: no settle while it runs, a quiet window after."""
    tracker = SettleTracker()
    arm = ended_run(tracker, text="before compaction")
    assert tracker.on_event("session_before_compact", {"reason": None}) is None
    assert tracker.fire(arm.generation) is None
    again = tracker.on_event("session_compact", {})
    assert again is not None and again.delay_s == QUIET_S
    assert tracker.fire(again.generation) == RunEnd("stop", None, "before compaction")


def test_no_settle_while_compacting() -> None:
    """Even the current timer settles nothing while a compaction is going."""
    tracker = SettleTracker()
    ended_run(tracker)
    tracker.on_event("session_before_compact", {})
    assert tracker.fire(tracker.generation) is None


def test_overflow_compaction_then_retry_run() -> None:
    """Overflow: compaction, then Pi's retry run; the settle follows that run, not compaction."""
    tracker = SettleTracker()
    ended_run(tracker, stop="error", error="prompt is too long")
    tracker.on_event("session_before_compact", {})
    assert tracker.on_event("agent_start", {}) is None  # the retry starts before compact's end
    assert tracker.on_event("session_compact", {}) is None  # a run is going: nothing armed
    final = tracker.on_event("agent_end", end(text="after overflow"))
    assert final is not None
    assert tracker.fire(final.generation) == RunEnd("stop", None, "after overflow")


def test_compaction_without_a_run_arms_nothing() -> None:
    """A manual /compact with no run to settle on arms no timer."""
    tracker = SettleTracker()
    assert tracker.on_event("session_before_compact", {}) is None
    assert tracker.on_event("session_compact", {}) is None


def test_a_settled_run_is_not_settled_again_after_compaction() -> None:
    """A compaction after the settle was taken has nothing to re-arm."""
    tracker = SettleTracker()
    arm = ended_run(tracker)
    assert tracker.fire(arm.generation) is not None
    tracker.on_event("session_before_compact", {})
    assert tracker.on_event("session_compact", {}) is None


def test_a_compaction_that_never_ends_does_not_silence_later_runs() -> None:
    """After a cancelled or failed compaction, the next run that ends still settles."""
    tracker = SettleTracker()
    ended_run(tracker)
    tracker.on_event("session_before_compact", {})  # another extension cancels it: no end
    tracker.on_event("input", {"text": "go on", "source": "interactive"})
    tracker.on_event("before_agent_start", {})
    arm = ended_run(tracker, text="next run")
    assert tracker.fire(arm.generation) == RunEnd("stop", None, "next run")


# -- Pi's own settle events ------------------------------------------------------------------


@pytest.mark.parametrize("native", ["agent_before_settle", "agent_settled"])
def test_the_tracker_stands_down_once_pi_settles_itself(native: str) -> None:
    """Pi ≥ 0.80.6 says when it settles: from its first settle event on, no timer ever again."""
    tracker = SettleTracker()
    pending = ended_run(tracker)
    assert tracker.on_event(native, {"outcome": "completed", "aborted": False}) is None
    assert tracker.fire(pending.generation) is None
    for name, data in [
        ("agent_start", {}),
        ("agent_end", end()),
        ("agent_end", end(stop="aborted")),
        ("agent_end", end(stop="error", error="503")),
        ("session_before_compact", {}),
        ("session_compact", {}),
        ("input", {}),
    ]:
        assert tracker.on_event(name, data) is None
    assert tracker.native
    assert tracker.fire(tracker.generation) is None


# -- run_end ---------------------------------------------------------------------------------


def test_run_end_reads_the_slim_agent_end() -> None:
    """Stop reason, error and last text; odd or missing values fall back."""
    assert run_end(end(stop="error", error="boom", text="t")) == RunEnd("error", "boom", "t")
    assert run_end({}) == RunEnd("stop", None, "")
    odd = {"stopReason": 3, "errorMessage": "", "lastText": ["x"]}
    assert run_end(odd) == RunEnd("stop", None, "")
    assert run_end({"stopReason": ""}).stop_reason == "stop"


# -- retry_settings --------------------------------------------------------------------------


def write_settings(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_retry_defaults_without_settings(tmp_path: Path) -> None:
    """No settings files: Pi's defaults (on, 3 retries, 2000 ms)."""
    env = {"PI_CODING_AGENT_DIR": str(tmp_path / "agent")}
    assert retry_settings(tmp_path, env) == RetrySettings(True, 3, 2000)


def test_retry_settings_from_the_agent_dir(tmp_path: Path) -> None:
    """``$PI_CODING_AGENT_DIR/settings.json`` sets the global retry."""
    agent = tmp_path / "agent"
    write_settings(
        agent / "settings.json",
        {"theme": "dark", "retry": {"enabled": False, "maxRetries": 5, "baseDelayMs": 300}},
    )
    assert retry_settings(tmp_path, {"PI_CODING_AGENT_DIR": str(agent)}) == RetrySettings(
        False, 5, 300
    )


def test_retry_settings_from_home_when_no_agent_dir(tmp_path: Path) -> None:
    """Without PI_CODING_AGENT_DIR, ``$HOME/.pi/agent/settings.json`` is read."""
    home = tmp_path / "home"
    write_settings(home / ".pi" / "agent" / "settings.json", {"retry": {"maxRetries": 7}})
    assert retry_settings(tmp_path, {"HOME": str(home)}).max_retries == 7


def test_project_retry_settings_win(tmp_path: Path) -> None:
    """The project's ``.pi/settings.json`` overrides the global one, key by key."""
    agent = tmp_path / "agent"
    write_settings(agent / "settings.json", {"retry": {"maxRetries": 5, "baseDelayMs": 300}})
    write_settings(tmp_path / ".pi" / "settings.json", {"retry": {"maxRetries": 1}})
    assert retry_settings(tmp_path, {"PI_CODING_AGENT_DIR": str(agent)}) == RetrySettings(
        True, 1, 300
    )


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "[1, 2]",
        '"retry"',
        '{"retry": 3}',
        '{"retry": [1]}',
        '{"retry": null}',
        "\udcff",
    ],
)
def test_unreadable_settings_are_ignored(tmp_path: Path, content: str) -> None:
    """A broken or odd settings file is skipped; the other file still counts."""
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_bytes(content.encode("utf-8", "surrogateescape"))
    write_settings(tmp_path / ".pi" / "settings.json", {"retry": {"baseDelayMs": 500}})
    assert retry_settings(tmp_path, {"PI_CODING_AGENT_DIR": str(agent)}) == RetrySettings(
        True, 3, 500
    )


def test_a_settings_path_that_is_a_folder_is_ignored(tmp_path: Path) -> None:
    """settings.json being a directory is an unreadable file, not a crash."""
    (tmp_path / ".pi" / "settings.json").mkdir(parents=True)
    env = {"PI_CODING_AGENT_DIR": str(tmp_path / "agent")}
    assert retry_settings(tmp_path, env) == RetrySettings()


@pytest.mark.parametrize(
    "retry",
    [
        {"enabled": "no", "maxRetries": "5", "baseDelayMs": "100"},
        {"enabled": 0, "maxRetries": True, "baseDelayMs": False},
        {"enabled": None, "maxRetries": -1, "baseDelayMs": 10_000_001},
        {"maxRetries": 2.5, "baseDelayMs": 1e3},
    ],
)
def test_odd_retry_values_fall_back_to_the_defaults(tmp_path: Path, retry: object) -> None:
    """Values of the wrong type or out of range are ignored, one by one."""
    write_settings(tmp_path / ".pi" / "settings.json", {"retry": retry})
    env = {"PI_CODING_AGENT_DIR": str(tmp_path / "agent")}
    assert retry_settings(tmp_path, env) == RetrySettings()


def test_edge_values_are_taken(tmp_path: Path) -> None:
    """0 retries and a 0 ms base are valid settings, as is the largest delay allowed."""
    write_settings(
        tmp_path / ".pi" / "settings.json",
        {"retry": {"enabled": True, "maxRetries": 0, "baseDelayMs": 10_000_000}},
    )
    env = {"PI_CODING_AGENT_DIR": str(tmp_path / "agent")}
    assert retry_settings(tmp_path, env) == RetrySettings(True, 0, 10_000_000)


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("0.73.1", False),
        ("0.80.5", False),
        ("0.80.6", True),
        ("1.6.0", True),
        ("1.6.0-beta.2", True),
        ("", False),
        (None, False),
        ("unknown", False),
    ],
)
def test_which_pi_settles_itself(version: str | None, expected: bool) -> None:
    """Pi announces its own settle from 0.80.6 on; older or unknown versions get the heuristic."""
    assert settles_itself(version) is expected
