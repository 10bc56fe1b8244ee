"""``goalkeeper demo``: the main job, offline, on a throwaway project.

A scripted agent works on a small task in a temporary project with a plan file. It speaks the
real Claude Code hook protocol to the real ``goalkeeper hook claude`` process (a fresh process
per event, exactly as Claude Code starts it) and writes a transcript in Claude Code's format.
It tries to close early; goalkeeper refuses and names what is missing; the agent checks, ticks
the plan and completes; goalkeeper closes. The demo verifies each of those outcomes itself and
exits 1 if any of them did not happen.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import click
from msgspec import Struct, field

from goalkeeper.cli.common import ExitCode, echo_json
from goalkeeper.cli.demo.harness import HookRunner, _append_tool, append_text, indent

PLAN = """# report --json

## SWOT
S: the report command is covered by tests
W: scripts scrape the table output today
O: click has JSON-friendly options
T: a format change breaks the nightly export

## Objective
Scripts read the report as JSON instead of scraping the table. Later: CSV.

## Key Results
- [ ] KR1: report --json output parsed by the nightly export 0 → 1

## User Story Map
- Slice 1: smallest loop
  - [x] user runs `report --json`
  - [ ] the output validates against the schema
"""


class Turn(Struct):
    """One run of the scripted agent: its tool calls, an optional plan edit, its last words."""

    says: str
    tools: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    tick_plan: bool = False
    expect: str = "continue"
    expect_in_reason: tuple[str, ...] = ()


SCRIPT = [
    Turn(
        "Added a --json flag to `report` that prints the rows as a JSON list.\n[PDCA] do",
        tools=[
            ("Edit", {"file_path": "src/report.py", "old_string": "...", "new_string": "..."}, "ok")
        ],
        expect_in_reason=("Next: [PDCA] check",),
    ),
    Turn(
        "Looks good to me, the flag works. All done!\n[PDCA] complete",
        expect_in_reason=(
            "Not closed yet",
            "Check gate",
            "KR1: report --json output parsed by the nightly export",
            "the output validates against the schema",
        ),
    ),
    Turn(
        "Ran the test suite, the schema test with it: 3 passed. Ticked KR1 and the leaf in the "
        "plan.\n[PDCA] check",
        tools=[("Bash", {"command": "pytest -q"}, "3 passed in 0.12s")],
        tick_plan=True,
        expect_in_reason=("Evidence in hand",),
    ),
    Turn(
        "Standardized: the schema test runs in CI. Every KR and leaf is done.\n[PDCA] complete",
        expect="close",
    ),
]


@click.command("demo")
@click.argument("scenario", type=click.Choice(["pdca", "workflow"]), default="pdca")
@click.option("--keep", is_flag=True, help="Keep the temporary project and print where it is.")
@click.option("--json", "as_json", is_flag=True, help="Print the steps as one JSON object.")
def demo_command(scenario: str, keep: bool, as_json: bool) -> int:
    """Watch goalkeeper refuse an early "done" and close only on evidence, offline.

    A scripted agent drives the real hook protocol in a temporary project: it claims to be
    done too early, is refused with every open gate named, checks its work, ticks the plan,
    and is let go. No network, no API key.

    SCENARIO `workflow`: the agent works a hard bug through goalkeeper's real MCP server
    (the workflow tools) and Stop hook: a jump the route does not allow is refused with the
    legal moves, a stop with the work item open is sent back, completing it lets the agent go.

    Exit status: 0 when every step behaved as shown, 1 otherwise.
    """
    folder = Path(tempfile.mkdtemp(prefix="goalkeeper-demo-"))
    if scenario == "workflow":
        from goalkeeper.cli.demo.workflow import print_workflow_demo, run_workflow_demo

        steps, ok = run_workflow_demo(folder)
    else:
        steps, ok = _run(folder)
    if as_json:
        echo_json({"project": str(folder), "scenario": scenario, "ok": ok, "steps": steps})
    elif scenario == "workflow":
        print_workflow_demo(steps, ok)
        if keep:
            click.echo(f"Project kept in {folder} (try: goalkeeper -C {folder / 'project'} status)")
    else:
        _print(steps, ok, folder, keep)
    if not keep:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
    return int(ExitCode.OK if ok else ExitCode.NOT_PASSED)


def _run(folder: Path) -> tuple[list[dict[str, Any]], bool]:
    project = folder / "project"
    (project / "plan").mkdir(parents=True)
    plan = project / "plan" / "report-json.md"
    plan.write_text(PLAN, encoding="utf-8")
    transcript = folder / "transcript.jsonl"
    transcript.write_text("", encoding="utf-8")
    hook = HookRunner(project, transcript)
    steps: list[dict[str, Any]] = []
    ok = True

    start = hook.send("SessionStart", source="startup")
    steps.append({"actor": "goalkeeper", "event": "SessionStart", "context": _context(start)})
    prompt = "Add a --json flag to the report command."
    answer = hook.send("UserPromptSubmit", prompt=prompt)
    steps.append({"actor": "user", "event": "UserPromptSubmit", "text": prompt})
    steps.append({"actor": "goalkeeper", "event": "UserPromptSubmit", "context": _context(answer)})

    for turn in SCRIPT:
        for n, (name, tool_input, result) in enumerate(turn.tools):
            _append_tool(transcript, name, tool_input, result, f"{len(steps)}_{n}")
            steps.append(
                {
                    "actor": "agent",
                    "event": "tool",
                    "tool": name,
                    "input": tool_input,
                    "result": result,
                }
            )
        if turn.tick_plan:
            plan.write_text(PLAN.replace("- [ ]", "- [x]"), encoding="utf-8")
            steps.append(
                {"actor": "agent", "event": "plan_edit", "text": "ticked KR1 and the open leaf"}
            )
        append_text(transcript, turn.says)
        steps.append({"actor": "agent", "event": "reply", "text": turn.says})
        answer = hook.send(
            "Stop", last_assistant_message=turn.says, stop_hook_active=len(steps) > 4
        )
        decision = "continue" if answer.get("decision") == "block" else "close"
        reason = answer.get("reason", "")
        expected = decision == turn.expect and all(s in reason for s in turn.expect_in_reason)
        if turn.expect == "close":
            expected = expected and "every gate passes" in answer.get("systemMessage", "")
        ok = ok and expected
        steps.append(
            {
                "actor": "goalkeeper",
                "event": "Stop",
                "decision": decision,
                "reason": reason,
                "message": answer.get("systemMessage"),
                "as_expected": expected,
            }
        )
        if decision == "close":
            break
    return steps, ok


def _context(answer: dict[str, Any]) -> str:
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


def _print(steps: list[dict[str, Any]], ok: bool, folder: Path, keep: bool) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False)

    def say(who: str, color: str, text: str, body: str | None = None, body_style: str = "") -> None:
        line = Text.assemble((who, f"bold {color}"), " ", text)
        console.print(line)
        if body:
            console.print(Text(indent(body), style=body_style))

    console.rule("[bold]goalkeeper demo[/] · a scripted agent, the real hook protocol")
    for step in steps:
        actor, event = step["actor"], step["event"]
        if actor == "user":
            console.print()
            say("user", "magenta", f"› {step['text']}")
        elif actor == "agent" and event == "tool":
            say(
                "agent",
                "cyan",
                f"runs {step['tool']} {json.dumps(step['input'])[:60]} → {step['result']}",
            )
        elif actor == "agent" and event == "plan_edit":
            say("agent", "cyan", f"edits the plan: {step['text']}")
        elif actor == "agent":
            console.print()
            say("agent", "cyan", "replies:", step["text"])
        elif event == "SessionStart":
            say(
                "goalkeeper",
                "yellow",
                "adds the static guidance and the plan anchors to the context:",
            )
            console.print(Text(indent(step["context"].split("\n\n")[-1]), style="dim"))
        elif event == "UserPromptSubmit":
            say("goalkeeper", "yellow", "re-feeds the plan anchors with the prompt.")
        elif step["decision"] == "continue":
            refused = "Not closed yet" in step["reason"]
            shown = (
                step["reason"]
                if refused
                else step["reason"].split("\n\n")[0] + "\n(+ the plan anchors)"
            )
            color = "red" if refused else "yellow"
            say("goalkeeper", color, "blocks the stop and continues the agent:", shown, color)
        else:
            say("goalkeeper", "green", "lets the agent stop.", str(step["message"]), "green")
        if step.get("as_expected") is False:
            console.print(
                Text("  ✗ this step did not behave as the demo expects", style="bold red")
            )
    console.print()
    if ok:
        console.rule("[bold green]✓ refused without evidence, closed with it[/]")
    else:
        console.rule("[bold red]✗ the demo did not go as expected[/]")
    if keep:
        console.print(f"Project kept in {folder} (try: goalkeeper -C {folder / 'project'} status)")


COMMANDS = (demo_command,)
