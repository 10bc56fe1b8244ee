"""The plan's anchors (seed 000 §1 "memory"): the few lines re-fed to the model every turn.

Objective, open key results with their figures, the next open map leaf and the SWOT lines, so
that compaction cannot erase what the work is for. Kept short on purpose: anchors go into every
continuation. Pure; no I/O.
"""

from __future__ import annotations

from goalkeeper.core.cadence.plan import KeyResult, Plan, Progress
from goalkeeper.core.messages import Say

MAX_KRS = 3
MAX_TEXT = 160


def render_anchors(plan: Plan, path: str, say: Say) -> str:
    lines = [say("anchors.header", path=path)]
    if plan.objective:
        lines.append(say("anchors.objective", objective=_clip(plan.objective)))
    open_krs = plan.open_key_results
    if open_krs:
        items = "; ".join(_kr(kr, say) for kr in open_krs[:MAX_KRS])
        if len(open_krs) > MAX_KRS:
            items += say("anchors.krs_more", n=len(open_krs) - MAX_KRS)
        lines.append(say("anchors.krs", items=items))
    if plan.leaves:
        leaf = next(iter(plan.open_leaves), None)
        if leaf is None:
            lines.append(say("anchors.map_done"))
        else:
            lines.append(say("anchors.leaf", leaf=_clip(" › ".join((*leaf.path, leaf.text)))))
    swot = [f"{k}: {_clip(v, 80)}" for k, v in _swot_items(plan) if v]
    if swot:
        lines.append(say("anchors.swot", swot=" | ".join(swot)))
    return "\n".join(lines)


def _kr(kr: KeyResult, say: Say) -> str:
    text = _clip(kr.text, 100)
    if kr.progress and kr.progress.current is not None and kr.progress.target is not None:
        return f"{text} [{_progress(kr.progress, say)}]"
    return text


def _progress(p: Progress, say: Say) -> str:
    return say(
        "anchors.progress",
        current=_num(p.current),
        baseline=_num(p.baseline) if p.baseline is not None else "?",
        target=_num(p.target),
    )


def _num(value: float | None) -> str:
    if value is None:
        return "?"
    return str(int(value)) if value == int(value) else f"{value:g}"


def _swot_items(plan: Plan) -> tuple[tuple[str, str | None], ...]:
    s = plan.swot
    return (("S", s.S), ("W", s.W), ("O", s.O), ("T", s.T))


def _clip(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
