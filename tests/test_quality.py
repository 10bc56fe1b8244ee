"""The project's own checks run with the tests: ruff (lint and format) and mypy --strict."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize(
    "args",
    [
        ("ruff", "check", "src", "tests", "benchmarks"),
        ("ruff", "format", "--check", "src", "tests", "benchmarks"),
    ],
)
def test_ruff(args: tuple[str, ...]) -> None:
    """Lint and formatting are clean."""
    result = run(*args)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict() -> None:
    """src/ type-checks under mypy --strict (configured in pyproject.toml)."""
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr
