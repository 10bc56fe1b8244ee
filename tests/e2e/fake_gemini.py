"""A fake Gemini API (``generativelanguage`` v1beta) for the Gemini CLI end-to-end tests.

Standard library only; run as ``python fake_gemini.py --script RULES --log LOG`` and it prints
``LISTENING <port>`` (a free port on 127.0.0.1). Gemini CLI talks to it through
``GOOGLE_GEMINI_BASE_URL``: ``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` gets the
first matching rule's reply as Server-Sent Events (one JSON per ``data:`` line, a blank line after
each). Anything else (a ``CONNECT`` through the proxy, another route) is logged and refused, so a
test can tell there was no stray traffic.

The script is a JSON list of rules, re-read on every request; the first rule whose ``when`` holds
answers (a rule without ``when`` always does). ``when`` keys, all of which must hold:

- ``contains``: text (or a list) that must all occur in ``json.dumps(body["contents"])``;
- ``not_contains``: text (or a list) none of which may occur there;
- ``last_contains``: text that must occur in the newest content entry (its text parts and any
  function response), where the newest prompt, tool result or continuation is;
- ``last_has_function_response``: whether the newest entry is a tool result.

A rule's ``reply`` is a list of parts as the API returns them (``{"text": …}``,
``{"functionCall": {"name": …, "args": {…}}}``). Every request is one JSON line in the log:
``{n, method, path, body, rule, reply}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

NO_MATCH = [{"text": "fake: no rule matched"}]


class State:
    script = ""
    log = ""
    lock = threading.Lock()
    n = 0


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def newest_text(body: dict[str, Any]) -> str:
    contents = body.get("contents") or [{}]
    parts = contents[-1].get("parts") or []
    return json.dumps(parts, ensure_ascii=False)


def matches(rule: dict[str, Any], body: dict[str, Any]) -> bool:
    when = rule.get("when") or {}
    everything = json.dumps(body.get("contents", []), ensure_ascii=False)
    if not all(s in everything for s in _list(when.get("contains", []))):
        return False
    if any(s in everything for s in _list(when.get("not_contains", []))):
        return False
    newest = newest_text(body)
    if "last_contains" in when and when["last_contains"] not in newest:
        return False
    if "last_has_function_response" in when:
        has = '"functionResponse"' in newest
        if has != bool(when["last_has_function_response"]):
            return False
    return True


def pick(body: dict[str, Any]) -> dict[str, Any]:
    with open(State.script, encoding="utf-8") as f:
        rules = json.load(f)
    for rule in rules:
        if matches(rule, body):
            return dict(rule)
    return {"name": None, "reply": NO_MATCH}


def record(entry: dict[str, Any]) -> None:
    with State.lock:
        State.n += 1
        with open(State.log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"n": State.n, **entry}, ensure_ascii=False) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def _refuse(self, body: Any = None) -> None:
        record({"method": self.command, "path": self.path, "body": body})
        payload = b'{"error": {"code": 404, "message": "fake: not served", "status": "NOT_FOUND"}}'
        self.send_response(403 if self.command == "CONNECT" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_CONNECT(self) -> None:
        self._refuse()

    def do_GET(self) -> None:
        self._refuse()

    def do_POST(self) -> None:
        size = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(size) if size else b"{}"
        try:
            body = json.loads(raw)
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        path = self.path.split("?", 1)[0]
        if not path.endswith(":streamGenerateContent"):
            self._refuse(body)
            return
        rule = pick(body)
        parts = rule.get("reply") or NO_MATCH
        record(
            {"method": "POST", "path": self.path, "body": body, "rule": rule.get("name"),
             "reply": parts}
        )  # fmt: skip
        model = path.rsplit("/", 1)[-1].split(":", 1)[0]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        for i, part in enumerate(parts):
            candidate: dict[str, Any] = {"content": {"role": "model", "parts": [part]}, "index": 0}
            event: dict[str, Any] = {"candidates": [candidate], "modelVersion": model}
            if i == len(parts) - 1:
                candidate["finishReason"] = "STOP"
                event["usageMetadata"] = {
                    "promptTokenCount": len(raw) // 4,
                    "candidatesTokenCount": 10,
                    "totalTokenCount": len(raw) // 4 + 10,
                }
            self.wfile.write(b"data: " + json.dumps(event).encode() + b"\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--script", required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    State.script, State.log = args.script, args.log
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"LISTENING {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
