"""A scripted stand-in for the Anthropic Messages API, for goalkeeper's end-to-end tests.

The real ``claude`` CLI talks to this server instead of the network (``ANTHROPIC_BASE_URL``).
Standard library only, so it runs under any Python the tests run under:

    python fake_anthropic.py --script rules.json --log requests.jsonl [--port 0]

It binds 127.0.0.1 (port 0 picks a free one) and prints ``LISTENING <port>`` on stdout once it
accepts connections. Stop it by terminating the process.

Routes:

* ``POST /v1/messages`` (with or without ``?beta=true``): the first matching rule answers, as
  Server-Sent Events when the body asks for ``"stream": true``, else as one JSON message.
* ``POST /v1/messages/count_tokens``: a rough token count. ``GET /v1/models``: one fake model.
* ``CONNECT host:port``: logged and refused (403). Point ``HTTPS_PROXY`` here and every stray
  connection shows up in the log instead of leaving the machine.
* anything else: logged, 404.

Every request is appended to the log as one JSON line: ``seq``, ``t``, ``method``, ``path``,
``headers``, ``body`` and, for ``/v1/messages``, ``rule`` (the rule's name, ``null`` when none
matched) and ``reply`` (the content blocks sent).

The script is a JSON list of rules, re-read on every request. Each rule is an object::

    {"name": "after-refusal",                       # copied into the log
     "when": {                                      # every given condition must hold
         "contains": "text" | ["a", "b"],           # all occur in the conversation
         "not_contains": "text" | ["a", "b"],       # none occurs in the conversation
         "tail_contains": "text" | ["a", "b"],      # all occur after the last assistant message
         "last_user_has_tool_result": true | false  # the last role:user message has a tool_result
     },
     "reply": [{"type": "text", "text": "..."},
               {"type": "tool_use", "name": "Bash", "input": {...}}],
     "stop_reason": "end_turn"}                     # optional; default from the blocks

or, instead of ``reply``, an API error:
``"error": {"status": 529, "type": "overloaded_error", "message": "..."}``.
"The conversation" is the text of every string in ``body["messages"]`` (prompt, replies, tool
inputs and results, hook feedback), joined by newlines, so a marker matches however Claude Code
wraps it. A request that no rule matches is answered with HTTP 500 ``fake: no rule matched``:
a script gap fails the run loudly instead of looping.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_log_lock = threading.Lock()
_seq = itertools.count(1)


class Settings:
    script: str | None = None
    log: str | None = None


def strings(value: Any) -> list[str]:
    """Every string inside a JSON value, in document order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def conversation_text(messages: list[Any]) -> str:
    return "\n".join(strings(messages))


def tail_messages(messages: list[Any]) -> list[Any]:
    """The messages after the last assistant message (all of them when there is none)."""
    last = -1
    for i, m in enumerate(messages):
        if isinstance(m, dict) and m.get("role") == "assistant":
            last = i
    return messages[last + 1 :]


def _as_list(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value or [])


def rule_matches(rule: dict[str, Any], body: dict[str, Any]) -> bool:
    when = rule.get("when") or {}
    messages = body.get("messages") or []
    text = conversation_text(messages)
    if not all(s in text for s in _as_list(when.get("contains"))):
        return False
    if any(s in text for s in _as_list(when.get("not_contains"))):
        return False
    if "tail_contains" in when:
        tail = conversation_text(tail_messages(messages))
        if not all(s in tail for s in _as_list(when["tail_contains"])):
            return False
    if "last_user_has_tool_result" in when:
        users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
        content = users[-1].get("content") if users else None
        has = isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content
        )
        if has != bool(when["last_user_has_tool_result"]):
            return False
    return True


def load_rules() -> list[dict[str, Any]]:
    if not Settings.script:
        return []
    with open(Settings.script, encoding="utf-8") as f:
        rules = json.load(f)
    return [r for r in rules if isinstance(r, dict)]


def pick_rule(body: dict[str, Any]) -> dict[str, Any] | None:
    return next((r for r in load_rules() if rule_matches(r, body)), None)


def materialize(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for b in blocks:
        if b.get("type") == "tool_use":
            out.append(
                {
                    "type": "tool_use",
                    "id": "toolu_fake_" + uuid.uuid4().hex[:20],
                    "name": b["name"],
                    "input": b.get("input") or {},
                }
            )
        else:
            out.append({"type": "text", "text": str(b.get("text", ""))})
    return out


def write_log(entry: dict[str, Any]) -> None:
    if not Settings.log:
        return
    line = json.dumps(entry, ensure_ascii=False) + "\n"
    with _log_lock, open(Settings.log, "a", encoding="utf-8") as f:
        f.write(line)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-anthropic/1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the JSON log is the record

    # -- helpers ------------------------------------------------------------------------------
    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _record(self, body: Any, **extra: Any) -> None:
        entry = {
            "seq": next(_seq),
            "t": time.time(),
            "method": self.command,
            "path": self.path,
            "headers": dict(self.headers.items()),
            "body": body,
        }
        entry.update(extra)
        write_log(entry)

    def _json(self, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", "req_fake_" + uuid.uuid4().hex[:12])
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, kind: str, message: str) -> None:
        self._json(status, {"type": "error", "error": {"type": kind, "message": message}})

    # -- stray traffic ------------------------------------------------------------------------
    def do_CONNECT(self) -> None:
        self._record(None, note="CONNECT refused")
        self.send_response(403)
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.close_connection = True

    def do_GET(self) -> None:
        self._record(None)
        if self.path.split("?")[0].rstrip("/") == "/v1/models":
            model = {
                "type": "model",
                "id": "claude-fake-1",
                "display_name": "Fake",
                "created_at": "2025-01-01T00:00:00Z",
            }
            self._json(
                200,
                {
                    "data": [model],
                    "has_more": False,
                    "first_id": model["id"],
                    "last_id": model["id"],
                },
            )
            return
        self._error(404, "not_found_error", "fake: no such route")

    do_HEAD = do_GET
    do_DELETE = do_GET
    do_PUT = do_GET

    # -- the Messages API ---------------------------------------------------------------------
    def do_POST(self) -> None:
        body = self._body()
        route = self.path.split("?")[0].rstrip("/")
        if route == "/v1/messages/count_tokens":
            self._record(body)
            self._json(200, {"input_tokens": max(1, len(json.dumps(body)) // 4)})
            return
        if route != "/v1/messages" or not isinstance(body, dict):
            self._record(body)
            self._error(404, "not_found_error", "fake: no such route")
            return
        try:
            rule = pick_rule(body)
        except (OSError, ValueError) as exc:
            self._record(body, rule=None, reply=None, note=f"script unreadable: {exc}")
            self._error(500, "api_error", f"fake: script unreadable: {exc}")
            return
        if rule is None:
            self._record(body, rule=None, reply=None, note="no rule matched")
            self._error(500, "api_error", "fake: no rule matched")
            return
        if "error" in rule:
            err = rule["error"]
            self._record(body, rule=rule.get("name"), reply=None, error=err)
            self._error(
                int(err.get("status", 500)),
                err.get("type", "api_error"),
                err.get("message", "fake error"),
            )
            return
        blocks = materialize(rule.get("reply") or [])
        stop_reason = rule.get("stop_reason") or (
            "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        )
        self._record(body, rule=rule.get("name"), reply=blocks, stop_reason=stop_reason)
        self._answer(body, blocks, stop_reason)

    def _answer(self, body: dict[str, Any], blocks: list[dict[str, Any]], stop_reason: str) -> None:
        model = body.get("model") or "claude-fake-1"
        msg_id = "msg_fake_" + uuid.uuid4().hex[:20]
        usage = {
            "input_tokens": 10,
            "output_tokens": 5,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        if not body.get("stream"):
            self._json(
                200,
                {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": blocks,
                    "stop_reason": stop_reason,
                    "stop_sequence": None,
                    "usage": usage,
                },
            )
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # no Content-Length: the body ends at close
        self.send_header("request-id", "req_fake_" + uuid.uuid4().hex[:12])
        self.end_headers()
        self.close_connection = True

        def event(name: str, data: dict[str, Any]) -> None:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())

        start = {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": dict(usage, output_tokens=1),
        }
        event("message_start", {"type": "message_start", "message": start})
        event("ping", {"type": "ping"})
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                first = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": b["text"]}
            else:
                first = {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}
            event(
                "content_block_start",
                {"type": "content_block_start", "index": i, "content_block": first},
            )
            event(
                "content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}
            )
            event("content_block_stop", {"type": "content_block_stop", "index": i})
        event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
        event("message_stop", {"type": "message_stop"})
        self.wfile.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scripted fake Anthropic Messages API")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument("--script", help="JSON list of rules, re-read on every request")
    parser.add_argument("--log", help="append every request here as one JSON line")
    args = parser.parse_args(argv)
    Settings.script = args.script
    Settings.log = args.log
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(f"LISTENING {server.server_address[1]}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
