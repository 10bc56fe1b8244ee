"""``goalkeeper demo workflow``: a workflow route end to end, offline, on a throwaway project.

A scripted agent works a hard bug through goalkeeper's real MCP server (``goalkeeper mcp``,
spoken to with the official MCP client, as Claude Code does) and the real Stop hook: it starts
the ``hard-bug`` route and gets its procedure, tries to jump to ``handoff`` and is refused with
the legal moves, moves to ``implement``, tries to stop with the work item still open and is sent
back, completes it and is let go; the user sees each lifecycle notice. The demo checks each
outcome itself and exits 1 if any did not happen.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from msgspec import Struct

from goalkeeper.cli.demo.harness import SESSION, HookRunner, append_text, indent

MISMATCH = "this step did not behave as the demo expects"
TASK = "The login redirect loops after a session expires. Fix it."


class Call(Struct, frozen=True):
    """One tool call of the scripted agent and what its result must show."""

    tool: str
    arguments: dict[str, Any]
    expect: tuple[str, ...]
    error: bool = False


CALLS = (
    Call(
        "workflow",
        {"mode": "workflow", "route": "hard-bug"},
        ("Route: hard-bug", "- Allowed next: implement, code-review"),
    ),
    Call(
        "workflow_active",
        {"action": "transition", "target": "handoff"},
        ("Cannot transition hard-bug from diagnosing-bugs to handoff", "implement, code-review"),
        error=True,
    ),
    Call(
        "workflow_active",
        {"action": "transition", "target": "implement"},
        ("transitioned to implement",),
    ),
)
FINISH = Call("workflow_active", {"action": "complete"}, ("completed",))


def run_workflow_demo(folder: Path) -> tuple[list[dict[str, Any]], bool]:
    """The steps as they happened, and whether each behaved as the demo expects."""
    import anyio

    project = folder / "project"
    project.mkdir(parents=True)
    transcript = folder / "transcript.jsonl"
    transcript.write_text("", encoding="utf-8")
    hook = HookRunner(project, transcript)
    hook.env["GOALKEEPER_NO_PLAN"] = "silent"  # every decision here is the workflow guard's
    steps: list[dict[str, Any]] = []

    hook.send("SessionStart", source="startup")
    hook.send("UserPromptSubmit", prompt=TASK)
    steps.append({"actor": "user", "event": "prompt", "text": TASK})
    ok = anyio.run(_drive, project, transcript, hook, steps)
    return steps, ok


async def _drive(
    project: Path, transcript: Path, hook: HookRunner, steps: list[dict[str, Any]]
) -> bool:
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "goalkeeper", "-C", str(project), "mcp"],
        env={**hook.env, "PATH": os.environ.get("PATH", "")},
    )
    with (project.parent / "mcp-server.log").open("w", encoding="utf-8") as log:  # its stderr
        return await _session(params, log, transcript, hook, steps)


async def _session(
    params: Any, log: Any, transcript: Path, hook: HookRunner, steps: list[dict[str, Any]]
) -> bool:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    ok = True
    async with (
        stdio_client(params, errlog=log) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()

        async def call(c: Call) -> bool:
            result = await session.call_tool(c.tool, {**c.arguments, "session": SESSION})
            text = "".join(getattr(part, "text", "") for part in result.content)
            good = bool(result.is_error) == c.error and all(e in text for e in c.expect)
            steps.append(
                {"actor": "agent", "event": "tool", "tool": c.tool, "input": c.arguments,
                 "error": bool(result.is_error), "result": text, "as_expected": good}
            )  # fmt: skip
            return good

        def stop(says: str, expect_block: bool, notice: str) -> bool:
            append_text(transcript, says)
            steps.append({"actor": "agent", "event": "reply", "text": says})
            answer = hook.send("Stop", last_assistant_message=says, stop_hook_active=False)
            blocked = answer.get("decision") == "block"
            message = str(answer.get("systemMessage", ""))
            good = blocked == expect_block and notice in message
            if expect_block:
                good = good and "is still active" in str(answer.get("reason", ""))
            steps.append(
                {"actor": "goalkeeper", "event": "stop", "blocked": blocked,
                 "reason": answer.get("reason", ""), "message": message, "as_expected": good}
            )  # fmt: skip
            return good

        for c in CALLS:
            ok = await call(c) and ok
        ok = await anyio.to_thread.run_sync(
            stop, "Fixed: the expiry check now runs before the redirect.", True, "started ·"
        ) and ok  # fmt: skip
        ok = await call(FINISH) and ok
        ok = await anyio.to_thread.run_sync(
            stop, "The work item is complete.", False, "completed"
        ) and ok  # fmt: skip
    return ok


def print_workflow_demo(steps: list[dict[str, Any]], ok: bool) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False)

    def say(who: str, color: str, text: str, body: str = "", style: str = "") -> None:
        console.print(Text.assemble((who, f"bold {color}"), " ", text))
        if body:
            console.print(Text(indent(body), style=style))

    console.rule("[bold]goalkeeper demo workflow[/] · the real MCP server and Stop hook")
    for step in steps:
        if step["actor"] == "user":
            say("user", "magenta", f"› {step['text']}")
        elif step["event"] == "tool":
            args = ", ".join(f"{k}={v}" for k, v in step["input"].items())
            say("agent", "cyan", f"calls {step['tool']}({args})")
            head = _head(step["result"])
            if step["error"]:
                say("goalkeeper", "red", "refuses the call:", head, "red")
            else:
                say("goalkeeper", "yellow", "answers:", head, "dim")
        elif step["event"] == "reply":
            console.print()
            say("agent", "cyan", "replies:", step["text"])
        else:
            if step["message"]:
                say("goalkeeper", "green", "tells the user:", step["message"], "green")
            if step["blocked"]:
                say("goalkeeper", "red", "sends the agent back:", step["reason"], "red")
            else:
                say("goalkeeper", "green", "lets the agent stop.")
        if step.get("as_expected") is False:
            console.print(
                Text("  ✗ this step did not behave as the demo expects", style="bold red")
            )
    console.print()
    if ok:
        console.rule("[bold green]✓ only legal moves, finished explicitly[/]")
    else:
        console.rule("[bold red]✗ the demo did not go as expected[/]")


def _head(text: str, lines: int = 8) -> str:
    """The first lines of a long answer (a procedure runs to pages), with the contract."""
    body = text.splitlines()
    if len(body) <= lines:
        return text
    contract = [ln for ln in body if ln.startswith("- Allowed next") or ln.startswith("- Synch")]
    return "\n".join([*body[:lines], "…", *contract])
