"""A session with something to prove, driven through the real engine with plain events: a goal
whose verify fails once (its output carries a hostile ``<script>``), a todo whose subject is
hostile markup and whose completion is refused once, then a passing verify that proves it."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from goalkeeper.config import Config
from goalkeeper.core.values import Activity, Settled, ToolCall, UserPrompt
from goalkeeper.engine.ports import Completed
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock, FakeRunner

HOSTILE = '<script>document.title="pwned"</script><img src=x onerror="document.title=1">'
FAILED = f"FAILED tests/test_calc.py::test_add {HOSTILE}\n1 failed in 0.20s"
PASSED = "2 passed in 0.10s"
SESSION = "5f0c2a9e-1d4b-4c3e-9a77-0123456789ab"


def run_session(project: Path, session: str = SESSION) -> Supervisor:
    """Drive ``session`` in ``project`` from a goal to its proof; the supervisor, closed."""
    (project / "tests").mkdir(exist_ok=True)
    (project / "tests" / "test_calc.py").write_text(
        "def test_add():\n    assert 1 + 2 == 3\n", encoding="utf-8"
    )
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    outputs = [(1, FAILED), (0, PASSED)]

    def answer(argv: Sequence[str]) -> Completed:
        if any(word.endswith("git") for word in argv):
            return Completed(tuple(argv), 1, "not a git repository")
        code, out = outputs.pop(0) if outputs else (0, PASSED)
        return Completed(tuple(argv), code, out)

    clock = FakeClock()
    sup = Supervisor(
        project,
        Config(no_plan="silent", lang="en"),
        host="claude",
        capabilities=CLAUDE_CAPABILITIES,
        clock=clock,
        runner=FakeRunner(answer),
    )
    try:
        sup.handle([UserPrompt(session, "/gk-goal `pytest -q` passes")])
        clock.advance(5)
        sup.handle([ToolCall(session, "todo", {"action": "create", "subject": HOSTILE})])
        clock.advance(5)
        claim = {"kind": "state", "evidence": [{"type": "file", "path": "nothing.py"}]}
        sup.handle(
            [
                ToolCall(
                    session,
                    "todo",
                    {
                        "action": "update",
                        "id": 1,
                        "status": "completed",
                        "metadata": {"evidence": claim, "gate": {"test": True}},
                    },
                )
            ]
        )
        clock.advance(5)
        sup.handle([Settled(session, "done", activity=Activity(tool_calls=1))])  # verify fails
        clock.advance(30)
        goal = project / ".agents" / "goal" / "GOAL.md"
        goal.write_text(goal.read_text(encoding="utf-8").replace("- [ ]", "- [x]"), "utf-8")
        sup.handle([Settled(session, "fixed", activity=Activity(tool_calls=2))])  # proven
    finally:
        sup.store.close()
    return sup
