"""Issue 23, item 4 (todos): tree integrity on a move, string ids, a bare evidence array, and
a stop with open todos inside the quiet window. Plain events through the real engine (the
scenario ``Host`` of ``test_todo_scenarios``); every refusal leaves the tree as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goalkeeper.core.values import Block, Reply
from tests.core.test_todos import TOOL_INPUTS
from tests.guards.test_todo_scenarios import Host, passed, reason


@pytest.fixture
def host(tmp_path: Path) -> Host:
    return Host(tmp_path / "project")


def tree(host: Host) -> list[dict[str, Any]]:
    """The whole stored tree, as the ``list`` action answers it."""
    answer = host.todo(action="list")
    assert isinstance(answer, Reply)
    tasks = answer.data["tasks"]
    assert isinstance(tasks, list)
    return [{k: t[k] for k in ("id", "status", "metadata") if k in t} for t in tasks]


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
