"""The goal (seed 001): one active goal per project, kept in ``.agents/goal/GOAL.md``.

GOAL.md is YAML frontmatter (machine fields: status, verify commands, limits, attempts, the last
failure, timestamps, the criteria hash) and a Markdown body (Objective, Acceptance Criteria as a
checklist, Progress Log). The documents layer reads and writes the file (preserving comments and
unknown keys); this module turns its parts into a ``Goal`` value and back into changes. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal

from msgspec import Struct, field
from msgspec.structs import replace

from goalkeeper.core.cadence.plan import ItemState, parse_cancel_reason
from goalkeeper.core.goals.retry import RETRIES
from goalkeeper.core.text.lazy_re import lazy_re

GoalStatus = Literal["active", "blocked", "needs-upgrade", "complete"]
STATUSES: tuple[GoalStatus, ...] = ("active", "blocked", "needs-upgrade", "complete")
COARSE_ROUTE = "idea-to-ship"
"""Seed 001 decision 7: a coarse goal (many files, modules, architecture) is worked through a
multi-stage workflow; its stages stay in GOAL.md as acceptance criteria too. A goal whose
GOAL.md says ``status: needs-upgrade`` (the skill's signal, seed 001 risks) is moved onto it."""
DEFAULT_ROUNDS = 3
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_RETRIES = RETRIES  # seed 001 §5: 10 retries (``core.goals.retry``)

_HEADING = lazy_re(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_ITEM = lazy_re(r"^(\s*)[-*+]\s+(?:\[([ xX-])\]\s+)?(.*)$")


class Criterion(Struct, frozen=True):
    text: str
    state: ItemState
    reason: str | None = None


class Failure(Struct, frozen=True):
    """The last failed verification: what ran, how it ended, its normalized signature."""

    command: str | None = None
    exit: int | None = None
    signature: str | None = None
    tail: str | None = None
    at: str | None = None


class Goal(Struct, frozen=True):
    objective: str
    status: GoalStatus = "active"
    verify: tuple[str, ...] = ()
    criteria: tuple[Criterion, ...] = ()
    progress_log: tuple[str, ...] = ()
    rounds: int = DEFAULT_ROUNDS
    timeout_s: float = DEFAULT_TIMEOUT_S
    retries_max: int = DEFAULT_RETRIES
    attempts: int = 0
    retries: int = 0
    last_failure: Failure = Failure()
    blocked_reason: str | None = None
    route: str | None = None
    goal_id: str | None = None
    created: str | None = None
    updated: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Frontmatter keys goalkeeper does not know: kept as they are."""

    @property
    def open_criteria(self) -> tuple[Criterion, ...]:
        return tuple(
            c
            for c in self.criteria
            if c.state == "open" or (c.state == "cancelled" and not c.reason)
        )

    @property
    def passing_criteria(self) -> int:
        return sum(1 for c in self.criteria if c.state == "done")


class GoalBody(Struct, frozen=True):
    objective: str | None
    criteria: tuple[Criterion, ...]
    progress_log: tuple[str, ...]


class GoalUpdate(Struct, frozen=True):
    """Changes goalkeeper makes to GOAL.md: frontmatter fields to set, Progress Log lines to
    append, and whether to archive the goal. Everything else in the file stays as it is."""

    fields: Mapping[str, Any] = field(default_factory=dict)
    log: tuple[str, ...] = ()
    archive: bool = False
    tick: tuple[str, ...] = ()
    """Open criteria goalkeeper proved itself (their text): ticked in Acceptance Criteria."""
    goal_id: str | None = None
    """The goal the update is for, when it must not land on another: a GOAL.md the agent
    rewrote into another goal is the user's to approve, so goalkeeper neither writes nor
    archives it and only that goal's record changes (``engine.goal_io.apply_write``)."""


def parse_goal_body(body: str) -> GoalBody:
    """The Objective (first paragraph), the Acceptance Criteria checklist and the Progress Log
    entries. Unknown sections are ignored; never raises."""
    objective: list[str] = []
    criteria: list[Criterion] = []
    log: list[str] = []
    paragraph_done, last = False, None  # the objective is the first paragraph of its section
    for _, raw, section in _body_rows(body.replace("\r\n", "\n").split("\n")):
        if section != last:
            paragraph_done, last = False, section
        stripped = raw.strip()
        if section == "objective" and not paragraph_done:
            if stripped:
                objective.append(stripped)
            elif objective:
                paragraph_done = True
        elif section == "criteria":
            item = _ITEM.match(raw)
            if item and item.group(3).strip() and not item.group(1):
                mark, text = item.group(2), item.group(3).strip()
                state: ItemState = (
                    "done" if mark in ("x", "X") else "cancelled" if mark == "-" else "open"
                )
                reason = parse_cancel_reason(text) if state == "cancelled" else None
                criteria.append(Criterion(text, state, reason))
        elif section == "log":
            item = _ITEM.match(raw)
            if item and item.group(3).strip() and not item.group(1):
                log.append(item.group(3).strip())
    return GoalBody(" ".join(objective) or None, tuple(criteria), tuple(log))


def tick_criteria(body: str, texts: Iterable[str]) -> str:
    """``body`` with the open Acceptance Criteria items whose text is one of ``texts``
    (whitespace aside) ticked, ``- [ ]`` → ``- [x]``; every other byte as it was."""
    wanted = {" ".join(t.split()) for t in texts}
    if not wanted:
        return body
    rows = body.split("\n")
    for i, raw, section in _body_rows(rows):
        item = _ITEM.match(raw.rstrip("\r"))
        if section != "criteria" or item is None or item.group(1) or item.group(2) != " ":
            continue
        if " ".join(item.group(3).split()) in wanted:
            rows[i] = raw.replace("[ ]", "[x]", 1)
    return "\n".join(rows)


def _body_rows(rows: list[str]) -> Iterator[tuple[int, str, str | None]]:
    """Each row of a GOAL.md body outside code fences and headings, with its index and the
    section the latest heading opened: what ``parse_goal_body`` reads and ``tick_criteria``
    writes walk the body the same way."""
    section: str | None = None
    fence = False
    for i, raw in enumerate(rows):
        if raw.strip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence:
            continue
        heading = _HEADING.match(raw)
        if heading:
            section = _section(heading.group(1))
            continue
        yield i, raw, section


def goal_from_parts(frontmatter: Mapping[str, Any], body: str) -> Goal:
    """A Goal from the parsed frontmatter and the body; wrong types fall back to defaults."""
    parsed = parse_goal_body(body)
    known = set(_KNOWN)
    status = frontmatter.get("status")
    raw_limits = frontmatter.get("limits")
    limits: Mapping[str, Any] = raw_limits if isinstance(raw_limits, Mapping) else {}
    raw_failure = frontmatter.get("last_failure")
    failure: Mapping[str, Any] = raw_failure if isinstance(raw_failure, Mapping) else {}
    objective = parsed.objective or _text(frontmatter.get("objective")) or ""
    return Goal(
        objective=objective,
        status=status if status in STATUSES else "active",
        verify=_commands(frontmatter.get("verify")),
        criteria=parsed.criteria,
        progress_log=parsed.progress_log,
        rounds=_int(limits.get("rounds"), DEFAULT_ROUNDS, minimum=1),
        timeout_s=_seconds(limits.get("timeout_s"), DEFAULT_TIMEOUT_S),
        retries_max=_int(limits.get("retries"), DEFAULT_RETRIES, minimum=0),
        attempts=_int(frontmatter.get("attempts"), 0, minimum=0),
        retries=_int(frontmatter.get("retries"), 0, minimum=0),
        last_failure=Failure(
            command=_text(failure.get("command")),
            exit=_int_or_none(failure.get("exit")),
            signature=_text(failure.get("signature")),
            tail=_text(failure.get("tail")),
            at=_text(failure.get("at")),
        ),
        blocked_reason=_text(frontmatter.get("blocked_reason")),
        route=_text(frontmatter.get("route")),
        goal_id=_text(frontmatter.get("id")),
        created=_text(frontmatter.get("created")),
        updated=_text(frontmatter.get("updated")),
        extra={k: v for k, v in frontmatter.items() if k not in known},
    )


_PROGRESS_WORDS = lazy_re(
    r"\b(?:fixed|added|implemented|passing|passes|done|completed|resolved|works|"
    r"green|wrote|created|removed|refactored)\b|修复|完成|通过|实现|新增|解决|已改",
    re.IGNORECASE,
)


def has_progress_words(entries: tuple[str, ...]) -> bool:
    return any(_PROGRESS_WORDS.search(e) for e in entries)


def render_goal_markdown(goal: Goal) -> str:
    """The body of a new GOAL.md (the frontmatter is written by the documents layer)."""
    criteria = "\n".join(
        f"- [{'x' if c.state == 'done' else '-' if c.state == 'cancelled' else ' '}] {c.text}"
        for c in goal.criteria
    )
    log = "\n".join(f"- {entry}" for entry in goal.progress_log)
    return (
        "# Goal\n\n"
        f"## Objective\n{goal.objective}\n\n"
        f"## Acceptance Criteria\n{criteria}\n\n"
        f"## Progress Log\n{log}\n"
    )


def frontmatter_of(goal: Goal) -> dict[str, Any]:
    """The machine fields of a goal, as the documents layer writes them on creation."""
    return {
        "id": goal.goal_id,
        "status": goal.status,
        "objective": goal.objective,
        "verify": list(goal.verify),
        "limits": {
            "rounds": goal.rounds,
            "timeout_s": seconds_text_value(goal.timeout_s),
            "retries": goal.retries_max,
        },
        "attempts": goal.attempts,
        "retries": goal.retries,
        "last_failure": None,
        "blocked_reason": goal.blocked_reason,
        "route": goal.route,
        "created": goal.created,
        "updated": goal.updated,
    }


_KNOWN = (
    "id",
    "status",
    "objective",
    "verify",
    "limits",
    "attempts",
    "retries",
    "last_failure",
    "blocked_reason",
    "route",
    "created",
    "updated",
)


def _section(title: str) -> str | None:
    t = title.strip().lower()
    if "objective" in t or t.startswith("目标"):
        return "objective"
    if "acceptance" in t or "criteria" in t or "验收" in t:
        return "criteria"
    if "progress" in t or "log" in t or "进展" in t or "日志" in t:
        return "log"
    return None


def _commands(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value.strip(),) if value.strip() else ()
    if isinstance(value, list | tuple):
        return tuple(str(v).strip() for v in value if isinstance(v, str) and v.strip())
    return ()


_MAX_INT = 10**9  # far above any sensible limit; keeps float() conversions safe


def _int(value: object, default: int, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    if value != value or value in (float("inf"), float("-inf")):
        return default
    return min(_MAX_INT, max(minimum, int(value)))


def _seconds(value: object, default: float) -> float:
    """A time limit in seconds: any positive number (2.5 stays 2.5), at least 1 ms."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    if value != value or value in (float("inf"), float("-inf")):
        return default
    if value > _MAX_INT:  # before float(): a 400-digit int does not fit one
        return float(_MAX_INT)
    return max(0.001, float(value))


def seconds_text_value(seconds: float) -> int | float:
    """How GOAL.md writes a time limit: ``120``, not ``120.0``; ``2.5`` as it is."""
    return int(seconds) if float(seconds).is_integer() else seconds


_ONLY_THE_CHECK = lazy_re(
    r"^(?:(?:and|then|finally|lastly|last|at last|make sure|ensure|check|verify|confirm|that)\s+)*"
    r"(?:all|the|every)?\s*(?:of\s+the\s+)?(?:unit\s+|integration\s+)?tests?\s+"
    r"(?:pass(?:es)?|are\s+green|is\s+green|succeed|stay\s+green|still\s+pass)$"
    r"|^(?:最后|然后|并且|并|再)?(?:确保|保证|确认|验证)?(?:所有|全部)?(?:的)?测试(?:全部|都)?(?:通过|跑通|变绿)$",
    re.IGNORECASE,
)


def restates_the_check(stage: str) -> bool:
    """Whether a coarse goal's stage only says "make sure all tests pass" (确保所有测试通过):
    the goal's verify already holds that promise as its own criterion, so a second criterion
    for it would only be a duplicate to tick (seed001 audit D6)."""
    return bool(_ONLY_THE_CHECK.match(" ".join(stage.strip().rstrip(".!。！").split())))


def resume_update(goal: Goal, log_line: str) -> GoalUpdate:
    """Resume a paused goal, counting on: the rounds used stay, and a goal paused at its round
    limit gets as many rounds again (``goalkeeper goal resume``, and "continue" on Pi)."""
    limits = {
        "rounds": resumed_rounds(goal),
        "timeout_s": seconds_text_value(goal.timeout_s),
        "retries": goal.retries_max,
    }
    fields = {"status": "active", "blocked_reason": None, "retries": 0, "limits": limits}
    return GoalUpdate(fields, (log_line,))


def resumed_goal(goal: Goal) -> Goal:
    """The goal as ``resume_update`` leaves it: what a run that starts in the same breath as
    the resume is told (GOAL.md is written only after the event is answered)."""
    return replace(
        goal, status="active", blocked_reason=None, retries=0, rounds=resumed_rounds(goal)
    )


def resumed_rounds(goal: Goal) -> int:
    return goal.rounds + goal.rounds if goal.attempts >= goal.rounds else goal.rounds


def _int_or_none(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def _text(value: object) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


class GoalDoc(Struct, frozen=True):
    """GOAL.md as the engine sees it: its path, and the goal or why it cannot be used."""

    path: str
    goal: Goal | None
    problem: str | None = None
