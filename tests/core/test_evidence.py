"""Completion evidence (``todo-obligations-spec.md`` §4, §6, §12): validation, lenient
normalization, gates, the claims goalkeeper can check, allowed re-run commands and JavaScript
``String()``."""

from __future__ import annotations

import copy
import json
from types import MappingProxyType
from typing import Any

import pytest

from goalkeeper.core.messages import make_say
from goalkeeper.core.todos.evidence import (
    Baseline,
    CommandClaim,
    FileClaim,
    Gate,
    content_key,
    evidence_claims,
    gate_names,
    gate_weakened,
    make_baseline,
    normalize_evidence,
    parse_gate,
    validate_evidence,
    validate_gate,
    validate_gate_kind,
)
from goalkeeper.core.todos.tree import UNDEFINED, Task, js_str
from goalkeeper.core.values import Problem

ZH = make_say("zh")
EN = make_say("en")


def zh(problem: Problem | None) -> str | None:
    return None if problem is None else problem.render(ZH)


def en(problem: Problem | None) -> str | None:
    return None if problem is None else problem.render(EN)


FILE_A = {"type": "file", "path": "a.ts"}
REVIEW = {"type": "review", "agent": "reviewer", "path": "r.md"}


def state(*entries: object) -> dict[str, Any]:
    return {"kind": "state", "evidence": list(entries)}


def runnable(*entries: object) -> dict[str, Any]:
    return {"kind": "runnable", "evidence": list(entries)}


# ---------------------------------------------------------------------------------------------
# validateEvidence (§12 items 1–18)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("evidence", "expected"),
    [
        pytest.param(None, "evidence 缺失或非对象", id="item01-none"),
        pytest.param("x", "evidence 缺失或非对象", id="item02-string"),
        pytest.param(
            {"evidence": []}, "kind 必须是 state|runnable|effect，实际: undefined", id="item03"
        ),
        pytest.param(
            {"kind": "magic", "evidence": []},
            "kind 必须是 state|runnable|effect，实际: magic",
            id="item04",
        ),
        pytest.param({"kind": "effect", "evidence": []}, None, id="item05"),
        pytest.param(state(), "state 类至少需要 1 条证据", id="item06"),
        pytest.param({"kind": "state", "evidence": "x"}, "state 类至少需要 1 条证据", id="item07"),
        pytest.param(state({"type": "file"}), "file 证据缺 path", id="item08"),
        pytest.param(
            state({"type": "file", "path": "a.ts", "op": "touch"}),
            "file 证据 op 非法: touch",
            id="item09",
        ),
        pytest.param(state({"type": "file", "path": "src/a.ts", "op": "edit"}), None, id="item10"),
        pytest.param(state({"type": "cmd", "cmd": "ls"}), "state 类必须有 file 证据", id="item11"),
        pytest.param(runnable(FILE_A), "runnable 类必须有 cmd 证据", id="item12"),
        pytest.param(runnable({"type": "cmd", "cmd": "npm test", "exit": 0}), None, id="item13"),
        pytest.param(
            runnable({"type": "cmd", "cmd": "npm test", "exit": "0"}),
            "cmd 证据 exit 必须为数字",
            id="item14",
        ),
        pytest.param(
            runnable({"type": "curl", "cmd": "x"}),
            "证据 type 必须是 file|cmd|review，实际: curl",
            id="item15",
        ),
        pytest.param(
            state(FILE_A, {"type": "review", "path": "r.md"}), "review 证据缺 agent", id="item16"
        ),
        pytest.param(
            state(FILE_A, {"type": "review", "agent": "reviewer"}),
            "review 证据缺 path",
            id="item17",
        ),
        pytest.param(state(FILE_A, REVIEW), None, id="item18"),
    ],
)
def test_validate_evidence_spec_items(evidence: object, expected: str | None) -> None:
    """validateEvidence returns exactly the spec's message, or None when valid (items 1–18)."""
    assert zh(validate_evidence(evidence)) == expected


@pytest.mark.parametrize("falsy", [0, False, "", 5, 1.5, True])
def test_validate_evidence_rejects_falsy_and_scalars(falsy: object) -> None:
    """Falsy values and non-object scalars are "missing or not an object" (rule 1)."""
    assert zh(validate_evidence(falsy)) == "evidence 缺失或非对象"


def test_validate_evidence_empty_object_reaches_the_kind_rule() -> None:
    """An empty object is truthy in JavaScript, so it fails on ``kind`` (rule 2), not rule 1."""
    assert zh(validate_evidence({})) == "kind 必须是 state|runnable|effect，实际: undefined"


def test_validate_evidence_array_is_an_object_without_kind() -> None:
    """A JSON array is an object in JavaScript: it fails on its missing ``kind``."""
    assert zh(validate_evidence([])) == "kind 必须是 state|runnable|effect，实际: undefined"


@pytest.mark.parametrize(
    ("kind", "shown"),
    [
        (None, "null"),
        (5, "5"),
        (True, "true"),
        (1.0, "1"),
        (["a", "b"], "a,b"),
        ({}, "[object Object]"),
    ],
)
def test_validate_evidence_prints_kind_like_js_string(kind: object, shown: str) -> None:
    """An invalid ``kind`` is printed as JavaScript ``String(kind)`` would print it."""
    message = zh(validate_evidence({"kind": kind, "evidence": []}))
    assert message == f"kind 必须是 state|runnable|effect，实际: {shown}"


def test_validate_evidence_effect_needs_an_array() -> None:
    """``effect`` evidence that is not an array is refused (item 44)."""
    assert (
        zh(validate_evidence({"kind": "effect", "evidence": "x"}))
        == "effect 类 evidence 必须是数组"
    )


def test_validate_evidence_effect_entries_are_not_inspected() -> None:
    """``effect`` is the honest exit: its entries are never inspected (rule 3b)."""
    assert validate_evidence({"kind": "effect", "evidence": [5, None, {"type": "curl"}]}) is None


def test_validate_evidence_kind_is_checked_before_entries() -> None:
    """The ``kind`` rule fires before any entry is looked at."""
    message = zh(validate_evidence({"kind": "x", "evidence": [{"type": "curl"}]}))
    assert message == "kind 必须是 state|runnable|effect，实际: x"


@pytest.mark.parametrize("entry", [None, 5, "file", 0])
def test_validate_evidence_entry_must_be_an_object(entry: object) -> None:
    """A falsy or non-object entry is refused (rule 5)."""
    assert zh(validate_evidence(state(entry))) == "证据条目必须是对象"


def test_validate_evidence_array_entry_has_an_undefined_type() -> None:
    """An array entry is an object in JavaScript, so it fails on its type (rule 12)."""
    assert zh(validate_evidence(state([1]))) == "证据 type 必须是 file|cmd|review，实际: undefined"


@pytest.mark.parametrize(("entry_type", "shown"), [(None, "null"), (3, "3"), (False, "false")])
def test_validate_evidence_prints_entry_type_like_js_string(entry_type: object, shown: str) -> None:
    """An unknown entry type is printed like JavaScript ``String(type)`` (rule 12)."""
    message = zh(validate_evidence(runnable({"type": entry_type})))
    assert message == f"证据 type 必须是 file|cmd|review，实际: {shown}"


def test_validate_evidence_missing_entry_type_prints_undefined() -> None:
    """An entry with no ``type`` key prints ``undefined``."""
    message = zh(validate_evidence(runnable({"cmd": "x"})))
    assert message == "证据 type 必须是 file|cmd|review，实际: undefined"


@pytest.mark.parametrize("path", ["", 5, None])
def test_validate_evidence_file_path_must_be_non_empty_text(path: object) -> None:
    """A ``file`` entry needs a non-empty string ``path`` (rule 6)."""
    assert zh(validate_evidence(state({"type": "file", "path": path}))) == "file 证据缺 path"


@pytest.mark.parametrize("op", ["", None, 0, False])
def test_validate_evidence_falsy_op_is_ignored(op: object) -> None:
    """Only a truthy ``op`` is checked against write/edit/delete (rule 7)."""
    assert validate_evidence(state({"type": "file", "path": "a.ts", "op": op})) is None


@pytest.mark.parametrize("op", ["write", "edit", "delete"])
def test_validate_evidence_accepts_the_three_ops(op: str) -> None:
    """write, edit and delete are the legal file operations."""
    assert validate_evidence(state({"type": "file", "path": "a.ts", "op": op})) is None


def test_validate_evidence_op_list_is_printed_like_js() -> None:
    """An array ``op`` is not a legal op and is printed comma-joined."""
    message = zh(validate_evidence(state({"type": "file", "path": "a", "op": ["edit"]})))
    assert message == "file 证据 op 非法: edit"


@pytest.mark.parametrize("cmd", ["", None, 7])
def test_validate_evidence_cmd_must_be_non_empty_text(cmd: object) -> None:
    """A ``cmd`` entry needs a non-empty string ``cmd`` (rule 8)."""
    assert zh(validate_evidence(runnable({"type": "cmd", "cmd": cmd}))) == "cmd 证据缺 cmd"


@pytest.mark.parametrize("exit_code", [True, None, "0", [0]])
def test_validate_evidence_exit_must_be_a_json_number(exit_code: object) -> None:
    """A present ``exit`` must be a JSON number: booleans and null are not (rule 9)."""
    message = zh(validate_evidence(runnable({"type": "cmd", "cmd": "t", "exit": exit_code})))
    assert message == "cmd 证据 exit 必须为数字"


@pytest.mark.parametrize("exit_code", [0, 1, -1, 2.5])
def test_validate_evidence_numeric_exit_is_valid(exit_code: float) -> None:
    """Any number is a valid ``exit`` for the format gate (only a test gate wants 0)."""
    assert validate_evidence(runnable({"type": "cmd", "cmd": "t", "exit": exit_code})) is None


def test_validate_evidence_stops_at_the_first_bad_entry() -> None:
    """The entry loop reports the first bad entry and stops there."""
    evidence = state({"type": "file"}, {"type": "curl"})
    assert zh(validate_evidence(evidence)) == "file 证据缺 path"


def test_validate_evidence_review_is_not_a_file_entry() -> None:
    """A review entry never counts as the file entry ``state`` needs."""
    assert zh(validate_evidence(state(REVIEW))) == "state 类必须有 file 证据"


def test_validate_evidence_review_is_not_a_cmd_entry() -> None:
    """A review entry never counts as the cmd entry ``runnable`` needs."""
    assert zh(validate_evidence(runnable(REVIEW))) == "runnable 类必须有 cmd 证据"


def test_validate_evidence_accepts_read_only_mappings() -> None:
    """Frozen mappings are objects too."""
    frozen = MappingProxyType({"kind": "state", "evidence": [MappingProxyType(FILE_A)]})
    assert validate_evidence(frozen) is None


# ---------------------------------------------------------------------------------------------
# normalizeEvidence (§12 items 31–44)
# ---------------------------------------------------------------------------------------------


def test_normalize_json_string_items_31_32() -> None:
    """A JSON string is parsed: no error, kind ``runnable`` (items 31–32)."""
    raw = '{"kind":"runnable","evidence":[{"type":"cmd","cmd":"npm test","exit":0}]}'
    result = normalize_evidence(raw)
    assert result.problem is None
    assert result.evidence is not None
    assert result.evidence["kind"] == "runnable"


def test_normalize_infers_runnable_from_a_cmd_entry_item_33() -> None:
    """A missing kind with a cmd entry becomes ``runnable`` (item 33)."""
    result = normalize_evidence({"evidence": [{"type": "cmd", "cmd": "echo hi"}]})
    assert result.evidence is not None
    assert result.evidence["kind"] == "runnable"


def test_normalize_infers_file_type_and_state_kind_items_34_35() -> None:
    """An entry with only ``path`` becomes a file entry, and the kind ``state`` (items 34–35)."""
    result = normalize_evidence({"evidence": [{"path": "src/a.ts"}]})
    assert result.evidence is not None
    assert result.evidence["evidence"][0]["type"] == "file"
    assert result.evidence["kind"] == "state"


def test_normalize_bare_command_items_36_37() -> None:
    """Text that is not JSON is a bare command (items 36–37)."""
    result = normalize_evidence("npm test")
    assert result.evidence is not None
    assert result.evidence["evidence"][0]["cmd"] == "npm test"
    assert result.evidence["kind"] == "runnable"


def test_normalize_none_item_38() -> None:
    """None is "missing or not an object" (item 38)."""
    assert zh(normalize_evidence(None).problem) == "evidence 缺失或非对象"


def test_normalize_keeps_an_invalid_kind_item_39() -> None:
    """A truthy invalid kind is kept and reported (item 39)."""
    result = normalize_evidence({"kind": "magic", "evidence": []})
    assert result.evidence is None
    assert zh(result.problem) == "kind 必须是 state|runnable|effect，实际: magic"


def test_normalize_evidence_not_an_array_item_40() -> None:
    """An ``evidence`` that is neither an array nor an object is refused (item 40)."""
    assert (
        zh(normalize_evidence({"evidence": "not-array"}).problem) == "evidence.evidence 必须是数组"
    )


def test_normalized_result_is_valid_item_41() -> None:
    """What normalization returns passes validation (item 41)."""
    result = normalize_evidence({"evidence": [{"type": "cmd", "cmd": "echo hi"}]})
    assert validate_evidence(result.evidence) is None


def test_normalize_frozen_input_items_42_43() -> None:
    """A frozen ``{cmd}`` normalizes without error and keeps no ``type`` key (items 42–43)."""
    frozen = MappingProxyType({"cmd": "npm test"})
    result = normalize_evidence(frozen)
    assert result.problem is None
    assert "type" not in frozen


def test_normalize_effect_must_be_an_array_item_44() -> None:
    """validateEvidence of effect with a string is refused (item 44)."""
    assert (
        zh(validate_evidence({"kind": "effect", "evidence": "x"}))
        == "effect 类 evidence 必须是数组"
    )


def test_normalize_exactly_one_of_evidence_and_problem() -> None:
    """A result carries exactly one of evidence and problem."""
    for raw in (
        None,
        "npm test",
        {"evidence": "x"},
        {"cmd": "x"},
        {"kind": "effect", "evidence": []},
    ):
        result = normalize_evidence(raw)
        assert (result.evidence is None) != (result.problem is None)


@pytest.mark.parametrize("blank", ["", "   ", "\n\t "])
def test_normalize_blank_string_is_missing(blank: str) -> None:
    """A blank string is "missing or not an object" (step 1)."""
    assert zh(normalize_evidence(blank).problem) == "evidence 缺失或非对象"


def test_normalize_trims_a_bare_command() -> None:
    """The bare command is the trimmed text."""
    result = normalize_evidence("  npm test  \n")
    assert result.evidence == {"kind": "runnable", "evidence": [{"type": "cmd", "cmd": "npm test"}]}


@pytest.mark.parametrize("text", ["123", '"npm test"', "true", "null"])
def test_normalize_json_scalar_string_falls_through_and_fails(text: str) -> None:
    """A string parsing to a non-object fails as "missing or not an object" (step 1 → 2)."""
    assert zh(normalize_evidence(text).problem) == "evidence 缺失或非对象"


@pytest.mark.parametrize("raw", [5, True, 0.5])
def test_normalize_non_object_is_missing(raw: object) -> None:
    """Numbers and booleans are "missing or not an object" (step 2)."""
    assert zh(normalize_evidence(raw).problem) == "evidence 缺失或非对象"


@pytest.mark.parametrize("raw", [[{"cmd": "x"}], '[{"cmd": "x"}]', ["x"], ['{"cmd": "x"}']])
def test_normalize_a_bare_array_is_the_list_of_entries(raw: object) -> None:
    """Seed 002 lenient normalization (the spec refused it at step 4): a bare array is the
    entries, and a string entry a bare command or the object it encodes."""
    result = normalize_evidence(raw)
    assert result.evidence == {"evidence": [{"cmd": "x", "type": "cmd"}], "kind": "runnable"}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ([], "kind 必须是 state|runnable|effect，实际: undefined"),
        ("[]", "kind 必须是 state|runnable|effect，实际: undefined"),
        ([REVIEW], "kind 必须是 state|runnable|effect，实际: undefined"),
        (["", "  "], "kind 必须是 state|runnable|effect，实际: undefined"),
        ({"kind": "state", "evidence": ["123"]}, "证据条目必须是对象"),
        ({"kind": "state", "evidence": ["src/a.ts"]}, "state 类必须有 file 证据"),
    ],
)
def test_normalize_a_bare_array_never_widens(raw: object, expected: str) -> None:
    """An empty array declares no effect, a review alone has no kind, a string is never taken
    for a file claim, and a string holding JSON that is no object stays refused."""
    assert zh(normalize_evidence(raw).problem) == expected


def test_normalize_top_level_entry_reinfers_kind() -> None:
    """A top-level single entry is wrapped and its own ``kind`` is ignored (step 3)."""
    result = normalize_evidence({"kind": "state", "cmd": "npm test"})
    assert result.evidence is not None
    assert result.evidence["kind"] == "runnable"
    assert result.evidence["evidence"][0]["cmd"] == "npm test"


def test_normalize_top_level_file_entry() -> None:
    """A top-level ``{type: file, path}`` becomes state evidence with that one entry."""
    result = normalize_evidence({"type": "file", "path": "a.ts", "op": "edit"})
    assert result.evidence == {
        "kind": "state",
        "evidence": [{"type": "file", "path": "a.ts", "op": "edit"}],
    }


def test_normalize_wraps_a_single_evidence_object() -> None:
    """An ``evidence`` object is wrapped into a one-element array (step 4)."""
    result = normalize_evidence({"kind": "state", "evidence": {"path": "a.ts"}})
    assert result.evidence == {"kind": "state", "evidence": [{"path": "a.ts", "type": "file"}]}


def test_normalize_infers_cmd_before_path() -> None:
    """An entry with both ``cmd`` and ``path`` but no type becomes a cmd entry (step 5)."""
    result = normalize_evidence({"evidence": [{"cmd": "make", "path": "a"}]})
    assert result.evidence is not None
    assert result.evidence["evidence"][0]["type"] == "cmd"


def test_normalize_replaces_a_non_string_type() -> None:
    """A non-string ``type`` counts as missing and is inferred (step 5)."""
    result = normalize_evidence({"evidence": [{"type": 5, "cmd": "make"}]})
    assert result.evidence is not None
    assert result.evidence["evidence"][0]["type"] == "cmd"


def test_normalize_untyped_review_becomes_a_file_entry() -> None:
    """The documented caveat: an untyped review with a path becomes a file entry (step 5)."""
    result = normalize_evidence({"kind": "state", "evidence": [{"agent": "r", "path": "r.md"}]})
    assert result.evidence is not None
    assert result.evidence["evidence"][0]["type"] == "file"


def test_normalize_passes_non_object_entries_to_validation() -> None:
    """Non-object entries pass through unchanged and validation refuses them (step 5)."""
    assert (
        zh(normalize_evidence({"kind": "state", "evidence": [5]}).problem) == "证据条目必须是对象"
    )


def test_normalize_cmd_wins_kind_inference() -> None:
    """With both cmd and file entries and no kind, the kind is ``runnable`` (step 6)."""
    result = normalize_evidence({"evidence": [{"path": "a"}, {"cmd": "t"}]})
    assert result.evidence is not None
    assert result.evidence["kind"] == "runnable"


def test_normalize_uninferable_kind_stays_missing() -> None:
    """With no cmd or file entry the kind stays missing and prints ``undefined`` (step 6)."""
    result = normalize_evidence({"evidence": [REVIEW]})
    assert zh(result.problem) == "kind 必须是 state|runnable|effect，实际: undefined"


def test_normalize_explicit_null_kind_prints_null() -> None:
    """An explicit ``kind: null`` that cannot be inferred is reported as ``null`` (§4.2, §4.3)."""
    result = normalize_evidence({"kind": None, "evidence": []})
    assert zh(result.problem) == "kind 必须是 state|runnable|effect，实际: null"


def test_normalize_falsy_kind_is_inferred() -> None:
    """A falsy kind (empty string) is inferred from the entries (step 6)."""
    result = normalize_evidence({"kind": "", "evidence": [{"path": "a.ts"}]})
    assert result.evidence is not None
    assert result.evidence["kind"] == "state"


def test_normalize_keeps_other_keys() -> None:
    """The normalized object keeps the original's other keys (step 7)."""
    result = normalize_evidence({"note": "n", "evidence": [{"cmd": "t", "exit": 0}]})
    assert result.evidence == {
        "note": "n",
        "kind": "runnable",
        "evidence": [{"cmd": "t", "exit": 0, "type": "cmd"}],
    }


def test_normalize_nan_text_is_a_bare_command() -> None:
    """``NaN`` is not JSON, so it is a bare command (step 1)."""
    result = normalize_evidence("NaN")
    assert result.evidence == {"kind": "runnable", "evidence": [{"type": "cmd", "cmd": "NaN"}]}


def test_normalize_never_mutates_a_plain_input() -> None:
    """Normalization leaves a plain nested input exactly as it was."""
    raw = {"evidence": [{"cmd": "npm test"}, {"path": "a.ts"}, 5], "note": ["x"]}
    before = copy.deepcopy(raw)
    normalize_evidence(raw)
    assert raw == before


def test_normalize_never_mutates_a_top_level_entry() -> None:
    """A wrapped top-level entry is not given a ``type`` in place."""
    raw = {"cmd": "npm test"}
    normalize_evidence(raw)
    assert raw == {"cmd": "npm test"}


def test_normalize_accepts_deeply_frozen_input() -> None:
    """A read-only mapping with read-only entries normalizes (it cannot be written to)."""
    frozen = MappingProxyType(
        {"evidence": MappingProxyType({"path": "a.ts"}), "meta": MappingProxyType({})}
    )
    result = normalize_evidence(frozen)
    assert result.evidence is not None
    assert result.evidence["evidence"] == [{"path": "a.ts", "type": "file"}]


def test_normalize_result_shares_no_entry_with_the_input() -> None:
    """Writing to the normalized result never reaches back into the input."""
    entry = {"type": "cmd", "cmd": "t"}
    raw = {"evidence": [entry]}
    result = normalize_evidence(raw)
    assert result.evidence is not None
    result.evidence["evidence"][0]["cmd"] = "changed"
    result.evidence["evidence"].append("x")
    assert raw == {"evidence": [{"type": "cmd", "cmd": "t"}]}


# ---------------------------------------------------------------------------------------------
# validateGate (§12 items 54–64) and parseGate (items 65–69)
# ---------------------------------------------------------------------------------------------

GATE_TASKS = (
    Task(1, "普通"),
    Task(2, "测", metadata={"gate": {"test": True}}),
    Task(3, "审", metadata={"gate": "audit"}),
    Task(4, "双", metadata={"gate": ["test", "audit"]}),
    Task(5, "怪", metadata={"gate": "magic"}),
)
CMD_OK = {"type": "cmd", "cmd": "npm test", "exit": 0}


def message_t(task_id: int) -> str:
    return (
        f"任务 #{task_id} 声明了 test 硬门禁：evidence 必须含 cmd 证据且 exit 显式为 0"
        '（测试真实通过），如 {"type":"cmd","cmd":"npm test","exit":0}'
    )


def message_a(task_id: int) -> str:
    return (
        f"任务 #{task_id} 声明了 audit 硬门禁：evidence 必须含交叉审计证据 "
        '{"type":"review","agent":"<复核者>","path":"<评审产物>"}'
    )


@pytest.mark.parametrize(
    ("task_id", "entries", "expected"),
    [
        pytest.param(1, [FILE_A], None, id="item54-no-gate"),
        pytest.param(99, [FILE_A], None, id="item55-unknown-task"),
        pytest.param("2", [FILE_A], None, id="item56-id-not-a-number"),
        pytest.param(5, [FILE_A], None, id="item57-unknown-gate"),
        pytest.param(
            2, [{"type": "cmd", "cmd": "npm test", "exit": 1}], message_t(2), id="item58-exit-1"
        ),
        pytest.param(2, [{"type": "cmd", "cmd": "npm test"}], message_t(2), id="item59-no-exit"),
        pytest.param(2, [CMD_OK], None, id="item60-exit-0"),
        pytest.param(3, [CMD_OK], message_a(3), id="item61-audit-without-review"),
        pytest.param(3, [REVIEW], None, id="item62-audit-with-review"),
        pytest.param(4, [CMD_OK], message_a(4), id="item63-both-cmd-only"),
        pytest.param(4, [CMD_OK, REVIEW], None, id="item64-both-satisfied"),
    ],
)
def test_validate_gate_spec_items(
    task_id: object, entries: list[Any], expected: str | None
) -> None:
    """validateGate returns the exact message T or A, or None (items 54–64)."""
    evidence = {"kind": "runnable", "evidence": entries}
    assert zh(validate_gate(GATE_TASKS, task_id, evidence)) == expected


@pytest.mark.parametrize("exit_code", [False, "0", None, 0.5])
def test_validate_gate_test_wants_exactly_the_number_zero(exit_code: object) -> None:
    """Only the number 0 satisfies a test gate: not ``false``, ``"0"`` or null."""
    evidence = {"kind": "runnable", "evidence": [{"type": "cmd", "cmd": "t", "exit": exit_code}]}
    assert zh(validate_gate(GATE_TASKS, 2, evidence)) == message_t(2)


def test_validate_gate_float_zero_counts_as_zero() -> None:
    """``0.0`` is the JSON number 0."""
    evidence = {"kind": "runnable", "evidence": [{"type": "cmd", "cmd": "t", "exit": 0.0}]}
    assert validate_gate(GATE_TASKS, 2, evidence) is None


def test_validate_gate_test_is_checked_before_audit() -> None:
    """A test+audit node with neither entry gets message T first."""
    evidence = {"kind": "state", "evidence": [FILE_A]}
    assert zh(validate_gate(GATE_TASKS, 4, evidence)) == message_t(4)


def test_validate_gate_review_needs_agent_and_path() -> None:
    """A review entry with an empty agent does not satisfy an audit gate."""
    evidence = {"kind": "effect", "evidence": [{"type": "review", "agent": "", "path": "r.md"}]}
    assert zh(validate_gate(GATE_TASKS, 3, evidence)) == message_a(3)


def test_validate_gate_cmd_entry_needs_cmd_type() -> None:
    """An entry with ``exit: 0`` but another type does not satisfy a test gate."""
    evidence = {"kind": "state", "evidence": [{"type": "file", "path": "a", "exit": 0}]}
    assert zh(validate_gate(GATE_TASKS, 2, evidence)) == message_t(2)


def test_validate_gate_float_id_prints_like_js() -> None:
    """A float id that names a task is printed as an integer, as JavaScript would."""
    evidence = {"kind": "runnable", "evidence": [{"type": "cmd", "cmd": "t", "exit": 1}]}
    assert zh(validate_gate(GATE_TASKS, 2.0, evidence)) == message_t(2)


def test_validate_gate_english_messages() -> None:
    """The English T and A are the spec's proposed texts."""
    runnable_1 = {"kind": "runnable", "evidence": [{"type": "cmd", "cmd": "t", "exit": 1}]}
    assert en(validate_gate(GATE_TASKS, 2, runnable_1)) == (
        "Task #2 declares a test hard gate: evidence must include a cmd entry with exit explicitly "
        '0 (the tests really passed), e.g. {"type":"cmd","cmd":"npm test","exit":0}'
    )
    assert en(validate_gate(GATE_TASKS, 3, runnable(CMD_OK))) == (
        "Task #3 declares an audit hard gate: evidence must include cross-audit evidence "
        '{"type":"review","agent":"<reviewer>","path":"<review artifact>"}'
    )


def gate_json(gate: Gate) -> str:
    return json.dumps({"test": gate.test, "audit": gate.audit}, separators=(",", ":"))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param({"test": True, "audit": True}, '{"test":true,"audit":true}', id="item65"),
        pytest.param("test", '{"test":true,"audit":false}', id="item66"),
        pytest.param(["audit"], '{"test":false,"audit":true}', id="item67"),
        pytest.param("magic", '{"test":false,"audit":false}', id="item68"),
        pytest.param({"test": "yes"}, '{"test":false,"audit":false}', id="item69"),
    ],
)
def test_parse_gate_spec_items(value: object, expected: str) -> None:
    """parseGate as compact JSON with keys test, audit (items 65–69)."""
    assert gate_json(parse_gate(value)) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("audit", Gate(False, True)),
        (["test", "audit"], Gate(True, True)),
        ({"test": 1}, Gate(False, False)),
        ({"audit": True}, Gate(False, True)),
        (None, Gate(False, False)),
        (5, Gate(False, False)),
        (True, Gate(False, False)),
        ([], Gate(False, False)),
        (MappingProxyType({"test": True}), Gate(True, False)),
    ],
)
def test_parse_gate_other_shapes(value: object, expected: Gate) -> None:
    """Other declarations are read by shape; anything else declares nothing, never an error."""
    assert parse_gate(value) == expected


# ---------------------------------------------------------------------------------------------
# English renderings
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("evidence", "expected"),
    [
        (None, "evidence is missing or not an object"),
        ({"kind": "magic", "evidence": []}, "kind must be state|runnable|effect, got: magic"),
        (state(), "state evidence needs at least 1 entry"),
        (
            state({"type": "file", "path": "a", "op": "touch"}),
            "file evidence has an invalid op: touch",
        ),
        (runnable({"type": "curl"}), "evidence type must be file|cmd|review, got: curl"),
        (runnable(FILE_A), "runnable evidence must include a cmd entry"),
        (state(FILE_A, {"type": "review", "path": "r"}), "review evidence is missing agent"),
    ],
)
def test_english_validation_messages(evidence: object, expected: str) -> None:
    """The English catalog renders the spec's proposed English texts."""
    assert en(validate_evidence(evidence)) == expected


def test_english_normalization_message() -> None:
    """The not-an-array error has its proposed English text."""
    assert en(normalize_evidence({"evidence": 5}).problem) == "evidence.evidence must be an array"


# ---------------------------------------------------------------------------------------------
# evidence_claims
# ---------------------------------------------------------------------------------------------


def test_evidence_claims_reads_files_and_commands() -> None:
    """File and command entries become claims; review entries are not checkable claims."""
    evidence = {
        "kind": "runnable",
        "evidence": [
            {"type": "file", "path": "src/a.py", "op": "edit"},
            {"type": "file", "path": "b.py"},
            {"type": "cmd", "cmd": "pytest -q", "exit": 0},
            {"type": "cmd", "cmd": "make"},
            REVIEW,
        ],
    }
    files, commands = evidence_claims(evidence)
    assert files == (FileClaim("src/a.py", "edit"), FileClaim("b.py", None))
    assert commands == (CommandClaim("pytest -q", 0), CommandClaim("make", None))


def test_evidence_claims_skips_garbage() -> None:
    """Non-object entries and entries without a path or command are skipped."""
    evidence = {
        "evidence": [5, None, {"type": "file"}, {"type": "cmd", "cmd": ""}, {"type": "curl"}]
    }
    assert evidence_claims(evidence) == ((), ())


def test_evidence_claims_boolean_exit_is_no_exit() -> None:
    """A boolean ``exit`` is not a number, so the claim has no exit code."""
    _, commands = evidence_claims({"evidence": [{"type": "cmd", "cmd": "t", "exit": True}]})
    assert commands == (CommandClaim("t", None),)


def test_evidence_claims_non_string_op_is_no_op() -> None:
    """A non-string ``op`` is read as no op."""
    files, _ = evidence_claims({"evidence": [{"type": "file", "path": "a", "op": 3}]})
    assert files == (FileClaim("a", None),)


def test_evidence_claims_of_empty_evidence() -> None:
    """Evidence without entries claims nothing."""
    assert evidence_claims({"kind": "effect", "evidence": []}) == ((), ())
    assert evidence_claims({}) == ((), ())


# ---------------------------------------------------------------------------------------------
# js_str: JavaScript String()
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "null"),
        (UNDEFINED, "undefined"),
        (True, "true"),
        (False, "false"),
        (1.0, "1"),
        (-0.0, "0"),
        (1.5, "1.5"),
        (3, "3"),
        ("text", "text"),
        ("", ""),
        ([1, 2], "1,2"),
        ([1, [2, 3]], "1,2,3"),
        ([1, None, 2], "1,,2"),
        ([], ""),
        ({"a": 1}, "[object Object]"),
        ({}, "[object Object]"),
        ([{}], "[object Object]"),
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
        (1e21, "1e+21"),
    ],
)
def test_js_str(value: object, shown: str) -> None:
    """Values print as JavaScript ``String(x)`` prints them."""
    assert js_str(value) == shown


def test_js_str_small_float_exponent() -> None:
    """A small float uses JavaScript's exponent form without a padded zero."""
    assert js_str(1e-7) == "1e-7"


# ---------------------------------------------------------------------------------------------
# Declared gates are duties (audit D3, D4)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "proposed"),
    [
        ({"test": True}, None),
        ({"test": True}, {"test": False}),
        (["test", "audit"], "audit"),
        (["test", "audit"], {"test": True, "audit": "yes"}),
        ("audit", []),
        ("test", "magic"),
    ],
)
def test_dropping_a_declared_duty_is_a_problem(stored: object, proposed: object) -> None:
    """Any update of the gate that loses test or audit is refused."""
    problem = gate_weakened(2, stored, proposed)
    assert problem is not None and problem.key == "todo.gate.kept"
    assert dict(problem.fields)["id"] == "2"


@pytest.mark.parametrize(
    ("stored", "proposed"),
    [
        ({"test": True}, ["test", "audit"]),
        ("test", {"test": True}),
        (None, None),
        ("magic", None),
        ("audit", ["audit", "test"]),
    ],
)
def test_keeping_or_adding_duties_is_fine(stored: object, proposed: object) -> None:
    """The same duties in another shape, more duties, or no duty before: no problem."""
    assert gate_weakened(1, stored, proposed) is None


def test_gate_names() -> None:
    """Gates are named with the ids the tool takes; none is a dash."""
    assert [gate_names(g) for g in (Gate(True, True), Gate(True), Gate(audit=True), Gate())] == [
        "test+audit",
        "test",
        "audit",
        "-",
    ]


def test_effect_cannot_complete_a_gated_task() -> None:
    """effect evidence on a task with any gate is a problem; on an ungated task it is not."""
    tasks = [
        Task(1, "plain"),
        Task(2, "tested", metadata={"gate": {"test": True}}),
        Task(3, "audited", metadata={"gate": "audit"}),
    ]
    effect = {"kind": "effect", "evidence": [{"type": "cmd", "cmd": "echo ok", "exit": 0}]}
    assert validate_gate_kind(tasks, 1, effect) is None
    assert en(validate_gate_kind(tasks, 2, effect)) == (
        "goalkeeper: task #2 declares the gate test. effect evidence is a declaration left for "
        "human acceptance, so it cannot complete a gated todo: complete it with runnable evidence "
        "(a test command goalkeeper re-runs) or state evidence (the files you changed), with a "
        "review entry for an audit gate; or set it back to pending and explain the blocker."
    )
    assert validate_gate_kind(tasks, 3, effect) is not None
    runnable = {"kind": "runnable", "evidence": [{"type": "cmd", "cmd": "pytest", "exit": 0}]}
    assert validate_gate_kind(tasks, 2, runnable) is None
    assert validate_gate_kind(tasks, "2", effect) is None  # not a number: the tree gate decides


# ---------------------------------------------------------------------------------------------
# Baselines: what the project's files held when a task was created
# ---------------------------------------------------------------------------------------------

DIGEST_A = "a" * 64
DIGEST_B = "b" * 64


def test_a_baseline_knows_each_file_it_read() -> None:
    """A file read has its content key; one that was not there is empty; one not read is
    unknown."""
    baseline = make_baseline(
        [("src/a.py", DIGEST_A), ("big.bin", ""), ("b.py", DIGEST_B)], ("node_modules",), True
    )
    assert baseline.before("src/a.py") == content_key(DIGEST_A)
    assert baseline.before("b.py") == content_key(DIGEST_B)
    assert baseline.before("big.bin") is None
    assert baseline.before("new.py") == ""
    assert baseline.before("node_modules/x.js") is None
    assert baseline.before("node_modules_x.js") == ""


def test_a_partial_baseline_cannot_say_a_file_was_absent() -> None:
    """When a limit cut the snapshot short, a file it lacks is unknown, not new."""
    baseline = make_baseline([("a.py", DIGEST_A)], (), False)
    assert baseline.before("a.py") == content_key(DIGEST_A)
    assert baseline.before("b.py") is None


def test_a_baseline_is_compact_and_shared_by_content() -> None:
    """28 characters a file whatever its path; the same files give the same ident."""
    entries = [(f"deep/folder/name/{i}.py", DIGEST_A) for i in range(100)]
    one = make_baseline(entries, (), True)
    assert len(one.packed) == 28 * 100
    assert one.ident == make_baseline(list(reversed(entries)), (), True).ident
    assert one.ident != make_baseline(entries[1:], (), True).ident
    assert all(one.before(rel) == content_key(DIGEST_A) for rel, _ in entries)
    assert Baseline().before("x") is None
