"""Reading the new tail of a Claude Code transcript."""

from __future__ import annotations

import json
from pathlib import Path

from goalkeeper.hosts.claude.transcript import read_tail


def assistant(
    blocks: list[dict[str, object]], msg: str = "m1", usage: dict[str, int] | None = None
) -> str:
    message: dict[str, object] = {"id": msg, "role": "assistant", "content": blocks}
    if usage:
        message["usage"] = usage
    return json.dumps({"type": "assistant", "message": message}, separators=(",", ":")) + "\n"


def tool(ident: str) -> dict[str, object]:
    return {"type": "tool_use", "id": ident, "name": "Bash", "input": {"command": "ls"}}


def user(text: str) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n"


def test_counts_distinct_tool_calls_after_the_offset(tmp_path: Path) -> None:
    """Each tool_use id counts once; lines before the offset are not read."""
    path = tmp_path / "t.jsonl"
    before = assistant([tool("toolu_old")])
    path.write_text(
        before
        + assistant([tool("toolu_a")])
        + assistant([tool("toolu_a")])
        + assistant([tool("toolu_b")])
        + user("ok")
    )
    tail = read_tail(str(path), len(before.encode()), 1 << 20)
    assert tail is not None
    assert tail.tool_calls == 2
    assert tail.offset == path.stat().st_size == tail.size


def test_context_tokens_come_from_the_latest_usage(tmp_path: Path) -> None:
    """Input plus cached tokens of the last assistant message give the context size."""
    path = tmp_path / "t.jsonl"
    path.write_text(
        assistant([{"type": "text", "text": "a"}], usage={"input_tokens": 10})
        + assistant(
            [{"type": "text", "text": "b"}],
            "m2",
            {
                "input_tokens": 5,
                "cache_read_input_tokens": 1000,
                "cache_creation_input_tokens": 20,
                "output_tokens": 7,
            },
        )
    )
    tail = read_tail(str(path), 0, 1 << 20)
    assert tail is not None and tail.context_tokens == 1025 and tail.tool_calls == 0


def test_an_unfinished_last_line_waits_for_the_next_read(tmp_path: Path) -> None:
    """A line still being written is not consumed (the transcript lags the hook)."""
    path = tmp_path / "t.jsonl"
    done = assistant([tool("toolu_1")])
    partial = assistant([tool("toolu_2")])[:40]
    path.write_text(done + partial)
    first = read_tail(str(path), 0, 1 << 20)
    assert first is not None and first.tool_calls == 1 and first.offset == len(done.encode())
    path.write_text(done + assistant([tool("toolu_2")]))
    second = read_tail(str(path), first.offset, 1 << 20)
    assert second is not None and second.tool_calls == 1


def test_without_an_offset_only_the_end_is_read(tmp_path: Path) -> None:
    """Installed mid-session: at most max_bytes of the end, starting at a line boundary."""
    path = tmp_path / "t.jsonl"
    old = "".join(assistant([tool(f"toolu_old{i}")], f"m{i}") for i in range(200))
    new = assistant([tool("toolu_new")], "mnew")
    path.write_text(old + new)
    tail = read_tail(str(path), None, len(new) + 30)
    assert tail is not None and tail.tool_calls == 1


def test_a_huge_new_tail_is_bounded(tmp_path: Path) -> None:
    """More new bytes than max_bytes: only the last max_bytes are read."""
    path = tmp_path / "t.jsonl"
    filler = user("x" * 10_000) * 50
    path.write_text(assistant([tool("toolu_early")]) + filler + assistant([tool("toolu_late")]))
    tail = read_tail(str(path), 0, 20_000)
    assert tail is not None and tail.tool_calls == 1


def test_a_shrunken_or_missing_transcript(tmp_path: Path) -> None:
    """An offset past the end is treated as unknown; a missing file is 'not measured'."""
    path = tmp_path / "t.jsonl"
    path.write_text(assistant([tool("toolu_1")]))
    tail = read_tail(str(path), 10_000_000, 1 << 20)
    assert tail is not None and tail.tool_calls == 1
    assert read_tail(str(tmp_path / "missing.jsonl"), 0, 1 << 20) is None


def test_garbage_lines_are_skipped(tmp_path: Path) -> None:
    """Broken JSON in the transcript never raises."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        b'{"type":"assistant","tool_use" broken\n\xff\xfe\n'
        + assistant([tool("toolu_ok")]).encode()
    )
    tail = read_tail(str(path), 0, 1 << 20)
    assert tail is not None and tail.tool_calls == 1


def test_long_waits_are_noticed(tmp_path: Path) -> None:
    """A subagent, a background shell or a shell timeout of a minute or more is a long wait."""
    path = tmp_path / "t.jsonl"
    cases: list[tuple[dict[str, object], bool]] = [
        ({"type": "tool_use", "id": "t1", "name": "Task", "input": {"prompt": "review"}}, True),
        (
            {
                "type": "tool_use",
                "id": "t2",
                "name": "Bash",
                "input": {"command": "make", "run_in_background": True},
            },
            True,
        ),
        (
            {
                "type": "tool_use",
                "id": "t3",
                "name": "Bash",
                "input": {"command": "make", "timeout": 120000},
            },
            True,
        ),
        (
            {
                "type": "tool_use",
                "id": "t4",
                "name": "Bash",
                "input": {"command": "ls", "timeout": 5000},
            },
            False,
        ),
        ({"type": "tool_use", "id": "t5", "name": "Read", "input": {"file_path": "/x"}}, False),
    ]
    for block, expected in cases:
        path.write_text(assistant([block]))
        tail = read_tail(str(path), 0, 1 << 20)
        assert tail is not None and tail.long_wait is expected, block


# -- how each call ended (as Claude Code 2.1.332 records a Bash call; observed) ---------------


def bash(ident: str, command: str, **extra: object) -> dict[str, object]:
    return {"type": "tool_use", "id": ident, "name": "Bash", "input": {"command": command, **extra}}


def result(
    ident: str, content: object, is_error: bool, detail: object = None, **line: object
) -> str:
    """A tool_result line as 2.1.332 writes it: the block, plus ``toolUseResult`` (a dict for a
    success, the error text for a failure) and, for a denied call, ``toolDenialKind``."""
    block = {"tool_use_id": ident, "type": "tool_result", "content": content, "is_error": is_error}
    entry: dict[str, object] = {
        "type": "user",
        "message": {"role": "user", "content": [block]},
        "sourceToolAssistantUUID": "a1",
        "toolUseResult": detail,
        **line,
    }
    return json.dumps(entry) + "\n"


def ok_detail(stdout: str, **extra: object) -> dict[str, object]:
    return {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False, **extra}


def test_each_call_becomes_a_run_with_how_it_ended(tmp_path: Path) -> None:
    """Exit 0, a non-zero exit, a timeout, a denial, a background run, an interrupt and a
    call with no result yet, each read as Claude Code records it."""
    path = tmp_path / "t.jsonl"
    failing = "Exit code 1\nFAILED tests/test_bad.py::test_bad - assert 1 == 2\n1 failed in 0.64s"
    path.write_text(
        assistant([bash("t1", "python -m pytest -q tests/test_ok.py")])
        + result("t1", "1 passed in 0.59s", False, ok_detail("1 passed in 0.59s"))
        + assistant([bash("t2", "python -m pytest -q tests/test_bad.py")])
        + result("t2", failing, True, "Error: " + failing)
        + assistant([bash("t3", "sleep 5; echo never", timeout=1000)])
        + result("t3", "Exit code 143\nCommand timed out after 1s", True, "Error: Exit code 143")
        + assistant([bash("t4", "pytest")])
        + result("t4", "This command requires approval", True, "Error: …", toolDenialKind="x")
        + assistant([bash("t5", "pytest", run_in_background=True)])
        + result(
            "t5",
            "Command running in background with ID: b1. Output is being written to: /tmp/b1",
            False,
            ok_detail("", backgroundTaskId="b1"),
        )
        + assistant([bash("t6", "pytest")])
        + result("t6", "partial", False, ok_detail("partial", interrupted=True))
        + assistant(
            [{"type": "tool_use", "id": "t7", "name": "Edit", "input": {"file_path": "/p/a.py"}}]
        )
        + result("t7", "The file /p/a.py has been updated.", False, {"filePath": "/p/a.py"})
        + assistant([bash("t8", "pytest")])
    )
    tail = read_tail(str(path), 0, 1 << 20)
    assert tail is not None and tail.tool_calls == 8
    got = [(r.kind, r.command or r.path, r.outcome) for r in tail.runs]
    assert got == [
        ("shell", "python -m pytest -q tests/test_ok.py", "passed"),
        ("shell", "python -m pytest -q tests/test_bad.py", "failed"),
        ("shell", "sleep 5; echo never", "unfinished"),
        ("shell", "pytest", "refused"),
        ("shell", "pytest", "unfinished"),
        ("shell", "pytest", "unfinished"),
        ("edit", "/p/a.py", "passed"),
        ("shell", "pytest", "unfinished"),
    ]
    assert "1 failed" in tail.runs[1].tail


def test_a_hook_denial_is_a_refusal(tmp_path: Path) -> None:
    """2.1.332 writes a PreToolUse deny as `PreToolUse:Bash hook error: …` with is_error."""
    path = tmp_path / "t.jsonl"
    path.write_text(
        assistant([bash("t1", "pytest")])
        + result("t1", "PreToolUse:Bash hook error: not now", True, "Error: …")
    )
    tail = read_tail(str(path), 0, 1 << 20)
    assert tail is not None and [r.outcome for r in tail.runs] == ["refused"]


def test_of_several_results_for_one_call_the_worst_is_believed(tmp_path: Path) -> None:
    """A second result line for the same call (appended by the agent, before or after Claude
    Code's own) never turns a failed run into a passed one."""
    path = tmp_path / "t.jsonl"
    for first, second in ((False, True), (True, False)):
        lines = [
            result("t1", "3 passed", False, ok_detail("3 passed")),
            result("t1", "Exit code 1\n1 failed", True, "Error: Exit code 1"),
        ]
        order = lines if not first else lines[::-1]
        assert second is not first
        path.write_text(assistant([bash("t1", "pytest")]) + "".join(order))
        tail = read_tail(str(path), 0, 1 << 20)
        assert tail is not None and [r.outcome for r in tail.runs] == ["failed"]


def test_a_result_whose_call_is_before_the_offset_is_ignored(tmp_path: Path) -> None:
    """Only calls made in the new tail become runs; a result for an older call is not one."""
    path = tmp_path / "t.jsonl"
    before = assistant([bash("t0", "pytest")])
    path.write_text(before + result("t0", "1 passed", False, ok_detail("1 passed")))
    tail = read_tail(str(path), len(before.encode()), 1 << 20)
    assert tail is not None and tail.runs == () and tail.tool_calls == 0


def test_the_final_message_is_every_text_block_after_the_last_tool_call(tmp_path: Path) -> None:
    """Claude Code writes each content block on its own line; the final message is the text
    blocks after the last tool call (seed000 D5: a phase line in an earlier block)."""
    path = tmp_path / "t.jsonl"
    result = {"type": "tool_result", "tool_use_id": "toolu_a", "content": "ok"}
    path.write_text(
        assistant([{"type": "text", "text": "Running it."}])
        + assistant([tool("toolu_a")])
        + json.dumps({"type": "user", "message": {"role": "user", "content": [result]}}) + "\n"
        + assistant([{"type": "text", "text": "Tests pass.\n[PDCA] check"}], "m2")
        + assistant([{"type": "text", "text": "Summary: 3 tests ran."}], "m2")
    )  # fmt: skip
    tail = read_tail(str(path), 0, 1 << 20)
    assert tail is not None
    assert tail.final_text == "Tests pass.\n[PDCA] check\nSummary: 3 tests ran."
    path.write_text(path.read_text() + user("next prompt"))
    assert read_tail(str(path), 0, 1 << 20).final_text == ""  # type: ignore[union-attr]
