"""Statistics and interleaved timing: medians and p90s of samples taken in a random order."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from _bench_base import BenchError

# ---------------------------------------------------------------------------------------------
# Statistics and interleaved timing
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stats:
    n: int
    median: float
    p90: float
    minimum: float

    def to_dict(self, scale: float = 1000.0) -> dict[str, float | int]:
        """Rounded figures in milliseconds (``scale=1000``) or microseconds (``1e6``)."""
        return {
            "n": self.n,
            "median": round(self.median * scale, 3),
            "p90": round(self.p90 * scale, 3),
            "min": round(self.minimum * scale, 3),
        }


def percentile(samples: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (``q`` in 0..100) of a non-empty sample."""
    ordered = sorted(samples)
    if len(ordered) == 1:
        return ordered[0]
    pos = (len(ordered) - 1) * q / 100.0
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def stats(samples: Sequence[float]) -> Stats:
    return Stats(len(samples), percentile(samples, 50), percentile(samples, 90), min(samples))


def interleave(
    cases: Mapping[str, Callable[[], float]],
    reps: int,
    warmup: int = 2,
    seed: int | None = None,
    progress: bool = True,
) -> dict[str, list[float]]:
    """Run every case ``reps`` times, in a fresh random order in each round.

    A case prepares whatever it needs (untimed) and returns the seconds of the part measured.
    ``warmup`` rounds are run first and thrown away (page cache, engine caches, CPU clocks).
    """
    rng = random.Random(seed)
    names = list(cases)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_no in range(warmup + reps):
        rng.shuffle(names)
        for name in names:
            elapsed = cases[name]()
            if round_no >= warmup:
                samples[name].append(elapsed)
        if progress and sys.stderr.isatty():
            sys.stderr.write(f"\r  round {round_no + 1}/{warmup + reps}")
            sys.stderr.flush()
    if progress and sys.stderr.isatty():
        sys.stderr.write("\r" + " " * 30 + "\r")
    return samples


def time_process(
    argv: Sequence[str], stdin: bytes, env: Mapping[str, str], cwd: Path, timeout: float = 60
) -> tuple[float, bytes]:
    """Wall time of one fresh process, from spawn to exit, and its stdout.

    The spawn cost of ``subprocess`` is in every figure, the baseline's included, so it cancels
    out of the ratios.
    """
    started = time.perf_counter()
    proc = subprocess.run(
        list(argv),
        input=stdin,
        capture_output=True,
        env=dict(env),
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if proc.returncode != 0 or b"Traceback" in proc.stderr:
        raise BenchError(
            f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}"
        )
    return elapsed, proc.stdout
