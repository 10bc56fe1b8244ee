"""A subagent's "done" under the todo evidence rules (issue 22 item 6), through the engine with
plain events: a completion a subagent made that was refused keeps it working at its stop; an
honest one stops freely; the same items twice, or three blocks, let it stop with the user told;
a ``[PDCA] complete`` needs a verification that ran in its own run; a host that cannot refuse a
subagent's stop is never asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from goalkeeper.config import Config
from goalkeeper.core.values import (
    Action,
    Activity,
    Advise,
    BeforeAgentStart,
    Block,
    Capability,
    Continue,
    Notify,
    Record,
    Reply,
    Settled,
    SubagentSettled,
    ToolCall,
    ToolRun,
    UserPrompt,
)
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES

S = "s"
A = "a5032331ef49a9e6b"


def handle(
    project: Path,
    *events: Any,
    caps: frozenset[Capability] = CLAUDE_CAPABILITIES,
    config: Config | None = None,
) -> tuple[Action, ...]:
    sup = Supervisor(project, config or Config(), host="test", capabilities=caps)
    try:
        return sup.handle(list(events)).actions
    finally:
        sup.store.close()


def todo(project: Path, call: dict[str, Any], agent: str = "") -> tuple[Action, ...]:
    return handle(project, ToolCall(S, "todo", call, agent))


def create(project: Path, subject: str) -> None:
    assert any(
        isinstance(a, Reply) for a in todo(project, {"action": "create", "subject": subject})
    )


def complete(task: int, evidence: list[dict[str, Any]] | None) -> dict[str, Any]:
    meta = {"evidence": {"kind": "runnable", "evidence": evidence}} if evidence is not None else {}
    return {"action": "update", "id": task, "status": "completed", "metadata": meta}


def stop(project: Path, text: str = "done", agent: str = A, **kw: Any) -> tuple[Action, ...]:
    return handle(project, SubagentSettled(S, agent, text, agent_type="general-purpose", **kw))


def continued(actions: tuple[Action, ...]) -> str | None:
    return next((a.text for a in actions if isinstance(a, Continue)), None)


def told(actions: tuple[Action, ...]) -> str:
    return "\n".join(a.text for a in actions if isinstance(a, Notify))


def kinds(actions: tuple[Action, ...]) -> list[str]:
    return [a.kind for a in actions if isinstance(a, Record)]


def test_a_refused_subagent_completion_keeps_it_working(tmp_path: Path) -> None:
    """A subagent marks a todo completed without evidence: the call is refused, and its stop is
    refused naming that todo, with the way out."""
    create(tmp_path, "parse the config")
    assert any(isinstance(a, Block) for a in todo(tmp_path, complete(1, None), A))
    actions = stop(tmp_path)
    text = continued(actions)
    assert text is not None and "todo #1" in text and "not done" in text, actions
    assert "subagent_refused" in kinds(actions)


def test_an_honest_subagent_stops_freely(tmp_path: Path) -> None:
    """Evidence goalkeeper checks (a command it re-ran): the subagent stops, nothing is said."""
    create(tmp_path, "ran it")
    actions = todo(tmp_path, complete(1, [{"type": "cmd", "cmd": "true", "exit": 0}]), A)
    assert not any(isinstance(a, Block) for a in actions), actions
    actions = stop(tmp_path)
    assert continued(actions) is None and "subagent" not in told(actions), actions


def test_a_refusal_fixed_since_lets_the_subagent_stop(tmp_path: Path) -> None:
    """Refused, then completed with evidence: nothing is left against the subagent."""
    create(tmp_path, "ran it")
    todo(tmp_path, complete(1, None), A)
    todo(tmp_path, complete(1, [{"type": "cmd", "cmd": "true", "exit": 0}]), A)
    assert continued(stop(tmp_path)) is None


def test_the_main_agents_refusal_does_not_hold_a_subagent(tmp_path: Path) -> None:
    """Only what this subagent did is judged at its stop: the main agent's refused completion
    (and another subagent's) is told at the main agent's own stop instead."""
    create(tmp_path, "main work")
    todo(tmp_path, complete(1, None))
    create(tmp_path, "other subagent's work")
    todo(tmp_path, complete(2, None), "another")
    assert continued(stop(tmp_path)) is None


def test_the_same_refusal_twice_lets_it_stop_and_tells_the_user(tmp_path: Path) -> None:
    """The subagent stops again with the same refused todo: it is let go (one continuation
    spent), and the user reads that its work is unproven."""
    create(tmp_path, "parse the config")
    todo(tmp_path, complete(1, None), A)
    assert continued(stop(tmp_path)) is not None
    actions = stop(tmp_path, continued=True)
    assert continued(actions) is None, actions
    assert "subagent general-purpose stopped with its work unproven" in told(actions)
    assert "todo #1" in told(actions)
    assert "subagent_released" in kinds(actions)


def test_at_most_three_blocks_of_one_subagent(tmp_path: Path) -> None:
    """New refusals at each stop renew the reason, but the fourth stop is let go whatever."""
    for n in range(1, 4):
        create(tmp_path, f"task {n}")
        todo(tmp_path, complete(n, None), A)
        assert continued(stop(tmp_path)) is not None, n
    create(tmp_path, "task 4")
    todo(tmp_path, complete(4, None), A)
    actions = stop(tmp_path)
    assert continued(actions) is None and "unproven" in told(actions), actions


def test_a_native_completion_by_a_subagent_is_named_once(tmp_path: Path) -> None:
    """TodoWrite with a completed item (refused at the call) is named at the subagent's next
    stop; the host's list is not goalkeeper's to track, so it does not hold it again."""
    todos = {"todos": [{"content": "x", "status": "completed", "activeForm": "x"}]}
    assert any(isinstance(a, Block) for a in handle(tmp_path, ToolCall(S, "TodoWrite", todos, A)))
    text = continued(stop(tmp_path))
    assert text is not None and "TodoWrite" in text
    assert continued(stop(tmp_path)) is None


def _runs(*runs: ToolRun) -> Activity:
    return Activity(tool_calls=len(runs), runs=runs)


def test_a_complete_claim_without_a_verification_keeps_it_working(tmp_path: Path) -> None:
    """`[PDCA] complete` from a subagent whose own run verified nothing is refused."""
    echo = ToolRun("shell", "Bash", "echo '3 passed'", outcome="passed", tail="3 passed")
    text = continued(stop(tmp_path, "[PDCA] complete", activity=_runs(echo)))
    assert text is not None and "[PDCA] complete" in text


def test_a_complete_claim_after_a_passing_test_run_stops(tmp_path: Path) -> None:
    """The same claim after a test run that finished and passed in its own run stops freely."""
    run = ToolRun("shell", "Bash", "python -m pytest -q", outcome="passed", tail="3 passed in 0.2s")
    assert continued(stop(tmp_path, "[PDCA] complete", activity=_runs(run))) is None


def test_a_complete_claim_on_a_host_that_reports_no_run_is_not_judged(tmp_path: Path) -> None:
    """No transcript (the host reported no run): the rule is off, the subagent stops."""
    assert continued(stop(tmp_path, "[PDCA] complete")) is None


def test_without_an_agent_id_stop_hook_active_is_the_bound(tmp_path: Path) -> None:
    """Nothing to count by: the first stop is refused, a stop the host says a stop hook
    continued is let go, and the user is told."""
    idle = _runs()
    assert continued(stop(tmp_path, "[PDCA] complete", agent="", activity=idle)) is not None
    actions = stop(tmp_path, "[PDCA] complete", agent="", activity=idle, continued=True)
    assert continued(actions) is None and "unproven" in told(actions), actions


def test_a_host_that_cannot_refuse_a_subagent_stop_is_never_asked(tmp_path: Path) -> None:
    """Without ``subagent_stop`` the guard says nothing at a subagent's stop."""
    create(tmp_path, "parse the config")
    todo(tmp_path, complete(1, None), A)
    caps = frozenset(c for c in CLAUDE_CAPABILITIES if c != "subagent_stop")
    actions = handle(tmp_path, SubagentSettled(S, A, "done"), caps=caps)
    assert continued(actions) is None and not told(actions), actions


def test_the_chinese_reason_names_the_todo(tmp_path: Path) -> None:
    """The catalog has the reason in Chinese too."""
    create(tmp_path, "解析配置")
    todo(tmp_path, complete(1, None), A)
    zh = Config(lang="zh")
    text = continued(handle(tmp_path, SubagentSettled(S, A, "完成了"), config=zh))
    assert text is not None and "你还没有完成" in text and "todo #1" in text, text


def test_the_main_agents_deferred_advice_stays_out_of_a_subagent(tmp_path: Path) -> None:
    """Advice kept for the main agent's next turn (here: have a reviewer check the completed
    todo) is not sent into a subagent's continuation; the main agent still gets it."""
    create(tmp_path, "ran it")
    todo(tmp_path, complete(1, [{"type": "cmd", "cmd": "true", "exit": 0}]))
    handle(tmp_path, BeforeAgentStart(S))
    assert continued(handle(tmp_path, Settled(S, "[PDCA] complete"))) is None  # advice waits
    create(tmp_path, "parse the config")
    todo(tmp_path, complete(2, None), A)
    text = continued(stop(tmp_path))
    assert text is not None and "todo #2" in text and "reviewer" not in text, text
    later = handle(tmp_path, UserPrompt(S, "next"))
    assert any(isinstance(a, Advise) and "reviewer" in a.text for a in later), later


def test_in_quick_mode_a_complete_claim_is_not_judged(tmp_path: Path) -> None:
    """Quick mode has no gates for the main agent's complete, nor for a subagent's."""
    handle(tmp_path, UserPrompt(S, "/gk-mode quick fix the typo in the VAT label"))
    assert continued(stop(tmp_path, "[PDCA] complete", activity=_runs())) is None
