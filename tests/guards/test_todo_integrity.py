"""Issue 23, item 4 (todos): tree integrity on a move, string ids, a bare evidence array, and
a stop with open todos inside the quiet window. Plain events through the real engine (the
scenario ``Host`` of ``test_todo_scenarios``); every refusal leaves the tree as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goalkeeper.config import Config
from goalkeeper.core.values import Block, Continue, Notify, Reply
from tests.core.test_todos import TOOL_INPUTS
from tests.guards.test_todo_scenarios import ULTIMATUM, Host, notices, passed, reason

EN = Config(lang="en", no_plan="silent", evidence_check="off")


@pytest.fixture
def host(tmp_path: Path) -> Host:
    return Host(tmp_path / "project")


def english(tmp_path: Path) -> Host:
    """The scenario host, in English."""
    return Host(tmp_path / "en", config=EN)


def tree(host: Host) -> list[dict[str, Any]]:
    """The whole stored tree, as the ``list`` action answers it."""
    answer = host.todo(action="list")
    assert isinstance(answer, Reply)
    tasks = answer.data["tasks"]
    assert isinstance(tasks, list)
    return [{k: t[k] for k in ("id", "status", "metadata") if k in t} for t in tasks]


# -- 1. tree integrity on a move --------------------------------------------------------------


def test_a_move_under_a_missing_parent_is_refused_and_changes_nothing(host: Host) -> None:
    """Re-parenting to an id no task has is refused with the reason; the tree is unchanged, so
    the old parent still cannot complete while the child is open."""
    parent = host.create("目标")
    child = host.create("子任务", metadata={"parentId": parent})
    before = tree(host)
    moved = host.update(child, "in_progress", metadata={"parentId": 99})
    assert "parentId 引用的任务 #99 不存在" in reason(moved)
    assert tree(host) == before
    assert "未完成，父任务不能宣告 completed" in reason(host.complete(parent))


@pytest.mark.parametrize("depth", [0, 1, 2])
def test_a_move_into_a_cycle_is_refused_and_changes_nothing(host: Host, depth: int) -> None:
    """A task cannot go under itself (depth 0) or under one of its descendants (1, 2): the
    tree is unchanged and the root still cannot complete with that work open."""
    root = host.create("root")
    chain = [host.create("a", metadata={"parentId": root})]
    for _ in range(depth):
        chain.append(host.create("below", metadata={"parentId": chain[-1]}))
    before = tree(host)
    moved = host.todo(action="update", id=chain[0], metadata={"parentId": chain[-1]})
    assert f"#{chain[-1]}" in reason(moved)
    assert "自己" in reason(moved)
    assert tree(host) == before
    assert isinstance(host.complete(root), Block)


@pytest.mark.parametrize("parent", [-(2**63) - 1, 10**30, {"id": 1}, True, "x", 1.5, float("nan")])
def test_a_move_to_what_is_no_task_is_refused(host: Host, parent: object) -> None:
    """A parentId no task can have (beyond the store, not a number, not whole) is refused by
    the move check, and the tree is unchanged."""
    host.create("a")
    child = host.create("b")
    before = tree(host)
    assert isinstance(host.todo(action="update", id=child, metadata={"parentId": parent}), Block)
    assert tree(host) == before


def test_a_cycle_refusal_in_english(tmp_path: Path) -> None:
    """The English catalog says the same: the move would put the task under itself."""
    h = english(tmp_path)
    a = h.create("a")
    b = h.create("b", metadata={"parentId": a})
    text = reason(h.todo(action="update", id=a, metadata={"parentId": b}))
    assert f"task #{a} under itself" in text
    assert "Nothing was changed" in text


def test_a_valid_move_and_a_move_to_the_root_still_work(host: Host) -> None:
    """Moving under another existing task outside the subtree passes, as does detaching."""
    first = host.create("first")
    second = host.create("second")
    child = host.create("child", metadata={"parentId": first})
    assert passed(host.todo(action="update", id=child, metadata={"parentId": second}))
    assert passed(host.complete(first))
    assert isinstance(host.complete(second), Block)
    assert passed(host.todo(action="update", id=child, metadata={"parentId": None}))
    assert passed(host.complete(second))


def test_a_parent_never_completes_while_a_descendant_is_open(host: Host) -> None:
    """A grandchild reopened under a completed child still holds its grandparent open."""
    root = host.create("root")
    child = host.create("child", metadata={"parentId": root})
    grandchild = host.create("grandchild", metadata={"parentId": child})
    assert passed(host.complete(grandchild))
    assert passed(host.complete(child))
    assert passed(host.update(grandchild, "pending"))
    refused = reason(host.complete(root))
    assert f"#{grandchild} grandchild" in refused
    assert passed(host.complete(grandchild))
    assert passed(host.complete(root))


def test_an_open_subtree_moved_under_a_completed_task_holds_its_ancestor(host: Host) -> None:
    """Open work moved below a completed child is still open work of the root."""
    root = host.create("root")
    done = host.create("done", metadata={"parentId": root})
    assert passed(host.complete(done))
    loose = host.create("loose")
    assert passed(host.todo(action="update", id=loose, metadata={"parentId": done}))
    assert f"#{loose} loose" in reason(host.complete(root))


# -- 2. string ids ----------------------------------------------------------------------------


def test_a_numeric_string_id_is_the_task(host: Host) -> None:
    """``"1"`` (the schema allows strings) reads, updates and completes task 1; ``"#1"`` and
    ``" 1 "`` too."""
    task_id = host.create("任务A")
    got = host.todo(action="get", id=str(task_id))
    assert isinstance(got, Reply) and got.data["task"]["id"] == task_id  # type: ignore[index]
    assert passed(host.todo(action="update", id=f" {task_id} ", status="in_progress"))
    assert passed(host.update(f"#{task_id}", "completed", metadata={"evidence": "npm test"}))  # type: ignore[arg-type]
    assert tree(host)[0]["status"] == "completed"


def test_a_numeric_string_parent_id_is_the_parent(host: Host) -> None:
    """``metadata.parentId: "1"`` hangs the child under task 1, stored as the number."""
    parent = host.create("目标")
    child = host.create("子任务", metadata={"parentId": str(parent)})
    assert tree(host)[1]["metadata"]["parentId"] == parent
    assert isinstance(host.complete(parent), Block)
    assert passed(host.complete(child))


def test_a_string_id_completion_counts_in_the_block_storm(host: Host) -> None:
    """The same refusal twice through ``"1"`` escalates as it does through ``1``."""
    task_id = host.create("任务A")
    host.update(str(task_id), "completed")  # type: ignore[arg-type]
    second = reason(host.update(str(task_id), "completed"))  # type: ignore[arg-type]
    assert "第2次拦截同一调用" in second


@pytest.mark.parametrize("garbage", ["one", "1.5", "1e3", "", "-1x", "١", "9" * 400, True, [1]])
def test_a_garbage_id_is_a_clear_refusal(host: Host, garbage: object) -> None:
    """Anything that is not a number or a numeric string is refused with what was sent, for
    update and get alike, and changes nothing."""
    host.create("任务A")
    before = tree(host)
    for tool_input in (
        {"action": "update", "id": garbage, "status": "completed", "metadata": {"evidence": "x"}},
        {"action": "get", "id": garbage},
    ):
        text = reason(host.call(tool_input))
        assert text.startswith("id 必须是数字，实际: ")
        assert len(text) < 200
    assert tree(host) == before


# -- 3. a bare evidence array -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("evidence", "kind"),
    [
        ([{"type": "cmd", "cmd": "npm test", "exit": 0}], "runnable"),
        ([{"cmd": "npm test"}, {"path": "src/a.ts", "op": "edit"}], "runnable"),
        ([{"path": "src/a.ts"}], "state"),
        (["npm test", "npm run lint"], "runnable"),
        ('[{"cmd": "npm test", "exit": 0}]', "runnable"),
    ],
)
def test_a_bare_evidence_array_is_normalized(host: Host, evidence: object, kind: str) -> None:
    """Seed 002 (lenient normalization): a list where ``{"kind", "evidence": [...]}`` is
    expected is read as that list of entries, the kind inferred as for an object."""
    task_id = host.create("任务A")
    answer = host.complete(task_id, evidence)
    assert passed(answer), answer
    stored = answer.data["task"]["metadata"]["evidence"]  # type: ignore[index]
    assert stored["kind"] == kind
    assert all(isinstance(e, dict) and e.get("type") for e in stored["evidence"])


def test_a_bare_array_at_the_top_level_of_the_call(host: Host) -> None:
    """The top-level ``evidence`` (no ``metadata.evidence``) may be a bare array too."""
    task_id = host.create("任务A")
    answer = host.todo(action="update", id=task_id, status="completed", evidence=[{"cmd": "ls"}])
    assert passed(answer)


@pytest.mark.parametrize(
    "evidence",
    [[], [{"type": "review", "agent": "r", "path": "r.md"}], [None, 3], [""], [[]]],
)
def test_a_bare_array_that_says_nothing_checkable_is_still_refused(
    host: Host, evidence: object
) -> None:
    """Never widen: an empty array is not an ``effect`` declaration, a review alone is not a
    completed state, and entries that are not claims stay refused."""
    task_id = host.create("任务A")
    assert isinstance(host.complete(task_id, evidence), Block)


def test_a_bare_array_never_meets_a_test_gate_without_exit_zero(host: Host) -> None:
    """Never widen: a bare list of commands carries no exit code, so a test gate refuses it."""
    task_id = host.create("测试门", metadata={"gate": {"test": True}})
    assert "test 硬门禁" in reason(host.complete(task_id, ["npm test"]))
    assert "test 硬门禁" in reason(host.complete(task_id, [{"cmd": "npm test", "exit": 1}]))
    assert passed(host.complete(task_id, [{"cmd": "npm test", "exit": 0}]))


# -- 4. a stop with open todos inside the quiet window ----------------------------------------


def test_a_working_stop_inside_the_quiet_window_gets_the_ultimatum(host: Host) -> None:
    """Seed 002 ⑦ releases after one ultimatum, not before any: an agent that worked since the
    user's message (here: created a todo) and stops 10 s later with it open is pushed back once."""
    host.user(age=0)
    host.create("任务A")
    host.clock.advance(10)
    host.settle()
    assert [type(a) for a in host.sent] == [Continue]
    assert ULTIMATUM in host.texts[0]
    host.settle()
    assert len(host.sent) == 1  # once per open count: the second stop is released


def test_a_reply_inside_the_quiet_window_tells_the_user(host: Host) -> None:
    """An agent that only answered the user (no tool call since the message) is not pushed
    back inside the quiet window, but the stop is not silent: the user reads that todos are
    open, once per message."""
    task_id = host.create("任务A")
    host.clock.advance(3600)
    host.user("现在进度如何？", age=10)
    actions = host.settle()
    assert host.sent == []
    (text,) = notices(actions)
    assert "1 项 todo 未完成" in text
    assert f"#{task_id} 任务A" in text
    assert notices(host.settle()) == []  # told once for this message


def test_a_reply_inside_the_quiet_window_tells_the_user_in_english(tmp_path: Path) -> None:
    """The same notice in English."""
    h = english(tmp_path)
    h.create("task A")
    h.clock.advance(3600)
    h.user("how is it going?", age=10)
    (text,) = [a.text for a in h.settle() if isinstance(a, Notify)]
    assert "1 todo(s) still open" in text
    assert h.sent == []


# -- hostile input: a refusal, never an internal error, never a changed tree ------------------


@pytest.mark.parametrize(
    "tool_input",
    [
        {"action": "update", "id": 10**30, "status": "completed", "metadata": {"evidence": "x"}},
        {"action": "get", "id": 1e300},
        {"action": "create", "subject": "x", "metadata": {"parentId": 10**30}},
    ],
)
def test_an_id_beyond_the_store_is_refused_not_an_error(host: Host, tool_input: Any) -> None:
    """A number too large for the store is no task: refused (Host.call fails on the internal
    error notice the engine gave before), and the tree is unchanged."""
    host.create("a")
    before = tree(host)
    assert isinstance(host.call(tool_input), Block)
    assert tree(host) == before


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(TOOL_INPUTS, min_size=1, max_size=4))
def test_any_todo_call_is_answered_and_a_refusal_changes_no_task(
    tmp_path: Path, inputs: list[Any]
) -> None:
    """Through the engine, any JSON-like input is answered (a reply or a refusal, never an
    internal error) and a refused call leaves every task as it was."""
    h = Host(tmp_path / f"p{len(list(tmp_path.iterdir()))}")
    root = h.create("root")
    h.create("child", metadata={"parentId": root})
    for tool_input in inputs:
        before = tree(h)
        if isinstance(h.call(tool_input if isinstance(tool_input, dict) else {"x": 1}), Block):
            assert tree(h) == before
