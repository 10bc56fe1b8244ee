"""The wire protocol between goalkeeper's Pi extension and ``goalkeeper bridge pi``.

One JSON object per line, LF-terminated, UTF-8, in both directions. Every message carries the
protocol version ``v`` and a ``kind``; requests carry an ``id`` that their reply repeats.

Extension → Python::

    {"v":1,"kind":"hello","id":1,"pi":{"version":"0.73.1"},"ctx":{…}}
    {"v":1,"kind":"event","id":7,"name":"tool_call","event":{…},"ctx":{…},"wants_reply":true}
    {"v":1,"kind":"tool","id":8,"name":"todo","params":{…},"ctx":{…}}
    {"v":1,"kind":"command","id":9,"name":"goal","args":"…","ctx":{…}}

Python → extension::

    {"v":1,"kind":"reply","id":7,"result":{…} | null}        null: Pi's default behaviour
    {"v":1,"kind":"action","action":"continue","text":"…"}  any time, no reply expected
    {"v":1,"kind":"error","id":7 | null,"message":"…"}      a line Python could not use

``ctx`` is what the extension could read from Pi's context: ``cwd``, ``sessionId``,
``sessionFile``, ``hasUI``, ``idle``, ``pending``, ``usage`` ({tokens, contextWindow,
percent}), or ``{"stale": true}`` once Pi disposed it. Lines are split on LF only: Node's
``JSON.stringify`` leaves U+2028/U+2029 unescaped, and they are not line breaks here. Every lone
surrogate and NUL in a decoded line is replaced by U+FFFD.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from msgspec import Struct, field

from goalkeeper.core.text.sanitize import scrub_json

PROTOCOL = 1
MAX_LINE_BYTES = 8 * 1024 * 1024  # an event with a long transcript slice is still far below

InKind = Literal["hello", "event", "tool", "command"]
_IN_KINDS: tuple[InKind, ...] = ("hello", "event", "tool", "command")


class ProtocolError(ValueError):
    """A line that is not a usable message; ``id`` is the request's id when it could be read."""

    def __init__(self, message: str, id: int | None = None) -> None:
        super().__init__(message)
        self.id = id


class PiContext(Struct, frozen=True):
    """What the extension read from Pi's ``ctx`` for this message."""

    cwd: str | None = None
    session_id: str | None = None
    session_file: str | None = None
    has_ui: bool = False
    idle: bool | None = None
    pending: bool | None = None
    context_tokens: int | None = None
    context_window: int | None = None
    stale: bool = False


class Incoming(Struct, frozen=True):
    """One message from the extension."""

    kind: InKind
    id: int
    name: str = ""
    """The event, tool or command name ("" for hello)."""
    data: dict[str, Any] = field(default_factory=dict)
    """The event's payload, the tool's params, ``{"args": …}`` for a command, the hello body."""
    ctx: PiContext = PiContext()
    wants_reply: bool = True


def parse_line(line: bytes) -> Incoming:
    """One line from the extension as a message. Raises ``ProtocolError`` saying what is wrong."""
    if len(line) > MAX_LINE_BYTES:
        raise ProtocolError(f"line of {len(line)} bytes exceeds {MAX_LINE_BYTES}")
    try:
        obj = json.loads(line)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError(f"not JSON: {exc}") from None
    except RecursionError:
        raise ProtocolError("JSON nested too deeply") from None
    obj = scrub_json(obj, line)  # a lone surrogate or a NUL becomes U+FFFD, not a crash later
    if not isinstance(obj, dict):
        raise ProtocolError("not a JSON object")
    raw_id = obj.get("id")
    ident = raw_id if isinstance(raw_id, int) and not isinstance(raw_id, bool) else None
    if obj.get("v") != PROTOCOL:
        raise ProtocolError(f"protocol version {obj.get('v')!r}, expected {PROTOCOL}", ident)
    kind = obj.get("kind")
    if kind not in _IN_KINDS:
        raise ProtocolError(f"unknown kind {kind!r}", ident)
    if ident is None:
        raise ProtocolError(f"{kind} without an integer id")
    name = obj.get("name", "")
    if kind != "hello" and (not isinstance(name, str) or not name):
        raise ProtocolError(f"{kind} without a name", ident)
    if kind == "event":
        data = obj.get("event")
    elif kind == "tool":
        data = obj.get("params")
    elif kind == "command":
        data = {"args": obj.get("args") if isinstance(obj.get("args"), str) else ""}
    else:
        data = {k: v for k, v in obj.items() if k not in ("v", "kind", "id", "ctx")}
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ProtocolError(f"{kind} {name!r}: its payload is not an object", ident)
    return Incoming(
        kind=kind,
        id=ident,
        name=name if isinstance(name, str) else "",
        data=data,
        ctx=parse_ctx(obj.get("ctx")),
        wants_reply=obj.get("wants_reply", True) is not False,
    )


def parse_ctx(raw: object) -> PiContext:
    """Lenient: a field of the wrong type is dropped, never fatal."""
    if not isinstance(raw, dict):
        return PiContext()
    usage = raw.get("usage")
    tokens = usage.get("tokens") if isinstance(usage, dict) else None
    window = usage.get("contextWindow") if isinstance(usage, dict) else None
    return PiContext(
        cwd=_str(raw.get("cwd")),
        session_id=_str(raw.get("sessionId")),
        session_file=_str(raw.get("sessionFile")),
        has_ui=raw.get("hasUI") is True,
        idle=raw.get("idle") if isinstance(raw.get("idle"), bool) else None,
        pending=raw.get("pending") if isinstance(raw.get("pending"), bool) else None,
        context_tokens=_count(tokens),
        context_window=_count(window),
        stale=raw.get("stale") is True,
    )


def reply(ident: int, result: dict[str, Any] | None) -> bytes:
    return encode({"kind": "reply", "id": ident, "result": result})


def action(name: str, **fields: Any) -> bytes:
    return encode({"kind": "action", "action": name, **fields})


def error(ident: int | None, message: str) -> bytes:
    return encode({"kind": "error", "id": ident, "message": message})


def encode(message: dict[str, Any]) -> bytes:
    """One line. ``ensure_ascii`` escapes U+2028/U+2029 too, so no reader splits a message."""
    return (json.dumps({"v": PROTOCOL, **message}, ensure_ascii=True) + "\n").encode("ascii")


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
