"""Hook speed on every command-hook host: Claude Code, Codex CLI and Gemini CLI (issue 14).

Each host's hooks are installed by ``goalkeeper install <host>`` into a throwaway project, as a
user installs them, and each is timed as its host runs it: ``sh -c '<the command from the host's
file>'`` (``bash -c`` for Gemini; the files: ``.claude/settings.json``, ``.codex/hooks.json``,
``.gemini/settings.json``), the launcher finding goalkeeper on ``PATH`` in a tool install
(``launcher.tool_install``).

Per host (medians, ratios against ``python -c pass`` in the same run; the rounds interleave
every case of every host, so a noisy moment hurts them alike):
  warm end of turn       <= 1.3x   Stop (Claude Code, Codex) / AfterAgent (Gemini): continued
  warm shell tool call   <= 1.3x   PreToolUse Bash / BeforeTool run_shell_command: allowed
  cold first event       <= 6x     SessionStart with no engine (``GOALKEEPER_SERVER=off``)

Run: .venv/bin/python benchmarks/hosts.py [--reps 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import _bench
import launcher

BUDGETS = {"warm end of turn": 1.3, "warm shell tool call": 1.3, "cold first event": 6.0}
FINAL_TEXT = "Updated the runner and ran the tests.\n\n[PDCA] do"
SHELL = "pytest -q > report.txt 2>&1"
HOSTS = ("claude", "codex", "gemini")
HOOK_FILES = {
    "claude": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
}
END_OF_TURN = {"claude": "Stop", "codex": "Stop", "gemini": "AfterAgent"}
SHELL_EVENT = {"claude": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}
SHELL_TOOL = {"claude": "Bash", "codex": "Bash", "gemini": "run_shell_command"}
SHELLS = {"claude": "/bin/sh", "codex": "/bin/sh", "gemini": "/bin/bash"}
"""What each host runs a hook command with (Gemini CLI 0.61.0: ``bash -c``, its
``getShellConfiguration``; the command install writes for it relies on that)."""
CONTINUED = {"claude": '"block"', "codex": '"block"', "gemini": '"deny"'}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=20, help="measured rounds (default 20)")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--plan-lines", type=int, default=500)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args()


def installed_command(host: str, project: Path, env: dict[str, str]) -> str:
    """The hook command ``goalkeeper install <host>`` wrote into the project, for the event that
    ends a turn (every event of a host runs the same command)."""
    done = subprocess.run(
        ["goalkeeper", "install", host], cwd=project, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise _bench.BenchError(f"goalkeeper install {host} failed: {done.stderr[-500:]}")
    doc = json.loads((project / HOOK_FILES[host]).read_text(encoding="utf-8"))
    for group in doc["hooks"][END_OF_TURN[host]]:
        for handler in group.get("hooks", []):
            command = handler.get("command", "")
            if "goalkeeper" in command:
                return str(command)
    raise _bench.BenchError(f"no goalkeeper handler in {HOOK_FILES[host]}")


def payload(host: str, event: str, session: str, project: Path, **fields: object) -> bytes:
    """A hook input as ``host`` sends it (the fields goalkeeper reads; see tests/hosts/)."""
    data: dict[str, object] = {
        "session_id": session,
        "transcript_path": str(project / f"{host}-{session}.jsonl"),
        "cwd": str(project),
        "hook_event_name": event,
    }
    if host == "codex":
        data.update(model="gpt-5.5", permission_mode="default", turn_id="t-1")
    if host == "gemini":
        data["timestamp"] = "2026-12-02T03:00:00.000Z"
    data.update(fields)
    return json.dumps(data).encode()


def end_of_turn(host: str, session: str, project: Path) -> bytes:
    if host == "gemini":
        return payload(
            host, "AfterAgent", session, project, prompt="p", prompt_response=FINAL_TEXT,
            stop_hook_active=True,
        )  # fmt: skip
    return payload(
        host, "Stop", session, project, stop_hook_active=True, last_assistant_message=FINAL_TEXT
    )


def shell_call(host: str, session: str, project: Path) -> bytes:
    return payload(
        host, SHELL_EVENT[host], session, project, tool_name=SHELL_TOOL[host],
        tool_input={"command": SHELL}, tool_use_id="call-1",
    )  # fmt: skip


def case(
    argv: list[str],
    env: dict[str, str],
    project: Path,
    make: Callable[[int], bytes],
    expect: Callable[[bytes], bool],
) -> Callable[[], float]:
    counter = [0]

    def run() -> float:
        counter[0] += 1
        elapsed, out = _bench.time_process(argv, make(counter[0]), env, project)
        if not expect(out) or b"not installed" in out or b"could not" in out:
            raise _bench.BenchError(f"unexpected answer from {argv[-1][:40]}…: {out[:300]!r}")
        return elapsed

    return run


def run(args: argparse.Namespace) -> dict[str, object]:
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gk-hosts-")))
        python, bin_dir = launcher.tool_install(tmp)
        project = tmp / "project"
        project.mkdir()
        home = tmp / "home"
        home.mkdir()
        _bench.write_plan(project, args.plan_lines)
        path = f"{bin_dir}:{launcher.SYSTEM_PATH}"
        env = _bench.clean_env(project, PATH=path, HOME=str(home), **launcher.FIXED_PATH_ENV)
        for name in ("PYTHONPATH", "VIRTUAL_ENV", "CODEX_HOME", "GEMINI_CLI_HOME"):
            env.pop(name, None)
        env["GEMINI_PROJECT_DIR"] = str(project)
        off_env = {**env, "GOALKEEPER_SERVER": "off"}
        commands = {h: [SHELLS[h], "-c", installed_command(h, project, env)] for h in HOSTS}
        stack.enter_context(_bench.warm_engine(python, project, tmp / "engine.log", env))
        cases: dict[str, Callable[[], float]] = {
            "baseline: python -c pass": launcher.plain_case([python, "-c", "pass"], env, project)
        }
        for host, argv in commands.items():
            session = f"bench-{host}"
            for prime in (
                payload(host, "SessionStart", session, project, source="startup"),
                shell_call(host, session, project),
            ):
                _bench.time_process(argv, prime, env, project)  # the session exists, warm
            cases[f"{host}: warm end of turn"] = case(
                argv, env, project, lambda _, h=host, s=session: end_of_turn(h, s, project),
                lambda out, h=host: CONTINUED[h].encode() in out,
            )  # fmt: skip
            cases[f"{host}: warm shell tool call"] = case(
                argv, env, project, lambda _, h=host, s=session: shell_call(h, s, project),
                lambda out: b'"deny"' not in out,
            )  # fmt: skip
            cases[f"{host}: cold first event"] = case(
                argv, off_env, project,
                lambda n, h=host: payload(h, "SessionStart", f"cold-{h}-{n}", project,
                                          source="startup"),
                lambda out: out.startswith(b"{"),
            )  # fmt: skip
        samples = _bench.interleave(cases, args.reps, args.warmup, args.seed)
        _bench.check_no_fallback(python, project, env)
    rows = _bench.ratio_rows(samples, "baseline: python -c pass")
    budgets = _bench.ratio_budgets(
        rows, {f"{h}: {kind}": limit for h in HOSTS for kind, limit in BUDGETS.items()}
    )
    return {
        "benchmark": "hosts",
        "machine": _bench.machine(),
        "setup": {
            "install": "tool",
            "plan_lines": args.plan_lines,
            "reps": args.reps,
            "warmup": args.warmup,
            "loadavg": os.getloadavg(),
        },
        "results_ms": rows,
        "budgets": budgets,
    }


def print_report(data: dict[str, object]) -> None:
    m, setup = data["machine"], data["setup"]
    assert isinstance(m, dict) and isinstance(setup, dict)
    print(_bench.headline("Hooks on every host (sh -c, as goalkeeper install writes them)", m))
    print(
        f"install {setup['install']}, plan {setup['plan_lines']} lines, {setup['reps']} "
        f"interleaved rounds (+{setup['warmup']} warm-up), load {setup['loadavg']}\n"
    )
    _bench.print_ratio_table(data, "case")
    print()
    _bench.print_ratio_budgets(data)


def main() -> int:
    return _bench.main(parse_args, run, print_report)


if __name__ == "__main__":
    sys.exit(main())
