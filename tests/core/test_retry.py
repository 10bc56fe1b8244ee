"""The API-error retry schedule (seed 001 §5): 10 retries in about 37 minutes."""

from __future__ import annotations

from goalkeeper.core.goals.retry import RETRIES, retry_delay_s, retry_schedule


def test_ten_retries_double_from_4_s_to_the_10_minute_cap_37_minutes_in_all() -> None:
    """4, 8, … 512 s, then 600 s twice: 2220 s, the seed's "≈ 37 min"."""
    schedule = retry_schedule()
    assert len(schedule) == RETRIES == 10
    assert schedule == (4, 8, 16, 32, 64, 128, 256, 512, 600, 600)
    assert sum(schedule) == 37 * 60


def test_a_smaller_base_keeps_the_shape_down_to_milliseconds() -> None:
    """1 ms keeps doubling and capping alike (tests run the whole ladder in half a second)."""
    assert retry_schedule(base_ms=1) == tuple(d / 4000 for d in retry_schedule())
    assert retry_delay_s(0) == 0 and retry_delay_s(3, base_ms=0) == 0
    assert retry_delay_s(10_000) == 600
