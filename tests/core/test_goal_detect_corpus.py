"""Goal detection measured on a labelled set of prompts (issue 12, seed 001 decision 8).

``tests/data/goal_prompts.jsonl`` holds what users of a coding agent type, in English and in
Chinese: goals (a ``goal:`` label, "keep going until …", "get every test green", ``/goal``) and,
for half of the set, hard negatives that look like goals and are not: translations, summaries and
quotes of a goal sentence, first-person "I'll keep going until …", time bounds ("until lunch"),
reported speech, questions, hypotheticals, past-tense reports, negations, code reviews that
mention tests. A false trigger keeps an agent busy with work nobody asked for, a miss costs the
user a ``/goal``: both are measured, and the targets hold on each half of a stable split (by a
digest of the text) as well as on the whole, so that a rule fitted to one exact string shows.

``goal_prompts_holdout.jsonl`` (60 prompts in the same categories, new wording) was written after
the rules were tuned on the first file and measured once before any change: precision 0.964,
recall 0.964 (one time bound "until 6" and one "最终目标是" missed). It is kept as a second part.

``goal_shape.jsonl`` and ``goal_shape_holdout.jsonl`` (issue 23, 255 + 80 prompts, en and zh,
half goals, half anti-triggers) were written for the *shape* of a goal: a request with a
completion condition or a goal label, against quotes, code, reported speech, past tense,
questions, hypotheticals, negations, time bounds and trivial tasks. Before the shape rule:
precision 0.951 / recall 0.500 on the first, 0.923 / 0.300 on the held-out part. The rules were
tuned on the first file only; the held-out file is never tuned on (tests/data/README.md).
``benchmarks/goal_detection.py`` prints the same figures with timings.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.core.goals.detect import detect_goal

DATA = Path(__file__).resolve().parents[1] / "data"
CORPUS = DATA / "goal_prompts.jsonl"
HOLDOUT = DATA / "goal_prompts_holdout.jsonl"
SHAPE = DATA / "goal_shape.jsonl"
SHAPE_HOLDOUT = DATA / "goal_shape_holdout.jsonl"
SHAPE_PRECISION = 0.97
SHAPE_RECALL = 0.95
PRECISION = 0.95
RECALL = 0.9
COARSE_ACCURACY = 0.9


def _rows(path: Path = CORPUS) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _half(text: str) -> str:
    """A split that does not depend on the file's order: the parity of the text's digest."""
    return "A" if hashlib.sha256(text.encode("utf-8")).digest()[0] % 2 == 0 else "B"


@dataclass(frozen=True, slots=True)
class Score:
    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def __str__(self) -> str:
        n = self.tp + self.fp + self.fn + self.tn
        return (
            f"n={n} precision={self.precision:.3f} recall={self.recall:.3f} "
            f"(tp={self.tp} fp={self.fp} fn={self.fn} tn={self.tn})"
        )


def _score(rows: list[dict[str, Any]]) -> tuple[Score, list[str]]:
    tp = fp = fn = tn = 0
    wrong: list[str] = []
    for row in rows:
        found = detect_goal(row["text"]) is not None
        goal = row["label"] == "goal"
        tp += found and goal
        fp += found and not goal
        fn += goal and not found
        tn += not found and not goal
        if found != goal:
            wrong.append(f"{'FP' if found else 'FN'} [{row['lang']}] {row['text']!r}")
    return Score(tp, fp, fn, tn), wrong


def test_the_corpus_is_balanced() -> None:
    """At least 150 prompts, each language roughly half, half of them hard negatives."""
    rows = _rows()
    assert len(rows) >= 150
    assert {row["label"] for row in rows} == {"goal", "not"}
    for lang in ("en", "zh"):
        share = sum(row["lang"] == lang for row in rows) / len(rows)
        assert 0.4 <= share <= 0.6, lang
    assert sum(bool(row["hard"]) for row in rows) >= len(rows) / 2
    assert len({row["text"] for row in rows}) == len(rows)


@pytest.mark.parametrize("part", ["all", "en", "zh", "A", "B", "holdout"])
def test_precision_and_recall(part: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The targets hold on the whole set, per language, on each digest half and on the
    held-out file."""
    rows = _rows(HOLDOUT if part == "holdout" else CORPUS)
    if part in ("en", "zh"):
        rows = [row for row in rows if row["lang"] == part]
    elif part in ("A", "B"):
        rows = [row for row in rows if _half(row["text"]) == part]
    score, wrong = _score(rows)
    with capsys.disabled():
        print(f"\ngoal detection [{part}]: {score}")
        for line in wrong:
            print("  " + line)
    assert score.precision >= PRECISION, wrong
    assert score.recall >= RECALL, wrong


def test_goal_size(capsys: pytest.CaptureFixture[str]) -> None:
    """A detected goal's size (coarse: many files, modules, architecture) matches its label."""
    rows = [row for row in _rows() + _rows(HOLDOUT) if row["label"] == "goal"]
    right = 0
    wrong: list[str] = []
    for row in rows:
        intent = detect_goal(row["text"])
        if intent is not None and intent.coarse == row.get("coarse", False):
            right += 1
        elif intent is not None and "coarse" in row:
            wrong.append(f"coarse={intent.coarse} {row['text']!r}")
    detected = sum(detect_goal(row["text"]) is not None for row in rows)
    with capsys.disabled():
        print(f"\ngoal size: {right} of {detected} detected goals sized right; wrong: {wrong}")
    assert detected and right / detected >= COARSE_ACCURACY, wrong


def test_the_shape_set_is_balanced() -> None:
    """At least 300 prompts over both files, both languages, about half of them goals."""
    rows = _rows(SHAPE) + _rows(SHAPE_HOLDOUT)
    assert len(rows) >= 300
    assert len({row["text"] for row in rows}) == len(rows)
    for lang in ("en", "zh"):
        assert 0.4 <= sum(row["lang"] == lang for row in rows) / len(rows) <= 0.6, lang
    assert 0.4 <= sum(row["label"] == "goal" for row in rows) / len(rows) <= 0.6


@pytest.mark.parametrize("part", ["all", "en", "zh", "holdout"])
def test_shape_precision_and_recall(part: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23's targets (precision >= 0.97, recall >= 0.95) on the whole shape set, per
    language, and on its held-out part alone."""
    rows = _rows(SHAPE_HOLDOUT) if part == "holdout" else _rows(SHAPE) + _rows(SHAPE_HOLDOUT)
    if part in ("en", "zh"):
        rows = [row for row in rows if row["lang"] == part]
    score, wrong = _score(rows)
    with capsys.disabled():
        print(f"\ngoal shape [{part}]: {score}")
        for line in wrong:
            print("  " + line)
    assert score.precision >= SHAPE_PRECISION, wrong
    assert score.recall >= SHAPE_RECALL, wrong
