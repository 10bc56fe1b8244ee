"""Quick and normal modes (seed 004 §3) through the engine: what the user chose decides how much
ceremony the task gets; normal mode moves on the evidence in its run folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import (
    Action,
    Advise,
    Block,
    Close,
    Continue,
    Notify,
    Pause,
    Settled,
    ToolCall,
    UserPrompt,
)
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock

S = "s"
PLAN = """\
## Objective
Prices include the right VAT.

## Key Results
- [ ] KR: VAT cases covered 0 → 3

## User Story Map
- [ ] compute VAT
"""


@pytest.fixture
def sup(tmp_path: Path) -> Supervisor:
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "vat.md").write_text(PLAN, encoding="utf-8")
    return Supervisor(
        tmp_path, Config(lang="en"), host="test", capabilities=CLAUDE_CAPABILITIES,
        clock=FakeClock(),
    )  # fmt: skip


def send(sup: Supervisor, event: object) -> tuple[Action, ...]:
    return sup.handle([event]).actions  # type: ignore[list-item]


def texts(actions: tuple[Action, ...], kind: type) -> str:
    return "\n".join(
        str(getattr(a, "text", getattr(a, "reason", getattr(a, "summary", ""))))
        for a in actions
        if isinstance(a, kind)
    )


def write(name: str, path: str) -> ToolCall:
    return ToolCall(S, name, {"file_path": path, "content": "x"})


def run_dir(sup: Supervisor) -> str:
    row = sup.handle([UserPrompt(S, "/gk-mode status")]).session
    return str(row.guards["modes"]["run_dir"])


def test_no_mode_means_no_gate(sup: Supervisor) -> None:
    """Without a mode named by the user nothing changes: code may be written at once."""
    assert texts(send(sup, write("Write", "src/vat.py")), Block) == ""


def test_normal_mode_refuses_code_until_facts_and_plan_then_moves_on_evidence(
    sup: Supervisor, tmp_path: Path
) -> None:
    """normal: discuss refuses code and waits for the user; confirm → plan (code still refused,
    the plan itself may be written); PLAN.md → execute; EXECUTION.md → verify; VERIFY.md with a
    recorded check → done."""
    started = send(sup, UserPrompt(S, "/gk-mode normal add the VAT rule"))
    assert "discuss → plan → execute → verify" in texts(started, Notify)
    assert "Task: add the VAT rule" in texts(started, Advise)
    folder = run_dir(sup)
    assert folder.startswith(".agents/runs/") and "add-the-vat-rule" in folder

    refused = texts(send(sup, write("Edit", "src/vat.py")), Block)
    assert "normal mode, discuss phase: no code changes yet" in refused
    assert "/gk-mode confirm" in refused
    waiting = send(sup, Settled(S, "Which VAT rates apply?\n\n[PDCA] plan"))
    assert texts(waiting, Continue) == ""  # the stop is the user's: nothing continues it
    assert "waiting for you to confirm" in texts(waiting, Pause)

    assert "plan phase" in texts(send(sup, UserPrompt(S, "/gk-mode confirm")), Notify)
    assert "plan phase" in texts(send(sup, write("Write", "src/vat.py")), Block)
    assert texts(send(sup, write("Write", str(tmp_path / folder / "PLAN.md"))), Block) == ""

    asked = texts(send(sup, Settled(S, "[PDCA] plan")), Continue)
    assert f"{folder}/PLAN.md" in asked
    (tmp_path / folder).mkdir(parents=True)
    (tmp_path / folder / "PLAN.md").write_text("# Plan\n- add vat()\n", encoding="utf-8")
    moved = send(sup, Settled(S, "[PDCA] do"))
    assert "execute phase" in texts(moved, Notify) and "EXECUTION.md" in texts(moved, Continue)
    assert texts(send(sup, write("Write", "src/vat.py")), Block) == ""

    (tmp_path / folder / "EXECUTION.md").write_text("- vat() added\n", encoding="utf-8")
    assert "VERIFY.md" in texts(send(sup, Settled(S, "[PDCA] check")), Continue)
    (tmp_path / folder / "VERIFY.md").write_text("I checked it.\n", encoding="utf-8")
    assert "VERIFY.md" in texts(send(sup, Settled(S, "[PDCA] check")), Continue)  # no evidence
    (tmp_path / folder / "VERIFY.md").write_text("- pytest -q: exit 0, 3 passed\n", "utf-8")
    done = send(sup, Settled(S, "[PDCA] act"))
    assert "normal mode run complete" in texts(done, Notify)
    assert "goalkeeper mode: none" in texts(send(sup, UserPrompt(S, "/gk-mode status")), Notify)


def test_quick_mode_has_no_gates_and_closes_without_the_plans_gates(sup: Supervisor) -> None:
    """quick: code at once, and `[PDCA] complete` closes although the plan's KR is open."""
    send(sup, UserPrompt(S, "/gk-mode quick fix the typo in the VAT label"))
    assert texts(send(sup, write("Write", "src/vat.py")), Block) == ""
    closed = send(sup, Settled(S, "Fixed.\n\n[PDCA] complete"))
    assert "quick mode" in texts(closed, Close) and texts(closed, Continue) == ""


def test_confirm_without_a_waiting_run_and_usage(sup: Supervisor) -> None:
    assert "no normal-mode run is waiting" in texts(
        send(sup, UserPrompt(S, "/gk-mode confirm")), Notify
    )
    assert texts(send(sup, UserPrompt(S, "/gk-mode")), Notify).startswith("Usage: /gk-mode")


def test_a_goal_set_with_a_mode_starts_its_run_once(sup: Supervisor, tmp_path: Path) -> None:
    """The per-goal option: `goal set --mode normal` starts a normal run with the goal as the
    task at the agent's next run, once; `off` ends it for good for that goal."""
    from goalkeeper.cli.app import run
    from goalkeeper.core.values import BeforeAgentStart

    assert run(["-C", str(tmp_path), "goal", "set", "VAT is right", "--verify", "true",
                "--mode", "normal"]) == 0  # fmt: skip
    assert "mode: normal" in (tmp_path / ".agents" / "goal" / "GOAL.md").read_text("utf-8")
    first = send(sup, BeforeAgentStart(S))
    assert "Task: VAT is right" in texts(first, Advise)
    assert "no code changes yet" in texts(send(sup, write("Write", "src/vat.py")), Block)
    send(sup, UserPrompt(S, "/gk-mode off"))
    assert "Normal mode" not in texts(send(sup, BeforeAgentStart(S)), Advise)


def shell(command: str, name: str = "Bash") -> ToolCall:
    return ToolCall(S, name, {"command": command})


@pytest.mark.parametrize("name", ["Bash", "bash"])
def test_the_question_gate_also_reads_shell_commands(sup: Supervisor, name: str) -> None:
    """A refused Write is not a reason to write the same file with `cat >`: in discuss and plan
    a shell command that writes a project file is refused too; reading, running tests, scratch
    files and the run's own artifacts go through."""
    send(sup, UserPrompt(S, "/gk-mode normal add the VAT rule"))
    folder = run_dir(sup)
    refused = texts(send(sup, shell("cat > src/vat.py <<'EOF'\nRATE = 0.2\nEOF", name)), Block)
    assert "normal mode, discuss phase: no code changes yet" in refused and "src/vat.py" in refused
    assert "src/vat.py" in texts(send(sup, shell("sed -i 's/0.2/0.19/' src/vat.py", name)), Block)
    absolute = str(sup.project.resolve() / "src" / "vat.py")  # the project may live in /tmp
    assert absolute in texts(send(sup, shell(f"echo 'RATE = 0.2' > {absolute}", name)), Block)
    for allowed in (
        "grep -rn VAT src | head",
        "pytest -q 2>&1 | tail -5",
        "python -m pytest > /tmp/out.txt",
        "echo x >> /dev/null; date > $TMPDIR/stamp",
        f"mkdir -p {folder} && cat > {folder}/PLAN.md <<'EOF'\n# Plan\nEOF",
    ):
        assert texts(send(sup, shell(allowed, name)), Block) == "", allowed

    send(sup, UserPrompt(S, "/gk-mode confirm"))
    assert "plan phase" in texts(send(sup, shell("echo 'RATE = 0.2' >> src/vat.py", name)), Block)


def test_quick_mode_does_not_read_shell_commands(sup: Supervisor) -> None:
    send(sup, UserPrompt(S, "/gk-mode quick fix the typo"))
    assert texts(send(sup, shell("echo x > src/vat.py")), Block) == ""
