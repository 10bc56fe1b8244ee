"""Notices a host cannot show when they happen wait with the session for one that can.

goalkeeper's workflow tools run inside its MCP server, which cannot tell the user anything (an
MCP tool result goes to the model); Claude Code's hooks can (``systemMessage``). The lifecycle
notice of a route started through the tool is therefore shown by the session's next hook."""

from __future__ import annotations

from pathlib import Path

from goalkeeper.config import Config
from goalkeeper.core.values import Action, Notify, Settled, ToolCall
from goalkeeper.engine.supervisor import MAX_HELD, Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock

S = "s"
STARTED = "[goalkeeper] started · Reproducing & Diagnostics"  # hard-bug's entry phase
CONFIG = Config(no_plan="silent", lang="en")


def mcp(project: Path) -> Supervisor:
    return Supervisor(
        project, CONFIG, host="mcp", capabilities=frozenset({"block", "advise"}), clock=FakeClock()
    )


def hook(project: Path) -> Supervisor:
    return Supervisor(
        project, CONFIG, host="claude-code", capabilities=CLAUDE_CAPABILITIES, clock=FakeClock()
    )


def notices(actions: tuple[Action, ...]) -> list[str]:
    return [a.text for a in actions if isinstance(a, Notify)]


def start(sup: Supervisor, route: str = "hard-bug") -> tuple[Action, ...]:
    return sup.handle([ToolCall(S, "workflow", {"mode": "workflow", "route": route})]).actions


def test_a_notice_from_a_tool_call_is_shown_by_the_next_hook_once(tmp_path: Path) -> None:
    start(mcp(tmp_path))
    shown = notices(hook(tmp_path).handle([Settled(S, "working on it")]).actions)
    assert shown[0] == STARTED, shown
    again = notices(hook(tmp_path).handle([Settled(S, "still working")]).actions)
    assert STARTED not in again


def test_notices_wait_in_order_and_only_the_latest_are_kept(tmp_path: Path) -> None:
    server = mcp(tmp_path)
    start(server)
    server.handle([ToolCall(S, "workflow_active", {"action": "complete"})])
    shown = notices(hook(tmp_path).handle([Settled(S, "done")]).actions)
    assert shown[:2] == [
        STARTED,
        "[goalkeeper] event · Reproducing & Diagnostics completed",
    ]
    for _ in range(MAX_HELD):  # a long stretch with no hook: the oldest notices are dropped
        start(server)
        server.handle([ToolCall(S, "workflow_active", {"action": "cancel", "reason": "r"})])
    held = notices(hook(tmp_path).handle([Settled(S, "done")]).actions)
    assert len(held) >= MAX_HELD and held[MAX_HELD - 1].endswith("cancelled")


def test_a_host_that_can_show_them_shows_them_at_once(tmp_path: Path) -> None:
    assert STARTED in notices(start(hook(tmp_path)))
    assert "[goalkeeper] started" not in " ".join(
        notices(hook(tmp_path).handle([Settled(S, "working")]).actions)
    )
