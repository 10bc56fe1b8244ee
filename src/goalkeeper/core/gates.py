"""The three closing gates of seed 000 §5: check, OKR and map.

``[PDCA] complete`` is accepted only when every gate passes. Each gate reports *what* is open,
so a refusal can name every failing gate and every open item in one message. A cancelled item
must carry its reason ("完成 = 每个承诺都有证据，或已被显式取消并留下理由"): a bare ``[-]`` keeps
the gate closed. Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from goalkeeper.core.plan import ItemState, Plan

GateId = Literal["check", "okr", "map"]
Problem = Literal["open", "no_reason", "no_check", "do_after_check", "check_without_evidence"]


@dataclass(frozen=True, slots=True)
class OpenItem:
    """Something that keeps a gate closed: an open item, or a cancellation without a reason."""

    text: str
    problem: Problem
    line: int | None = None


@dataclass(frozen=True, slots=True)
class GateResult:
    gate: GateId
    passed: bool
    open: tuple[OpenItem, ...] = ()


@dataclass(frozen=True, slots=True)
class GateReport:
    results: tuple[GateResult, ...]

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def failing(self) -> tuple[GateResult, ...]:
        return tuple(r for r in self.results if not r.passed)

    def get(self, gate: GateId) -> GateResult | None:
        return next((r for r in self.results if r.gate == gate), None)


@dataclass(frozen=True, slots=True)
class CheckHistory:
    """Round numbers of the last reported ``do`` and ``check``, and whether that check ran
    anything (``None`` when the host cannot tell)."""

    last_do: int | None = None
    last_check: int | None = None
    check_had_tools: bool | None = None


def evaluate_check_gate(history: CheckHistory, *, require_tool: bool = True) -> GateResult:
    """A ``check`` must have been reported since the last ``do``; unknown counts as not passed."""
    if history.last_check is None:
        return GateResult("check", False, (OpenItem("check", "no_check"),))
    if history.last_do is not None and history.last_do > history.last_check:
        return GateResult("check", False, (OpenItem("check", "do_after_check"),))
    if require_tool and history.check_had_tools is False:
        return GateResult("check", False, (OpenItem("check", "check_without_evidence"),))
    return GateResult("check", True)


def evaluate_okr_gate(plan: Plan) -> GateResult:
    """No key result may stay open; a cancelled one needs its reason."""
    items = tuple(
        item
        for kr in plan.key_results
        if (item := _open_item(kr.text, kr.state, kr.reason, kr.line)) is not None
    )
    return GateResult("okr", not items, items)


def evaluate_map_gate(plan: Plan) -> GateResult:
    """No leaf of the story map may stay open; only leaves count. A cancelled subtree is closed
    when its cancelled node gives a reason; without one, that node is named once."""
    items: list[OpenItem] = []
    for leaf in plan.leaves:
        item = _open_item(leaf.cancelled_by or leaf.text, leaf.state, leaf.reason, leaf.line)
        if item is not None and item not in items and all(i.text != item.text for i in items):
            items.append(item)
    return GateResult("map", not items, tuple(items))


def evaluate_plan_gates(plan: Plan) -> GateReport:
    """The gates a plan file alone decides: OKR and map (what ``goalkeeper gates`` reports)."""
    return GateReport((evaluate_okr_gate(plan), evaluate_map_gate(plan)))


def evaluate_gates(plan: Plan, history: CheckHistory, *, require_tool: bool = True) -> GateReport:
    """All three closing gates, in the order a refusal names them."""
    return GateReport(
        (
            evaluate_check_gate(history, require_tool=require_tool),
            evaluate_okr_gate(plan),
            evaluate_map_gate(plan),
        )
    )


def _open_item(text: str, state: ItemState, reason: str | None, line: int) -> OpenItem | None:
    if state == "open":
        return OpenItem(text, "open", line)
    if state == "cancelled" and reason is None:
        return OpenItem(text, "no_reason", line)
    return None
