"""How many characters of procedure text goalkeeper puts into the model's context per workflow
event, now that the procedure files are the upstream methods themselves (issue 23).

Procedures are not injected every turn: a step delivers the texts not yet delivered in the
session (delta delivery, catalog spec §6.5), so the cost is per event — a route's start, each
transition, a reference load, a standalone capability, a restore. This drives the real engine
(``Supervisor``, the built-in catalog, English, Claude Code's tool names) through every route:
the start, then transitions along the route (the first allowed next procedure not yet visited)
until none is left, and every model-reachable capability once, under each cap a message meets
(none, 25,000 and 10,000 UTF-8 bytes; ``CAPS``), reading the parts that did not fit with the
gateway's read mode. It reports the characters of each step (its first message and its parts),
the parts, the largest message and, per route, the whole walk; and the whole hook context of
``/workflow <route> <task>`` under Claude Code's 10,000 cap. The per-turn guidance of an active
workflow is shown for reference (it carries no procedure text).

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
from goalkeeper.core.values import Advise, BeforeAgentStart, Reply, ToolCall, UserPrompt
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock

NAMES = {n: f"mcp__goalkeeper__{n}" for n in ("workflow", "workflow_active", "workflow_ask")}
CAPS = {"none": None, "25k": 25_000, "10k": 10_000}
"""The caps a message meets: none (Pi; the Codex and Gemini hooks), Claude Code's MCP tool
result (25,000), Claude Code's hook and Codex's tool result (10,000); UTF-8 bytes."""


def make(project: Path, max_text: int | None) -> Supervisor:
    return Supervisor(
        project,
        Config(no_plan="silent", lang="en"),
        host="bench",
        capabilities=CLAUDE_CAPABILITIES,
        clock=FakeClock(),
        tool_names=NAMES,
        max_text=max_text,
    )


def reply_text(sup: Supervisor, session: str, tool: str, args: dict[str, Any]) -> str:
    actions = sup.handle([ToolCall(session, tool, args)]).actions
    return "\n".join(a.text for a in actions if isinstance(a, Reply))


def delivered(sup: Supervisor, session: str, first: str) -> tuple[int, int, int]:
    """A step: the characters of its first message, then each part read (``mode read``) until
    none is left; (characters in all, parts after the first, the largest message in bytes)."""
    sizes = [first]
    while True:
        actions = sup.handle([ToolCall(session, "workflow", {"mode": "read"})]).actions
        got = next(a for a in actions if isinstance(a, Reply))
        if not got.data.get("part"):
            break  # nothing was waiting: no read is asked for
        sizes.append(got.text)
        if got.data.get("left") == 0:
            break
    return sum(map(len, sizes)), len(sizes) - 1, max(len(t.encode()) for t in sizes)


def walk(project: Path, route: str, cap: str) -> dict[str, Any]:
    """Start ``route`` in a fresh session and move through it; per step: characters, parts."""
    sup = make(project, CAPS[cap])
    session = f"s-{route}-{cap}"
    start = reply_text(sup, session, "workflow", {"mode": "workflow", "route": route})
    steps = [("start", *delivered(sup, session, start))]
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
        steps.append((target, *delivered(sup, session, text)))
        seen.add(target)
        current = target
    return {
        "route": route,
        "cap": cap,
        "steps": steps,
        "total": sum(s[1] for s in steps),
        "parts": sum(s[2] for s in steps),
        "largest": max(s[3] for s in steps),
        "turn": per_turn,
    }


def command_start(project: Path, route: str) -> tuple[int, int, bool]:
    """``/workflow <route> <task>`` under Claude Code's hook cap: the bytes of the hook's whole
    context (every guard's advice merged), the parts left to read, the task inside it."""
    sup = make(project, 10_000)
    session = f"c-{route}"
    task = "fix the login redirect"
    events = [UserPrompt(session, f"/workflow {route} {task}", True), BeforeAgentStart(session)]
    actions = sup.handle(events).actions
    context = "\n\n".join(a.text for a in actions if isinstance(a, Advise))
    _, parts, _ = delivered(sup, session, context)
    return len(context.encode()), parts, task in context


def capabilities(project: Path, cap: str) -> list[tuple[str, int, int, int]]:
    sup = make(project, CAPS[cap])
    found = []
    for p in sup.procedures().catalog.model_standalone():
        session = f"cap-{p.id}-{cap}"
        args = {"mode": "capability", "capability": p.id}
        text = reply_text(sup, session, "workflow", args)
        found.append((p.id, *delivered(sup, session, text)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    routes = ["idea-to-ship", "hard-bug", "triage", "wayfinding", "architecture"]
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        walks = [walk(project, r, cap) for cap in CAPS for r in routes]
        caps = {cap: capabilities(project, cap) for cap in CAPS}
        starts = {r: command_start(project, r) for r in routes}
    if args.json:
        print(json.dumps({"routes": walks, "capabilities": caps, "command_starts": starts}))
        return
    for w in walks:
        steps = ", ".join(
            f"{name} {n:,}" + (f" ({k} parts)" if k else "") for name, n, k, _ in w["steps"]
        )
        print(
            f"[cap {w['cap']}] {w['route']}: {steps}; walk total {w['total']:,}; "
            f"parts {w['parts']}; largest message {w['largest']:,} B; "
            f"per-turn guidance {w['turn']:,}"
        )
    for cap, found in caps.items():
        print(
            f"[cap {cap}] capabilities: "
            + ", ".join(f"{name} {n:,}" + (f" ({k} parts)" if k else "") for name, n, k, _ in found)
            + f"; largest message {max(b for *_, b in found):,} B"
        )
    for route, (size, parts, has_task) in starts.items():
        print(
            f"/workflow {route} <task> under the 10,000 hook cap: hook context {size:,} B, "
            f"{parts} parts to read, task inside: {has_task}"
        )


if __name__ == "__main__":
    main()
