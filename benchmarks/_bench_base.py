"""What every benchmark helper module shares: where the sources are, which interpreter is
measured, and the one error a measured command raises."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src"
PYTHON = sys.executable  # the interpreter running the benchmark is the one measured
FORWARDED_PREFIXES = ("GOALKEEPER_", "CLAUDE_", "PI_TODONE_")


class BenchError(RuntimeError):
    """A measured command misbehaved: its figure would mean nothing."""
