"""Issue 22 §1 (second half): while GOAL.md holds a change the user has not accepted, the goal in
force is still verified at every stop and honest work proves it; nothing of the edit runs or
counts. Criteria the agent only *adds* are recorded with its reason (seed 001) and join the goal
in force; an added verify command is held and never run."""

from __future__ import annotations

import json

import pytest

from goalkeeper.cli.app import run
from goalkeeper.core.values import Action, Close, Continue, Notify
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.store.outcome import goal_status, read_run
from tests.engine import test_goal_held_work
from tests.engine.test_goal_held_work import closed, ran, said
from tests.engine.test_goal_loop import FAIL, Outputs, say_goal, settle

PASS = (0, "1 passed in 0.01s")
FAILS = (1, FAIL.format(t="0.1"))
README = "the README documents the --json flag"
sup = test_goal_held_work.sup  # the same project and engine as the held-goal tests


def edit(supervisor: Supervisor, *replacements: tuple[str, str], log: str = "") -> None:
    path = supervisor.project / ".agents" / "goal" / "GOAL.md"
    text = path.read_text("utf-8")
    for old, new in replacements:
        assert old in text
        text = text.replace(old, new, 1)
    path.write_text(text + (f"- {log}\n" if log else ""), "utf-8")


def journal_kinds(supervisor: Supervisor) -> list[str]:
    return [e.kind for e in read_run(supervisor.project, 0, None)]


def texts(actions: tuple[Action, ...], kind: type) -> str:
    return "\n".join(said(actions, kind))


def test_honest_work_proves_the_goal_while_a_weakened_verify_is_held(
    sup: tuple[Supervisor, Outputs],
) -> None:
    """verify: `true` with a reason is held; the approved `pytest -q` still runs at each stop:
    failing, the agent is sent back; passing after honest work, the goal is proven and the
    user hears the unapproved edit was not applied. `true` never runs."""
    supervisor, outputs = sup
    say_goal(supervisor)
    edit(supervisor, ("  - pytest -q", "  - true"), log="because the tests are flaky")
    outputs.queue += [FAILS, PASS]

    first = settle(supervisor)
    assert not closed(first) and len(said(first, Continue)) == 1
    assert "- verify: pytest -q" in texts(first, Notify)  # the user read the diff

    second = settle(supervisor)  # the agent did the work: the goal in force passes
    assert closed(second)
    assert "was not applied" in texts(second, Notify)
    assert ran(supervisor) == [("pytest", "-q")] * 2  # never the weakened `true`
    assert not (supervisor.project / ".agents" / "goal" / "GOAL.md").exists()  # archived
    assert goal_status(supervisor.project) == "none"  # the promise is closed as proven
    assert "goal_complete" in journal_kinds(supervisor)


def test_an_added_criterion_is_recorded_with_its_reason_and_must_be_met(
    sup: tuple[Supervisor, Outputs], capsys: pytest.CaptureFixture[str]
) -> None:
    """Adding a criterion (and nothing else) is stricter: not held, recorded in the journal
    with the agent's reason, the user told once, shown by `goalkeeper goal status` as part of
    the approved goal, and the proof waits for it; removing it again is a held change."""
    supervisor, outputs = sup
    say_goal(supervisor)
    edit(
        supervisor,
        ("- [ ] `pytest -q` exits 0", f"- [ ] `pytest -q` exits 0\n- [ ] {README}"),
        log="added a criterion because the user asked for README docs",
    )
    first = settle(supervisor)  # pytest passes, but the added criterion is open
    told = texts(first, Notify)
    assert "added acceptance criteria" in told and README in told
    assert "because the user asked for README docs" in told
    assert "was changed" not in told and not closed(first)  # recorded, not held
    back = texts(first, Continue)
    assert README in back and "waits for the user" not in back  # the proof must meet it
    entry = next(
        e for e in read_run(supervisor.project, 0, None) if e.kind == "goal_criteria_added"
    )
    assert entry.data == {
        "criteria": [README],
        "reason": "added a criterion because the user asked for README docs",
    }
    assert run(["-C", str(supervisor.project), "goal", "status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["approved"] is True and status["held"] is None
    assert README in [c["text"] for c in status["criteria"]]

    second = settle(supervisor)  # recorded once: no second notice
    assert "added acceptance criteria" not in texts(second, Notify)
    assert journal_kinds(supervisor).count("goal_criteria_added") == 1

    edit(supervisor, (f"\n- [ ] {README}", ""))  # dropping it now weakens the goal in force
    outputs.queue.append(FAILS)
    third = settle(supervisor)
    assert f"- criterion: {README}" in texts(third, Notify)
    assert "waits for the user" in texts(third, Continue)


def test_meeting_an_added_criterion_proves_the_goal(sup: tuple[Supervisor, Outputs]) -> None:
    """Control: the added criterion ticked and the verify passing, the goal is proven."""
    supervisor, _ = sup
    say_goal(supervisor)
    edit(supervisor, ("- [ ] `pytest -q` exits 0", f"- [ ] `pytest -q` exits 0\n- [x] {README}"))
    actions = settle(supervisor)
    assert closed(actions) and "added acceptance criteria" in texts(actions, Notify)


def test_an_added_verify_command_is_held_and_never_run(sup: tuple[Supervisor, Outputs]) -> None:
    """A stricter-looking check is still a command: held for the user, never run, with no
    criterion recorded; the goal in force keeps being verified and honest work proves it."""
    supervisor, outputs = sup
    say_goal(supervisor)
    edit(supervisor, ("  - pytest -q", "  - pytest -q\n  - touch pwned"), log="because safer")
    outputs.queue += [FAILS, PASS]
    first = settle(supervisor)
    assert "+ verify: touch pwned" in texts(first, Notify) and not closed(first)
    assert "goal_criteria_added" not in journal_kinds(supervisor)
    assert closed(settle(supervisor))
    assert ran(supervisor) == [("pytest", "-q")] * 2
    assert not (supervisor.project / "pwned").exists()


REPLACEMENT = """---
id: g-agents-own
status: active
objective: Polish the README wording
verify:
  - true
---
# Goal

## Objective
Polish the README wording

## Acceptance Criteria
- [x] the README reads well

## Progress Log
- replaced the goal because the tests are out of scope
"""


def replace_goal(supervisor: Supervisor) -> None:
    """The agent rewrites GOAL.md into another goal: its own id, objective, verify, criteria."""
    (supervisor.project / ".agents" / "goal" / "GOAL.md").write_text(REPLACEMENT, "utf-8")


def test_a_replaced_goal_keeps_the_users_goal_verified_and_worked_on(
    sup: tuple[Supervisor, Outputs], capsys: pytest.CaptureFixture[str]
) -> None:
    """GOAL.md rewritten into another goal is held like a weakened one: the user's `pytest -q`
    still runs at each stop. Failing, the agent is sent back with the user's goal restated;
    passing after honest work, the user's goal is proven and closed, while the replacement is
    left in GOAL.md, untouched and unrun, awaiting the user."""
    supervisor, outputs = sup
    say_goal(supervisor)
    replace_goal(supervisor)
    outputs.queue += [FAILS, PASS]

    first = settle(supervisor)
    back = said(first, Continue)
    assert len(back) == 1 and not closed(first), first
    assert "waits for the user" in back[0] and "verify: pytest -q" in back[0]
    assert "`pytest -q` passes" in back[0]  # the user's objective, restated
    assert "+ objective: Polish the README wording" in texts(first, Notify)  # the user sees it
    assert ran(supervisor) == [("pytest", "-q")]  # the goal in force was verified

    second = settle(supervisor)  # the agent did the work: the user's goal passes
    assert closed(second), second
    close = next(a.summary for a in second if isinstance(a, Close))
    assert "goal proven" in close and "archived" not in close
    waits = texts(second, Notify)
    assert "Polish the README wording" in waits and "goalkeeper goal approve" in waits
    assert ran(supervisor) == [("pytest", "-q")] * 2  # never the replacement's `true`
    assert (supervisor.project / ".agents" / "goal" / "GOAL.md").read_text("utf-8") == REPLACEMENT
    assert "goal_complete" in journal_kinds(supervisor)

    assert run(["-C", str(supervisor.project), "goal", "status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["approved"] is False and status["held"]["kind"] == "unapproved"
    third = settle(supervisor)  # the replacement is the user's to approve: nothing of it runs
    assert not closed(third) and not said(third, Continue)
    assert ran(supervisor) == [("pytest", "-q")] * 2
