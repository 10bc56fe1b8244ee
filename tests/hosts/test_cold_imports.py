"""What a session's first event imports when no engine runs yet (issue 13's cold budget).

The first event is answered in the hook's own process, so every module it imports is paid on
it: ``benchmarks/launcher.py`` measures the time, and this test pins the design that keeps it
low, so a new eager import shows up as a failing test rather than as a slower session start.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# Answers one SessionStart the way the hook command does (the client, no engine), then lists
# the modules the process holds.
_PROBE = """
import io, sys
from goalkeeper.hosts.hook_client import run_client
out = io.BytesIO()
run_client(["claude"], stdin=io.BytesIO(sys.stdin.buffer.read()), stdout=out)
sys.stdout.write(out.getvalue().decode() + "\\n" + " ".join(sorted(sys.modules)))
"""

NOT_ON_THE_FIRST_EVENT = (
    "dataclasses",  # values are msgspec Structs: a frozen dataclass costs ~0.5 ms to build
    "inspect",  # dataclasses and typing_extensions import it (~9 ms)
    "typing_extensions",
    "hashlib",  # OpenSSL; nothing is hashed at a session's start
    "goalkeeper.core.messages.zh",  # an English session loads no Chinese text
    "goalkeeper.guards.cadence_rules",  # the settle path's rules
    "goalkeeper.guards.cadence_close",
    "goalkeeper.guards.goal_repair",
    "goalkeeper.guards.todos_call",
    "goalkeeper.engine.inspect",  # facts are gathered only when a guard asks
    "goalkeeper.engine.apply",
    "goalkeeper.engine.commands",
    "goalkeeper.core.goals.detect",  # the goal detector: prompts only
    "goalkeeper.core.goals.verify",  # verify inference and output reading: goals at a settle
    "goalkeeper.core.cadence.gates",  # the closing gates: a settle's
    "goalkeeper.core.shell.line",  # reading command lines: a tool call's
    "goalkeeper.core.proof.protected",  # the kept tests: the first prompt's
)


def test_a_session_start_without_an_engine_imports_only_what_it_uses(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "plan").mkdir(parents=True)
    (project / "plan" / "task.md").write_text(
        "# Task\n\n## Objective\nShip the parser.\n\n## Key Results\n- [ ] KR: 0 → 1 tests pass\n"
    )
    payload = {
        "session_id": "cold-1",
        "transcript_path": str(tmp_path / "t.jsonl"),
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    env = {
        **os.environ,
        "GOALKEEPER_SERVER": "off",  # no engine: answered in this process, as a cold start is
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "HOME": str(tmp_path),
        "CLAUDE_PROJECT_DIR": str(project),
    }
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=project,
        env=env,
        timeout=60,
        check=True,
    )
    answer, modules = done.stdout.decode().rsplit("\n", 1)
    context = json.loads(answer)["hookSpecificOutput"]["additionalContext"]
    assert "goalkeeper keeps this task on its plan" in context  # a real answer, not the fallback
    assert "Ship the parser" in context  # the plan's anchors: the plan was read
    loaded = set(modules.split())
    assert [m for m in NOT_ON_THE_FIRST_EVENT if m in loaded] == []
