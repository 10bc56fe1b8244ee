"""Reading the new tail of a Claude Code transcript."""

from __future__ import annotations

import json
from pathlib import Path

from goalkeeper.hosts.claude_transcript import read_tail


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
    cases = [
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
