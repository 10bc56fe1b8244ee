"""The JSON-lines protocol between goalkeeper's Pi extension and ``goalkeeper bridge pi``:
lines built with ``json.dumps`` in, ``Incoming`` values or ``ProtocolError`` out; every line
goalkeeper writes is one ASCII line that any JSON reader (Node's included) splits correctly."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goalkeeper.hosts.pi.protocol import (
    MAX_LINE_BYTES,
    PROTOCOL,
    Incoming,
    PiContext,
    ProtocolError,
    action,
    encode,
    error,
    parse_ctx,
    parse_line,
    reply,
)

CTX = {
    "cwd": "/work/p",
    "sessionId": "s-1",
    "sessionFile": "/home/u/.pi/agent/sessions/s-1.jsonl",
    "hasUI": True,
    "idle": False,
    "pending": True,
    "usage": {"tokens": 1234, "contextWindow": 200000, "percent": 0.6},
}


def line(**fields: Any) -> bytes:
    return json.dumps({"v": PROTOCOL, **fields}).encode()


def refused(raw: bytes) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        parse_line(raw)
    return caught.value


# -- parse_line: every kind ------------------------------------------------------------------


def test_hello_carries_its_body_and_context() -> None:
    """A hello keeps every field but the envelope as its data (the Pi version among them)."""
    msg = parse_line(line(kind="hello", id=1, pi={"version": "0.73.1"}, ctx=CTX))
    assert msg == Incoming(
        kind="hello",
        id=1,
        name="",
        data={"pi": {"version": "0.73.1"}},
        ctx=PiContext(
            cwd="/work/p",
            session_id="s-1",
            session_file="/home/u/.pi/agent/sessions/s-1.jsonl",
            has_ui=True,
            idle=False,
            pending=True,
            context_tokens=1234,
            context_window=200000,
        ),
        wants_reply=True,
    )


def test_event_carries_its_payload_and_reply_wish() -> None:
    """An event's data is its ``event`` object; ``wants_reply: false`` is kept."""
    tool_call = {"toolCallId": "c1", "toolName": "bash", "input": {"command": "ls"}}
    msg = parse_line(line(kind="event", id=7, name="tool_call", event=tool_call, ctx=CTX))
    assert (msg.kind, msg.id, msg.name, msg.data) == ("event", 7, "tool_call", tool_call)
    assert msg.wants_reply is True
    posted = parse_line(line(kind="event", id=8, name="turn_end", event={}, wants_reply=False))
    assert posted.wants_reply is False


def test_an_event_without_a_payload_gets_an_empty_one() -> None:
    """``event`` missing or null reads as ``{}`` (agent_start has no payload)."""
    assert parse_line(line(kind="event", id=2, name="agent_start")).data == {}
    assert parse_line(line(kind="event", id=3, name="agent_start", event=None)).data == {}


def test_tool_carries_its_params() -> None:
    """A tool call's data is its ``params`` object."""
    params = {"action": "create", "subject": "report --json works"}
    msg = parse_line(line(kind="tool", id=8, name="todo", params=params))
    assert (msg.kind, msg.name, msg.data) == ("tool", "todo", params)


def test_command_carries_its_args_as_text() -> None:
    """A command's data is ``{"args": …}``; args that are not text read as ""."""
    msg = parse_line(line(kind="command", id=9, name="goal", args="`pytest -q` passes"))
    assert (msg.kind, msg.name, msg.data) == ("command", "goal", {"args": "`pytest -q` passes"})
    assert parse_line(line(kind="command", id=10, name="goal", args=3)).data == {"args": ""}
    assert parse_line(line(kind="command", id=11, name="goal")).data == {"args": ""}


def test_only_an_explicit_false_turns_the_reply_off() -> None:
    """Any ``wants_reply`` other than ``false`` still gets a reply (the extension may await)."""
    for value in (True, None, 0, "no"):
        msg = parse_line(line(kind="event", id=1, name="input", event={}, wants_reply=value))
        assert msg.wants_reply is True


def test_line_may_hold_line_separators_inside_strings() -> None:
    """Node leaves U+2028/U+2029 raw in its JSON; they are text, not line breaks."""
    raw = json.dumps(
        {"v": 1, "kind": "event", "id": 4, "name": "input", "event": {"text": "a\u2028b\u2029c"}},
        ensure_ascii=False,
    ).encode("utf-8")
    assert parse_line(raw).data == {"text": "a\u2028b\u2029c"}


# -- parse_line: what is refused -------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"{not json", "not JSON"),
        (b"", "not JSON"),
        (b"\xff\xfe\x00", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'"hello"', "not a JSON object"),
        (b"null", "not a JSON object"),
        (b'{"kind": "event", "name": "x", "event": {}}', "protocol version None"),
        (b'{"v": 2, "kind": "event", "name": "x", "event": {}}', "protocol version 2"),
        (b'{"v": 1, "kind": "event", "name": "x", "event": {}}', "event without an integer id"),
        (b'{"v": 1, "kind": "tool", "id": true, "name": "todo"}', "tool without an integer id"),
        (b'{"v": 1, "kind": "tool", "id": "3", "name": "todo"}', "tool without an integer id"),
        (b'{"v": 1, "kind": "tool", "id": 3.0, "name": "todo"}', "tool without an integer id"),
    ],
)
def test_unusable_lines_are_refused_without_an_id(raw: bytes, problem: str) -> None:
    """Lines whose id cannot be read are refused with ``id`` None and say what is wrong."""
    exc = refused(raw)
    assert problem in str(exc)
    assert exc.id is None


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"v": 2, "kind": "event", "name": "x"}, "protocol version 2, expected 1"),
        ({"v": "1", "kind": "event", "name": "x"}, "protocol version '1', expected 1"),
        ({"kind": "event", "name": "x"}, "protocol version None"),
        ({"v": 1, "kind": "reply", "name": "x"}, "unknown kind 'reply'"),
        ({"v": 1, "name": "x"}, "unknown kind None"),
        ({"v": 1, "kind": "event"}, "event without a name"),
        ({"v": 1, "kind": "tool", "name": ""}, "tool without a name"),
        ({"v": 1, "kind": "command", "name": 5}, "command without a name"),
        ({"v": 1, "kind": "event", "name": "tool_call", "event": [1]}, "payload is not an object"),
        ({"v": 1, "kind": "event", "name": "tool_call", "event": "x"}, "payload is not an object"),
        ({"v": 1, "kind": "tool", "name": "todo", "params": [1]}, "payload is not an object"),
    ],
)
def test_refusals_keep_the_id_when_it_could_be_read(fields: dict[str, Any], problem: str) -> None:
    """A request with a readable id is refused with that id, so its waiter can be released."""
    exc = refused(json.dumps({"id": 42, **fields}).encode())
    assert problem in str(exc)
    assert exc.id == 42


def test_oversize_line_is_refused_before_parsing() -> None:
    """A line above the size limit is refused by its length, naming the limit."""
    big = b'{"v":1,"kind":"event","id":1,"name":"x","event":{"t":"' + b"a" * MAX_LINE_BYTES + b'"}}'
    exc = refused(big)
    assert f"exceeds {MAX_LINE_BYTES}" in str(exc)
    assert exc.id is None


def test_a_line_at_the_size_limit_is_still_read() -> None:
    """The limit is inclusive: a line of exactly MAX_LINE_BYTES is parsed."""
    head = b'{"v":1,"kind":"event","id":1,"name":"x","event":{"t":"'
    tail = b'"}}'
    raw = head + b"a" * (MAX_LINE_BYTES - len(head) - len(tail)) + tail
    assert len(raw) == MAX_LINE_BYTES
    assert parse_line(raw).name == "x"


def test_protocol_error_is_a_value_error() -> None:
    """Callers that catch ValueError also catch protocol errors."""
    assert issubclass(ProtocolError, ValueError)


@given(st.binary(max_size=512))
@settings(max_examples=400)
def test_parse_line_never_raises_anything_else_on_arbitrary_bytes(raw: bytes) -> None:
    """Whatever bytes arrive, the result is a message or a ProtocolError."""
    try:
        msg = parse_line(raw)
    except ProtocolError:
        return
    assert msg.kind in ("hello", "event", "tool", "command")


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
ENVELOPE_KEYS = st.sampled_from(
    ["v", "kind", "id", "name", "event", "params", "args", "ctx", "wants_reply"]
)


@given(st.dictionaries(ENVELOPE_KEYS, JSON_VALUES | st.sampled_from([1, "event", "tool"])))
@settings(max_examples=400, deadline=None)  # what it pins is "never raises", not speed
def test_parse_line_never_raises_anything_else_on_odd_envelopes(obj: dict[str, Any]) -> None:
    """Objects with the envelope's keys and any values: a message or a ProtocolError."""
    try:
        parse_line(json.dumps(obj).encode())
    except ProtocolError:
        pass


def test_deeply_nested_json_is_a_protocol_error() -> None:
    """A tool input nested thousands deep (Node serializes it) is refused, not a crash."""
    raw = (
        b'{"v":1,"kind":"event","id":5,"name":"tool_call","event":{"input":'
        + b"[" * 5000
        + b"]" * 5000
        + b"}}"
    )
    assert len(raw) < MAX_LINE_BYTES
    with pytest.raises(ProtocolError):
        parse_line(raw)


# -- parse_ctx -------------------------------------------------------------------------------


def test_ctx_reads_every_field() -> None:
    """All of what the extension reads from Pi's ctx arrives."""
    assert parse_ctx(CTX) == PiContext(
        cwd="/work/p",
        session_id="s-1",
        session_file="/home/u/.pi/agent/sessions/s-1.jsonl",
        has_ui=True,
        idle=False,
        pending=True,
        context_tokens=1234,
        context_window=200000,
        stale=False,
    )


@pytest.mark.parametrize("raw", [None, [], "ctx", 3, True])
def test_ctx_that_is_not_an_object_is_empty(raw: object) -> None:
    """A missing or odd ctx is the empty context, never an error."""
    assert parse_ctx(raw) == PiContext()


def test_ctx_fields_of_the_wrong_type_are_dropped() -> None:
    """Each odd field falls back to its default; the others are kept."""
    ctx = parse_ctx(
        {
            "cwd": 3,
            "sessionId": "",
            "sessionFile": ["x"],
            "hasUI": "yes",
            "idle": 1,
            "pending": "false",
            "usage": {"tokens": "12"},
        }
    )
    assert ctx == PiContext()
    assert parse_ctx({"cwd": "/p", "idle": "no"}) == PiContext(cwd="/p")


@pytest.mark.parametrize(
    ("usage", "tokens"),
    [
        ({"tokens": 0}, 0),
        ({"tokens": 150_000, "contextWindow": 200_000, "percent": 75}, 150_000),
        ({"tokens": None}, None),
        ({"tokens": True}, None),
        ({"tokens": 12.5}, None),
        ({"tokens": "12"}, None),
        ([12], None),
        (None, None),
    ],
)
def test_usage_tokens_only_when_an_integer(usage: object, tokens: int | None) -> None:
    """Context tokens come from ``usage.tokens`` when it is a whole number (not a bool)."""
    assert parse_ctx({"usage": usage}).context_tokens == tokens


def test_a_stale_ctx_is_marked() -> None:
    """``{"stale": true}`` (Pi disposed the runtime) is kept; anything else is not stale."""
    assert parse_ctx({"stale": True}) == PiContext(stale=True)
    assert parse_ctx({"stale": "true"}).stale is False
    assert parse_ctx({"stale": 1}).stale is False


# -- writing ---------------------------------------------------------------------------------

TRICKY = 'line\u2028sep\u2029para, naïve 中文 🎯 "quoted" back\\slash \n tab\t'


def single_ascii_line(data: bytes) -> dict[str, Any]:
    assert data.endswith(b"\n")
    assert data.count(b"\n") == 1
    assert data.isascii()
    text = data.decode("ascii")
    assert "\u2028" not in text and "\u2029" not in text
    assert len(text[:-1].splitlines()) == 1  # str.splitlines would split on U+2028 too
    loaded = json.loads(data)
    assert isinstance(loaded, dict)
    return loaded


def test_reply_is_one_ascii_line() -> None:
    """A reply carries the version, the request's id and the result; null means Pi's default."""
    result = {"block": True, "reason": TRICKY}
    assert single_ascii_line(reply(7, result)) == {
        "v": 1,
        "kind": "reply",
        "id": 7,
        "result": result,
    }
    assert single_ascii_line(reply(8, None)) == {"v": 1, "kind": "reply", "id": 8, "result": None}


def test_action_is_one_ascii_line() -> None:
    """An action names itself and carries its fields, non-ASCII text escaped."""
    assert single_ascii_line(action("continue", text=TRICKY)) == {
        "v": 1,
        "kind": "action",
        "action": "continue",
        "text": TRICKY,
    }
    assert single_ascii_line(action("notify", text="x", level="error"))["level"] == "error"


def test_error_is_one_ascii_line() -> None:
    """An error line carries the id (or null) and the message."""
    assert single_ascii_line(error(3, TRICKY)) == {
        "v": 1,
        "kind": "error",
        "id": 3,
        "message": TRICKY,
    }
    assert single_ascii_line(error(None, "not JSON"))["id"] is None


def test_encode_escapes_line_separators_and_non_ascii() -> None:
    """U+2028/U+2029 and every non-ASCII character leave as \\u escapes."""
    data = encode({"kind": "action", "action": "message", "text": "a\u2028b\u2029c é"})
    assert b"\\u2028" in data and b"\\u2029" in data and b"\\u00e9" in data
    assert single_ascii_line(data)["text"] == "a\u2028b\u2029c é"


@given(JSON_VALUES)
@settings(max_examples=300)
def test_any_result_round_trips(value: object) -> None:
    """Whatever a result holds, the line is one ASCII line and reads back equal."""
    assert single_ascii_line(reply(1, {"value": value}))["result"] == {"value": value}
