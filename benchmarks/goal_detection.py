"""Goal detection on labelled prompts: precision and recall, and what it costs per prompt.

Targets (issue 23): precision >= 0.97 and recall >= 0.95 on the shape set
(``tests/data/goal_shape.jsonl`` + ``goal_shape_holdout.jsonl``, en and zh, half goals, half
anti-triggers). The figures are printed overall, per language, for the part the rules were tuned
on and for the held-out part (never tuned on: tests/data/README.md), and for issue 12's set.

Cost: ``detect_goal`` runs on every prompt in the UserPromptSubmit hook, so its time per prompt
is measured for the checkout and for the detector at ``--against REV`` (default: the merge base
with ``main``), each in a fresh process of its own (two versions of one package cannot share a
process), alternating, ``--reps`` rounds over every prompt of the sets after a warm-up round
(regexes compiled). Per round the figure is the mean over the prompts; the report gives the
median and p90 of the rounds, in microseconds, and the slowest single prompt. The earlier
detector's precision and recall on the same sets are shown beside the current ones.

Run: .venv/bin/python benchmarks/goal_detection.py [--reps 30] [--against REV] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

import _bench

DATA = _bench.REPO / "tests" / "data"
SETS = {
    "shape": DATA / "goal_shape.jsonl",
    "shape_holdout": DATA / "goal_shape_holdout.jsonl",
    "issue12": DATA / "goal_prompts.jsonl",
    "issue12_holdout": DATA / "goal_prompts_holdout.jsonl",
}
PRECISION = 0.97
RECALL = 0.95
ROUNDS_PER_CHILD = 5


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=30, help="measured rounds (default 30)")
    parser.add_argument("--against", default=None, help="git revision to compare with")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--worker", type=int, default=0, help=argparse.SUPPRESS)
    return parser.parse_args()


def rows_of(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# ---------------------------------------------------------------------------------------------
# The worker: runs in a process that imports one version of goalkeeper
# ---------------------------------------------------------------------------------------------


def worker(rounds: int) -> dict[str, Any]:
    """Scores and timings of the ``goalkeeper`` this process imports."""
    from goalkeeper.core.goals import detect
    from goalkeeper.core.goals.detect import detect_goal

    found: dict[str, list[bool]] = {}
    prompts: list[str] = []
    for name, path in SETS.items():
        texts = [row["text"] for row in rows_of(path)]
        found[name] = [detect_goal(t) is not None for t in texts]  # also the warm-up round
        prompts.extend(texts)
    per_round: list[float] = []
    slowest = 0.0
    for _ in range(rounds):
        total = 0.0
        for text in prompts:
            started = time.perf_counter()
            detect_goal(text)
            elapsed = time.perf_counter() - started
            total += elapsed
            slowest = max(slowest, elapsed)
        per_round.append(total / len(prompts))
    return {"found": found, "per_prompt": per_round, "slowest": slowest, "module": detect.__file__}


# ---------------------------------------------------------------------------------------------
# Scores
# ---------------------------------------------------------------------------------------------


def score(rows: list[dict[str, Any]], found: list[bool]) -> dict[str, Any]:
    tp = sum(f and r["label"] == "goal" for r, f in zip(rows, found, strict=True))
    fp = sum(f and r["label"] != "goal" for r, f in zip(rows, found, strict=True))
    fn = sum(not f and r["label"] == "goal" for r, f in zip(rows, found, strict=True))
    return {
        "n": len(rows),
        "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 3) if tp + fn else 1.0,
        "fp": fp,
        "fn": fn,
        "wrong": [
            f"{'FP' if f else 'FN'} [{r['lang']}] {r['text']!r}"
            for r, f in zip(rows, found, strict=True)
            if f != (r["label"] == "goal")
        ],
    }


def parts(found: dict[str, list[bool]]) -> dict[str, dict[str, Any]]:
    """Scores of the shape set (whole, per language, tuned and held-out parts) and issue 12's."""
    data = {name: rows_of(path) for name, path in SETS.items()}
    pairs = {name: list(zip(data[name], found[name], strict=True)) for name in SETS}
    shape = pairs["shape"] + pairs["shape_holdout"]
    chosen = {
        "shape (all)": shape,
        "shape en": [p for p in shape if p[0]["lang"] == "en"],
        "shape zh": [p for p in shape if p[0]["lang"] == "zh"],
        "shape tuned part": pairs["shape"],
        "shape held-out": pairs["shape_holdout"],
        "issue 12 set": pairs["issue12"] + pairs["issue12_holdout"],
    }
    return {k: score([r for r, _ in v], [f for _, f in v]) for k, v in chosen.items()}


# ---------------------------------------------------------------------------------------------
# Running the two versions
# ---------------------------------------------------------------------------------------------


def merge_base() -> str | None:
    proc = subprocess.run(
        ["git", "-C", str(_bench.REPO), "merge-base", "HEAD", "main"],
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def export_sources(rev: str, dest: Path) -> Path:
    """``src/goalkeeper`` at ``rev``, unpacked under ``dest``; returns the ``src`` folder."""
    archive = dest / "src.tar"
    with archive.open("wb") as out:
        subprocess.run(
            ["git", "-C", str(_bench.REPO), "archive", rev, "src/goalkeeper"],
            stdout=out,
            check=True,
        )
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    return dest / "src"


def child(src: Path, rounds: int) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(src))
    proc = subprocess.run(
        [_bench.PYTHON, str(Path(__file__).resolve()), "--worker", str(rounds)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=600,
    )
    if proc.returncode != 0:
        raise _bench.BenchError(f"worker on {src} exited {proc.returncode}: {proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout)
    if not str(result["module"]).startswith(str(src)):
        raise _bench.BenchError(f"the worker imported {result['module']}, not {src}")
    return result


def run(args: argparse.Namespace) -> dict[str, Any]:
    against = args.against or merge_base()
    with tempfile.TemporaryDirectory(prefix="gk-bench-detect-") as tmp:
        versions = {"now": _bench.SRC}
        if against:
            versions[f"at {against[:10]}"] = export_sources(against, Path(tmp))
        results: dict[str, dict[str, Any]] = {
            name: {"per_prompt": [], "slowest": 0.0} for name in versions
        }
        done = 0
        while done < args.reps:
            rounds = min(ROUNDS_PER_CHILD, args.reps - done)
            for name, src in versions.items():  # alternating: noise hits both alike
                got = child(src, rounds)
                results[name]["found"] = got["found"]
                results[name]["per_prompt"] += got["per_prompt"]
                results[name]["slowest"] = max(results[name]["slowest"], got["slowest"])
            done += rounds
    report: dict[str, Any] = {"machine": _bench.machine(), "targets": [PRECISION, RECALL]}
    report["versions"] = {
        name: {
            "scores": parts(r["found"]),
            "per_prompt_us": _bench.stats(r["per_prompt"]).to_dict(scale=1e6),
            "slowest_prompt_us": round(r["slowest"] * 1e6, 1),
        }
        for name, r in results.items()
    }
    now = report["versions"]["now"]["scores"]["shape (all)"]
    report["pass"] = now["precision"] >= PRECISION and now["recall"] >= RECALL
    return report


def print_report(data: dict[str, Any]) -> None:
    print(_bench.headline("goal detection", data["machine"]))
    rows = []
    for version, v in data["versions"].items():
        for part, s in v["scores"].items():
            rows.append([version, part, s["n"], s["precision"], s["recall"], s["fp"], s["fn"]])
    _bench.print_table(["detector", "set", "n", "precision", "recall", "FP", "FN"], rows)
    print()
    _bench.print_table(
        ["detector", "per prompt median µs", "p90 µs", "slowest prompt µs"],
        [
            [name, v["per_prompt_us"]["median"], v["per_prompt_us"]["p90"], v["slowest_prompt_us"]]
            for name, v in data["versions"].items()
        ],
    )
    for line in data["versions"]["now"]["scores"]["shape (all)"]["wrong"]:
        print("  " + line)
    p, r = data["targets"]
    print(f"{_bench.verdict(data['pass'])}  shape set: precision >= {p}, recall >= {r}")


if __name__ == "__main__":
    parsed = parse_args()
    if parsed.worker:
        print(json.dumps(worker(parsed.worker)))
        sys.exit(0)
    sys.exit(_bench.main(lambda: parsed, run, print_report))
