"""Judging a todo completion's claims against what goalkeeper saw itself (audit D2–D5).

A file claim is compared with the content the file had when the todo was created (the
snapshot ``todos`` keeps; git's HEAD and the modification time where there is none); a command
claim with goalkeeper's own re-run of it. A test gate is met only by such a re-run of an
approved command that exited 0 and executed at least one test. What was verified, and what
stayed unverified and why, becomes the completion's record. Pure: the facts come from the
engine's ``Inspect``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import Struct

from goalkeeper.core.proof.test_runners import narrows_selection
from goalkeeper.core.proof.test_summary import TestSummary, parse_test_summary
from goalkeeper.core.todos.evidence import (
    FILE_OPS,
    Baseline,
    CommandClaim,
    FileClaim,
    Gate,
    content_key,
    evidence_claims,
    gate_names,
)
from goalkeeper.core.todos.tree import Task, js_str
from goalkeeper.core.values import CommandFact, Facts, FileFact, TestReplay
from goalkeeper.guards.spec import Context

CHANGE_SLACK_S = 2.0  # file mtime vs task creation: clock and timestamp granularity
TAIL_QUOTED = 1500  # characters of a re-run's output quoted in a refusal


class Judgement(Struct, frozen=True):
    """What goalkeeper made of a completion's claims: a refusal (with its short cause for the
    user's notice at a stop), the notes written into the task's ``metadata.verification``, and
    each claim as checked, for the completion record."""

    refusal: str | None = None
    why: tuple[str, str] | None = None
    notes: tuple[dict[str, Any], ...] = ()
    checked: tuple[dict[str, Any], ...] = ()


def judge_claims(
    task: Task,
    files: tuple[FileClaim, ...],
    commands: tuple[CommandClaim, ...],
    facts: Facts,
    ctx: Context,
    *,
    baseline: Baseline | None = None,
    test_gate: bool = False,
) -> Judgement:
    """Compare what the evidence claims with what goalkeeper saw. A false claim is refused with
    what was seen. With ``test_gate``, at least one claimed run must be goalkeeper's own re-run
    of an approved command that exited 0 and executed a test: a command goalkeeper may not
    re-run, a run with no test and a run whose summary it cannot read are refusals, never
    claims accepted as unverified (audit D2, D3)."""
    notes: list[dict[str, Any]] = []
    checked: list[dict[str, Any]] = []
    seen = {f.path: f for f in facts.files}
    for file in files:
        refusal, why = _judge_file(task, file, seen.get(file.path), baseline, ctx, notes, checked)
        if refusal is not None:
            return Judgement(refusal, why, tuple(notes), tuple(checked))
    ran = {c.cmd: c for c in facts.commands}
    misses: list[tuple[CommandClaim, CommandFact | None, TestSummary | None]] = []
    proven = False
    for claim in commands:
        fact = ran.get(claim.cmd)
        refusal, summary = _judge_command(claim, fact, ctx, notes, checked)
        if refusal is not None:
            code = fact.exit_code if fact is not None else None
            detail = ctx.say("todo.timeout") if fact and fact.timed_out else f"exit {js_str(code)}"
            return Judgement(refusal, ("test_failed", detail), tuple(notes), tuple(checked))
        if claim.exit in (None, 0):
            if fact is not None and fact.replay is not None and not fact.replay.passed:
                refusal = _tests_changed(task, claim, fact.replay, ctx)
                return Judgement(refusal, ("tests_changed", ""), tuple(notes), tuple(checked))
            if _whole_suite_passed(fact, summary):
                proven = True
            else:
                misses.append((claim, fact, summary))
    if test_gate and not proven:
        refusal, why = _unproven_test_gate(task, misses, ctx)
        return Judgement(refusal, why, tuple(notes), tuple(checked))
    return Judgement(None, None, tuple(notes), tuple(checked))


def _judge_file(
    task: Task,
    claim: FileClaim,
    fact: FileFact | None,
    baseline: Baseline | None,
    ctx: Context,
    notes: list[dict[str, Any]],
    checked: list[dict[str, Any]],
) -> tuple[str | None, tuple[str, str] | None]:
    """One file claim. The baseline is the content the file had when the task was created (a
    snapshot goalkeeper took then); where there is none, git's HEAD and the modification time
    decide, and what they cannot tell apart (a ``touch`` of a file HEAD does not have) is
    accepted as unverified. Audit D5: a newer mtime alone is never an edit, and a file outside
    the project is never verified."""
    say = ctx.say
    op = claim.op if claim.op in FILE_OPS else "edit"
    entry: dict[str, Any] = {"path": claim.path, "op": op}
    checked.append(entry)
    if fact is None:
        entry.update(status="unverified", reason=say("todo.gate.not_inspected"))
        return None, None
    entry.update(rel=fact.rel, digest=fact.digest)
    why = ("file", claim.path)

    def refuse(key: str, **fields: object) -> tuple[str, tuple[str, str]]:
        entry.update(status="refused", reason=key)
        return say(key, path=claim.path, op=say(f"todo.op.{op}"), id=task.id, **fields), why

    if fact.outside:
        return refuse("todo.proof.file_outside")
    before = baseline.before(fact.rel) if baseline is not None and fact.rel is not None else None
    if op == "delete":
        if fact.exists:
            return refuse("todo.checked.file_exists")
        if before == "":
            return refuse("todo.proof.file_never")
        if before is None and not fact.git_changed:
            return _unverified(claim, entry, notes, say("todo.proof.no_baseline"))
        return _verified(claim, entry, notes, "snapshot" if before else "git")
    if not fact.exists:
        return refuse("todo.checked.file_missing")
    if fact.kind != "file":
        return refuse(f"todo.proof.file_{'folder' if fact.kind == 'folder' else 'other'}")
    if before is not None and fact.digest is not None:
        if before and before == content_key(fact.digest):
            return refuse("todo.checked.file_unchanged", seen=say("todo.proof.seen_same"))
        return _verified(claim, entry, notes, "snapshot")
    old = (fact.mtime or 0) < task.created_at - CHANGE_SLACK_S
    if fact.git_changed is False:
        seen = "todo.checked.seen_git" if old else "todo.proof.seen_head"
        return refuse("todo.checked.file_unchanged", seen=say(seen))
    if old:
        return refuse("todo.checked.file_unchanged", seen=say("todo.checked.seen_mtime"))
    return _unverified(claim, entry, notes, say("todo.proof.no_baseline"))


def _verified(
    claim: FileClaim, entry: dict[str, Any], notes: list[dict[str, Any]], against: str
) -> tuple[None, None]:
    entry.update(status="verified", against=against)
    notes.append({"file": claim.path, "status": "verified"})
    return None, None


def _unverified(
    claim: FileClaim, entry: dict[str, Any], notes: list[dict[str, Any]], reason: str
) -> tuple[None, None]:
    entry.update(status="unverified", reason=reason)
    notes.append({"file": claim.path, "status": "unverified", "reason": reason})
    return None, None


def _judge_command(
    claim: CommandClaim,
    fact: CommandFact | None,
    ctx: Context,
    notes: list[dict[str, Any]],
    checked: list[dict[str, Any]],
) -> tuple[str | None, TestSummary | None]:
    """One command claim against goalkeeper's re-run: a different exit (or a timeout) is a
    refusal with the real output; a command not re-run stays a claim, noted unverified."""
    import hashlib

    say = ctx.say
    entry: dict[str, Any] = {"cmd": claim.cmd, "claimed_exit": claim.exit}
    checked.append(entry)
    if fact is None:
        entry.update(status="unverified", reason=say("todo.gate.not_inspected"))
        return None, None
    if not fact.allowed:
        reason = say(f"trust.rerun.{fact.refusal or 'not_approved'}", detail=fact.detail or "-")
        entry.update(status="unverified", reason=reason, refusal=fact.refusal)
        notes.append({"cmd": claim.cmd, "status": "unverified", "reason": reason})
        return None, None
    summary = parse_test_summary(fact.output_tail)
    entry.update(
        argv=list(fact.argv),
        exit=fact.exit_code,
        timed_out=fact.timed_out,
        seconds=fact.seconds,
        output_sha256=hashlib.sha256(fact.output_tail.encode("utf-8", "replace")).hexdigest(),
        tests=summary.to_json() if summary.known else None,
    )
    claimed = 0 if claim.exit is None else claim.exit
    if fact.timed_out or fact.exit_code != claimed:
        entry.update(status="refused")
        real = (
            say("todo.timeout")
            if fact.timed_out
            else say("todo.checked.exited", code=js_str(fact.exit_code))
        )
        return say(
            "todo.checked.cmd_mismatch",
            cmd=claim.cmd,
            claimed=js_str(claimed),
            real=real,
            tail=fact.output_tail[-TAIL_QUOTED:],
        ), summary
    entry.update(status="verified")
    note: dict[str, Any] = {"cmd": claim.cmd, "status": "verified", "exit": fact.exit_code}
    if summary.known:
        note["tests"] = summary.passed
    notes.append(note)
    return None, summary


def _unproven_test_gate(
    task: Task,
    misses: list[tuple[CommandClaim, CommandFact | None, TestSummary | None]],
    ctx: Context,
) -> tuple[str, tuple[str, str]]:
    """Why no claimed run proves the test gate, from the first exit-0 claim: goalkeeper may not
    re-run it (say which commands it would run), it ran no test, or its output shows no
    summary. A claim goalkeeper has no fact for (it could not run it) fails closed."""
    say = ctx.say
    if not misses:
        return say("todo.gate.unchecked", id=task.id, cmd="-"), ("unchecked", "")
    claim, fact, summary = misses[0]
    if fact is None:
        return say("todo.gate.unchecked", id=task.id, cmd=claim.cmd), ("unchecked", claim.cmd)
    if not fact.allowed:
        reason = say(f"trust.rerun.{fact.refusal or 'not_approved'}", detail=fact.detail or "-")
        approved = ", ".join(f"`{a}`" for a in fact.approved if a.strip())
        text = say(
            "todo.gate.not_rerun",
            id=task.id,
            cmd=claim.cmd,
            reason=reason,
            approved=approved or say("todo.gate.none_approved"),
        )
        return text, ("not_rerun", claim.cmd)
    if summary is not None and summary.passed >= 1 and _narrowed(fact, summary):
        approved = next((f"`{a}`" for a in fact.approved if a.strip()), f"`{claim.cmd}`")
        text = say(
            "todo.gate.narrowed", id=task.id, cmd=claim.cmd, summary=summary.line, approved=approved
        )
        return text, ("narrowed", claim.cmd)
    if summary is not None and summary.known:
        text = say("todo.gate.no_tests", id=task.id, cmd=claim.cmd, summary=summary.line)
        return text, ("no_tests", claim.cmd)
    tail = fact.output_tail[-TAIL_QUOTED:]
    return say("todo.gate.no_summary", id=task.id, cmd=claim.cmd, tail=tail), (
        "no_summary",
        claim.cmd,
    )


def _tests_changed(task: Task, claim: CommandClaim, replay: TestReplay, ctx: Context) -> str:
    """The re-run passed in the agent's tree, but not against the tests kept when the user set
    the session going (``KeepTests``): the changed files named, the original tests' words."""
    from goalkeeper.guards.goal_tests import changes_named

    failed = next((r for r in replay.runs if not r.passed), None)
    tail = (failed.output_tail[-TAIL_QUOTED:].strip() if failed else "") or (
        replay.problem or "(no output)"
    )
    changed = changes_named(replay, ctx.say)
    return ctx.say("todo.gate.tests_changed", id=task.id, cmd=claim.cmd, changed=changed, tail=tail)


def _whole_suite_passed(fact: CommandFact | None, summary: TestSummary | None) -> bool:
    """goalkeeper's own re-run of an approved command executed at least one test, and it ran
    the suite, not a selection of it (audit D2: ``-k`` for the one test that passes, or the
    test file the agent just wrote, proves nothing about the others)."""
    if fact is None or not fact.allowed or summary is None or summary.passed < 1:
        return False
    return not _narrowed(fact, summary)


def _narrowed(fact: CommandFact, summary: TestSummary) -> bool:
    return summary.deselected > 0 or narrows_selection(fact.argv)


UNCHECKED = ("effect", "review")
"""What of a completion only a person can settle: an ``effect`` declaration, a review
goalkeeper cannot read."""


def completion_record(
    task: Task | None,
    task_id: object,
    evidence: Mapping[str, Any],
    gate: Gate,
    mode: str,
    judged: Judgement,
    unverified: list[dict[str, Any]],
    ctx: Context,
) -> dict[str, Any]:
    """Item 7 of the audit issue: what was verified and how, and what stayed unverified and why."""
    say = ctx.say
    files, _ = evidence_claims(evidence)
    checked_files = [c for c in judged.checked if "path" in c]
    checked_cmds = [c for c in judged.checked if "cmd" in c]
    left = [*unverified]
    left += [
        {"what": "file", "path": c["path"], "why": c.get("reason", "")}
        for c in checked_files
        if c.get("status") != "verified"
    ]
    left += [
        {"what": "cmd", "cmd": c["cmd"], "why": c.get("reason", "")}
        for c in checked_cmds
        if c.get("status") != "verified"
    ]
    if mode == "off":
        left += [{"what": "file", "path": f.path, "why": say("todo.gate.files_off")} for f in files]
    entries = [e for e in evidence.get("evidence") or [] if isinstance(e, Mapping)]
    reviews = [
        {"agent": e.get("agent"), "path": e.get("path")}
        for e in entries
        if e.get("type") == "review"
    ]
    left += [{"what": "review", "path": r["path"], "why": say("todo.gate.review")} for r in reviews]
    if evidence.get("kind") == "effect":
        left.append({"what": "effect", "why": say("todo.gate.effect_declared")})
    unchecked = [e["what"] for e in left if e["what"] in UNCHECKED]
    return {
        "id": task.id if task is not None else task_id,
        "subject": task.subject if task is not None else None,
        "kind": evidence.get("kind"),
        "gate": gate_names(gate),
        "evidence_check": mode,
        "commands": checked_cmds,
        "files": checked_files,
        "reviews": reviews,
        "unverified": left,
        # seed 002: left to the user, who accepts it (``goalkeeper todo accept``); until then
        # it awaits acceptance and is never counted as proven (``store.claims``)
        "awaiting_acceptance": ", ".join(dict.fromkeys(unchecked)),
    }
