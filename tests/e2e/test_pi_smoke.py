"""The Pi end-to-end infrastructure itself, on both pinned Pi lines, with no goalkeeper involved.

The real Pi CLI (0.73.1 and 1.6.0) runs offline against the scripted fake OpenAI-compatible
server: a prompt makes the fake model call Pi's ``bash`` tool, Pi runs ``echo`` for real in the
case's ``proj/`` and sends the output back, and the fake model answers with text quoting it. The
answer rule only matches when that output is in the tail of the conversation (after the model's
tool call), so the answer proves the round trip happened.
"""

from __future__ import annotations

from typing import Any

import pytest

from .pi_harness import PiCase, last_assistant_text, reply_text, tool_outputs

pytestmark = pytest.mark.e2e

PROMPT = "Say hello through the shell."
TOOL_OUTPUT = "hello-from-fake"
ANSWER = f"The bash tool said: {TOOL_OUTPUT}"

RUN_ECHO: dict[str, Any] = {
    "name": "run-echo",
    "when": {"tail_contains": PROMPT},
    "reply": [
        {"type": "tool_call", "name": "bash", "arguments": {"command": "echo " + TOOL_OUTPUT}}
    ],
}
ANSWER_RULE: dict[str, Any] = {
    "name": "answer",
    "when": {"last_is_tool_result": True, "tail_contains": TOOL_OUTPUT},
    "reply": [{"type": "text", "text": ANSWER}],
}
OUTAGE: dict[str, Any] = {
    "name": "outage",
    "when": {"tail_contains": PROMPT},
    "times": 1,
    "error": {"status": 503, "message": "Service Unavailable (scripted)", "type": "server_error"},
}


def agent_end_stops(events: list[dict[str, Any]]) -> list[str | None]:
    """The stopReason of the last message of each agent_end, in order."""
    out: list[str | None] = []
    for e in events:
        if e.get("type") == "agent_end":
            messages = e.get("messages") or []
            out.append(messages[-1].get("stopReason") if messages else None)
    return out


def test_print_mode_runs_a_tool_and_answers(pi_case: PiCase) -> None:
    """`pi -p` runs the model's bash call and prints the model's answer quoting its output."""
    pi_case.fake.set_rules([ANSWER_RULE, RUN_ECHO])

    proc = pi_case.run_print(PROMPT)

    requests = pi_case.fake.chat_requests()
    detail = f"stdout={proc.stdout!r}\nstderr={proc.stderr[-1500:]}\n{pi_case.fake.describe()}"
    assert proc.returncode == 0, detail
    assert proc.stdout.strip() == ANSWER, detail
    assert [r["rule"] for r in requests] == ["run-echo", "answer"], detail
    assert [o.strip() for o in tool_outputs(requests[1])] == [TOOL_OUTPUT], detail
    assert requests[0]["body"]["stream"] is True
    assert "bash" in [t["function"]["name"] for t in requests[0]["body"]["tools"]]


def test_rpc_prompt_settles_after_the_answer(pi_case: PiCase) -> None:
    """An RPC prompt runs to the final answer and Pi is idle once it has settled."""
    pi_case.fake.set_rules([ANSWER_RULE, RUN_ECHO])
    rpc = pi_case.rpc()

    rpc.prompt(PROMPT)
    settled = rpc.wait_settled(timeout=15)
    state = rpc.state()

    kinds = [e.get("type") for e in settled.events]
    detail = rpc.describe(rpc.prompt_mark)
    assert settled.via == ("agent_settled" if pi_case.cli.has_settle_events else "heuristic")
    assert state["isStreaming"] is False, state
    assert state["pendingMessageCount"] == 0, state
    assert [r["rule"] for r in pi_case.fake.chat_requests()] == ["run-echo", "answer"], detail
    assert kinds.count("agent_start") == 1, detail
    assert agent_end_stops(settled.events) == ["stop"], detail
    assert last_assistant_text(settled.events) == ANSWER, detail
    tool_ends = [e for e in settled.events if e.get("type") == "tool_execution_end"]
    assert [(e.get("toolName"), e.get("isError")) for e in tool_ends] == [("bash", False)], detail
    assert rpc.close() == 0, rpc.describe()


def test_rpc_retry_after_a_503_settles_once(pi_case: PiCase) -> None:
    """A one-off 503 from the model is retried by Pi and the user gets the answer in one run."""
    pi_case.fake.set_rules([OUTAGE, ANSWER_RULE, RUN_ECHO])
    rpc = pi_case.rpc()

    rpc.prompt(PROMPT)
    settled = rpc.wait_settled(timeout=15)

    events = settled.events
    kinds = [e.get("type") for e in events]
    requests = pi_case.fake.chat_requests()
    detail = rpc.describe(rpc.prompt_mark)
    assert [r["rule"] for r in requests] == ["outage", "run-echo", "answer"], detail
    assert reply_text(requests[-1]) == ANSWER
    # The failed attempt ended a run; the retry's run ended with the answer; settle came after.
    assert agent_end_stops(events) == ["error", "stop"], detail
    assert last_assistant_text(events) == ANSWER, detail
    retry_starts = [e for e in events if e.get("type") == "auto_retry_start"]
    retry_ends = [e for e in events if e.get("type") == "auto_retry_end"]
    assert [e.get("attempt") for e in retry_starts] == [1], detail
    assert [e.get("success") for e in retry_ends] == [True], detail
    assert kinds.index("auto_retry_start") < kinds.index("auto_retry_end"), detail
    if pi_case.cli.has_settle_events:
        assert kinds.count("agent_settled") == 1, detail
        assert kinds[-1] == "agent_settled", detail
    else:
        assert settled.via == "heuristic", detail
        assert kinds.index("auto_retry_end") < len(kinds) - 1, detail
    assert rpc.state()["isStreaming"] is False
