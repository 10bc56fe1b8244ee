"""docs/journal.md is the stream's contract: every journal kind the code writes is documented
there, so a consumer never meets an undocumented kind from this version."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "goalkeeper"
WRITTEN_ELSEWHERE = {"event", "decision", "verify_run", "evidence_run", "replay_run"}
"""Kinds the engine writes itself (supervisor.py, run_records.py), not through a ``Record``."""
CONTRACT = {"usage", "budget", "host", "error"}
"""Kinds a host or the budget accounting appends with ``journal.append``."""


def written_kinds() -> set[str]:
    """Every ``Record("kind", …)`` in the source; ``f"{what}_…"`` stands for goal and plan."""
    kinds: set[str] = set()
    for path in SRC.rglob("*.py"):
        for kind in re.findall(r'\bRecord\(\s*f?"([a-z_{}]+)"', path.read_text("utf-8")):
            kinds |= {kind.replace("{what}", w) for w in ("goal", "plan")}
    appended = re.findall(
        r'journal\.append\([^)]*?"([a-z_]+)"', (SRC / "engine" / "supervisor.py").read_text()
    )
    assert set(appended) >= {"event", "decision"}  # the pattern still finds the engine's own
    return kinds | WRITTEN_ELSEWHERE | CONTRACT


def test_every_kind_the_code_writes_is_documented() -> None:
    doc = (ROOT / "docs" / "journal.md").read_text("utf-8")
    documented = set(re.findall(r"^\| `([a-z_]+)`(?: / `([a-z_]+)`)*", doc, re.M))
    names = {n for row in documented for n in row if n}
    names |= set(re.findall(r"/ `([a-z_]+)`", doc))
    kinds = written_kinds()
    assert len(kinds) > 40
    assert kinds - names == set()


def test_the_documented_version_is_the_code_s() -> None:
    from goalkeeper.cli.report.stream import STREAM_VERSION

    doc = (ROOT / "docs" / "journal.md").read_text("utf-8")
    assert f'{{"v": {STREAM_VERSION}, ' in doc
    assert f"schema version, `{STREAM_VERSION}`" in doc


def test_every_action_a_decision_can_name_is_documented() -> None:
    """A ``decision`` lists actions by class name; Inspect and Record never reach it."""
    from typing import get_args

    from goalkeeper.core.values import Action

    doc = (ROOT / "docs" / "journal.md").read_text("utf-8")
    row = next(line for line in doc.splitlines() if line.startswith("| `decision`"))
    named = {a.__name__ for a in get_args(Action)} - {"Inspect", "Record"}
    assert {n for n in named if f"`{n}`" not in row} == set()
