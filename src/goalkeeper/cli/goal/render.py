"""The JSON shapes of the CLI, built from core values: one documented shape per value."""

from __future__ import annotations

from typing import Any

from goalkeeper.core.cadence.gates import GateReport, GateResult, evaluate_plan_gates
from goalkeeper.core.cadence.plan import PlanDoc, Progress


def plan_json(doc: PlanDoc | None) -> dict[str, Any]:
    """``goalkeeper plan --json``: path, swot, objective, key_results, map.leaves, gates."""
    plan = doc.plan if doc else None
    swot = plan.swot if plan else None
    report = evaluate_plan_gates(plan) if plan else None
    return {
        "path": doc.path if doc else None,
        "swot": {k: getattr(swot, k) if swot else None for k in "SWOT"},
        "objective": plan.objective if plan else None,
        "key_results": [
            {
                "text": kr.text,
                "state": kr.state,
                "reason": kr.reason,
                "line": kr.line,
                "progress": _progress(kr.progress),
            }
            for kr in (plan.key_results if plan else ())
        ],
        "map": {
            "leaves": [
                {
                    "text": leaf.text,
                    "state": leaf.state,
                    "path": list(leaf.path),
                    "line": leaf.line,
                    "reason": leaf.reason,
                }
                for leaf in (plan.leaves if plan else ())
            ]
        },
        "gates": gates_json(report),
        "lang": plan.lang if plan else None,
        "problem": _problem(doc),
        "note": doc.note if doc else None,
    }


def gates_json(report: GateReport | None) -> dict[str, Any]:
    """``{"okr": {"passed", "open", "items"}, "map": {…}}``; no plan means nothing passed."""
    out: dict[str, Any] = {}
    for gate in ("okr", "map"):
        result = report.get(gate) if report else None
        out[gate] = _gate(result)
    return out


def _gate(result: GateResult | None) -> dict[str, Any]:
    if result is None:
        return {"passed": False, "open": [], "items": []}
    return {
        "passed": result.passed,
        "open": [item.text for item in result.open],
        "items": [
            {"text": item.text, "problem": item.problem, "line": item.line} for item in result.open
        ],
    }


def _progress(p: Progress | None) -> dict[str, float | None] | None:
    if p is None:
        return None
    return {"baseline": p.baseline, "target": p.target, "current": p.current}


def _problem(doc: PlanDoc | None) -> str | None:
    if doc is None:
        return "no plan file"
    return doc.problem
