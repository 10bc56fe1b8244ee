"""goalkeeper installed as a Claude Code plugin, the way a user installs it, with the real CLI.

Each case adds this repository as a marketplace and installs ``goalkeeper@goalkeeper`` into a
fresh HOME (``claude plugin marketplace add <repo>``, ``claude plugin install
goalkeeper@goalkeeper``; offline, no prompts), writes nothing into the project, and runs
``claude -p`` against the scripted fake model. The plugin's launcher finds this checkout's
goalkeeper through ``GOALKEEPER_PYTHON`` in the user's settings, as a user with goalkeeper in a
virtualenv sets it. What goalkeeper did is read from the fake server's request log, Claude
Code's transcript and goalkeeper's journal, as in ``test_claude_code.py``, whose early-complete
scenario this repeats through the plugin.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.hosts.command_hooks.wire import PLUGIN_TOOL_PREFIX

from .harness import CLOSE_MESSAGE, Case, strings
from .test_claude_code import (
    AFTER_CHECK,
    ALLOWED,
    PLAN,
    REFUSAL,
    TICKED_PLAN,
    TOPIC,
    assert_clean_exit,
    assert_no_stray_traffic,
    feedback_reason,
    kinds,
    only_feedback,
    run_test,
    text,
    with_marker_test,
    write_plan,
)

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
PLUGIN = "goalkeeper@goalkeeper"
# Plugins installed for the user load only with the user's settings read too.
USER_SOURCES = ("--setting-sources", "user,project,local")


def claude_cli(case: Case, *args: str) -> dict[str, Any]:
    """``claude <args> --json`` with the case's HOME and no API key (which makes plugin
    commands wait on the network); its JSON answer."""
    proc = subprocess.run(
        [str(case.claude), *args, "--json"],
        cwd=case.proj,
        env=case.base_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"claude {' '.join(args)}: {proc.stdout}\n{proc.stderr}"
    answer: dict[str, Any] | list[Any] = json.loads(proc.stdout)
    return answer if isinstance(answer, dict) else {"list": answer}


def install_plugin(case: Case) -> None:
    """The two commands of the README, from this repository's path."""
    added = claude_cli(case, "plugin", "marketplace", "add", str(REPO))
    assert added["outcome"] == "ok", added
    installed = claude_cli(case, "plugin", "install", PLUGIN)
    assert installed["outcome"] == "ok", installed
    listed = claude_cli(case, "plugin", "list")["list"]
    (ours,) = [p for p in listed if p.get("id") == PLUGIN]
    assert ours["enabled"] is True and ours["scope"] == "user", ours
    settings_path = case.home / ".claude" / "settings.json"
    settings = json.loads(settings_path.read_text("utf-8"))
    settings.setdefault("env", {})["GOALKEEPER_PYTHON"] = sys.executable
    settings_path.write_text(json.dumps(settings, indent=2), "utf-8")


def test_plugin_validates() -> None:
    """``claude plugin validate`` passes on the marketplace and, with --strict, on the plugin."""
    from .harness import ensure_claude

    claude = ensure_claude()
    for target, extra in ((REPO, ()), (REPO / "plugins" / "goalkeeper", ("--strict",))):
        proc = subprocess.run(
            [str(claude), "plugin", "validate", *extra, str(target)],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "Validation passed" in proc.stdout, proc.stdout


def test_through_the_plugin_an_early_complete_is_refused_and_a_proven_one_closes(
    case: Case,
) -> None:
    case.write_plan(TOPIC, PLAN)
    with_marker_test(case)
    install_plugin(case)

    rules = [
        {"name": "complete", "when": {"contains": AFTER_CHECK},
         "reply": text("Proven: greet.sh prints hello.\n[PDCA] complete")},
        {"name": "check", "when": {"contains": "EVIDENCE-OK", "last_user_has_tool_result": True},
         "reply": text("The evidence matches the plan; both items are ticked.\n[PDCA] check")},
        {"name": "run-evidence", "when": {"contains": REFUSAL, "last_user_has_tool_result": True},
         "reply": run_test("EVIDENCE-OK")},
        {"name": "tick-plan", "when": {"contains": REFUSAL},
         "reply": write_plan(case, TICKED_PLAN)},
        {"name": "early-complete",
         "reply": text("I think greet.sh works now.\n[PDCA] complete")},
    ]  # fmt: skip
    run = case.run_claude(rules, allowed_tools=ALLOWED, extra_args=USER_SOURCES)

    assert run.rules == ["early-complete", "tick-plan", "run-evidence", "check", "complete"], (
        run.describe()
    )
    assert_clean_exit(run)
    assert_no_stray_traffic(run)
    assert run.result["result"] == "Proven: greet.sh prints hello.\n[PDCA] complete"

    # The early complete was refused with every open gate, in one message.
    refusal = only_feedback(run, 1)
    assert refusal.count(REFUSAL) == 1, refusal
    for part in ("Check gate", "OKR gate", "Map gate"):
        assert part in refusal, refusal
    assert feedback_reason(run, 4).startswith(AFTER_CHECK)
    outcomes = case.stop_hook_outcomes(run)
    assert [kind for kind, _ in outcomes] == ["block", "block", "allow"], outcomes
    assert outcomes[2] == ("allow", CLOSE_MESSAGE)
    journal = case.journal({"refused", "closed"})
    assert kinds(journal) == ["refused", "closed"], journal
    assert journal[0]["data"]["gates"] == ["check", "okr", "map"]

    # The plugin's MCP server started (it connects in the background, so not always before the
    # first request) and its tools were offered to the model.
    offered = "\n".join(s for r in run.requests for s in strings(r["body"]))
    assert f"{PLUGIN_TOOL_PREFIX}todo" in offered, offered[-3000:]
    # Nothing was written into the project's Claude Code settings.
    assert not (case.proj / ".claude").exists()
    assert not (case.proj / ".mcp.json").exists()


def test_the_plugins_goal_command_sets_a_goal_goalkeeper_verifies(case: Case) -> None:
    """``/goalkeeper:goal …`` reaches the model as the command text, goalkeeper records the goal
    and proves it itself; the goal skill is offered to the model as ``goalkeeper:gk-goal-proof``."""
    install_plugin(case)
    rules = [{"name": "answer", "reply": text("On it.")}]
    run = case.run_claude(
        rules,
        prompt="/goalkeeper:goal `python -c pass` exits 0",
        max_turns=3,
        extra_args=USER_SOURCES,
    )
    assert run.returncode == 0, run.describe()
    first = "\n".join(strings(run.requests[0]["body"]))
    assert "<command-name>/goalkeeper:goal</command-name>" in first, first[-3000:]
    assert "Goal: `python -c pass` exits 0" in first
    assert "goalkeeper:gk-goal-proof" in first
    # goalkeeper read the command as /gk-goal, ran the check itself at the stop, and archived
    # the proven goal.
    journal = case.journal({"goal_detected", "verify_run", "goal_complete"})
    assert kinds(journal) == ["goal_detected", "verify_run", "goal_complete"], journal
    assert journal[0]["data"] == {"source": "command"}
    assert journal[1]["data"]["argv"] == ["python", "-c", "pass"]
    assert journal[1]["data"]["exit"] == 0
    (archived,) = (case.proj / ".agents" / "goal" / "archive").glob("*.md")
    assert "python -c pass" in archived.read_text("utf-8")
