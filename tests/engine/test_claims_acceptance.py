"""Claims the user must accept (issue 22 item 2, seed 002) through the engine with plain
events: an ``effect`` completion is taken, recorded as awaiting the user in the store, named
at the next stop once; a checked completion records nothing; a run closed on an unaccepted
claim is "awaiting", not "done"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from goalkeeper.config import Config
from goalkeeper.core.values import Action, Notify, Reply, Settled, ToolCall
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.store.claims import accept, awaiting
from goalkeeper.store.journal import JournalEntry
from goalkeeper.store.outcome import AgentExit, decide
from goalkeeper.testing import CLAUDE_CAPABILITIES

S = "s"


def handle(project: Path, *events: Any, config: Config | None = None) -> tuple[Action, ...]:
    sup = Supervisor(project, config or Config(), host="test", capabilities=CLAUDE_CAPABILITIES)
    try:
        return sup.handle(list(events)).actions
    finally:
        sup.store.close()


def todo(project: Path, call: dict[str, Any], config: Config | None = None) -> Reply:
    actions = handle(project, ToolCall(S, "todo", call), config=config)
    reply = next((a for a in actions if isinstance(a, Reply)), None)
    assert reply is not None, actions
    return reply


def complete(task: int, kind: str, evidence: list[dict[str, Any]]) -> dict[str, Any]:
    meta = {"evidence": {"kind": kind, "evidence": evidence}}
    return {"action": "update", "id": task, "status": "completed", "metadata": meta}


def notices(project: Path) -> str:
    actions = handle(project, Settled(S, "all done"))
    return "\n".join(a.text for a in actions if isinstance(a, Notify))


def waiting(project: Path) -> list[int]:
    sup = Supervisor(project, Config(), host="test", capabilities=CLAUDE_CAPABILITIES)
    try:
        with sup.store.transaction() as conn:
            return [c.task_id for c in awaiting(conn, S)]
    finally:
        sup.store.close()


def test_an_effect_completion_awaits_the_user_and_is_named_once(tmp_path: Path) -> None:
    todo(tmp_path, {"action": "create", "subject": "deploy the docs"})
    todo(tmp_path, complete(1, "effect", []))
    assert waiting(tmp_path) == [1]
    first = notices(tmp_path)
    assert "awaiting your acceptance" in first and "#1 deploy the docs" in first, first
    assert "awaiting your acceptance" not in notices(tmp_path)  # once per claim
    assert waiting(tmp_path) == [1]  # told is not accepted


def test_a_review_goalkeeper_cannot_read_awaits_the_user(tmp_path: Path) -> None:
    todo(tmp_path, {"action": "create", "subject": "reviewed"})
    review = {"type": "review", "agent": "reviewer", "path": "notes/review.md"}
    todo(tmp_path, complete(1, "runnable", [{"type": "cmd", "cmd": "true"}, review]))
    assert waiting(tmp_path) == [1]


def test_a_completion_with_checked_evidence_awaits_nothing(tmp_path: Path) -> None:
    todo(tmp_path, {"action": "create", "subject": "ran it"})
    todo(tmp_path, complete(1, "runnable", [{"type": "cmd", "cmd": "true", "exit": 0}]))
    assert waiting(tmp_path) == []
    assert "awaiting your acceptance" not in notices(tmp_path)


def test_the_chinese_notice_names_the_claim(tmp_path: Path) -> None:
    zh = Config(lang="zh")
    todo(tmp_path, {"action": "create", "subject": "部署"}, config=zh)
    todo(tmp_path, complete(1, "effect", []), config=zh)
    actions = handle(tmp_path, Settled(S, "完成"), config=zh)
    text = "\n".join(a.text for a in actions if isinstance(a, Notify))
    assert "等待你验收" in text and "#1 部署" in text, text


def test_an_accepted_claim_no_longer_awaits(tmp_path: Path) -> None:
    todo(tmp_path, {"action": "create", "subject": "deploy"})
    todo(tmp_path, complete(1, "effect", []))
    sup = Supervisor(tmp_path, Config(), host="test", capabilities=CLAUDE_CAPABILITIES)
    try:
        with sup.store.transaction() as conn:
            assert accept(conn, S, 2, 1.0) is None  # no such claim
            claim = accept(conn, S, 1, 1.0)
            assert claim is not None and claim.accepted_at == 1.0
    finally:
        sup.store.close()
    assert waiting(tmp_path) == []


def _closed() -> list[JournalEntry]:
    data = {"actions": [{"kind": "Close", "text": "goal proven"}]}
    return [
        JournalEntry(1, S, 1.0, "event", {"type": "Settled"}),
        JournalEntry(2, S, 1.0, "decision", data),
    ]


def test_a_run_closed_on_an_unaccepted_claim_is_awaiting_not_done() -> None:
    outcome = decide(_closed(), "none", AgentExit(), ["#1 deploy"])
    assert outcome.outcome == "awaiting" and outcome.exit_code == 4
    assert "#1 deploy" in outcome.reason and "goalkeeper todo accept" in outcome.reason
    assert decide(_closed(), "none", AgentExit()).exit_code == 0  # nothing awaits: proven


def test_run_reads_the_sessions_claims_still_awaiting(tmp_path: Path) -> None:
    """What `goalkeeper run` passes to ``decide``: the run's sessions' unaccepted claims."""
    from goalkeeper.cli.run.command import _awaiting

    todo(tmp_path, {"action": "create", "subject": "deploy"})
    todo(tmp_path, complete(1, "effect", []))
    assert _awaiting(tmp_path, _closed()) == ["#1 deploy"]
    other = [JournalEntry(1, "another", 1.0, "event", {"type": "Settled"})]
    assert _awaiting(tmp_path, other) == []  # another session's claim is not this run's


def test_a_claim_on_a_reopened_todo_no_longer_awaits(tmp_path: Path) -> None:
    todo(tmp_path, {"action": "create", "subject": "deploy"})
    todo(tmp_path, complete(1, "effect", []))
    todo(tmp_path, {"action": "update", "id": 1, "status": "in_progress"})
    assert waiting(tmp_path) == []
