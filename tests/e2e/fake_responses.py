"""A scripted fake of the OpenAI Responses API (streaming SSE) for the real Codex CLI.

Codex 0.171.0 resends the whole conversation on every ``POST …/responses`` (no
``previous_response_id``), so each answer is chosen from the request alone: the first rule
whose conditions hold gives the reply. Conditions:

* ``contains``: text (or list of texts) in the newest user message of the input, which is the
  prompt or the ``<hook_prompt …>`` goalkeeper's Stop block was delivered as;
* ``after_tool``: the last input item is a tool's output (True) or not (False);
* ``tool_output``: text in the last tool output;
* ``last_type``: the type of the last input item (``tool_search_output`` after a search).

A reply is ``text(…)``, ``shell(…)`` (an ``exec_command`` call), ``patch(…)`` (an
``apply_patch`` call), ``search(…)`` (``tool_search``) or ``mcp(…)`` (an MCP tool). Every
request is recorded (the input, the tools offered, the rule chosen) for the test to read.
The server runs in a thread of the test process, on 127.0.0.1 and a free port.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOOL_OUTPUTS = ("function_call_output", "custom_tool_call_output", "tool_search_output")


def text(reply: str) -> dict[str, Any]:
    return {"type": "text", "text": reply}


def shell(command: str) -> dict[str, Any]:
    return {"type": "shell", "command": command}


def patch(body: str) -> dict[str, Any]:
    return {"type": "patch", "input": body}


def search(query: str) -> dict[str, Any]:
    """A ``tool_search`` call: Codex 0.171.0 defers MCP tools until the model searches."""
    return {"type": "search", "query": query}


def mcp(namespace: str, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """A call of an MCP tool found by ``search``: ``namespace`` is ``mcp__<server>``."""
    return {"type": "mcp", "namespace": namespace, "name": name, "arguments": dict(arguments)}


def item_text(item: Mapping[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    output = item.get("output")
    if isinstance(output, list):  # an MCP tool's result: content parts
        return "\n".join(str(p.get("text", "")) for p in output if isinstance(p, dict))
    return output if isinstance(output, str) else (content if isinstance(content, str) else "")


def newest_user_text(items: Sequence[Mapping[str, Any]]) -> str:
    for item in reversed(items):
        if item.get("type", "message") == "message" and item.get("role") == "user":
            return item_text(item)
    return ""


def last_tool_output(items: Sequence[Mapping[str, Any]]) -> str | None:
    for item in reversed(items):
        if item.get("type") in TOOL_OUTPUTS:
            return item_text(item)
    return None


def trailing(items: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The last input item that is not a developer message: Codex may add one of those after a
    tool's output (a rare run had the model asked again with no tool output last)."""
    for item in reversed(items):
        if not (item.get("type", "message") == "message" and item.get("role") == "developer"):
            return item
    return None


def matches(rule: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> bool:
    when = rule.get("when") or {}
    wanted = when.get("contains", ())
    user = newest_user_text(items)
    if any(w not in user for w in ([wanted] if isinstance(wanted, str) else wanted)):
        return False
    tail = trailing(items)
    after = tail is not None and tail.get("type") in TOOL_OUTPUTS
    if "after_tool" in when and when["after_tool"] != after:
        return False
    if "last_type" in when and (tail is None or tail.get("type") != when["last_type"]):
        return False
    wanted_output = when.get("tool_output")
    return wanted_output is None or wanted_output in (last_tool_output(items) or "")


class FakeResponses:
    """The server, as a context manager: ``url`` is the provider's ``base_url``."""

    def __init__(self, rules: Sequence[Mapping[str, Any]]) -> None:
        self.rules = list(rules)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                body = b'{"models": []}' if self.path.endswith("/models") else b"{}"
                self.send_response(200 if self.path.endswith("/models") else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(size) or b"{}")
                except ValueError:
                    body = {}
                if not self.path.endswith("/responses"):
                    self.send_response(404)
                    self.end_headers()
                    return
                self._stream(fake.answer(body))

            def _stream(self, reply: Mapping[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                n = len(fake.requests)
                events = [
                    {"type": "response.created", "response": {"id": f"resp_{n}"}},
                    {"type": "response.output_item.done", "output_index": 0,
                     "item": output_item(reply, n)},
                    {"type": "response.completed", "response": {"id": f"resp_{n}", "usage": {
                        "input_tokens": 1200, "input_tokens_details": {"cached_tokens": 0},
                        "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
                        "total_tokens": 1220}}},
                ]  # fmt: skip
                for event in events:
                    data = json.dumps(event)
                    self.wfile.write(f"event: {event['type']}\ndata: {data}\n\n".encode())
                self.wfile.flush()
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def answer(self, body: Mapping[str, Any]) -> dict[str, Any]:
        items = [i for i in body.get("input") or [] if isinstance(i, dict)]
        with self.lock:
            rule = next((r for r in self.rules if matches(r, items)), None)
            reply = rule["reply"] if rule else text("FAKE-FALLBACK")
            self.requests.append(
                {
                    "rule": rule.get("name") if rule else None,
                    "input": items,
                    "reply": reply,
                    "tools": [
                        t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)
                    ],
                }
            )
            return dict(reply)

    def __enter__(self) -> FakeResponses:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def output_item(reply: Mapping[str, Any], n: int) -> dict[str, Any]:
    if reply["type"] == "shell":
        return {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                "name": "exec_command", "arguments": json.dumps({"cmd": reply["command"]}),
                "status": "completed"}  # fmt: skip
    if reply["type"] == "search":
        return {"type": "tool_search_call", "id": f"ts_{n}", "call_id": f"call_{n}",
                "execution": "client", "arguments": {"query": reply["query"]},
                "status": "completed"}  # fmt: skip
    if reply["type"] == "mcp":
        return {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                "namespace": reply["namespace"], "name": reply["name"],
                "arguments": json.dumps(reply["arguments"]), "status": "completed"}  # fmt: skip
    if reply["type"] == "patch":
        return {"type": "custom_tool_call", "id": f"ctc_{n}", "call_id": f"call_{n}",
                "name": "apply_patch", "input": reply["input"], "status": "completed"}  # fmt: skip
    content = [{"type": "output_text", "text": reply["text"], "annotations": []}]
    return {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
            "content": content}  # fmt: skip
