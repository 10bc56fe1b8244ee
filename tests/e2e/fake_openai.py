"""A scripted stand-in for an OpenAI-compatible Chat Completions API, for goalkeeper's end-to-end
tests of the Pi coding agent.

The real ``pi`` CLI talks to this server through a custom provider in its ``models.json``
(``"api": "openai-completions"``, ``"baseUrl": "http://127.0.0.1:<port>/v1"``). Standard library
only, so it runs under any Python the tests run under:

    python fake_openai.py --script rules.json --log requests.jsonl [--port 0]

It binds 127.0.0.1 (port 0 picks a free one) and prints ``LISTENING <port>`` on stdout once it
accepts connections. Stop it by terminating the process.

Routes:

* ``POST …/chat/completions``: the first matching rule answers, as Server-Sent Events when the
  body asks for ``"stream": true`` (Pi always does), else as one JSON ``chat.completion``.
* ``GET …/models``: one fake model.
* ``CONNECT host:port``: logged and refused (403).
* anything else: logged, 404.

Every request is appended to the log as one JSON line: ``seq``, ``t``, ``method``, ``path``,
``headers``, ``body`` and, for chat completions, ``rule`` (the rule's name, ``null`` when none
matched), ``reply`` (the items sent), ``finish_reason``, ``usage``, or ``error`` / ``note``.

The script is a JSON list of rules, re-read on every request. Each rule is an object::

    {"name": "after-echo",                          # copied into the log
     "when": {                                      # every given condition must hold
         "contains": "text" | ["a", "b"],           # all occur in the conversation
         "not_contains": "text" | ["a", "b"],       # none occurs in the conversation
         "tail_contains": "text" | ["a", "b"],      # all occur after the last assistant message
         "last_is_tool_result": true | false,       # the last message has role "tool"
         "has_tools": true | false                  # the request offers tools (agent turns do;
                                                    #   compaction and summary requests do not)
     },
     "reply": [{"type": "text", "text": "..."},
               {"type": "tool_call", "name": "bash", "arguments": {"command": "ls"}}],
     "finish_reason": "stop",                       # optional; default from the items
     "usage": {"prompt_tokens": 120000},            # optional; merged into the usage chunk
     "times": 1}                                    # optional; the rule matches at most N times

or, instead of ``reply``, an API error:
``"error": {"status": 503, "message": "...", "type": "server_error", "code": null}``.

"The conversation" is the text of every string in ``body["messages"]`` (system prompt, prompt,
replies, tool-call arguments, tool results, extension messages), joined by newlines, so a marker
matches however Pi wraps it. "The tail" is the messages after the last assistant message: the
prompt and any extension messages of a new run, or the tool results of the current turn.

A rule whose reply calls a tool never matches a request that offers no tools (a model could not
call one there). A request without tools that no rule matches (Pi's compaction and branch
summaries) is answered with the text ``SUMMARY_TEXT``. Any other request that no rule matches is
answered with HTTP 500 ``fake: no rule matched``: a script gap fails the run loudly instead of
looping.

``times`` is counted in this server process per rule (by name, else by the rule's JSON), so a
one-shot ``503`` rule fails the first attempt and lets Pi's automatic retry reach the next rule.
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

SUMMARY_TEXT = "SUMMARY: the user asked the fake model for work; it was done."
MODEL_ID = "fake-model"
DEFAULT_USAGE = {"prompt_tokens": 1200, "completion_tokens": 20}
TEXT_CHUNK = 16  # characters per streamed content delta
ARGS_CHUNK = 12  # characters per streamed tool-argument delta

_log_lock = threading.Lock()
_count_lock = threading.Lock()
_seq = itertools.count(1)
_times_used: dict[str, int] = {}


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


def _calls_tool(rule: dict[str, Any]) -> bool:
    return any(
        isinstance(i, dict) and i.get("type") == "tool_call" for i in rule.get("reply") or []
    )


def rule_key(rule: dict[str, Any]) -> str:
    name = rule.get("name")
    return f"name:{name}" if name else "json:" + json.dumps(rule, sort_keys=True)


def rule_matches(rule: dict[str, Any], body: dict[str, Any]) -> bool:
    when = rule.get("when") or {}
    messages = body.get("messages") or []
    has_tools = bool(body.get("tools"))
    if not has_tools and _calls_tool(rule):
        return False
    if "has_tools" in when and bool(when["has_tools"]) != has_tools:
        return False
    text = conversation_text(messages)
    if not all(s in text for s in _as_list(when.get("contains"))):
        return False
    if any(s in text for s in _as_list(when.get("not_contains"))):
        return False
    if "tail_contains" in when:
        tail = conversation_text(tail_messages(messages))
        if not all(s in tail for s in _as_list(when["tail_contains"])):
            return False
    if "last_is_tool_result" in when:
        last = messages[-1] if messages else None
        is_tool = isinstance(last, dict) and last.get("role") == "tool"
        if is_tool != bool(when["last_is_tool_result"]):
            return False
    return True


def load_rules() -> list[dict[str, Any]]:
    if not Settings.script:
        return []
    with open(Settings.script, encoding="utf-8") as f:
        rules = json.load(f)
    return [r for r in rules if isinstance(r, dict)]


def pick_rule(body: dict[str, Any]) -> dict[str, Any] | None:
    """The first matching rule that has uses left; its use is counted here."""
    for rule in load_rules():
        if not rule_matches(rule, body):
            continue
        limit = rule.get("times")
        if limit is None:
            return rule
        key = rule_key(rule)
        with _count_lock:
            used = _times_used.get(key, 0)
            if used >= int(limit):
                continue
            _times_used[key] = used + 1
        return rule
    return None


def materialize(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in items:
        if item.get("type") == "tool_call":
            out.append(
                {
                    "type": "tool_call",
                    "id": "call_fake_" + uuid.uuid4().hex[:16],
                    "name": item["name"],
                    "arguments": item.get("arguments") or {},
                }
            )
        else:
            out.append({"type": "text", "text": str(item.get("text", ""))})
    return out


def write_log(entry: dict[str, Any]) -> None:
    if not Settings.log:
        return
    line = json.dumps(entry, ensure_ascii=False) + "\n"
    with _log_lock, open(Settings.log, "a", encoding="utf-8") as f:
        f.write(line)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-openai/1"

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
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, kind: str = "api_error", code: Any = None) -> None:
        self._json(status, {"error": {"message": message, "type": kind, "code": code}})

    # -- stray traffic ------------------------------------------------------------------------
    def do_CONNECT(self) -> None:
        self._record(None, note="CONNECT refused")
        self.send_response(403)
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.close_connection = True

    def do_GET(self) -> None:
        self._record(None)
        if self.path.split("?")[0].rstrip("/").endswith("/models"):
            model = {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "fake"}
            self._json(200, {"object": "list", "data": [model]})
            return
        self._error(404, "fake: no such route", "not_found")

    do_HEAD = do_GET
    do_DELETE = do_GET
    do_PUT = do_GET

    # -- Chat Completions ---------------------------------------------------------------------
    def do_POST(self) -> None:
        body = self._body()
        route = self.path.split("?")[0].rstrip("/")
        if not route.endswith("/chat/completions") or not isinstance(body, dict):
            self._record(body)
            self._error(404, "fake: no such route", "not_found")
            return
        try:
            rule = pick_rule(body)
        except (OSError, ValueError) as exc:
            self._record(body, rule=None, reply=None, note=f"script unreadable: {exc}")
            self._error(500, f"fake: script unreadable: {exc}")
            return
        if rule is None and not body.get("tools"):
            rule = {"reply": [{"type": "text", "text": SUMMARY_TEXT}]}
            note = "no tools: default summary"
        elif rule is None:
            self._record(body, rule=None, reply=None, note="no rule matched")
            self._error(500, "fake: no rule matched")
            return
        else:
            note = None
        if "error" in rule:
            err = rule["error"]
            self._record(body, rule=rule.get("name"), reply=None, error=err)
            self._error(
                int(err.get("status", 500)),
                str(err.get("message", "fake error")),
                str(err.get("type", "api_error")),
                err.get("code"),
            )
            return
        items = materialize(rule.get("reply") or [])
        finish = rule.get("finish_reason") or (
            "tool_calls" if any(i["type"] == "tool_call" for i in items) else "stop"
        )
        usage = dict(DEFAULT_USAGE, **(rule.get("usage") or {}))
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        extra: dict[str, Any] = {"note": note} if note else {}
        self._record(
            body, rule=rule.get("name"), reply=items, finish_reason=finish, usage=usage, **extra
        )
        self._answer(body, items, finish, usage)

    def _answer(
        self,
        body: dict[str, Any],
        items: list[dict[str, Any]],
        finish: str,
        usage: dict[str, int],
    ) -> None:
        model = body.get("model") or MODEL_ID
        cid = "chatcmpl-fake" + uuid.uuid4().hex[:16]
        created = int(time.time())
        text = "".join(i["text"] for i in items if i["type"] == "text")
        calls = [
            {
                "id": i["id"],
                "type": "function",
                "function": {"name": i["name"], "arguments": json.dumps(i["arguments"])},
            }
            for i in items
            if i["type"] == "tool_call"
        ]
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                message["tool_calls"] = calls
            self._json(
                200,
                {
                    "id": cid,
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage,
                },
            )
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # no Content-Length: the body ends at close
        self.end_headers()
        self.close_connection = True

        def chunk(delta: dict[str, Any] | None, finish_reason: str | None = None) -> None:
            obj: dict[str, Any] = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish_reason}],
            }
            self.wfile.write(b"data: " + json.dumps(obj).encode("utf-8") + b"\n\n")

        chunk({"role": "assistant", "content": ""})
        for i in range(0, len(text), TEXT_CHUNK):
            chunk({"content": text[i : i + TEXT_CHUNK]})
        for index, call in enumerate(calls):
            fn = call["function"]
            head = {"index": index, "id": call["id"], "type": "function"}
            chunk({"tool_calls": [{**head, "function": {"name": fn["name"], "arguments": ""}}]})
            args = fn["arguments"]
            for i in range(0, len(args), ARGS_CHUNK):
                piece = {"index": index, "function": {"arguments": args[i : i + ARGS_CHUNK]}}
                chunk({"tool_calls": [piece]})
        chunk(None, finish)
        # The usage chunk: Pi asks for it with stream_options.include_usage; empty choices.
        final: dict[str, Any] = {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [],
            "usage": usage,
        }
        self.wfile.write(b"data: " + json.dumps(final).encode("utf-8") + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scripted fake OpenAI Chat Completions API")
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
