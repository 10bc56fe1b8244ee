"""A todo reply is bounded whatever the tree's size (issue 12, audit seed002 D6).

Small trees keep the spec's ``tasks`` list (the seed's tests read it); past ``FULL_TASKS`` a
``summary`` replaces it: counts by state, the next open tasks, how many more are open."""

from __future__ import annotations

import json

import pytest

from goalkeeper.core.todos.reply import FULL_TASKS, SUMMARY_OPEN
from goalkeeper.core.todos.tool import apply_todo, parse_todo_call
from goalkeeper.core.todos.tree import Task, TodoTree
from goalkeeper.core.values import Problem, Settled
from goalkeeper.guards.todos import TodosGuard, TodosState
from goalkeeper.testing import context


def big_tree(n: int) -> TodoTree:
    tasks = [
        Task(
            i,
            f"task {i}: " + "make the report render its totals " * 3,
            "completed" if i % 3 == 0 else "pending",
            metadata={"parentId": i - 1} if i % 10 else {"gate": {"test": True}},
        )
        for i in range(1, n + 1)
    ]
    return TodoTree(tasks, n + 1)


def reply(tree: TodoTree, raw: dict[str, object]) -> tuple[str, dict[str, object]]:
    call = parse_todo_call(raw)
    assert not isinstance(call, Problem)
    applied = apply_todo(tree, call, 1.0)
    assert not isinstance(applied, Problem)
    return json.dumps(applied.result, ensure_ascii=False), applied.result


@pytest.mark.parametrize(
    "raw",
    [
        {"action": "create", "subject": "one more"},
        {"action": "update", "id": 4000, "status": "in_progress"},
        {"action": "get", "id": 4000},
        {"action": "list"},
    ],
)
def test_every_reply_stays_under_8_kb_at_5000_tasks(raw: dict[str, object]) -> None:
    """Before: the whole tree, 620 KB at 5,000 tasks, past Claude Code's MCP output limit."""
    text, result = reply(big_tree(5000), raw)
    assert len(text.encode()) <= 8 * 1024
    assert "tasks" not in result
    if raw["action"] != "list":
        assert result["task"]["id"] in (4000, 5001)  # type: ignore[index]


def test_the_summary_counts_and_shows_the_next_open_tasks() -> None:
    """Counts by state, the first open tasks by id, and how many more are open."""
    _, result = reply(big_tree(300), {"action": "list"})
    summary = result["summary"]
    assert summary["counts"] == {  # type: ignore[index]
        "pending": 200,
        "in_progress": 0,
        "completed": 100,
        "deleted": 0,
    }
    shown = summary["open"]  # type: ignore[index]
    assert [t["id"] for t in shown] == [1, 2, 4, 5, 7, 8, 10, 11, 13, 14][:SUMMARY_OPEN]
    assert shown[1] == {"id": 2, "status": "pending", "subject": shown[1]["subject"], "parentId": 1}
    assert len(shown[0]["subject"]) <= 120
    assert summary["moreOpen"] == 200 - SUMMARY_OPEN  # type: ignore[index]
    assert result["nextId"] == 301


def test_a_small_tree_keeps_the_whole_list() -> None:
    """Up to FULL_TASKS tasks the reply is the spec's: every task, in full."""
    tree = TodoTree([Task(i, f"t{i}") for i in range(1, FULL_TASKS)], FULL_TASKS)
    _, result = reply(tree, {"action": "create", "subject": "last"})
    assert [t["id"] for t in result["tasks"]] == list(range(1, FULL_TASKS + 1))  # type: ignore[union-attr]
    _, bigger = reply(big_tree(FULL_TASKS + 1), {"action": "list"})
    assert "tasks" not in bigger and "summary" in bigger


def test_a_small_tree_of_long_tasks_is_summarised_too() -> None:
    """The whole list only while it is a few KB: 40 tasks with long subjects are not."""
    _, result = reply(big_tree(FULL_TASKS - 1), {"action": "list"})
    assert "tasks" not in result and "summary" in result


def test_the_stop_notice_counts_every_open_gated_task() -> None:
    """Read from the tree's index, the notice names three and counts the rest."""
    tree = big_tree(400)  # ids 10, 20, … 400 are gated; those divisible by 3 are completed
    gated_open = sum(1 for i in range(10, 401, 10) if i % 3)
    verdict = TodosGuard().on_event(
        Settled("s", "", aborted=True), TodosState(tree=tree), context(lang="en")
    )
    notice = next(a for a in verdict.actions if type(a).__name__ == "Notify")
    text = notice.text  # type: ignore[attr-defined]
    assert "todo #10 is still open" in text and "todo #20 is still open" in text
    assert text.endswith(f"(and {gated_open - 3} more).")
