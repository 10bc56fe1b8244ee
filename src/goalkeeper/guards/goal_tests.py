"""Protected tests at a passing verify (issue 11): what the goal guard says when the goal's
tests pass only with the agent's changes to them, and the record a proven goal leaves.

``engine.replay`` runs the verify again against the original tests when a protected file
changed; this module turns that ``TestReplay`` into actions. The agent is sent back once
(restore the tests and fix the code, or ask the user); the same held change at the next stop
pauses, because only the user can accept changed tests (``goalkeeper goal accept-tests``).
Pure.
"""

from __future__ import annotations

from goalkeeper.core.messages import Say
from goalkeeper.core.shell.argv import command_argv
from goalkeeper.core.values import (
    Action,
    Continue,
    HiddenRun,
    Notify,
    Pause,
    Record,
    TestReplay,
    VerifyRun,
)
from goalkeeper.guards.spec import Context

TAIL_CHARS = 1500
MAX_NAMED = 12


def tests_key(replay: TestReplay) -> str:
    """One change of the tests (and whether it could be checked), to say it once."""
    import hashlib

    blob = "|".join(f"{c.path}:{c.kind}" for c in replay.changes) + f"|{replay.problem or ''}"
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def tests_held(
    replay: TestReplay, again: bool, path: str, ctx: Context, *, what: str = "goal"
) -> tuple[Action, ...]:
    """The verify passes (``what`` = ``goal``) or the plan would close (``plan``), but the
    original tests fail against the agent's code (or could not be run). First time: the agent
    is sent back; ``again``: the loop pauses for the user."""
    say = ctx.say
    keys = "proof.tests" if what == "goal" else "proof.plan_tests"
    changed = changes_named(replay, say)
    record = Record(
        f"{what}_tests_held",
        {
            "changes": [{"path": c.path, "kind": c.kind} for c in replay.changes],
            "problem": replay.problem,
            "runs": [run_record(r) for r in replay.runs],
        },
    )
    if replay.problem is not None:
        text = say(f"{keys}.unchecked_user", changed=changed, problem=replay.problem)
        return (Pause(text), record)
    failed = next((r for r in replay.runs if not r.passed), None)
    tail = (failed.output_tail[-TAIL_CHARS:].strip() if failed else "") or "(no output)"
    user = say(f"{keys}.held_user", changed=changed)
    if again:
        return (Pause(user), record)
    agent = say(f"{keys}.held", changed=changed, tail=tail, path=path)
    return (Continue(agent), Notify(user, "warning"), record)


def changes_named(replay: TestReplay, say: Say) -> str:
    """The changed protected files, one line each, the first ``MAX_NAMED``."""
    changed = "\n".join(
        say(f"proof.tests.{c.kind}", path=c.path) for c in replay.changes[:MAX_NAMED]
    )
    if len(replay.changes) > MAX_NAMED:
        changed += "\n" + say("proof.tests.more", n=len(replay.changes) - MAX_NAMED)
    return changed


def run_record(run: VerifyRun) -> dict[str, object]:
    """What a completion record keeps of one verification run (issue 11, item 7)."""
    import hashlib

    return {
        "command": run.command,
        "argv": list(command_argv(run.command)),
        "exit": run.exit_code,
        "timed_out": run.timed_out,
        "seconds": round(run.seconds, 3),
        "output_sha256": hashlib.sha256(
            run.output_tail.encode("utf-8", "surrogatepass")
        ).hexdigest(),
    }


def hidden_key(hidden: HiddenRun) -> str:
    """One failure with the hidden tests, to pause when it comes back unchanged."""
    from goalkeeper.core.goals.verify import failure_signature

    failed = next((r for r in hidden.runs if not r.passed), None)
    tail = failed.output_tail if failed is not None else (hidden.problem or "")
    return "hidden:" + failure_signature(tail)


def hidden_failed(hidden: HiddenRun, again: bool, ctx: Context) -> tuple[Action, ...]:
    """The verify passes, but not with the user's hidden acceptance tests laid over the work
    tree. The agent is told only that: their names and output would show it what to
    special-case. First time it is sent back; the same failure again pauses for the user."""
    say = ctx.say
    record = Record(
        "goal_hidden_failed",
        {"problem": hidden.problem, "runs": [run_record(r) for r in hidden.runs]},
    )
    if hidden.problem is not None:
        return (Pause(say("proof.hidden.unchecked_user", problem=hidden.problem)), record)
    user = say("proof.hidden.failed_user")
    if again:
        return (Pause(user), record)
    return (Continue(say("proof.hidden.failed")), Notify(user, "warning"), record)


def proof_record(
    runs: tuple[VerifyRun, ...], replay: TestReplay | None, hidden: HiddenRun | None = None
) -> dict[str, object]:
    """What a proven goal records: each verification, the protected tests and their replay,
    and whether the user's hidden tests ran (how many commands, never what they are)."""
    if replay is None:
        protected: object = "no baseline"
    elif not replay.changes:
        protected = "unchanged"
    else:
        protected = {
            "changes": [{"path": c.path, "kind": c.kind} for c in replay.changes],
            "replay": [run_record(r) for r in replay.runs],
        }
    record: dict[str, object] = {
        "verify": [run_record(r) for r in runs],
        "protected_tests": protected,
    }
    if hidden is not None:
        record["hidden_tests"] = {"ran": len(hidden.runs), "passed": hidden.passed}
    return record
