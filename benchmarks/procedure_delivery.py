"""How many characters of procedure text goalkeeper puts into the model's context per workflow
event, now that the procedure files are the upstream methods themselves (issue 23).

Procedures are not injected every turn: a step delivers the texts not yet delivered in the
session (delta delivery, catalog spec §6.5), so the cost is per event — a route's start, each
transition, a reference load, a standalone capability, a restore. This drives the real engine
(``Supervisor``, the built-in catalog, English, Claude Code's tool names) through every route:
the start, then transitions along the route (the first allowed next procedure not yet visited)
until none is left, and every model-reachable capability once. It reports the characters of
each delivered text and, per route, the whole walk; the per-turn guidance of an active workflow
is shown for reference (it carries no procedure text).

Before/after: run it against another checkout's sources, e.g.
``PYTHONPATH=/path/to/other/src .venv/bin/python benchmarks/procedure_delivery.py``.

Run: .venv/bin/python benchmarks/procedure_delivery.py [--json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from goalkeeper.config import Config
from goalkeeper.core.values import Advise, BeforeAgentStart, Reply, ToolCall
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock

NAMES = {n: f"mcp__goalkeeper__{n}" for n in ("workflow", "workflow_active", "workflow_ask")}


def reply_text(sup: Supervisor, session: str, tool: str, args: dict[str, Any]) -> str:
    actions = sup.handle([ToolCall(session, tool, args)]).actions
    return "\n".join(a.text for a in actions if isinstance(a, Reply))


def walk(project: Path, route: str) -> dict[str, Any]:
    """Start ``route`` in a fresh session and move through it; the characters of each step."""
    config = Config(no_plan="silent", lang="en")
    sup = Supervisor(
        project,
        config,
        host="bench",
        capabilities=CLAUDE_CAPABILITIES,
        clock=FakeClock(),
        tool_names=NAMES,
    )
    session = f"s-{route}"
    start = reply_text(sup, session, "workflow", {"mode": "workflow", "route": route})
    steps = [("start", len(start))]
    catalog = sup.procedures().catalog
    entry = catalog.entry(route)
    assert entry is not None, route
    current = entry.id
    seen = {current}
    guidance = sup.handle([BeforeAgentStart(session)]).actions
    per_turn = max((len(a.text) for a in guidance if isinstance(a, Advise)), default=0)
    while True:
        nxt = [n for n in catalog.allowed(route, current) if catalog.normalize(n) not in seen]
        if not nxt:
            break
        target = catalog.normalize(nxt[0])
        text = reply_text(
            sup, session, "workflow_active", {"action": "transition", "target": target}
        )
        steps.append((target, len(text)))
        seen.add(target)
        current = target
    return {"route": route, "steps": steps, "total": sum(n for _, n in steps), "turn": per_turn}


def capabilities(project: Path) -> list[tuple[str, int]]:
    config = Config(no_plan="silent", lang="en")
    sup = Supervisor(
        project,
        config,
        host="bench",
        capabilities=CLAUDE_CAPABILITIES,
        clock=FakeClock(),
        tool_names=NAMES,
    )
    found = []
    for p in sup.procedures().catalog.model_standalone():
        text = reply_text(sup, "s-cap", "workflow", {"mode": "capability", "capability": p.id})
        found.append((p.id, len(text)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        routes = ["idea-to-ship", "hard-bug", "triage", "wayfinding", "architecture"]
        walks = [walk(project, r) for r in routes]
        caps = capabilities(project)
    if args.json:
        print(json.dumps({"routes": walks, "capabilities": caps}))
        return
    for w in walks:
        steps = ", ".join(f"{name} {n:,}" for name, n in w["steps"])
        print(f"{w['route']}: {steps}; walk total {w['total']:,}; per-turn guidance {w['turn']:,}")
    print("capabilities: " + ", ".join(f"{name} {n:,}" for name, n in caps))


if __name__ == "__main__":
    main()
