"""The route of a coarse goal on labelled goals: is an architecture goal sent to the
``architecture`` route, and is nothing else (issue 23 item 2)?

Sets (``tests/data``, one JSON object a line with ``text`` and ``route``):
- ``goal_routes.jsonl``: the rules are tuned on it;
- ``goal_routes_holdout.jsonl``: issue 23's held-out set (18 goals, 7 of them architecture);
- ``goal_routes_holdout2.jsonl`` … ``…5``: further held-out sets (32, 36, 30 and 30 goals, half
  architecture). 2 was written before round two, whose rules were written after its misses
  were read; 3, 4 and 5 were each written after a round (two, three, four) and scored once
  before the next round read them: each is the clean figure of the round before it.

Per set: how many goals get their route, and for the ``architecture`` route its precision (of
the goals sent there, how many belong) and recall (of the architecture goals, how many are sent
there). A miss in recall sends a structural goal through idea-to-ship (it is still shaped and
verified); a miss in precision sends a feature through the architecture survey.

Run: .venv/bin/python benchmarks/goal_routing.py [--json] [--misses]
Before/after: run it with ``PYTHONPATH=<other checkout>/src`` to score other rules.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import _bench

DATA = _bench.REPO / "tests" / "data"
SETS = {
    "tuned": DATA / "goal_routes.jsonl",
    "holdout": DATA / "goal_routes_holdout.jsonl",
    "holdout2": DATA / "goal_routes_holdout2.jsonl",
    "holdout3": DATA / "goal_routes_holdout3.jsonl",
    "holdout4": DATA / "goal_routes_holdout4.jsonl",
    "holdout5": DATA / "goal_routes_holdout5.jsonl",
}
ARCHITECTURE = "architecture"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--misses", action="store_true", help="list the goals routed wrong")
    return parser.parse_args()


def rows_of(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    from goalkeeper.core.goals.size import route_for

    got = [(row, route_for(row["text"])) for row in rows]
    sent = [row for row, route in got if route == ARCHITECTURE]
    meant = [row for row in rows if row["route"] == ARCHITECTURE]
    both = [row for row in sent if row["route"] == ARCHITECTURE]
    return {
        "goals": len(rows),
        "right": sum(1 for row, route in got if route == row["route"]),
        "architecture": len(meant),
        "architecture_found": len(both),
        "precision": round(len(both) / len(sent), 3) if sent else 1.0,
        "recall": round(len(both) / len(meant), 3) if meant else 1.0,
        "misses": [f"{row['route']}: {row['text']}" for row, route in got if route != row["route"]],
    }


def main() -> int:
    args = parse_args()
    result = {
        "git": _bench.git_state(),
        "sets": {name: score(rows_of(path)) for name, path in SETS.items() if path.exists()},
    }
    if args.json:
        _bench.print_json(result)
        return 0
    table = [
        (
            name,
            f"{s['right']}/{s['goals']}",
            f"{s['architecture_found']}/{s['architecture']}",
            f"{s['precision']:.3f}",
            f"{s['recall']:.3f}",
        )
        for name, s in result["sets"].items()
    ]
    print(f"goal routing — git {result['git']}")
    _bench.print_table(["set", "right", "architecture found", "precision", "recall"], table)
    if args.misses:
        for name, s in result["sets"].items():
            for miss in s["misses"]:
                print(f"  {name} miss — {miss}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
