"""Whether Gemini CLI's own record holds the user's prompt when its ``BeforeAgent`` hook fires
(issue 21, item 4's last clause), with the real Gemini CLI (0.61.0) and the fake Gemini API.

goalkeeper takes a goal-setting prompt as the user's only when the host's own record shows it
(Claude Code's transcript, Codex's rollout file). For Gemini CLI the record is the chat file the
hook payload names (``transcript_path``, ``~/.gemini/tmp/<project>/chats/session-….json``). In
the 0.61.0 bundle ``GeminiClient.sendMessageStream`` fires ``BeforeAgent``
(``fireBeforeAgentHookSafe``) *before* ``processTurn`` → ``GeminiChat.sendMessageStream``, which
is where ``chatRecordingService.recordMessage({type: "user", …})`` writes the prompt
(``bundle/chunk-JDPZ4CE3.js``, which ``bundle/gemini.js`` imports: the hook at line 346747,
``processTurn`` at 346772, ``recordMessage`` of the user's message at 332001): there is
nothing to verify a ``BeforeAgent`` prompt against, so goalkeeper does not pretend to. (The
interactive UI also appends the prompt to ``logs.json`` before sending it, but ``gemini -p``
does not, so that file cannot tell a headless user's prompt from a forged one either.)

This test pins that order with the real CLI: a second ``BeforeAgent`` handler snapshots the
record when it is called. If a later Gemini CLI records the prompt first, this test fails, and
Gemini prompts can then be verified like Claude Code's.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from .gemini_harness import GeminiCase

pytestmark = pytest.mark.e2e

MARK = "PROMPT-RECORD-MARK-4471"
PROMPT = f"Say hi, {MARK}."

PROBE = """
import json, os, sys
hook = json.load(sys.stdin)
path = hook.get("transcript_path") or ""
try:
    body = open(path, encoding="utf-8").read()
except OSError:
    body = None
with open(sys.argv[1], "a", encoding="utf-8") as out:
    out.write(json.dumps({"path": path, "exists": body is not None,
                          "holds": body is not None and sys.argv[2] in body,
                          "prompt": hook.get("prompt")}) + "\\n")
print("{}")
"""


def test_gemini_records_the_prompt_only_after_its_before_agent_hook(
    gemini_case: GeminiCase,
) -> None:
    case = gemini_case
    settings = case.install()
    probe, seen = case.root / "probe.py", case.root / "seen.jsonl"
    probe.write_text(PROBE, "utf-8")
    handler = {"name": "record-probe", "type": "command", "timeout": 10000,
               "command": f"{sys.executable} {probe} {seen} {MARK}"}  # fmt: skip
    settings["hooks"]["BeforeAgent"].insert(0, {"hooks": [handler]})  # before goalkeeper's
    (case.proj / ".gemini" / "settings.json").write_text(json.dumps(settings), "utf-8")

    rules: list[dict[str, Any]] = [{"name": "hi", "reply": [{"text": "Hi."}]}]
    run = case.run(rules, prompt=PROMPT)
    assert run.returncode == 0, run.describe()

    lines = [json.loads(x) for x in seen.read_text("utf-8").splitlines()]
    first = next(x for x in lines if MARK in (x["prompt"] or ""))  # the user's prompt
    assert "/chats/" in first["path"], first  # the record the payload names
    assert not first["holds"], first  # not in Gemini's record when BeforeAgent fires …
    record = (case.home / ".gemini").rglob("session-*.json*")
    assert any(MARK in p.read_text("utf-8") for p in record)  # … only after it
