"""Hostile hook input (audit defects 6 and 9): lone surrogates, NUL bytes and deep nesting are
input problems, never internal errors, and never turn a guard's refusal into an allow."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from goalkeeper.core.text.sanitize import REPLACEMENT, scrub_json
from goalkeeper.hosts.pi.bridge import serve as serve_pi
from goalkeeper.hosts.pi.protocol import parse_line
from goalkeeper.hosts.transport.dispatch import UNENCODABLE, encode_answer

from ..hook_answers import assert_no_internal_error, internal_errors


def state_env() -> dict[str, str]:
    """goalkeeper's state folder as this test set it (tests/conftest.py): a server started
    with a bare environment must not write into the user's own state home."""
    return {"XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]}


def goalkeeper_command() -> list[str]:
    """The real ``goalkeeper`` console script of this interpreter's environment."""
    script = Path(sys.executable).parent / "goalkeeper"
    found = str(script) if script.exists() else shutil.which("goalkeeper")
    if found is None:
        pytest.skip("the goalkeeper console script is not installed")
    return [found]


def hook(project: Path, payload: bytes, **env: str) -> dict[str, Any]:
    """Run ``goalkeeper hook claude`` in-process mode as Claude Code would; the answer, after
    checking it exited 0 with one valid JSON object and no traceback."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GOALKEEPER_", "CLAUDE"))}
    environ.update(
        {"CLAUDE_PROJECT_DIR": str(project), "GOALKEEPER_SERVER": "off", "GOALKEEPER_LANG": "en"}
    )
    environ.update(env)
    proc = subprocess.run(
        [*goalkeeper_command(), "hook", "claude"],
        input=payload,
        capture_output=True,
        cwd=project,
        env=environ,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"Traceback" not in proc.stderr, proc.stderr
    answer = json.loads(proc.stdout)
    assert isinstance(answer, dict)
    assert_no_internal_error(answer, project)
    return answer


def said(answer: dict[str, Any]) -> str:
    return json.dumps(answer, ensure_ascii=False)


def internal_error(answer: dict[str, Any]) -> bool:
    return bool(internal_errors(answer))


def pre_tool(tool: str, tool_input: str, session: str = "s") -> bytes:
    """A PreToolUse payload; ``tool_input`` and ``session`` are raw JSON text, so they can hold
    escapes ``json.dumps`` would never write."""
    return (
        '{"hook_event_name": "PreToolUse", "session_id": "' + session + '", '
        '"tool_name": "' + tool + '", "tool_input": ' + tool_input + "}"
    ).encode()


# -- the audit's reproductions, through the real entry point ---------------------------------


def test_a_lone_surrogate_in_the_event_name_is_answered(tmp_path: Path) -> None:
    """The audit's repro: `hook_event_name` "X\\ud800" exits 0 with valid JSON."""
    answer = hook(tmp_path, b'{"hook_event_name":"X\\ud800","session_id":"s1"}')
    assert not internal_error(answer)
    assert "X" + REPLACEMENT in answer["systemMessage"]


def test_goalkeepers_todo_call_with_surrogates_is_handed_over(tmp_path: Path) -> None:
    """PreToolUse of mcp__goalkeeper__todo with a lone surrogate in tool_input and one in
    session_id: valid JSON that still lets the call through with the session."""
    answer = hook(
        tmp_path,
        pre_tool(
            "mcp__goalkeeper__todo",
            '{"action": "create", "subject": "fix \\ud83d now"}',
            session="s\\udc00",
        ),
    )
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "allow"
    assert output["updatedInput"] == {
        "action": "create",
        "subject": f"fix {REPLACEMENT} now",
        "session": f"s{REPLACEMENT}",
    }


@pytest.fixture
def discuss(tmp_path: Path) -> Path:
    """A project in normal mode's discuss phase, set up through the prompt hook."""
    prompt = json.dumps(
        {
            "hook_event_name": "UserPromptSubmit",
            "session_id": "s",
            "prompt": "/gk-mode normal add the VAT rule",
        }
    ).encode()
    started = said(hook(tmp_path, prompt))
    assert "discuss → plan → execute → verify" in started
    refused = hook(tmp_path, pre_tool("Write", '{"file_path": "src/vat.py", "content": "x"}'))
    assert refused["hookSpecificOutput"]["permissionDecision"] == "deny"
    return tmp_path


def test_a_surrogate_in_a_shell_command_does_not_bypass_the_question_gate(discuss: Path) -> None:
    """Audit defect 6: `echo y > src/z\\ud83d; echo x > src/real.py` in discuss is still denied."""
    command = '{"command": "echo y > src/z\\ud83d; echo x > src/real.py"}'
    answer = hook(discuss, pre_tool("Bash", command))
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert f"src/z{REPLACEMENT}" in output["permissionDecisionReason"]  # the first path written
    assert not internal_error(answer)


def test_a_surrogate_in_a_written_path_does_not_bypass_the_question_gate(discuss: Path) -> None:
    """A Write whose file_path holds a lone surrogate is denied like any other code change."""
    answer = hook(discuss, pre_tool("Write", '{"file_path": "src/v\\udc80t.py", "content": "x"}'))
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert f"src/v{REPLACEMENT}t.py" in output["permissionDecisionReason"]
    assert not internal_error(answer)


@pytest.mark.parametrize("event", ["Stop", "SessionStart"])
def test_a_nul_in_the_transcript_path_is_not_an_internal_error(tmp_path: Path, event: str) -> None:
    """NUL in transcript_path (and in the texts): answered as usual, not an internal error."""
    payload = (
        '{"hook_event_name": "' + event + '", "session_id": "s\\u0000", "source": "startup", '
        '"transcript_path": "/tmp/t\\u0000.jsonl", "last_assistant_message": "ok\\u0000 \\ud800"}'
    ).encode()
    answer = hook(tmp_path, payload)
    assert not internal_error(answer), answer


def test_surrogates_in_the_prompt_and_last_message_are_not_internal_errors(
    tmp_path: Path,
) -> None:
    """A surrogate in `prompt` or `last_assistant_message` no longer skips every guard."""
    prompt = b'{"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "a\\ud800"}'
    assert not internal_error(hook(tmp_path, prompt))
    stop = b'{"hook_event_name": "Stop", "session_id": "s", "last_assistant_message": "\\udfff"}'
    answer = hook(tmp_path, stop)
    assert not internal_error(answer) and answer.get("decision") == "block"


@pytest.mark.parametrize("depth", [999, 5000, 100_000])
def test_json_nested_too_deeply_is_bad_input(tmp_path: Path, depth: int) -> None:
    """Audit defect 9: nesting past the recursion limit is the `hook.bad_input` answer."""
    payload = b'{"hook_event_name": "Stop", "session_id": "s", "x": ' + b"[" * depth
    payload += b"]" * depth + b"}"
    answer = hook(tmp_path, payload)
    assert answer == {"systemMessage": "goalkeeper: hook input is nested too deeply; "
                      "the agent was not blocked."}  # fmt: skip


# -- the final encoding never raises ---------------------------------------------------------


def test_an_unencodable_answer_falls_back_to_ascii_escapes() -> None:
    """An answer holding a lone surrogate is still valid JSON, with the surrogate escaped."""
    data = encode_answer({"systemMessage": "x\ud800"})
    assert data.isascii() and json.loads(data) == {"systemMessage": "x\ud800"}
    assert encode_answer({"a": "é"}) == '{"a": "é"}'.encode()


def test_an_answer_json_cannot_hold_is_the_fixed_fail_open_answer() -> None:
    """Not serialisable at all: the fixed answer that lets the agent go."""
    assert encode_answer({"a": object()}) == UNENCODABLE
    assert "not blocked" in json.loads(UNENCODABLE)["systemMessage"]


# -- scrub_json ------------------------------------------------------------------------------


def test_scrub_replaces_surrogates_and_nuls_everywhere_keys_included() -> None:
    """Every string at every depth, keys too, gets U+FFFD for each lone surrogate and NUL;
    numbers, booleans and null stay."""
    value = json.loads('{"k\\u0000": ["a\\ud800b", {"\\udc00": 1.5, "n": null, "t": true}]}')
    assert scrub_json(value) == {
        f"k{REPLACEMENT}": [f"a{REPLACEMENT}b", {REPLACEMENT: 1.5, "n": None, "t": True}]
    }
    assert scrub_json("\x00") == REPLACEMENT and scrub_json(3) == 3


def test_scrub_returns_a_copy_and_keeps_astral_characters() -> None:
    """The input is not changed; a real pair (an emoji) is not a lone surrogate."""
    value = {"a": ["😀", "\ud83d"]}
    cleaned = scrub_json(value)
    assert cleaned == {"a": ["😀", REPLACEMENT]}
    assert value == {"a": ["😀", "\ud83d"]}


def test_scrub_skips_the_walk_when_the_raw_bytes_prove_it_clean() -> None:
    """With raw bytes that cannot hold a NUL or a surrogate, the value itself comes back."""
    raw = json.dumps({"a": ["é", "\\u00e9", "😀", "\\n"]}, ensure_ascii=False).encode()
    value = json.loads(raw)
    assert scrub_json(value, raw) is value
    for suspect in (b'["\\ud800"]', b'["\\uDBFF"]', b'["\\u0000"]', b'["\xed\xa0\x80"]'):
        decoded = json.loads(suspect)
        assert scrub_json(decoded, suspect) == [REPLACEMENT]


def test_scrub_is_iterative() -> None:
    """Nesting far deeper than the recursion limit is walked without a RecursionError."""
    deep: list[Any] = ["\x00"]
    for _ in range(100_000):
        deep = [deep]
    cleaned = scrub_json(deep)
    for _ in range(100_000):
        cleaned = cleaned[0]
    assert cleaned == [REPLACEMENT]


ANY_TEXT = st.text(st.characters(exclude_categories=()))  # surrogates and NUL included


@given(st.recursive(ANY_TEXT | st.integers() | st.none(), lambda kids: st.lists(kids)
                    | st.dictionaries(ANY_TEXT, kids), max_leaves=30))  # fmt: skip
def test_scrubbed_json_always_encodes_as_utf8(value: object) -> None:
    """Whatever strings went in (lone surrogates and NULs included), the scrubbed value encodes
    as UTF-8 and has no NUL."""
    text = json.dumps(scrub_json(value), ensure_ascii=False)
    assert "\\u0000" not in text
    text.encode("utf-8")


# -- the Pi bridge and the MCP server --------------------------------------------------------


def test_the_pi_line_parser_scrubs_what_it_decodes() -> None:
    """A NUL in ctx.sessionId and raw UTF-8 surrogate bytes in the payload become U+FFFD."""
    line = (
        b'{"v":1,"kind":"event","id":3,"name":"tool_call",'
        b'"event":{"input":{"command":"echo \xed\xa0\x80"}},"ctx":{"sessionId":"s\\u0000x"}}'
    )
    msg = parse_line(line)
    assert msg.ctx.session_id == f"s{REPLACEMENT}x"
    assert msg.data == {"input": {"command": f"echo {REPLACEMENT}"}}


def test_a_nul_in_pis_session_id_is_not_an_internal_error(tmp_path: Path) -> None:
    """Through the bridge: events of a session whose id holds a NUL are answered normally."""
    ctx = {"cwd": str(tmp_path), "sessionId": "s\x00x"}
    lines = [
        {"v": 1, "kind": "hello", "id": 1, "pi": {"version": "0.80.6"}, "ctx": ctx},
        {"v": 1, "kind": "event", "id": 2, "name": "session_start", "event": {}, "ctx": ctx},
        {"v": 1, "kind": "event", "id": 3, "name": "tool_call", "ctx": ctx,
         "event": {"toolName": "bash", "input": {"command": "ls \ud800"}}},
    ]  # fmt: skip
    stdin = io.BytesIO(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
    stdout = io.BytesIO()
    env = {"GOALKEEPER_SERVER": "off", "GOALKEEPER_LANG": "en", "HOME": str(tmp_path)}
    assert serve_pi(tmp_path, stdin, stdout, env) == 0
    out = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert {m["id"] for m in out if m["kind"] == "reply"} == {1, 2, 3}
    assert not [m for m in out if "internal error" in json.dumps(m)]


async def _mcp_calls(project: Path, calls: list[dict[str, Any]]) -> list[tuple[bool, str]]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "goalkeeper", "-C", str(project), "mcp"],
        env={"PATH": os.environ.get("PATH", ""), **state_env(), "GOALKEEPER_SESSION": "mcp"},
    )
    results: list[tuple[bool, str]] = []
    with anyio.fail_after(60):
        async with stdio_client(params) as streams, ClientSession(*streams) as session:
            await session.initialize()
            for arguments in calls:
                result = await session.call_tool("todo", arguments)
                results.append((bool(result.is_error), result.content[0].text))  # type: ignore[union-attr]
    return results


def test_mcp_tool_arguments_are_scrubbed(tmp_path: Path) -> None:
    """NULs in a todo call's arguments (subject, session) are stored as U+FFFD, and the call
    with the same scrubbed session finds the task."""
    created, listed = anyio.run(
        _mcp_calls,
        tmp_path,
        [
            {"action": "create", "subject": "a\x00b", "session": "s\x00"},
            {"action": "list", "session": "s\x00"},
        ],
    )
    assert not created[0] and not listed[0]
    assert json.loads(created[1])["task"]["subject"] == f"a{REPLACEMENT}b"
    assert [t["subject"] for t in json.loads(listed[1])["tasks"]] == [f"a{REPLACEMENT}b"]
