"""The journal's record of every command goalkeeper itself ran for a session: a goal's
verification, an evidence re-run, a replay against the protected tests.

Guards record what they decided; what was *run* (the argument vector, the exit status, how long
it took, a digest and the tail of the output) is known only here, where the facts come back.
``goalkeeper report`` shows it as the proof a reviewer can check: the digest names the whole
captured output, the tail shows its end. A command refused a re-run is recorded too, with why.
"""

from __future__ import annotations

from goalkeeper.core.shell.argv import command_argv
from goalkeeper.core.values import CommandFact, Facts, TestReplay, VerifyRun

TAIL_CHARS = 2000
"""Enough of a test runner's output for its summary and the first failure."""


def run_entries(facts: Facts) -> list[tuple[str, dict[str, object]]]:
    """``(kind, data)`` per command run (or refused) in ``facts``, in the order they ran:
    kinds ``verify_run``, ``evidence_run``, ``replay_run``."""
    entries: list[tuple[str, dict[str, object]]] = []
    for fact in facts.commands:
        entries.append(("evidence_run", _command(fact)))
        if fact.replay is not None:
            entries += _replays(fact.replay, "evidence")
    for run in facts.verify:
        entries.append(("verify_run", _verify(run, "goal")))
    if facts.tamper is not None:
        entries += _replays(facts.tamper, "goal")
    if facts.kept is not None:
        entries += _replays(facts.kept, "kept")
    return entries


def _verify(run: VerifyRun, purpose: str) -> dict[str, object]:
    return {
        "purpose": purpose,
        "command": run.command,
        "argv": list(command_argv(run.command)),
        "exit": run.exit_code,
        "timed_out": run.timed_out,
        "no_tests": run.no_tests,
        "passed": run.passed,
        "seconds": round(run.seconds, 3),
        **_output(run.output_tail),
    }


def _command(fact: CommandFact) -> dict[str, object]:
    if not fact.allowed:
        return {
            "command": fact.cmd,
            "ran": False,
            "refusal": fact.refusal,
            "detail": fact.detail,
        }
    return {
        "command": fact.cmd,
        "ran": True,
        "argv": list(fact.argv),
        "exit": fact.exit_code,
        "timed_out": fact.timed_out,
        "passed": fact.exit_code == 0 and not fact.timed_out,
        "seconds": fact.seconds,
        **_output(fact.output_tail),
    }


def _replays(replay: TestReplay, purpose: str) -> list[tuple[str, dict[str, object]]]:
    changes = [{"path": c.path, "kind": c.kind} for c in replay.changes]
    if not replay.runs and replay.problem is None:
        return []  # nothing protected changed: nothing was run again
    if replay.problem is not None:
        return [("replay_run", {"purpose": purpose, "changes": changes, "problem": replay.problem})]
    return [("replay_run", {**_verify(run, purpose), "changes": changes}) for run in replay.runs]


def _output(tail: str) -> dict[str, object]:
    import hashlib

    return {
        "output_sha256": hashlib.sha256(tail.encode("utf-8", "surrogatepass")).hexdigest(),
        "output_tail": tail[-TAIL_CHARS:],
    }
