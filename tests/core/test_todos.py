"""The todo tree (``todo-obligations-spec.md`` §3, §5, §12): integrity rules, the todo tool as a
pure function, the stored tree, and the unit statistics the todos guard counts from events."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from goalkeeper.core.messages import make_say
from goalkeeper.core.todos.tool import (
    MAX_DESCRIPTION,
    MAX_METADATA,
    MAX_SUBJECT,
    Applied,
    TodoCall,
    apply_todo,
    parse_todo_call,
)
from goalkeeper.core.todos.tree import (
    ACTIONS,
    STATUSES,
    Task,
    TodoTree,
    can_complete_tree,
    open_dependencies,
    prune_alive,
    validate_parent_ref,
)
from goalkeeper.core.values import Facts, Inspect, Problem, ToolCall, UserPrompt
from goalkeeper.guards.todos import TodosGuard, TodosState
from goalkeeper.testing import context

ZH = make_say("zh")
EN = make_say("en")
NOW = 1_700_000_000.0


def zh(problem: Problem | None) -> str | None:
    return None if problem is None else problem.render(ZH)


def call(raw: object) -> TodoCall:
    parsed = parse_todo_call(raw)
    assert isinstance(parsed, TodoCall), parsed
    return parsed


def applied(tree: TodoTree, raw: object, now: float = NOW) -> Applied:
    result = apply_todo(tree, call(raw), now)
    assert isinstance(result, Applied), result
    return result


# ---------------------------------------------------------------------------------------------
# validateParentRef (§12 items 45–48)
# ---------------------------------------------------------------------------------------------

REF_TASKS = (
    Task(1, "目标", "completed"),
    Task(2, "子1", "completed", metadata={"parentId": 1}),
    Task(3, "子2", "pending", metadata={"parentId": 1}),
    Task(4, "孤儿", "pending", metadata={"parentId": 99}),
)


@pytest.mark.parametrize(
    ("parent", "expected"),
    [
        pytest.param(None, None, id="item45-root"),
        pytest.param(1, None, id="item46-exists"),
        pytest.param(99, "parentId 引用的任务 #99 不存在", id="item47-missing"),
        pytest.param("1", "parentId 必须是数字，实际: 1", id="item48-string"),
    ],
)
def test_validate_parent_ref_spec_items(parent: object, expected: str | None) -> None:
    """validateParentRef returns the spec's exact message, or None (items 45–48)."""
    assert zh(validate_parent_ref(REF_TASKS, parent)) == expected


@pytest.mark.parametrize(
    ("parent", "expected"),
    [
        (True, "parentId 必须是数字，实际: true"),
        ([1], "parentId 必须是数字，实际: 1"),
        ({"id": 1}, "parentId 必须是数字，实际: [object Object]"),
        (1.5, "parentId 引用的任务 #1.5 不存在"),
        (1.0, None),
    ],
)
def test_validate_parent_ref_other_values(parent: object, expected: str | None) -> None:
    """A boolean is not a number; values print like JavaScript; 1.0 is the number 1."""
    assert zh(validate_parent_ref(REF_TASKS, parent)) == expected


def test_validate_parent_ref_on_an_empty_tree() -> None:
    """With no tasks at all, any numeric parent is missing."""
    assert zh(validate_parent_ref((), 1)) == "parentId 引用的任务 #1 不存在"


def test_validate_parent_ref_english() -> None:
    """The English messages are the spec's proposed texts."""
    missing = validate_parent_ref(REF_TASKS, 99)
    not_number = validate_parent_ref(REF_TASKS, "x")
    assert missing is not None
    assert not_number is not None
    assert missing.render(EN) == "parentId refers to task #99, which does not exist"
    assert not_number.render(EN) == "parentId must be a number, got: x"


# ---------------------------------------------------------------------------------------------
# canCompleteTree (§12 items 49–53)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tasks", "task_id", "expected"),
    [
        pytest.param(REF_TASKS, 4, None, id="item49-no-children"),
        pytest.param(
            (Task(1, "父", "in_progress"), Task(2, "子", "completed", metadata={"parentId": 1})),
            1,
            None,
            id="item50-children-completed",
        ),
        pytest.param(
            (Task(5, "父", "in_progress"), Task(6, "子", "pending", metadata={"parentId": 5})),
            5,
            "子任务 #6 子 未完成，父任务不能宣告 completed",
            id="item51-child-pending",
        ),
        pytest.param(
            (Task(7, "父", "in_progress"), Task(8, "弃", "deleted", metadata={"parentId": 7})),
            7,
            None,
            id="item52-child-deleted",
        ),
        pytest.param(REF_TASKS, "1", "id 必须是数字，实际: 1", id="item53-id-string"),
    ],
)
def test_can_complete_tree_spec_items(
    tasks: tuple[Task, ...], task_id: object, expected: str | None
) -> None:
    """canCompleteTree returns the spec's exact message, or None (items 49–53)."""
    assert zh(can_complete_tree(tasks, task_id)) == expected


def test_can_complete_tree_joins_children_with_the_chinese_comma() -> None:
    """Several unfinished children are listed in order, joined by ``、``."""
    tasks = (
        Task(5, "父", "in_progress"),
        Task(6, "子A", "pending", metadata={"parentId": 5}),
        Task(7, "子B", "in_progress", metadata={"parentId": 5}),
        Task(8, "子C", "completed", metadata={"parentId": 5}),
    )
    assert (
        zh(can_complete_tree(tasks, 5)) == "子任务 #6 子A、#7 子B 未完成，父任务不能宣告 completed"
    )


def test_can_complete_tree_english_with_a_comma_separator() -> None:
    """With ``sep=", "`` the English message lists the children comma-separated."""
    tasks = (
        Task(5, "parent", "in_progress"),
        Task(6, "write docs", "pending", metadata={"parentId": 5}),
        Task(7, "add test", "pending", metadata={"parentId": 5}),
    )
    problem = can_complete_tree(tasks, 5, sep=", ")
    assert problem is not None
    assert problem.render(EN) == (
        "subtasks #6 write docs, #7 add test are unfinished; "
        "the parent cannot be declared completed"
    )


def test_can_complete_tree_checks_the_spec_tasks_parent() -> None:
    """In the items 45–48 tree, task #1 still has the pending child #3."""
    assert zh(can_complete_tree(REF_TASKS, 1)) == "子任务 #3 子2 未完成，父任务不能宣告 completed"


def test_can_complete_tree_looks_below_completed_children() -> None:
    """A pending grandchild under a completed child (reopened, or moved there) still blocks
    its grandparent: the spec's induction does not survive a reopen (issue 23)."""
    tasks = (
        Task(1, "root", "in_progress"),
        Task(2, "child", "completed", metadata={"parentId": 1}),
        Task(3, "grandchild", "pending", metadata={"parentId": 2}),
    )
    assert (
        zh(can_complete_tree(tasks, 1)) == "子任务 #3 grandchild 未完成，父任务不能宣告 completed"
    )
    assert can_complete_tree(tasks, 3) is None


def test_can_complete_tree_names_the_nearest_open_level_and_survives_a_stored_cycle() -> None:
    """Open direct children are named first (the spec's message); below a deleted child the
    walk goes on; a cycle stored before moves were checked ends the walk."""
    tasks = (
        Task(1, "root", "in_progress"),
        Task(2, "gone", "deleted", metadata={"parentId": 1}),
        Task(3, "deep", "pending", metadata={"parentId": 2}),
        Task(4, "deeper", "pending", metadata={"parentId": 3}),
        Task(5, "loop a", "completed", metadata={"parentId": 6}),
        Task(6, "loop b", "completed", metadata={"parentId": 5}),
    )
    assert zh(can_complete_tree(tasks, 1)) == "子任务 #3 deep 未完成，父任务不能宣告 completed"
    assert can_complete_tree(tasks, 5) is None


@pytest.mark.parametrize(("task_id", "shown"), [(None, "null"), (True, "true"), ([1], "1")])
def test_can_complete_tree_refuses_non_numeric_ids(task_id: object, shown: str) -> None:
    """An undecidable id never passes."""
    assert zh(can_complete_tree((), task_id)) == f"id 必须是数字，实际: {shown}"


def test_can_complete_tree_unknown_id_has_no_children() -> None:
    """An id with no task and no children is not refused by the tree rule."""
    assert can_complete_tree(REF_TASKS, 42) is None


def test_can_complete_tree_english_id_message() -> None:
    """The English non-numeric id message is the spec's proposed text."""
    problem = can_complete_tree((), "x")
    assert problem is not None
    assert problem.render(EN) == "id must be a number, got: x"


def test_can_complete_tree_ignores_a_non_finite_parent_id() -> None:
    """A task whose stored parentId is Infinity (Python's json reads it) is nobody's child."""
    tasks = (Task(1, "p", "in_progress"), Task(2, "c", metadata={"parentId": float("inf")}))
    assert can_complete_tree(tasks, 1) is None


# ---------------------------------------------------------------------------------------------
# pruneAlive (§12 items 70–71) and open_dependencies
# ---------------------------------------------------------------------------------------------

PRUNE_TASKS = (Task(1, "a", "in_progress"), Task(2, "b", "completed"), Task(3, "c", "pending"))


def test_prune_alive_in_progress_item_70() -> None:
    """Only ids whose task is in_progress survive (item 70)."""
    assert set(prune_alive(PRUNE_TASKS, {1, 2, 3, 99}, "in_progress")) == {1}


def test_prune_alive_completed_item_71() -> None:
    """Only ids whose task is completed survive (item 71)."""
    assert set(prune_alive(PRUNE_TASKS, {1, 2, 3, 99}, "completed")) == {2}


def test_prune_alive_keeps_the_given_order() -> None:
    """The surviving ids keep the order they were given in."""
    tasks = (Task(1, "a", "completed"), Task(2, "b", "completed"), Task(3, "c", "completed"))
    assert prune_alive(tasks, [3, 1, 2], "completed") == (3, 1, 2)


def test_open_dependencies_are_present_and_unfinished() -> None:
    """Missing, completed and deleted dependencies are not open."""
    tasks = (
        Task(1, "a", "pending"),
        Task(2, "b", "completed"),
        Task(3, "c", "deleted"),
        Task(4, "d", "in_progress"),
        Task(5, "e", "in_progress", blocked_by=(1, 2, 3, 4, 99)),
    )
    assert open_dependencies(tasks, tasks[4]) == (1, 4)


@pytest.mark.parametrize(
    ("blocked_by", "ids"),
    [
        (["1", "2"], (1, 2)),
        ([" #1 ", 2.0], (1, 2)),
        ("1", (1,)),
        (1, (1,)),
        ("1, 2", (1, 2)),
        ("#1 #2", (1, 2)),
        ("1，2", (1, 2)),
        ([1, "1"], (1,)),
        ([], ()),
        ("", ()),
        (None, ()),
    ],
)
def test_blocked_by_is_read_like_an_id(blocked_by: object, ids: tuple[int, ...]) -> None:
    """``blockedBy`` of numeric strings, one id alone, or a listing string are those ids, each
    once, in order (seed 002: lenient normalization; issue 23), as a string id is."""
    tree = TodoTree((Task(1, "a"), Task(2, "b")), 3)
    new = applied(tree, {"action": "create", "subject": "c", "blockedBy": blocked_by}).tree
    task = new.get(3)
    assert task is not None
    assert task.blocked_by == ids
    assert open_dependencies(new, task) == ids


def test_update_reads_string_blocked_by_ids() -> None:
    """An update that sets ``blockedBy: ["1"]`` records the dependency, so starting the task
    is a start with its prerequisite open."""
    tree = TodoTree((Task(1, "a"), Task(2, "b")), 3)
    new = applied(tree, {"action": "update", "id": "2", "blockedBy": ["1"]}).tree
    task = new.get(2)
    assert task is not None and open_dependencies(new, task) == (1,)
    cleared = applied(new, {"action": "update", "id": 2, "blockedBy": []}).tree.get(2)
    assert cleared is not None and cleared.blocked_by == ()


@pytest.mark.parametrize(
    ("blocked_by", "shown"),
    [
        ([True, 1], "true"),
        (["1", "x"], '"x"'),
        ([1.5], "1.5"),
        ([None], "null"),
        ({"1": 1}, '{"1": 1}'),
        (True, "true"),
        ("first task", '"first"'),
        ([[1]], "[1]"),
    ],
)
def test_unreadable_blocked_by_is_refused(blocked_by: object, shown: str) -> None:
    """A ``blockedBy`` entry that names no task is refused with what was sent, never dropped
    in silence (the task would start, and be judged, as if it had no prerequisite)."""
    for raw in (
        {"action": "create", "subject": "b", "blockedBy": blocked_by},
        {"action": "update", "id": 1, "blockedBy": blocked_by},
    ):
        problem = parse_todo_call(raw)
        assert isinstance(problem, Problem)
        assert problem.key == "todo.error.blocked_by"
        assert dict(problem.fields)["value"] == shown
        assert "[1, 2]" in (zh(problem) or "") and "[1, 2]" in problem.render(EN)


def test_stored_scalar_blocked_by_means_no_dependencies() -> None:
    """A stored tree with a scalar ``blockedBy`` loads with no dependencies."""
    tree = TodoTree.from_json(
        {"tasks": [{"id": 1, "subject": "a"}, {"id": 2, "subject": "b", "blockedBy": "1"}]}
    )
    assert open_dependencies(tree.tasks, tree.tasks[1]) == ()


# ---------------------------------------------------------------------------------------------
# parse_todo_call
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [None, 5, [1, 2], "not json", "[1]", '"create"', True])
def test_parse_non_object_input_is_a_problem(raw: object) -> None:
    """Input that is not an object (or a JSON string of one) is a Problem, never an exception."""
    problem = parse_todo_call(raw)
    assert isinstance(problem, Problem)
    assert zh(problem) == "todo 的参数必须是 JSON 对象"


def test_parse_json_string_input() -> None:
    """A JSON string holding an object is read like the object."""
    parsed = call('{"action":"create","subject":"任务A","metadata":{"parentId":1}}')
    assert (parsed.action, parsed.subject, parsed.metadata) == ("create", "任务A", {"parentId": 1})


@pytest.mark.parametrize(
    ("raw", "shown"),
    [({"action": "delete"}, "delete"), ({}, "undefined"), ({"action": 3}, "3")],
)
def test_parse_unknown_action_is_a_problem(raw: dict[str, Any], shown: str) -> None:
    """Only create, update, list and get are actions."""
    problem = parse_todo_call(raw)
    assert isinstance(problem, Problem)
    assert zh(problem) == f"action 必须是 create|update|list|get，实际: {shown}"


def test_parse_subject_at_the_limit_is_accepted() -> None:
    """A subject of exactly the limit is fine."""
    assert call({"action": "create", "subject": "x" * MAX_SUBJECT}).subject == "x" * MAX_SUBJECT


def test_parse_huge_subject_is_a_problem() -> None:
    """A subject beyond the limit is refused with its size and the limit."""
    problem = parse_todo_call({"action": "create", "subject": "x" * (MAX_SUBJECT + 1)})
    assert isinstance(problem, Problem)
    assert problem.render(EN) == (
        f"subject is too long ({MAX_SUBJECT + 1} characters, limit {MAX_SUBJECT})"
    )


def test_parse_huge_description_is_a_problem() -> None:
    """A description beyond its limit is refused."""
    raw = {"action": "create", "subject": "s", "description": "d" * (MAX_DESCRIPTION + 1)}
    problem = parse_todo_call(raw)
    assert isinstance(problem, Problem)
    assert dict(problem.fields)["field"] == "description"


def test_parse_huge_metadata_is_a_problem() -> None:
    """Metadata serialized beyond the limit is refused (a pasted log is not evidence)."""
    raw = {"action": "update", "id": 1, "metadata": {"evidence": "x" * MAX_METADATA}}
    problem = parse_todo_call(raw)
    assert isinstance(problem, Problem)
    assert dict(problem.fields)["field"] == "metadata"


def test_parse_huge_top_level_evidence_is_a_problem() -> None:
    """A huge top-level ``evidence`` counts against the same limit."""
    problem = parse_todo_call({"action": "update", "id": 1, "evidence": "x" * MAX_METADATA})
    assert isinstance(problem, Problem)
    assert dict(problem.fields)["field"] == "metadata"


def test_parse_evidence_from_metadata() -> None:
    """When ``metadata`` has the key ``evidence``, that is the evidence (§4.1)."""
    parsed = call(
        {"action": "update", "id": 1, "metadata": {"evidence": {"cmd": "a"}}, "evidence": "b"}
    )
    assert (parsed.evidence, parsed.has_evidence) == ({"cmd": "a"}, True)


def test_parse_null_metadata_evidence_still_wins() -> None:
    """An explicit ``metadata.evidence: null`` is still read from metadata, not the top level."""
    parsed = call({"action": "update", "id": 1, "metadata": {"evidence": None}, "evidence": "b"})
    assert (parsed.evidence, parsed.has_evidence) == (None, True)


def test_parse_top_level_evidence_when_metadata_lacks_it() -> None:
    """``metadata`` without ``evidence`` falls back to the top-level ``evidence`` (S18)."""
    parsed = call({"action": "update", "id": 1, "metadata": {"note": "n"}, "evidence": "npm test"})
    assert (parsed.evidence, parsed.has_evidence) == ("npm test", True)
    assert parsed.metadata == {"note": "n"}


def test_parse_top_level_evidence_when_metadata_is_not_an_object() -> None:
    """A non-object ``metadata`` is ignored and the top-level ``evidence`` is read."""
    parsed = call({"action": "update", "id": 1, "metadata": "oops", "evidence": "npm test"})
    assert (parsed.metadata, parsed.evidence, parsed.has_evidence) == (None, "npm test", True)


def test_parse_no_evidence_anywhere() -> None:
    """Without evidence in either place, ``has_evidence`` is false."""
    parsed = call({"action": "update", "id": 1, "status": "completed"})
    assert (parsed.evidence, parsed.has_evidence) == (None, False)


def test_parse_reads_a_numeric_string_id_as_the_number() -> None:
    """The schema allows a string id: a numeric one is the number, read once here; ``taskId``
    is an alias; a parentId in metadata is read the same way."""
    assert call({"action": "update", "id": "3"}).id == 3
    assert call({"action": "get", "id": " #3 "}).id == 3
    assert call({"action": "update", "taskId": 3}).id == 3
    assert call({"action": "create", "subject": "a", "metadata": {"parentId": "2"}}).metadata == {
        "parentId": 2
    }
    assert call({"action": "create", "subject": "a", "metadata": {"parentId": "x"}}).metadata == {
        "parentId": "x"
    }


@pytest.mark.parametrize(
    ("task_id", "shown"),
    [("one", "one"), (None, "undefined"), (True, "true"), ("1.5", "1.5"), ("²", "²")],
)
def test_parse_refuses_an_id_that_is_no_number(task_id: object, shown: str) -> None:
    """update and get need a number or a numeric string; anything else is refused with what
    was sent (cut short), before any gate reads it."""
    for action in ("update", "get"):
        problem = parse_todo_call({"action": action, "id": task_id})
        assert isinstance(problem, Problem)
        assert zh(problem) == f'id 必须是数字，实际: {shown}（任务编号，如 3 或 "3"）'
    long = parse_todo_call({"action": "get", "id": "x" * 5000})
    assert isinstance(long, Problem) and len(zh(long) or "") < 100


def test_parse_non_string_subject_is_dropped() -> None:
    """A non-string subject is read as no subject."""
    assert call({"action": "create", "subject": 5}).subject is None


# ---------------------------------------------------------------------------------------------
# apply_todo
# ---------------------------------------------------------------------------------------------


def test_create_assigns_ids_from_next_id() -> None:
    """Create uses ``nextId`` as the new id and advances it."""
    first = applied(TodoTree(), {"action": "create", "subject": "a"})
    second = applied(first.tree, {"action": "create", "subject": "b"})
    assert [t.id for t in second.tree.tasks] == [1, 2]
    assert second.tree.next_id == 3
    assert applied(TodoTree((), 7), {"action": "create", "subject": "c"}).tree.get(7) is not None


def test_create_builds_a_pending_task() -> None:
    """A created task is pending, keeps its metadata and is stamped with the time."""
    result = applied(
        TodoTree(),
        {"action": "create", "subject": "  实现 X ", "metadata": {"gate": {"test": True}}},
        now=123.0,
    )
    task = result.tree.tasks[0]
    assert (task.subject, task.status, dict(task.metadata)) == (
        "实现 X",
        "pending",
        {"gate": {"test": True}},
    )
    assert (task.created_at, task.updated_at) == (123.0, 123.0)


def test_create_result_shape() -> None:
    """The result has the spec's shape: action, params, tasks, nextId (plus the task)."""
    raw = {"action": "create", "subject": "a", "session": "s1"}
    result = applied(TodoTree(), raw).result
    assert set(result) == {"action", "params", "tasks", "nextId", "task"}
    assert result["action"] == "create"
    assert result["params"] == {"action": "create", "subject": "a"}
    assert result["nextId"] == 2
    assert [t["id"] for t in result["tasks"]] == [1]
    assert result["task"]["subject"] == "a"
    assert json.loads(json.dumps(result)) == result


@pytest.mark.parametrize("subject", [None, "", "   "])
def test_create_needs_a_subject(subject: object) -> None:
    """Create without a non-empty subject is a Problem."""
    problem = apply_todo(TodoTree(), call({"action": "create", "subject": subject}), NOW)
    assert isinstance(problem, Problem)
    assert zh(problem) == "create 需要非空的 subject"


def test_update_merges_metadata_and_never_mutates_the_old_tree() -> None:
    """Update merges metadata into a new tree; the old tree and its tasks stay as they were."""
    old = TodoTree((Task(1, "a", metadata={"parentId": 9, "gate": "test"}),), 2)
    before = copy.deepcopy(old.to_json())
    raw = {"action": "update", "id": 1, "status": "completed", "metadata": {"evidence": {"k": 1}}}
    new = applied(old, raw, now=5.0).tree
    assert dict(new.tasks[0].metadata) == {"parentId": 9, "gate": "test", "evidence": {"k": 1}}
    assert (new.tasks[0].status, new.tasks[0].updated_at) == ("completed", 5.0)
    assert old.to_json() == before


def test_update_does_not_alias_the_callers_metadata() -> None:
    """Changing the caller's metadata afterwards does not change the stored task."""
    metadata: dict[str, Any] = {"note": ["a"]}
    tree = applied(TodoTree(), {"action": "create", "subject": "a", "metadata": metadata}).tree
    metadata["note"].append("b")
    metadata["other"] = 1
    assert dict(tree.tasks[0].metadata) == {"note": ["a"]}


def test_update_changes_only_what_is_given() -> None:
    """Fields the call does not give keep their values."""
    old = TodoTree((Task(1, "a", "in_progress", blocked_by=(2,), description="d"),), 2)
    task = applied(old, {"action": "update", "id": 1, "subject": "b"}).tree.tasks[0]
    assert (task.subject, task.status, task.blocked_by, task.description) == (
        "b",
        "in_progress",
        (2,),
        "d",
    )


@pytest.mark.parametrize(
    ("task_id", "expected"),
    [(99, "任务 #99 不存在"), (1.5, "任务 #1.5 不存在")],
)
def test_update_of_an_unknown_or_non_numeric_id_is_a_problem(
    task_id: object, expected: str
) -> None:
    """Unknown and non-numeric ids are Problems, and the tree is unchanged."""
    tree = TodoTree((Task(1, "a"),), 2)
    before = tree.to_json()
    problem = apply_todo(tree, call({"action": "update", "id": task_id, "status": "pending"}), NOW)
    assert isinstance(problem, Problem)
    assert zh(problem) == expected
    assert tree.to_json() == before


def test_update_with_an_invalid_status_is_a_problem() -> None:
    """A status outside the four states is a Problem."""
    tree = TodoTree((Task(1, "a"),), 2)
    problem = apply_todo(tree, call({"action": "update", "id": 1, "status": "done"}), NOW)
    assert zh(problem) == "status 必须是 pending|in_progress|completed|deleted，实际: done"


def test_list_result_shape() -> None:
    """List returns exactly action, params, tasks and nextId, and leaves the tree alone."""
    tree = TodoTree((Task(1, "a"), Task(2, "b", "completed")), 3)
    result = applied(tree, {"action": "list"})
    assert result.tree is tree
    assert set(result.result) == {"action", "params", "tasks", "nextId"}
    assert result.result["action"] == "list"
    assert result.result["params"] == {"action": "list"}
    assert [t["status"] for t in result.result["tasks"]] == ["pending", "completed"]
    assert result.result["nextId"] == 3


def test_get_result_shape() -> None:
    """Get adds the task to the list shape."""
    tree = TodoTree((Task(1, "a"), Task(2, "b")), 3)
    result = applied(tree, {"action": "get", "id": 2}).result
    assert set(result) == {"action", "params", "tasks", "nextId", "task"}
    assert result["task"]["id"] == 2


def test_get_unknown_id_is_a_problem() -> None:
    """Get of a missing task is a Problem."""
    assert zh(apply_todo(TodoTree(), call({"action": "get", "id": 4}), NOW)) == "任务 #4 不存在"


# ---------------------------------------------------------------------------------------------
# The stored tree (re-expresses scanTodoSnapshot, §12 items 19–22)
# ---------------------------------------------------------------------------------------------


def test_tree_json_round_trip() -> None:
    """A tree survives ``to_json``/``from_json`` unchanged, through real JSON text."""
    tree = TodoTree(
        (
            Task(1, "目标", "in_progress", created_at=1.0, updated_at=2.0),
            Task(
                2,
                "子任务",
                "pending",
                blocked_by=(3,),
                metadata={"parentId": 1, "gate": "test"},
                description="d",
            ),
            Task(3, "前置", "completed", metadata={"evidence": {"kind": "effect", "evidence": []}}),
            Task(4, "弃", "deleted"),
        ),
        5,
    )
    assert TodoTree.from_json(json.loads(json.dumps(tree.to_json()))) == tree


@pytest.mark.parametrize("raw", [None, "garbage", 5, [], {}, {"tasks": "x"}, {"tasks": None}])
def test_tree_from_garbage_is_empty(raw: object) -> None:
    """Nothing readable means an empty tree (item 21: no snapshot → no tasks)."""
    assert TodoTree.from_json(raw) == TodoTree()


def test_tree_from_json_drops_unreadable_entries() -> None:
    """Unreadable entries are dropped; odd fields of readable ones fall back to defaults."""
    raw = {
        "tasks": [
            None,
            5,
            "x",
            {"id": "1", "subject": "s"},
            {"id": 1.5, "subject": "s"},
            {"id": True, "subject": "s"},
            {"id": 2},
            {"id": 3, "subject": "ok", "status": "weird", "blockedBy": "1", "metadata": [1]},
        ],
        "nextId": "9",
    }
    tree = TodoTree.from_json(raw)
    assert tree == TodoTree((Task(3, "ok", "pending"),), 4)


def test_tree_next_id_never_reuses_an_id() -> None:
    """A stored ``nextId`` at or below the highest id is raised past it."""
    tasks = [{"id": 1, "subject": "a"}, {"id": 5, "subject": "b"}]
    assert TodoTree.from_json({"tasks": tasks, "nextId": 2}).next_id == 6
    assert TodoTree.from_json({"tasks": tasks, "nextId": 10}).next_id == 10


GUARD = TodosGuard()


def todo_event(raw: dict[str, Any]) -> ToolCall:
    return ToolCall("s", "todo", raw)


def run(events: list[Any], state: TodosState | None = None) -> TodosState:
    """The events through the guard; a request for facts is answered, as the engine's last
    attempt is, with none."""
    ctx = context(lang="zh")
    current = state or GUARD.initial_state()
    for event in events:
        verdict = GUARD.on_event(event, current, ctx)
        if any(isinstance(a, Inspect) for a in verdict.actions):
            verdict = GUARD.on_event(event, current, replace(ctx, facts=Facts()))
        current = verdict.state or current
    return current


def test_newest_tree_state_wins_items_19_20() -> None:
    """Re-expresses items 19–20: after create "旧" then an update, the stored tree holds "新"
    in_progress, and it survives the guard's dump/load round trip."""
    state = run(
        [
            todo_event({"action": "create", "subject": "旧"}),
            todo_event({"action": "update", "id": 1, "subject": "新", "status": "in_progress"}),
        ]
    )
    task = state.tree.tasks[0]
    assert (task.subject, task.status) == ("新", "in_progress")
    reloaded = GUARD.load_state(json.loads(json.dumps(GUARD.dump_state(state))))
    assert reloaded.tree == state.tree


def test_no_todo_call_means_no_tree_item_21() -> None:
    """Re-expresses item 21: with only a bash call there is no todo tree (no tasks)."""
    state = run([ToolCall("s", "bash", {"command": "ls"})])
    assert state.tree == TodoTree()


def test_calls_without_a_new_tree_are_skipped_item_22() -> None:
    """Re-expresses item 22: a list call and a refused call after the newest update leave the
    stored tree as that update made it."""
    state = run(
        [
            todo_event({"action": "create", "subject": "旧"}),
            todo_event({"action": "update", "id": 1, "subject": "新", "status": "in_progress"}),
        ]
    )
    after = run(
        [
            todo_event({"action": "list"}),
            todo_event({"action": "update", "id": 99, "status": "pending"}),
            todo_event({"action": "nonsense"}),
            ToolCall("s", "bash", {"command": "ls"}),
        ],
        state,
    )
    assert after.tree == state.tree
    assert after.tree.tasks[0].subject == "新"


def test_stored_state_with_a_garbage_tree_loads() -> None:
    """The guard's stored state tolerates a garbage tree entry."""
    state = GUARD.load_state({"tree": {"tasks": [None, {"id": 1, "subject": "a"}]}})
    assert [t.subject for t in state.tree.tasks] == ["a"]


# ---------------------------------------------------------------------------------------------
# Unit statistics from events (re-expresses unitToolStats, §12 items 23–30 and 72–73)
# ---------------------------------------------------------------------------------------------


def test_unit_counts_tools_and_todo_calls_items_23_25() -> None:
    """Re-expresses items 23–25: a grep call and two todo calls (create, update) count 3 tools,
    2 todo calls, and a created todo."""
    state = run(
        [
            UserPrompt("s", "做 X"),
            ToolCall("s", "ctx_grep", {"pattern": "x"}),
            todo_event({"action": "create", "subject": "任务A"}),
            todo_event({"action": "update", "id": 1, "status": "in_progress"}),
        ]
    )
    assert (state.unit_tool_events, state.unit_todo_calls, state.unit_created_todo) == (3, 2, True)


def test_unit_without_todo_calls_items_26_29() -> None:
    """Re-expresses items 26–29: three read calls count 3 tools, 0 todo calls, no created todo."""
    state = run([UserPrompt("s", "做 Y")] + [ToolCall("s", "ctx_read", {})] * 3)
    assert (state.unit_tool_events, state.unit_todo_calls) == (3, 0)
    assert state.unit_created_todo is False


def test_empty_unit_counts_nothing_item_30() -> None:
    """Re-expresses item 30: with no events the unit has 0 tool calls."""
    state = GUARD.initial_state()
    assert (state.unit_tool_events, state.unit_todo_calls, state.unit_long_wait) == (0, 0, False)


def test_a_user_prompt_starts_a_new_unit() -> None:
    """The newest real user message is the unit boundary: the counters start again."""
    state = run(
        [
            ToolCall("s", "subagent", {}),
            todo_event({"action": "create", "subject": "a"}),
            UserPrompt("s", "next"),
        ]
    )
    assert (state.unit_tool_events, state.unit_todo_calls) == (0, 0)
    assert (state.unit_created_todo, state.unit_long_wait) == (False, False)
    assert len(state.tree.tasks) == 1


def test_a_refused_create_still_counts_as_created() -> None:
    """A todo call whose action is create counts, whatever its outcome (spec §8.2)."""
    state = run([todo_event({"action": "create", "subject": "a", "metadata": {"parentId": 99}})])
    assert state.unit_created_todo
    assert state.tree == TodoTree()


def test_a_garbage_todo_call_counts_as_a_todo_call() -> None:
    """Every call named ``todo`` counts, even one whose input cannot be read."""
    state = run([todo_event({"action": "nonsense"})])
    assert (state.unit_tool_events, state.unit_todo_calls, state.unit_created_todo) == (1, 1, False)


def test_subagent_decides_the_long_wait_item_72() -> None:
    """Re-expresses item 72: a subagent call is a long wait; a 120 ms shell timeout alone is not."""
    state = run(
        [
            UserPrompt("s", "u"),
            ToolCall("s", "subagent", {}),
            ToolCall("s", "shell", {"timeout": 120}),
        ]
    )
    assert state.unit_long_wait


def test_short_shell_timeout_is_not_a_long_wait_item_73() -> None:
    """Re-expresses item 73: a shell call with a 10 ms timeout is not a long wait."""
    assert not run([UserPrompt("s", "u"), ToolCall("s", "shell", {"timeout": 10})]).unit_long_wait


@pytest.mark.parametrize("name", ["subagent", "Task", "Agent"])
def test_subagent_tools_are_long_waits(name: str) -> None:
    """Any subagent-style call is a long wait."""
    assert run([ToolCall("s", name, {})]).unit_long_wait


@pytest.mark.parametrize(
    ("name", "tool_input", "long_wait"),
    [
        ("Bash", {"timeout": 60_000}, True),
        ("bash", {"timeout": 600_000.0}, True),
        ("shell", {"timeout": 59_999}, False),
        ("pwsh", {"timeout": 60_000}, True),
        ("Bash", {"run_in_background": True}, True),
        ("Bash", {"run_in_background": "true"}, False),
        ("Bash", {"timeout": "120000"}, False),
        ("Bash", {"timeout": True}, False),
        ("Bash", {}, False),
        ("Read", {"timeout": 120_000}, False),
        ("Read", {"run_in_background": True}, False),
    ],
)
def test_shell_long_wait_rules(name: str, tool_input: dict[str, Any], long_wait: bool) -> None:
    """A shell call is a long wait with a numeric timeout ≥ 60000 ms or run_in_background."""
    assert run([ToolCall("s", name, tool_input)]).unit_long_wait is long_wait


# ---------------------------------------------------------------------------------------------
# Property: the todo tool never raises
# ---------------------------------------------------------------------------------------------

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**6), max_value=10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
TOOL_INPUTS = st.one_of(
    JSON_VALUES,
    st.fixed_dictionaries(
        {},
        optional={
            "action": st.sampled_from([*ACTIONS, "delete", ""]) | JSON_VALUES,
            "id": st.integers(min_value=-1, max_value=6) | JSON_VALUES,
            "subject": st.text(max_size=30) | JSON_VALUES,
            "description": st.text(max_size=30) | JSON_VALUES,
            "status": st.sampled_from(STATUSES) | JSON_VALUES,
            "blockedBy": st.lists(st.integers(min_value=0, max_value=6), max_size=3) | JSON_VALUES,
            "metadata": st.dictionaries(
                st.sampled_from(["parentId", "gate", "evidence", "note"]), JSON_VALUES, max_size=3
            )
            | JSON_VALUES,
            "evidence": JSON_VALUES,
        },
    ),
)
SEED_TREE = TodoTree(
    (
        Task(1, "a", "in_progress"),
        Task(2, "b", metadata={"parentId": 1}),
        Task(3, "c", "completed", blocked_by=(1,)),
    ),
    4,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(TOOL_INPUTS, min_size=1, max_size=6))
def test_todo_tool_never_raises_and_problems_never_change_the_tree(inputs: list[Any]) -> None:
    """For any JSON-like inputs, parsing and applying never raise; a Problem leaves the tree as
    it was, and no call ever mutates the tree it was applied to."""
    tree = SEED_TREE
    for raw in inputs:
        before = copy.deepcopy(tree.to_json())
        parsed = parse_todo_call(raw)
        if isinstance(parsed, Problem):
            continue
        result = apply_todo(tree, parsed, NOW)
        assert tree.to_json() == before
        if isinstance(result, Problem):
            assert isinstance(result.render(ZH), str)
            continue
        assert isinstance(result, Applied)
        json.dumps(result.result)
        tree = result.tree


def test_todo_tool_survives_non_finite_numbers() -> None:
    """``blockedBy: [Infinity]`` (as Python's json reads it) is refused, not a crash."""
    raw = json.loads('{"action": "create", "subject": "a", "blockedBy": [Infinity, NaN]}')
    problem = parse_todo_call(raw)
    assert isinstance(problem, Problem) and problem.key == "todo.error.blocked_by"


def test_tree_from_json_survives_non_finite_numbers() -> None:
    """A stored tree with non-finite numbers loads without raising."""
    raw = {
        "tasks": [{"id": float("inf"), "subject": "x"}, {"id": 1, "subject": "a"}],
        "nextId": float("nan"),
    }
    assert TodoTree.from_json(raw) == TodoTree((Task(1, "a"),), 2)
