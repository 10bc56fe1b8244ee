"""The 34 end-to-end scenarios of pi-todone v0.6.0 (``todo-obligations-spec.md`` §13, S1–S34),
re-expressed against goalkeeper's real engine.

Translation rules (Pi → goalkeeper):

* The mock host is the real ``Supervisor`` over a temp project with a ``FakeClock``; events go
  in, actions come out. Every ``Advise`` and ``Continue`` the engine returns is one "injection".
* Pi's ``sendMessage(..., {deliverAs: "steer"})`` is ``Advise(when="now")``; ``followUp`` without
  ``triggerTurn`` is ``Advise(when="next_turn")`` (the host has the ``follow_up`` capability, as Pi
  has); the ⑦ ultimatum (``triggerTurn: true``) is ``Continue``. ``customType == "pi-todone"`` is
  the ``goalkeeper:`` prefix of the text. A tool call that passes answers ``Reply`` (Pi returns
  nothing); a refusal answers ``Block``.
* pi-todone read its tasks from a separate todo tool's results in the branch; here the tree is
  built through the same engine with ``todo`` tool calls (``create``/``update``), so a completion
  always goes through the gates (and so always queues ⑥, see S21/S24).
* A user message "with the default timestamp" (2000-01-01, never inside the quiet window) is a
  ``UserPrompt`` followed by a clock jump of a day; "a user message 10 s old" is a ``UserPrompt``
  and a 10 s jump. ``fireRound`` is ``BeforeAgentStart`` then ``TurnEnd``; ``agent_settled`` is
  ``Settled``.
* ``Config(lang="zh")`` for the spec's Chinese texts; ``no_plan="silent"`` so that the cadence
  guard (no plan file here) says nothing; ``evidence_check="off"`` because checking claimed files
  and re-running commands is goalkeeper's extension beyond the spec, whose gates check only the
  form of the evidence (the scenarios claim files that do not exist in the temp project).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from goalkeeper.config import Config
from goalkeeper.core.messages import make_say
from goalkeeper.core.values import (
    Action,
    Advise,
    BeforeAgentStart,
    Block,
    Capability,
    Continue,
    Event,
    Notify,
    Reply,
    SessionStart,
    Settled,
    ToolCall,
    TurnEnd,
    UserPrompt,
)
from goalkeeper.engine.registry import build_registry
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.guards.cadence import CadenceGuard
from goalkeeper.guards.spec import GuardRegistrationError, Registry
from goalkeeper.guards.todos import TodosGuard
from goalkeeper.testing import ALL_CAPABILITIES, FakeClock, context

SID = "s1"
PKG = "goalkeeper:"
CAPS: frozenset[Capability] = ALL_CAPABILITIES | {"follow_up"}
CONFIG = Config(lang="zh", no_plan="silent", evidence_check="off")
OLD = 24 * 3600.0  # a user message this old never holds the quiet window (Pi's 2000-01-01)
RUNNABLE: dict[str, Any] = {
    "kind": "runnable",
    "evidence": [{"type": "cmd", "cmd": "npm test", "exit": 0}],
}
REVIEW: dict[str, Any] = {"type": "review", "agent": "reviewer", "path": "review.md"}

# Texts of the advice (substrings the spec's scenarios match on).
PROOF_1 = "还有 1 项 todo 未完成"
PARALLEL = "以下任务在前置未完成时已开始"
ULTIMATUM = "禁止直接收尾"


class Host:
    """A mock host around the real engine: it feeds events and records every injection."""

    def __init__(
        self, project: Path, registry: Registry | None = None, config: Config = CONFIG
    ) -> None:
        project.mkdir(parents=True, exist_ok=True)
        self.clock = FakeClock()
        self.engine = Supervisor(
            project, config, host="test", capabilities=CAPS, clock=self.clock, registry=registry
        )
        self.sent: list[Advise | Continue] = []

    @property
    def texts(self) -> list[str]:
        return [a.text for a in self.sent]

    def send(self, *events: Event) -> tuple[Action, ...]:
        actions = self.engine.handle(events).actions
        self.sent.extend(a for a in actions if isinstance(a, Advise | Continue))
        return actions

    # -- user and run lifecycle ----------------------------------------------------------------
    def user(self, text: str = "做 X", age: float = OLD) -> None:
        """A real user message, ``age`` seconds old by the time the next event arrives."""
        self.send(UserPrompt(SID, text))
        self.clock.advance(age)

    def agent_start(self) -> None:
        self.send(BeforeAgentStart(SID))

    def turn_end(self) -> None:
        self.send(TurnEnd(SID))

    def fire_round(self) -> None:
        self.agent_start()
        self.turn_end()

    def settle(self, text: str = "好了") -> tuple[Action, ...]:
        return self.send(Settled(SID, text))

    # -- the todo tool -------------------------------------------------------------------------
    def call(self, tool_input: Mapping[str, Any]) -> Block | Reply:
        actions = self.send(ToolCall(SID, "todo", tool_input))  # type: ignore[arg-type]
        answers = [a for a in actions if isinstance(a, Block | Reply)]
        assert len(answers) == 1, actions
        assert not any(isinstance(a, Notify) for a in actions), actions
        return answers[0]

    def todo(self, **tool_input: Any) -> Block | Reply:
        return self.call(tool_input)

    def create(self, subject: str, **fields: Any) -> int:
        answer = self.todo(action="create", subject=subject, **fields)
        assert isinstance(answer, Reply), answer
        return int(answer.data["task"]["id"])  # type: ignore[index]

    def update(self, task_id: int, status: str, **fields: Any) -> Block | Reply:
        return self.todo(action="update", id=task_id, status=status, **fields)

    def complete(self, task_id: int, evidence: Any = RUNNABLE) -> Block | Reply:
        return self.update(task_id, "completed", metadata={"evidence": evidence})


def reason(answer: Block | Reply) -> str:
    assert isinstance(answer, Block), f"expected a block, got {answer}"
    return answer.reason


def passed(answer: Block | Reply) -> bool:
    return isinstance(answer, Reply)


def task_of(answer: Block | Reply) -> dict[str, Any]:
    assert isinstance(answer, Reply), answer
    task = answer.data["task"]
    assert isinstance(task, dict)
    return task


@pytest.fixture
def host(tmp_path: Path) -> Host:
    return Host(tmp_path / "project")


# -- hard gates -------------------------------------------------------------------------------


def test_s01_completion_without_evidence_is_blocked(host: Host) -> None:
    """S1: completing a todo with no evidence is refused, and the reason teaches metadata.evidence
    (no snapshot either: the empty tree, as with Pi's empty branch)."""
    answer = host.update(1, "completed")
    assert isinstance(answer, Block)
    assert "metadata.evidence" in reason(answer)


def test_s02_lenient_evidence_is_normalized_and_written_back(host: Host) -> None:
    """S2: ``metadata.evidence = {cmd: "npm test"}`` passes and is stored normalized (kind
    runnable, entry type cmd); goalkeeper's tool needs task #1 to exist, so it is created first,
    and the write-back is read from the tool's reply."""
    task_id = host.create("任务A")
    answer = host.complete(task_id, {"cmd": "npm test"})
    assert passed(answer)
    evidence = task_of(answer)["metadata"]["evidence"]
    assert evidence["kind"] == "runnable"
    assert evidence["evidence"][0]["type"] == "cmd"


def test_s07_tree_integrity_blocks_orphans_and_early_parents(host: Host) -> None:
    """S7: a child of a missing parent is refused at create, a parent with an open child is
    refused at completion, and it passes once the child is completed with evidence."""
    parent = host.create("目标")
    orphan = host.todo(action="create", subject="孤儿", metadata={"parentId": 99})
    assert "parentId 引用的任务 #99 不存在" in reason(orphan)
    child = host.create("子任务", metadata={"parentId": parent})
    early = host.complete(parent)
    assert f"子任务 #{child} 子任务 未完成，父任务不能宣告 completed" in reason(early)
    assert passed(host.complete(child))
    assert passed(host.complete(parent))


def test_s17_frozen_input_passes_and_is_never_mutated(host: Host) -> None:
    """S17: a read-only tool input (``MappingProxyType`` at every level, Pi's frozen object)
    with ``metadata.evidence = {cmd}`` passes; goalkeeper writes the normalized evidence into its
    tree, never into the input, so there is no write-back failure to survive."""
    task_id = host.create("任务A")
    evidence = MappingProxyType({"cmd": "npm test"})
    frozen = MappingProxyType(
        {
            "action": "update",
            "id": task_id,
            "status": "completed",
            "metadata": MappingProxyType({"evidence": evidence}),
        }
    )
    answer = host.call(frozen)
    assert passed(answer)
    assert dict(evidence) == {"cmd": "npm test"}
    assert task_of(answer)["metadata"]["evidence"]["kind"] == "runnable"


def test_s18_top_level_evidence_beside_metadata_passes(host: Host) -> None:
    """S18: ``metadata: {note}`` without an evidence key plus a top-level ``evidence`` passes, and
    the stored ``metadata.evidence.kind`` is runnable (the note is kept)."""
    task_id = host.create("任务A")
    answer = host.update(task_id, "completed", metadata={"note": "见 PR"}, evidence=RUNNABLE)
    assert passed(answer)
    metadata = task_of(answer)["metadata"]
    assert metadata["evidence"]["kind"] == "runnable"
    assert metadata["note"] == "见 PR"


def test_s22_scalar_blocked_by_is_tolerated(host: Host) -> None:
    """S22: ``blockedBy: "1"`` (a scalar, not a list): starting #2 neither crashes nor blocks
    (Pi returns nothing; goalkeeper performs the call and replies; it reads the scalar as the
    one id, seed 002's lenient normalization)."""
    host.create("前置")
    second = host.create("子任务", blockedBy="1")
    answer = host.update(second, "in_progress")
    assert passed(answer)


def test_s27_block_storm_escalates_and_resets(host: Host) -> None:
    """S27: the same refused completion is escalated from the second time on, with the way out
    (set it back to pending); a pending update passes and resets the count (task #1 is created
    first, since goalkeeper's tool refuses updates of unknown tasks)."""
    task_id = host.create("任务A")
    first = reason(host.update(task_id, "completed"))
    second = reason(host.update(task_id, "completed"))
    third = reason(host.update(task_id, "completed"))
    assert "第2次拦截" not in first
    assert second.startswith("[第2次拦截同一调用]")
    assert "标回 pending" in second
    assert third.startswith("[第3次拦截同一调用]")
    assert passed(host.update(task_id, "pending"))
    again = reason(host.update(task_id, "completed"))
    assert "第2次拦截" not in again
    assert again.startswith(PKG)


def test_s29_declared_gates_need_their_evidence(host: Host) -> None:
    """S29: a ``{test: true}`` task needs a cmd entry with exit 0, an ``"audit"`` task needs a
    review entry next to its cmd entry; each refusal names its hard gate."""
    tested = host.create("测试门", metadata={"gate": {"test": True}})
    audited = host.create("审计门", metadata={"gate": "audit"})
    host.update(tested, "in_progress")
    host.update(audited, "in_progress")
    failing = {"kind": "runnable", "evidence": [{"type": "cmd", "cmd": "npm test", "exit": 1}]}
    assert "test 硬门禁" in reason(host.complete(tested, failing))
    assert passed(host.complete(tested, RUNNABLE))
    assert "audit 硬门禁" in reason(host.complete(audited, RUNNABLE))
    with_review = {"kind": "runnable", "evidence": [*RUNNABLE["evidence"], REVIEW]}
    assert passed(host.complete(audited, with_review))


# -- static guideline and registration -------------------------------------------------------


def test_s05_static_guideline_once_per_session_start(tmp_path: Path) -> None:
    """S5: the L1 guideline is a static ``Advise`` of the todos guard on ``SessionStart`` (Pi
    appends it to promptGuidelines at before_agent_start): exactly one copy per session start,
    byte-identical across sessions and resumes, and never repeated per run."""
    guideline = make_say("zh")("todo.guideline", todo_tool="todo")  # Pi names it todo
    assert "Todo 义务" in guideline
    guard = TodosGuard()
    verdict = guard.on_event(SessionStart(SID), guard.initial_state(), context(lang="zh"))
    assert verdict.actions == (Advise(guideline, static=True),)

    host = Host(tmp_path / "project")
    answers = [
        host.engine.handle([SessionStart("s1")]).actions,
        host.engine.handle([SessionStart("s2")]).actions,
        host.engine.handle([SessionStart("s1", "resume")]).actions,
    ]
    advice = [[a.text for a in actions if isinstance(a, Advise)] for actions in answers]
    assert [len(texts) for texts in advice] == [1, 1, 1]
    assert advice[0][0].count(guideline) == 1
    assert advice[0] == advice[1] == advice[2]
    per_run = host.engine.handle([BeforeAgentStart("s1")]).actions
    assert not any(isinstance(a, Advise) for a in per_run)


def test_s26_one_registration_one_injection_per_round(tmp_path: Path) -> None:
    """S26: registering the todos guard twice is refused (``Registry.register`` rejects the
    duplicate name; Pi's registration is a silent no-op), the engine runs it once, and a round
    with a pending task injects exactly once."""
    registry = Registry()
    registry.register(CadenceGuard())
    registry.register(TodosGuard())
    with pytest.raises(GuardRegistrationError, match="already registered"):
        registry.register(TodosGuard())
    assert [g.name for g in build_registry(CONFIG).guards].count("todos") == 1
    host = Host(tmp_path / "project", registry=registry)
    host.create("任务A")
    host.fire_round()
    assert len(host.sent) == 1


# -- advice during a run (turn_end → steer) ---------------------------------------------------


def test_s03_proof_point_names_the_open_todo(host: Host) -> None:
    """S3: after a user message, a created and started 任务A, one round injects ⑤ naming it."""
    host.user()
    task_id = host.create("任务A")
    host.update(task_id, "in_progress")
    host.fire_round()
    assert len(host.sent) == 1
    assert PROOF_1 in host.texts[0]
    assert "任务A" in host.texts[0]


def test_s04_creation_duty_after_200_tool_calls(host: Host) -> None:
    """S4: 200 ``ctx_read`` calls in the unit and no todo: one round injects ② (the calls are 200
    ``ToolCall`` events in one batch, the faithful form of 200 calls in the branch)."""
    host.user()
    host.send(*(ToolCall(SID, "ctx_read", {"path": f"f{i}.py"}) for i in range(200)))
    host.fire_round()
    assert len(host.sent) == 1
    assert "未拆 todo" in host.texts[0]
    assert "可独立验证" in host.texts[0]


def test_s06_small_unit_gets_no_advice(host: Host) -> None:
    """S6: a unit with one edit call and no todo gets no advice in a round."""
    host.user()
    host.send(ToolCall(SID, "edit", {"path": "a.py"}))
    host.fire_round()
    assert host.sent == []


def test_s08_started_before_prerequisite(host: Host) -> None:
    """S8: starting #2 while its prerequisite #1 is pending injects ③ at the round."""
    first = host.create("前置")
    second = host.create("子任务", blockedBy=[first])
    assert passed(host.update(second, "in_progress"))
    host.fire_round()
    assert len(host.sent) == 1
    assert f"前置 #{first} 未完成" in host.texts[0]
    assert PARALLEL in host.texts[0]


def test_string_prerequisite_ids_are_prerequisites(host: Host) -> None:
    """``blockedBy: ["1"]`` (the schema allows string ids) is the prerequisite #1, not no
    prerequisite: starting #2 early is noticed as in S8 (issue 23)."""
    first = host.create("前置")
    second = host.create("子任务", blockedBy=[str(first)])
    assert passed(host.update(second, "in_progress"))
    host.fire_round()
    assert len(host.sent) == 1
    assert f"前置 #{first} 未完成" in host.texts[0]


def test_unreadable_prerequisite_is_refused(host: Host) -> None:
    """A ``blockedBy`` entry that names no task refuses the call, saying what was sent."""
    host.create("前置")
    answer = host.todo(action="create", subject="子任务", blockedBy=["前置"])
    assert not passed(answer)
    assert '"前置"' in reason(answer) and "blockedBy" in reason(answer)


def test_s09_long_wait_lists_parallel_work(host: Host) -> None:
    """S9: a ``subagent`` call with two pending todos injects ④ (what can go on in parallel)."""
    host.user()
    host.create("任务A")
    host.create("任务B")
    host.send(ToolCall(SID, "subagent", {"task": "review"}))
    host.fire_round()
    assert len(host.sent) == 1
    assert "可并行" in host.texts[0]


def test_s10_round_advice_is_a_steer(host: Host) -> None:
    """S10: with a pending todo a round injects one message, prefixed ``goalkeeper:`` (Pi's
    customType), delivered now (steer) and not starting a run (``Advise``, not ``Continue``)."""
    host.create("任务A")
    host.fire_round()
    assert len(host.sent) == 1
    (advice,) = host.sent
    assert advice.text.startswith(PKG)
    assert isinstance(advice, Advise)
    assert advice.when == "now"


def test_s11_one_injection_per_round(host: Host) -> None:
    """S11: two turn ends in one run inject once: after the first, not again after the second."""
    host.create("任务A")
    host.agent_start()
    host.turn_end()
    after_first = len(host.sent)
    host.turn_end()
    assert after_first == 1
    assert len(host.sent) == 1


def test_s12_no_todo_no_stall(host: Host) -> None:
    """S12: with no todo at all and one read call, four rounds inject nothing (nothing to
    re-examine)."""
    host.user()
    host.send(ToolCall(SID, "read", {"path": "a.py"}))
    for _ in range(4):
        host.fire_round()
    assert host.sent == []


def test_s13_backoff_dedupe_then_stall(host: Host) -> None:
    """S13: ⑤ in round 1; rounds 2–3 repeat the same text (deduped, not sent); round 4 has three
    stagnant rounds and injects ① (clock +130 s after round 1, +1 s after the others)."""
    host.create("任务A")
    for step in (130, 1, 1, 0):
        host.fire_round()
        host.clock.advance(step)
    assert len(host.sent) == 2
    assert "重新审视" in host.texts[1]


def test_s19_proof_point_does_not_swallow_verification(host: Host) -> None:
    """S19: ⑤ for the open B does not clear the pending verification of A; once everything is
    completed (130 s later) the next round injects ⑥ (B is completed through the tool here, so it
    joins the verification batch)."""
    task_a = host.create("任务A")
    task_b = host.create("任务B")
    assert passed(host.complete(task_a))
    host.fire_round()
    host.clock.advance(130)
    assert passed(host.complete(task_b))
    host.fire_round()
    assert PROOF_1 in host.texts[0]
    assert len(host.sent) == 2
    assert "已标记完成" in host.texts[1]


def test_s21_stale_parallel_notice_is_dropped(host: Host) -> None:
    """S21: #2 started before #1, then both completed before the round: no ③. Pi completed them in
    the branch (no ⑥ queued, 0 injections); through goalkeeper's tool the completions queue ⑥, so
    the round's only injection is ⑥."""
    first = host.create("前置")
    second = host.create("子任务", blockedBy=[first])
    host.update(second, "in_progress")
    assert passed(host.complete(first))
    assert passed(host.complete(second))
    host.fire_round()
    assert not any(PARALLEL in text for text in host.texts)
    assert len(host.sent) == 1
    assert "已标记完成" in host.texts[0]


def test_s23_verification_duty_after_completion(host: Host) -> None:
    """S23: a completion that passes the gates is followed, at the round, by ⑥ asking for an
    independent reviewer."""
    task_id = host.create("任务A")
    assert passed(host.complete(task_id))
    host.fire_round()
    assert len(host.sent) == 1
    assert "独立验证" in host.texts[0]


def test_s24_completed_tree_never_stalls(host: Host) -> None:
    """S24: an all-completed tree with no pending verification gets no advice in four rounds
    130 s apart, in particular no ①. Goalkeeper's tool always queues ⑥ on completion, so "no
    pendingVerify" is reached by delivering that ⑥ at a settle first; only the rounds count."""
    task_id = host.create("任务A")
    assert passed(host.complete(task_id))
    host.agent_start()
    host.settle()
    assert len(host.sent) == 1
    assert "独立验证" in host.texts[0]
    host.sent.clear()
    for _ in range(4):
        host.clock.advance(130)
        host.fire_round()
    assert not any("重新审视" in text for text in host.texts)
    assert host.sent == []


def test_s25_quiet_window_after_a_user_message(host: Host) -> None:
    """S25: a round 10 s after a user message is silent; 200 s later a round injects."""
    host.user(age=0)
    host.create("任务A")
    host.clock.advance(10)
    host.fire_round()
    first = len(host.sent)
    host.clock.advance(200)
    host.fire_round()
    assert first == 0
    assert len(host.sent) == 1


def test_s28_parallel_notice_rechecks_prerequisites(tmp_path: Path) -> None:
    """S28: #2 started while #1 was open; at round time #1 is completed, deleted or still pending
    (three engines): ③ only for the still pending one, and when ③ has nothing live it injects
    nothing at all that round (no fall-through to ⑤)."""
    counts, texts = [], []
    for outcome in ("completed", "deleted", "pending"):
        host = Host(tmp_path / outcome)
        first = host.create("前置")
        second = host.create("子任务", blockedBy=[first])
        host.update(second, "in_progress")
        if outcome == "completed":
            assert passed(host.complete(first))
        elif outcome == "deleted":
            assert passed(host.update(first, "deleted"))
        host.fire_round()
        counts.append(len(host.sent))
        texts.extend(host.texts)
    assert counts == [0, 0, 1]
    assert PARALLEL in texts[0]
    assert "#1" in texts[0]


def test_s30_gated_verification_demands_a_reviewer(host: Host) -> None:
    """S30: a ``{test, audit}`` task completed with cmd exit 0 and a review entry passes, and the
    round's ⑥ uses the gated wording (hard gate, must spawn)."""
    task_id = host.create("双门", metadata={"gate": {"test": True, "audit": True}})
    host.update(task_id, "in_progress")
    with_review = {"kind": "runnable", "evidence": [*RUNNABLE["evidence"], REVIEW]}
    assert passed(host.complete(task_id, with_review))
    host.fire_round()
    assert len(host.sent) == 1
    assert "硬门禁" in host.texts[0]
    assert "必须 spawn" in host.texts[0]


def test_s31_mixed_verification_batch(host: Host) -> None:
    """S31: a gated #1 and a plain #2 completed in one round get one ⑥ naming both, the gated one
    apart, and the others."""
    gated = host.create("测试门", metadata={"gate": {"test": True}})
    plain = host.create("普通")
    host.agent_start()
    assert passed(host.complete(gated))
    assert passed(host.complete(plain))
    host.turn_end()
    assert len(host.sent) == 1
    assert f"任务 #{gated}, {plain}" in host.texts[0]
    assert f"其中 #{gated}" in host.texts[0]
    assert "其余完成项" in host.texts[0]


# -- advice at settle (agent_settled → followUp; ⑦ → Continue) --------------------------------


def test_s14_verification_at_settle_is_a_follow_up(host: Host) -> None:
    """S14: with every todo completed, the settle injects ⑥ once, as a follow-up that does not
    start a run (``Advise(when="next_turn")``)."""
    task_id = host.create("任务A")
    assert passed(host.complete(task_id))
    host.agent_start()
    host.settle()
    assert len(host.sent) == 1
    (advice,) = host.sent
    assert isinstance(advice, Advise)
    assert advice.when == "next_turn"
    assert "独立验证" in advice.text


def test_s15_ultimatum_after_the_round_advice(host: Host) -> None:
    """S15: ⑤ in the round, then the settle still gives ⑦ (it ignores the per-round guard), and a
    second settle is silent: counts 1 → 2 → 2."""
    host.create("任务A")
    host.fire_round()
    counts = [len(host.sent)]
    host.settle()
    counts.append(len(host.sent))
    host.settle()
    counts.append(len(host.sent))
    assert counts == [1, 2, 2]
    assert isinstance(host.sent[1], Continue)
    assert ULTIMATUM in host.texts[1]


def test_s32_one_ultimatum_per_open_count(host: Host) -> None:
    """S32: ⑦ at the first settle (no run started before), silence at the next; after progress
    (1 → 2 open) a new ⑦; after everything is completed no further ⑦."""
    task_a = host.create("任务A")
    host.settle()
    assert len(host.sent) == 1
    (push,) = host.sent
    assert isinstance(push, Continue)
    assert ULTIMATUM in push.text
    host.settle()
    assert len(host.sent) == 1
    host.agent_start()
    task_b = host.create("任务B")
    host.turn_end()
    host.settle()
    assert len(host.sent) == 2
    assert isinstance(host.sent[1], Continue)
    host.agent_start()
    for task_id in (task_a, task_b):
        assert passed(host.complete(task_id))
    host.settle()
    host.settle()
    assert len(host.sent) == 2


def test_s33_quiet_window_holds_the_ultimatum(host: Host) -> None:
    """S33: a settle 10 s after a user message gives no ⑦; 200 s later the settle does.
    Goalkeeper holds it only when the agent did no work since the message (issue 23: a working
    stop inside the window gets ⑦, ``test_todo_integrity``), so the todo predates the message."""
    host.create("任务A")
    host.user(age=0)
    host.clock.advance(10)
    host.settle()
    first = len(host.sent)
    host.clock.advance(200)
    host.settle()
    assert first == 0
    assert len(host.sent) == 1
    assert isinstance(host.sent[0], Continue)
    assert ULTIMATUM in host.texts[0]


def test_s34_user_intervention_rearms_the_ultimatum(host: Host) -> None:
    """S34: ⑦ at a settle 300 s after the user message; the user speaks again 10 s later; 200 s
    on, the round sends ⑤ and the settle ⑦ again (re-armed by the user, not deduped since the
    last text is now ⑤)."""
    host.user(age=0)
    host.create("任务A")
    host.clock.advance(300)
    host.settle()
    assert isinstance(host.sent[-1], Continue)
    assert ULTIMATUM in host.texts[-1]
    host.clock.advance(10)
    host.user(age=200)
    host.agent_start()
    host.turn_end()
    host.settle()
    assert isinstance(host.sent[-1], Continue)
    assert ULTIMATUM in host.texts[-1]


def test_a_deduped_ultimatum_counts_as_delivered(host: Host) -> None:
    """§8.6 step 5: when the ultimatum's text equals the last advice, it counts as said and the
    ordinary advice does not run either (found with no TurnEnd between two settles)."""
    host.user(age=0)
    host.create("任务A")
    host.clock.advance(300)
    host.settle()
    assert ULTIMATUM in host.texts[-1]
    sent = len(host.sent)
    host.clock.advance(10)
    host.user(age=200)
    host.agent_start()
    host.settle()
    assert len(host.sent) == sent


# -- beyond the spec: the truth at a stop, for the user ----------------------------------------


def notices(actions: tuple[Action, ...]) -> list[str]:
    return [a.text for a in actions if isinstance(a, Notify)]


def test_a_stop_inside_the_quiet_window_still_tells_the_user(host: Host) -> None:
    """⑦ waits for the quiet window (after a message the agent only answered); the one-line
    notice for the user does not, and it comes at every stop while a gated todo is open."""
    gated = host.create("测试门", metadata={"gate": {"test": True}})
    host.user(age=0)
    host.clock.advance(10)
    first = host.settle()
    assert host.sent == []  # ⑦ held by the quiet window, as in S33
    assert notices(first) == [f"goalkeeper: 尚未完成 —— todo #{gated} 仍未完成，声明了门禁 test。"]
    host.clock.advance(200)
    second = host.settle()
    assert [type(a) for a in host.sent] == [Continue]  # the ultimatum for the agent, unchanged
    assert len(notices(second)) == 1
    third = host.settle()
    assert len(host.sent) == 1  # ⑦ once per open count
    assert len(notices(third)) == 1


def test_a_refused_completion_is_named_at_the_stop(host: Host) -> None:
    """A completion refused by its gate and not fixed is what the stop tells the user; once it
    passes, the stop says nothing."""
    gated = host.create("测试门", metadata={"gate": "test"})
    refused = host.complete(gated, {"cmd": "npm test"})  # no exit: the test gate refuses
    assert isinstance(refused, Block)
    host.user(age=5)
    (text,) = notices(host.settle())
    assert text == f"goalkeeper: 尚未完成 —— todo #{gated}：其证据缺少门禁要求的内容。"
    assert passed(host.complete(gated))
    assert notices(host.settle()) == []


def test_a_plain_open_todo_gets_no_notice(host: Host) -> None:
    """An open todo without a gate is the agent's business (⑤/⑦), not a notice to the user."""
    host.create("任务A")
    assert notices(host.settle()) == []


# -- host delivery failures: no goalkeeper equivalent ----------------------------------------

# S16 (a send that throws in round 1 commits nothing; round 2 injects ⑤) and S20 (a send that
# throws at turn_end lets the same round's settle deliver as a follow-up) have no test here:
# they make Pi's sendMessage throw and check that the round's claim is released. In goalkeeper
# the engine does not send: it returns actions in the same transaction that saves the state
# claiming them, and the host delivers them afterwards, so there is no send failure inside the
# engine to fake.
