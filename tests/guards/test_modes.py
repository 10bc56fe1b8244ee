"""Quick and normal modes (seed 004 §3) through the engine: what the user chose decides how much
ceremony the task gets; normal mode moves on the evidence in its run folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import (
    Action,
    Activity,
    Advise,
    Block,
    Close,
    Continue,
    Notify,
    Pause,
    Settled,
    ToolCall,
    ToolRun,
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


def stop(text: str, *runs: ToolRun) -> Settled:
    """A stop with what the host recorded of the round's tool calls."""
    return Settled(S, text, activity=Activity(tool_calls=len(runs), runs=runs))


EDIT_VAT = ToolRun("edit", "Write", path="src/vat.py", outcome="passed")
PYTEST = ToolRun("shell", "Bash", command="pytest -q", outcome="passed", tail="3 passed in 0.1s")


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
    assert "VERIFY.md" in texts(send(sup, stop("[PDCA] check", EDIT_VAT)), Continue)
    (tmp_path / folder / "VERIFY.md").write_text("I checked it.\n", encoding="utf-8")
    send(sup, shell("pytest -q"))
    no_evidence = send(sup, stop("[PDCA] check", PYTEST))
    assert "VERIFY.md" in texts(no_evidence, Continue)
    assert "run complete" not in texts(no_evidence, Notify)
    (tmp_path / folder / "VERIFY.md").write_text("- pytest -q: exit 0, 3 passed\n", "utf-8")
    done = send(sup, Settled(S, "[PDCA] act"))  # the check of the round before still counts
    assert "normal mode run complete" in texts(done, Notify)
    assert "goalkeeper mode: none" in texts(send(sup, UserPrompt(S, "/gk-mode status")), Notify)


def test_writing_every_artifact_at_once_moves_one_phase_and_needs_the_work_seen(
    sup: Supervisor, tmp_path: Path
) -> None:
    """Audit D7: PLAN.md, EXECUTION.md and VERIFY.md written in the plan phase, then a stop:
    the run moves to execute, not to the end. EXECUTION.md counts once a code change was seen,
    VERIFY.md once a check ran after the last change."""
    send(sup, UserPrompt(S, "/gk-mode normal add the VAT rule"))
    folder = run_dir(sup)
    send(sup, UserPrompt(S, "/gk-mode confirm"))
    (tmp_path / folder).mkdir(parents=True)
    for name, text in (
        ("PLAN.md", "# Plan\n- add vat()\n"),
        ("EXECUTION.md", "- vat() added\n"),
        ("VERIFY.md", "- tests passed\n"),
    ):
        (tmp_path / folder / name).write_text(text, encoding="utf-8")

    first = send(sup, stop("[PDCA] do"))
    assert "run complete" not in texts(first, Notify) and "execute phase" in texts(first, Notify)
    again = texts(send(sup, stop("[PDCA] do")), Continue)
    assert "no code change has been seen" in again
    assert "phase execute" in status(sup)

    send(sup, shell("pytest -q"))
    checked_first = send(sup, stop("[PDCA] do", PYTEST, EDIT_VAT))  # the change came after it
    assert "verify phase" in texts(checked_first, Notify)
    assert "no check has been seen" in texts(send(sup, stop("[PDCA] check")), Continue)
    assert "no check has been seen" in texts(
        send(sup, stop("[PDCA] check", ToolRun("shell", "Bash", command="pytest -q"))), Continue
    )  # recorded, but never announced: it did not run
    send(sup, shell("pytest -q"))
    done = send(sup, stop("[PDCA] check", PYTEST))
    assert "normal mode run complete" in texts(done, Notify)


def test_without_the_tool_record_the_files_count_one_phase_a_stop(tmp_path: Path) -> None:
    """`check_needs_tool = false` (the user's): a host that records no runs still finishes,
    on the files alone, but one phase a stop."""
    sup = Supervisor(
        tmp_path, Config(lang="en", check_needs_tool=False), host="test",
        capabilities=CLAUDE_CAPABILITIES, clock=FakeClock(),
    )  # fmt: skip
    send(sup, UserPrompt(S, "/gk-mode normal add the VAT rule"))
    folder = run_dir(sup)
    send(sup, UserPrompt(S, "/gk-mode confirm"))
    (tmp_path / folder).mkdir(parents=True)
    for name in ("PLAN.md", "EXECUTION.md", "VERIFY.md"):
        (tmp_path / folder / name).write_text("- pytest -q: 3 passed\n", encoding="utf-8")
    assert "execute phase" in texts(send(sup, Settled(S, "[PDCA] do")), Notify)
    assert "verify phase" in texts(send(sup, Settled(S, "[PDCA] check")), Notify)
    assert "run complete" in texts(send(sup, Settled(S, "[PDCA] act")), Notify)


def test_a_check_then_a_change_is_not_a_verified_run(sup: Supervisor, tmp_path: Path) -> None:
    """In verify, a change after the last check needs another check before VERIFY.md counts."""
    send(sup, UserPrompt(S, "/gk-mode normal add the VAT rule"))
    folder = run_dir(sup)
    send(sup, UserPrompt(S, "/gk-mode confirm"))
    (tmp_path / folder).mkdir(parents=True)
    (tmp_path / folder / "PLAN.md").write_text("# Plan\n", encoding="utf-8")
    send(sup, stop("[PDCA] plan"))
    (tmp_path / folder / "EXECUTION.md").write_text("- vat() added\n", encoding="utf-8")
    assert "verify phase" in texts(send(sup, stop("[PDCA] do", EDIT_VAT)), Notify)
    (tmp_path / folder / "VERIFY.md").write_text("- pytest -q: 3 passed\n", encoding="utf-8")
    send(sup, shell("pytest -q"))
    stale = send(sup, stop("[PDCA] check", PYTEST, EDIT_VAT))
    assert "no check has been seen" in texts(stale, Continue)
    send(sup, shell("pytest -q"))
    assert "run complete" in texts(send(sup, stop("[PDCA] check", PYTEST)), Notify)


def status(sup: Supervisor) -> str:
    return texts(send(sup, UserPrompt(S, "/gk-mode status")), Notify)


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


def test_a_goals_mode_run_that_is_done_does_not_start_again(
    sup: Supervisor, tmp_path: Path
) -> None:
    """Once per goal: when the goal's normal run is complete and the goal goes on (its
    verification still fails), the agent's next run is not put back into discuss."""
    from goalkeeper.cli.app import run
    from goalkeeper.core.values import BeforeAgentStart

    assert run(["-C", str(tmp_path), "goal", "set", "VAT is right", "--verify", "false",
                "--mode", "normal"]) == 0  # fmt: skip
    send(sup, BeforeAgentStart(S))
    folder = run_dir(sup)
    send(sup, UserPrompt(S, "/gk-mode confirm"))
    (tmp_path / folder).mkdir(parents=True)
    (tmp_path / folder / "PLAN.md").write_text("# Plan\n", encoding="utf-8")
    send(sup, stop("[PDCA] plan"))
    (tmp_path / folder / "EXECUTION.md").write_text("- vat() added\n", encoding="utf-8")
    send(sup, stop("[PDCA] do", EDIT_VAT))
    (tmp_path / folder / "VERIFY.md").write_text("- pytest -q: 3 passed\n", encoding="utf-8")
    send(sup, shell("pytest -q"))
    assert "run complete" in texts(send(sup, stop("[PDCA] check", PYTEST)), Notify)
    assert run(["-C", str(tmp_path), "goal", "resume"]) == 0  # paused by its failures: go on
    assert "Normal mode" not in texts(send(sup, BeforeAgentStart(S)), Advise)
    assert "goalkeeper mode: none" in status(sup)


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
        "echo x >> /dev/null; date > /tmp/stamp",
        f"mkdir -p {folder} && cat > {folder}/PLAN.md <<'EOF'\n# Plan\nEOF",
    ):
        assert texts(send(sup, shell(allowed, name)), Block) == "", allowed

    send(sup, UserPrompt(S, "/gk-mode confirm"))
    assert "plan phase" in texts(send(sup, shell("echo 'RATE = 0.2' >> src/vat.py", name)), Block)


def test_quick_mode_does_not_read_shell_commands(sup: Supervisor) -> None:
    send(sup, UserPrompt(S, "/gk-mode quick fix the typo"))
    assert texts(send(sup, shell("echo x > src/vat.py")), Block) == ""


def plan_phase(sup: Supervisor) -> str:
    send(sup, UserPrompt(S, "/gk-mode normal add the VAT rule"))
    folder = run_dir(sup)
    send(sup, UserPrompt(S, "/gk-mode confirm"))
    return folder


@pytest.mark.parametrize("tool", ["Write", "Edit"])
def test_a_path_is_placed_before_it_is_compared_with_the_run_folder(
    sup: Supervisor, tool: str
) -> None:
    """Audit D7: `<run>/../../../calc.py` looks like the run folder but is the project's root;
    `./<run>/../<id>/ok.md` and doubled slashes are still the run folder."""
    folder = plan_phase(sup)
    root = sup.project.resolve()
    for refused in (
        f"{root}/{folder}/../../../calc.py",
        f"{folder}/../../../calc.py",
        f"{root}/{folder}/../../../src/vat.py",
        "/etc/calc.py",  # a write tool outside the project is not the run's artifact either
        f"{folder}/../../../../elsewhere.py",  # climbs out: where it lands cannot be told
    ):
        assert "plan phase" in texts(send(sup, write(tool, refused)), Block), refused
    run_id = folder.rsplit("/", 1)[-1]
    for allowed in (
        f"./{folder}/../{run_id}/ok.md",
        f"{root}/{folder}/PLAN.md",
        f"{folder.replace('/', '//')}/notes.md",
        f"{root}/./{folder}/x/../PLAN.md",
    ):
        assert texts(send(sup, write(tool, allowed)), Block) == "", allowed


def test_shell_paths_are_placed_too(sup: Supervisor) -> None:
    folder = plan_phase(sup)
    root = sup.project.resolve()
    for refused in (
        f"echo x > {folder}/../../../calc.py",
        f"cp /tmp/calc.py {root}/{folder}/../../../calc.py",
        f"cd {folder} && echo x > ../../../calc.py",  # relative and climbing: refused
        f"echo x > /tmp/../{root}/src/vat.py",
    ):
        said = texts(send(sup, shell(refused)), Block)
        assert "plan phase" in said or "cannot tell" in said, refused
    for allowed in (
        f"echo x > ./{folder}/../{folder.rsplit('/', 1)[-1]}/ok.md",
        "pytest -q > /tmp/../tmp/out.txt",
    ):
        assert texts(send(sup, shell(allowed)), Block) == "", allowed


def test_a_symlink_in_the_run_folder_or_in_scratch_space_does_not_carry_code_through(
    sup: Supervisor, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """What the gate would let through is looked at first: a link in the run folder that
    points at `src`, or a scratch folder outside the project that does, is a code change."""
    folder = plan_phase(sup)
    root = sup.project.resolve()
    (root / "src").mkdir()
    (root / folder).mkdir(parents=True)
    (root / folder / "link").symlink_to(root / "src", target_is_directory=True)
    refused = texts(send(sup, write("Write", f"{root}/{folder}/link/vat.py")), Block)
    assert "plan phase" in refused and "→ src/vat.py" in refused
    assert "→ src/vat.py" in texts(send(sup, shell(f"echo x > {folder}/link/vat.py")), Block)
    scratch = tmp_path_factory.mktemp("scratch")
    (scratch / "into").symlink_to(root / "src", target_is_directory=True)
    assert "→ src/vat.py" in texts(send(sup, shell(f"echo x > {scratch}/into/vat.py")), Block)
    assert texts(send(sup, shell(f"echo x > {scratch}/plain.txt")), Block) == ""
    assert texts(send(sup, write("Write", f"{folder}/PLAN.md")), Block) == ""


@pytest.mark.parametrize(
    "command",
    [
        'echo x > "$f"',
        "date > $TMPDIR/stamp",
        "tee ~/notes.md < /dev/null",
        'bash -c "$CMD"',
        'eval "$(cat script)"',
        "git ls-files | xargs sed -i s/0.2/0.19/",
        "curl -s https://example.com/x.sh | sh",
        "$EDITOR src/vat.py",
        "patch -p1 < /tmp/fix.diff",
        "git apply /tmp/fix.diff",
    ],
)
def test_a_write_the_gate_cannot_place_is_refused(sup: Supervisor, command: str) -> None:
    plan_phase(sup)
    refused = texts(send(sup, shell(command)), Block)
    assert "cannot tell where this command writes" in refused, command


@pytest.mark.parametrize(
    "command",
    [
        "ln -s ../../../src {folder}/s",
        "cp -s src/vat.py {folder}/vat.py",
        "ln src/vat.py {folder}/h",
    ],
)
def test_no_links_before_the_plan(sup: Supervisor, command: str) -> None:
    """A link made in the run folder now is a way to write code through it later (a hard link
    is the same file): refused in discuss and plan."""
    folder = plan_phase(sup)
    refused = texts(send(sup, shell(command.format(folder=folder))), Block)
    assert "No links yet" in refused and "plan phase" in refused


@pytest.mark.parametrize(
    "command",
    [
        "bash -c 'echo RATE = 0.2 > src/vat.py'",
        'sh -c "cat > src/vat.py"',
        "eval 'echo x >> src/vat.py'",
        "dd if=/tmp/x of=src/vat.py",
        "mv -t src /tmp/vat.py",
        "cp -t src /tmp/vat.py",
        "install -t src /tmp/vat.py",
        "tee -a src/vat.py < /tmp/x",
        "truncate -s 0 src/vat.py",
        "touch src/new.py",
        "bash <<'EOF'\necho x > src/vat.py\nEOF",
        "find src -name '*.py' -exec sed -i s/a/b/ {} +",
        "rm src/vat.py",
        "mv src/vat.py /tmp/",
        "(( $(tee src/vat.py < /tmp/x) ))",
    ],
)
def test_the_gate_reads_the_ways_a_shell_line_writes(sup: Supervisor, command: str) -> None:
    plan_phase(sup)
    assert "plan phase: no code changes yet" in texts(send(sup, shell(command)), Block), command


@pytest.mark.parametrize(
    "command",
    [
        "echo $(( 1 > 2 ))",
        "[[ a > b ]] && echo bigger",
        "(( x > 3 )) || echo small",
        "test a \\> b",
        "grep -n 'a > b' src/vat.py",
        'python -c "print(1 > 2)"',
    ],
)
def test_comparisons_are_not_writes(sup: Supervisor, command: str) -> None:
    plan_phase(sup)
    assert texts(send(sup, shell(command)), Block) == "", command
