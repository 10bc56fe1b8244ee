"""The three closing gates of seed 000 §5: check, OKR and map.

``[PDCA] complete`` is accepted only when every gate passes. Each gate reports *what* is open,
so a refusal can name every failing gate and every open item in one message. A cancelled item
must carry its reason ("完成 = 每个承诺都有证据，或已被显式取消并留下理由"): a bare ``[-]`` keeps
the gate closed.

A check is a verification that ran ("Check 用可复跑证据证伪"): a ``[PDCA] check`` round counts
only when a verification command ran *and finished* in it — a test runner, or a command the
user declared (the goal's approved verify command, ``evidence_commands``, ``test_command``) or
the plan's key results name in backticks — and no project file changed after it. ``echo``,
``cat``, an edit, a command that was refused, timed out, interrupted or sent to the background
are not checks. A failing run is still a check (the loop learned something, seed §7: failure
is evidence), but it is no proof: ``complete`` after it is refused until a check passes. This is
a reading of what the host recorded, not a sandbox: a test runner the agent rewrote itself still
runs. Pure; no I/O.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Literal, get_args

from msgspec import Struct

from goalkeeper.core.cadence.plan import ItemState, KeyResult, Plan
from goalkeeper.core.goals.verify import failure_headline
from goalkeeper.core.proof.test_runners import could_verify, narrows_selection, program_words
from goalkeeper.core.proof.test_summary import parse_test_summary
from goalkeeper.core.proof.verification import find_verification
from goalkeeper.core.shell.line import part_words
from goalkeeper.core.shell.places import inside, locate
from goalkeeper.core.shell.writes import run_writes
from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.text.mdcode import inline_code_spans
from goalkeeper.core.values import ToolRun

GateId = Literal["check", "okr", "map"]
Problem = Literal[
    "open",
    "no_reason",
    "short",
    "no_check",
    "do_after_check",
    "check_without_evidence",
    "check_not_verified",
    "check_failed",
    "check_stale",
    "check_unreadable",
    "check_unknown",
    "check_narrowed",
    "changed_after_check",
]
CheckStatus = Literal[
    "passed", "failed", "unknown", "narrowed", "stale", "none", "idle", "untold", "unreadable"
]
"""What one round's tool activity proves. A verification finished: ``passed``, ``failed`` or
``unknown`` (its exit status is masked, or the host does not report it, and its output shows no
test summary), ``narrowed`` (it passed, but ran a selection of the tests); ``stale``: a project
file changed after its last verification; ``none``: tools ran, no verification finished;
``idle``: no tool ran; ``untold``: the host reports no runs (only a tool count, which is then
all the check needs); ``unreadable``: the host could not read what ran."""
RunVerdict = Literal[
    "passed",
    "failed",
    "unknown",
    "narrowed",
    "not_verification",
    "unfinished",
    "refused",
    "empty",
    "unseen",
]
"""What one shell command was for the check: a verification that finished (``passed``,
``failed``, ``unknown``), or why it does not count: not a verification, it did not finish, it
was refused, it ran no tests, or goalkeeper never saw it start (a line nobody ran)."""
COUNTED: frozenset[str] = frozenset({"passed", "failed", "unknown", "narrowed"})
"""Verdicts of a verification that ran and finished: the last one decides the round."""


class OpenItem(Struct, frozen=True):
    """Something that keeps a gate closed: an open item, or a cancellation without a reason."""

    text: str
    problem: Problem
    line: int | None = None


class GateResult(Struct, frozen=True):
    gate: GateId
    passed: bool
    open: tuple[OpenItem, ...] = ()


class GateReport(Struct, frozen=True):
    results: tuple[GateResult, ...]

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def failing(self) -> tuple[GateResult, ...]:
        return tuple(r for r in self.results if not r.passed)

    def get(self, gate: GateId) -> GateResult | None:
        return next((r for r in self.results if r.gate == gate), None)


class CheckHistory(Struct, frozen=True):
    """Round numbers of the last reported ``do`` and ``check``, what that check's round proves
    (``None``: recorded before rounds were judged, as ``untold``), the last round that changed a
    project file without a verification after it, and what the check ran (``detail``, as
    ``render_ran`` reads it)."""

    last_do: int | None = None
    last_check: int | None = None
    check_status: CheckStatus | None = None
    last_change: int | None = None
    detail: str = ""


_CHECK_PROBLEMS: dict[str, Problem] = {
    "failed": "check_failed",
    "stale": "check_stale",
    "none": "check_not_verified",
    "idle": "check_without_evidence",
    "unreadable": "check_unreadable",
    "unknown": "check_unknown",
    "narrowed": "check_narrowed",
}


def evaluate_check_gate(history: CheckHistory, *, require_tool: bool = True) -> GateResult:
    """A ``check`` must have been reported since the last ``do``. With ``require_tool`` (the
    ``check_needs_tool`` setting) its round must have run the suite, and it must have
    finished and passed (a hidden exit status counts only when the output shows the runner's
    passing summary), and no project file may have changed since; an unreadable round counts as
    not passed."""
    if history.last_check is None:
        return GateResult("check", False, (OpenItem("check", "no_check"),))
    if history.last_do is not None and history.last_do > history.last_check:
        return GateResult("check", False, (OpenItem("check", "do_after_check"),))
    if not require_tool:
        return GateResult("check", True)
    if history.last_change is not None and history.last_change > history.last_check:
        return GateResult("check", False, (OpenItem(history.detail, "changed_after_check"),))
    problem = _CHECK_PROBLEMS.get(history.check_status or "untold")
    if problem is not None:
        return GateResult("check", False, (OpenItem(history.detail, problem),))
    return GateResult("check", True)


def evaluate_okr_gate(plan: Plan) -> GateResult:
    """No key result may stay open; a cancelled one needs its reason; a ticked one whose
    current figure has not reached its target is not done (``KR1 0 → 3, current 1``)."""
    items = tuple(
        item
        for kr in plan.key_results
        if (item := _open_item(kr.text, kr.state, kr.reason, kr.line)) is not None
        or (item := _short_item(kr)) is not None
    )
    return GateResult("okr", not items, items)


def _short_item(kr: KeyResult) -> OpenItem | None:
    p = kr.progress
    if kr.state != "done" or p is None or p.current is None or p.target is None:
        return None
    falling = p.baseline is not None and p.target < p.baseline  # "errors 12 → 0"
    short = p.current > p.target if falling else p.current < p.target
    return OpenItem(kr.text, "short", kr.line) if short else None


def evaluate_map_gate(plan: Plan) -> GateResult:
    """No leaf of the story map may stay open; only leaves count. A cancelled subtree is closed
    when its cancelled node gives a reason; without one, that node is named once.

    The answer for the last plan asked is kept: the warm engine keeps a plan's parse while its
    file is unchanged and asks again on every Stop (a 500-line map: ~0.1 ms of each)."""
    for known, result in _LAST_MAP_GATE[:1]:
        if known is plan:
            return result
    result = _map_gate(plan)
    _LAST_MAP_GATE[:] = [(plan, result)]
    return result


_LAST_MAP_GATE: list[tuple[Plan, GateResult]] = []
"""The last (plan, map gate) pair: one entry, replaced whole (the engine's request threads
share it; a slice assignment is atomic)."""


def _map_gate(plan: Plan) -> GateResult:
    items: list[OpenItem] = []
    named: set[str] = set()  # each text once, in linear time (a map may have thousands of leaves)
    for leaf in plan.leaves:
        item = _open_item(leaf.cancelled_by or leaf.text, leaf.state, leaf.reason, leaf.line)
        if item is not None and item.text not in named:
            named.add(item.text)
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


def open_commitments(plan: Plan) -> tuple[str, ...]:
    """The texts of the plan's commitments that still keep a gate closed (open key results
    and map leaves, cancellations without a reason): what progress on the plan closes."""
    return tuple(
        item.text for item in (*evaluate_okr_gate(plan).open, *evaluate_map_gate(plan).open)
    )


def _open_item(text: str, state: ItemState, reason: str | None, line: int) -> OpenItem | None:
    if state == "open":
        return OpenItem(text, "open", line)
    if state == "cancelled" and reason is None:
        return OpenItem(text, "no_reason", line)
    return None


# ---------------------------------------------------------------------------------------------
# A check is a verification that ran
# ---------------------------------------------------------------------------------------------


class RanCommand(Struct, frozen=True):
    """A shell command of the round and what it was for the check."""

    command: str
    verdict: RunVerdict


class RoundEvidence(Struct, frozen=True):
    """What one round's tool activity proves: its ``status``, each shell command with its
    verdict, the first project file changed after the last verification (``changed``: such a
    change must be checked again), and the failing line of a failed verification."""

    status: CheckStatus
    ran: tuple[RanCommand, ...] = ()
    changed: str | None = None
    headline: str = ""


def evaluate_round(
    runs: Sequence[ToolRun] | None,
    *,
    tools: int | None,
    unreadable: bool = False,
    declared: Sequence[str] = (),
    seen: Sequence[str] | None = None,
    is_change: Callable[[str], bool] = lambda path: True,
) -> RoundEvidence:
    """Judge one round's tool calls for the check gate.

    ``declared``: commands that count as a verification besides the test runners (see
    ``declared_commands``). ``seen``: digests (``command_digest``) of the shell commands the
    host announced before running them (Claude Code's PreToolUse), one per announcement, or
    None when it announces none: each announcement vouches for one call in the record, in
    order, and a call nobody announced did not run, whatever the record says (the agent can
    write the transcript). ``is_change(path)``: whether writing that file
    changes the project (not the plan or GOAL.md, which are the loop's bookkeeping, nor a
    scratch file outside the project). Pure."""
    if unreadable:
        return RoundEvidence("unreadable")
    if runs is None:
        return RoundEvidence("idle" if tools == 0 else "untold")
    ran: list[RanCommand] = []
    last: tuple[ToolRun, RunVerdict] | None = None
    changed: str | None = None
    vouchers = Counter(seen) if seen is not None else None
    for run in runs:
        if run.kind == "shell":
            verdict = _verdict(run, declared, vouchers)
            ran.append(RanCommand(run.command, verdict))
            if verdict in COUNTED:
                last, changed = (run, verdict), None  # a change before it is checked by it
                continue
        path = _changed_file(run, is_change)
        if path is not None and changed is None:
            changed = path
    if last is None:
        return RoundEvidence("none" if runs else "idle", tuple(ran), changed)
    if changed is not None:
        return RoundEvidence("stale", tuple(ran), changed)
    run, verdict = last
    headline = failure_headline(run.tail) if verdict == "failed" and run.tail else ""
    return RoundEvidence(verdict, tuple(ran), None, headline)  # type: ignore[arg-type]


def change_filter(root: str, records: Sequence[str]) -> Callable[[str], bool]:
    """``is_change`` for ``evaluate_round``: a path in the project at ``root`` (relative paths
    are), outside the folders in ``records`` (the plan folder, ``.agents``, ``.goalkeeper``)."""
    folders = tuple(r.strip("/") for r in records if r.strip("/"))

    def is_change(path: str) -> bool:  # placed first: `.agents/../src/a.py` is src/a.py
        where, rel = locate(path, root)
        return where == "project" and bool(rel) and not any(inside(rel, f) for f in folders)

    return is_change


def command_digest(command: str) -> str:
    """A short, stable name for a command line (whitespace at its ends ignored)."""
    import hashlib

    return hashlib.sha256(command.strip().encode("utf-8", "surrogatepass")).hexdigest()[:16]


def declared_commands(trusted: Sequence[str], named: Sequence[str] = ()) -> tuple[str, ...]:
    """The commands that count as a verification besides the test runners: ``trusted`` ones
    (the goal's approved verify commands, ``evidence_commands``, ``test_command``: the user's),
    and ``named``: those the plan's key results named in backticks when the user last spoke
    (``kr_commands``; the agent cannot add one to make its own check count)."""
    return tuple(dict.fromkeys([c.strip() for c in (*trusted, *named) if c and c.strip()]))


def kr_commands(plan: Plan | None) -> tuple[str, ...]:
    """The commands the plan's key results name in backticks that could verify something: not
    ``echo``, ``cat``, ``true`` or any program that only prints or reads, and no inline program
    (``sh -c``, ``python -c``)."""
    named: list[str] = []
    for kr in plan.key_results if plan is not None else ():
        for start, end in inline_code_spans(kr.text):
            text = kr.text[start:end].strip("`").strip()
            words = part_words(text)
            if words and could_verify(words):
                named.append(text)
    return tuple(dict.fromkeys(named))


def render_ran(ran: Sequence[RanCommand], limit: int = 5) -> str:
    """The commands of a round in the compact form the state keeps: one ``verdict<TAB>command``
    line each, at most ``limit`` (the last ones, which decided), each at most 160 characters."""
    shown = list(ran)[-limit:]
    return "\n".join(f"{r.verdict}\t{' '.join(r.command.split())[:160]}" for r in shown)


def parse_ran(text: str) -> tuple[RanCommand, ...]:
    """The commands ``render_ran`` kept; unreadable lines are dropped."""
    out: list[RanCommand] = []
    for line in text.splitlines():
        verdict, sep, command = line.partition("\t")
        if sep and verdict in _VERDICTS:
            out.append(RanCommand(command, verdict))  # type: ignore[arg-type]
    return tuple(out)


_VERDICTS = frozenset(get_args(RunVerdict))


def _verdict(run: ToolRun, declared: Sequence[str], vouchers: Counter[str] | None) -> RunVerdict:
    found = find_verification(run.command, declared)
    if found is None:
        return "not_verification"
    if vouchers is not None:
        digest = command_digest(run.command)
        if vouchers[digest] <= 0:
            return "unseen"
        vouchers[digest] -= 1
    if run.outcome in ("refused", "unfinished"):
        return run.outcome
    if _NOTHING_RAN.search(run.tail):
        return "empty"
    if run.outcome == "failed":
        return "failed"
    if run.outcome == "unknown" or found[1]:  # ran, but its exit status is not the runner's
        if run.outcome == "passed" and _failing(run.tail):
            return "failed"
        summary = parse_test_summary(run.tail)
        if not (summary.known and summary.passed >= 1 and not summary.failed):
            return "unknown"  # `pytest >/dev/null || true`: nothing says how it ended
    program = program_words(part_words(found[0]))
    if program is not None and _silent_pytest(program, run.tail):
        return "unknown"  # pytest always ends with its summary: something else answered
    if program is not None and narrows_selection(program):
        return "narrowed"
    return "passed"


def _silent_pytest(program: list[str], tail: str) -> bool:
    """A pytest run that exited 0 with no pytest summary in what the shell showed: a
    ``pytest.py`` in the project that exits 0, code that ends the run at import
    (``os._exit(0)``), or output sent to a file where nothing shows how it ended. None of them
    is a run of the tests goalkeeper saw."""
    from goalkeeper.core.shell.argv import runner_of

    return runner_of(program) == "pytest" and not parse_test_summary(tail).known


_NOTHING_RAN = lazy_re(
    r"\bno tests? (?:ran|to run|found|collected)\b|\bcollected 0 items\b|\brunning 0 tests\b"
    r"|\bRan 0 tests\b|\bno test files\b|\b\d+ tests? collected in\b|\bNo tests found\b",
    re.IGNORECASE,
)
"""Output of a runner that ran nothing: pytest (``--collect-only``, no match), unittest, cargo,
go, jest. A run that selected no test checked nothing."""


def _failing(tail: str) -> bool:
    return bool(re.search(r"\b\d+ (?:failed|failing|errors?)\b|^FAILED\b|\bFAIL\b", tail, re.M))


def _changed_file(run: ToolRun, is_change: Callable[[str], bool]) -> str | None:
    """The project file a tool call changed, if it changed one (a refused or failed edit wrote
    nothing; a command is read for redirections, ``tee``, ``sed -i``, copies and moves)."""
    return next((p for p in run_writes(run) if is_change(p)), None)
