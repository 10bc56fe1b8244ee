"""The verify/repair loop (seed 004 §4) through the engine: a real GOAL.md in a temp project,
a FakeRunner deciding what each verification prints, a FakeClock."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import (
    Action,
    Activity,
    Advise,
    BeforeAgentStart,
    Close,
    Continue,
    Notify,
    Pause,
    Record,
    Settled,
    UserPrompt,
)
from goalkeeper.engine.ports import Completed
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.store.goalfile import load_goal
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock, FakeRunner

FAIL = "FAILED tests/test_calc.py::test_add - assert 3 == 4\n1 failed in {t}s"
FAIL_OTHER = "FAILED tests/test_calc.py::test_sub - assert 0 == 1\n1 failed in {t}s"


class Outputs:
    """What `pytest -q` prints next: a queue of (exit code, output) for the fake runner."""

    def __init__(self) -> None:
        self.queue: list[tuple[int | None, str]] = []
        self.runs = 0

    def __call__(self, argv: Sequence[str]) -> Completed:
        if not any(word.endswith("git") for word in argv):  # a verification (argv, no shell)
            self.runs += 1
            code, out = self.queue.pop(0) if self.queue else (0, "1 passed in 0.01s")
            return Completed(tuple(argv), code, out, timed_out=code is None)
        return Completed(tuple(argv), 1, "not a git repository")  # git, inference probes


@pytest.fixture
def outputs() -> Outputs:
    return Outputs()


@pytest.fixture
def sup(tmp_path: Path, outputs: Outputs) -> Supervisor:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(
        "def test_add():\n    assert add(1, 2) == 3\n\n"
        "def test_sub():\n    assert sub(1, 1) == 0\n",
        encoding="utf-8",
    )
    return Supervisor(
        tmp_path,
        # The review round a proof earns is tests/engine/test_review.py's.
        Config(no_plan="silent", lang="en", review="off"),
        host="test",
        capabilities=CLAUDE_CAPABILITIES,
        clock=FakeClock(),
        runner=FakeRunner(outputs),
    )


def say_goal(sup: Supervisor, text: str = "/gk-goal `pytest -q` passes") -> tuple[Action, ...]:
    return sup.handle([UserPrompt("s", text)]).actions


def settle(sup: Supervisor, text: str = "done") -> tuple[Action, ...]:
    return sup.handle([Settled("s", text, activity=Activity(tool_calls=1))]).actions


def kinds(actions: tuple[Action, ...]) -> list[str]:
    return [type(a).__name__ for a in actions if isinstance(a, Continue | Pause | Close)]


def text(actions: tuple[Action, ...], kind: type = Continue) -> str:
    return "\n".join(
        getattr(a, "text", getattr(a, "reason", getattr(a, "summary", "")))
        for a in actions
        if isinstance(a, kind)
    )


def tick_criteria(project: Path) -> None:
    path = project / ".agents" / "goal" / "GOAL.md"
    path.write_text(path.read_text(encoding="utf-8").replace("- [ ]", "- [x]"), encoding="utf-8")


def test_a_goal_stated_in_a_prompt_is_recorded_and_fed_back(sup: Supervisor) -> None:
    """The command records GOAL.md with its verify command and a criterion per command; the
    agent hears it at once and the user is told."""
    actions = say_goal(sup)
    doc = load_goal(sup.project)
    assert doc is not None and doc.goal is not None
    assert doc.goal.verify == ("pytest -q",)
    assert [c.text for c in doc.goal.criteria] == ["`pytest -q` exits 0"]
    advice = text(actions, Advise)
    assert "Goal recorded in .agents/goal/GOAL.md" in advice and "`pytest -q`" in advice
    assert "goal set" in text(actions, Notify)


def test_pass_first_time_closes_and_archives(sup: Supervisor, outputs: Outputs) -> None:
    """Verification passes and every criterion is ticked: closed, archived."""
    say_goal(sup)
    tick_criteria(sup.project)
    actions = settle(sup)
    assert kinds(actions) == ["Close"]
    assert "goal proven" in text(actions, Close)
    assert load_goal(sup.project) is None
    assert list((sup.project / ".agents" / "goal" / "archive").glob("*.md"))


def test_a_pass_closes_without_ticking_goalkeepers_own_criterion(sup: Supervisor) -> None:
    """With only the criterion goalkeeper wrote ("`pytest -q` exits 0"), the first pass closes:
    no continuation asks the agent to tick what goalkeeper just proved (seed 001)."""
    say_goal(sup)
    assert kinds(settle(sup)) == ["Close"]
    (archived,) = (sup.project / ".agents" / "goal" / "archive").glob("*.md")
    assert "- [x] `pytest -q` exits 0" in archived.read_text("utf-8")


def test_fail_then_fix_then_pass(sup: Supervisor, outputs: Outputs) -> None:
    """A failure sends the evidence back with [1/3] and spends one round; the next pass closes."""
    say_goal(sup)
    outputs.queue.append((1, FAIL.format(t="0.12")))
    first = settle(sup)
    assert kinds(first) == ["Continue"]
    assert text(first).startswith("[1/3] `pytest -q` failed (exit 1).")
    assert "FAILED tests/test_calc.py::test_add" in text(first)
    goal = load_goal(sup.project).goal  # type: ignore[union-attr]
    assert goal.attempts == 1 and goal.last_failure.signature
    tick_criteria(sup.project)
    assert kinds(settle(sup)) == ["Close"]


def test_the_same_failure_twice_blocks_without_spending_a_round(
    sup: Supervisor, outputs: Outputs
) -> None:
    """Same signature (different timing) → paused at once; the round count stays."""
    say_goal(sup)
    outputs.queue += [(1, FAIL.format(t="0.12")), (1, FAIL.format(t="0.97"))]
    settle(sup)
    second = settle(sup)
    assert kinds(second) == ["Pause"]
    assert "failed again with the same failure" in text(second, Pause)
    goal = load_goal(sup.project).goal  # type: ignore[union-attr]
    assert goal.status == "blocked" and goal.attempts == 1


def test_the_round_limit_blocks_and_resume_counts_on(
    sup: Supervisor,
    outputs: Outputs,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three different failures spend the rounds; the fourth pauses; resume adds rounds and
    the next failure is [4/6]."""
    say_goal(sup)
    outputs.queue += [(1, f"FAILED tests/test_calc.py::test_{i} - boom") for i in range(4)]
    for n in (1, 2, 3):
        assert text(settle(sup)).startswith(f"[{n}/3]")
    limited = settle(sup)
    assert kinds(limited) == ["Pause"] and "after 3 repair rounds" in text(limited, Pause)
    assert load_goal(sup.project).goal.status == "blocked"  # type: ignore[union-attr]
    from goalkeeper.cli.app import run

    monkeypatch.chdir(sup.project)
    assert run(["goal", "resume"]) == 0
    goal = load_goal(sup.project).goal  # type: ignore[union-attr]
    assert goal.status == "active" and goal.attempts == 3 and goal.rounds == 6
    outputs.queue.append((1, "FAILED tests/test_calc.py::test_new - boom"))
    assert text(settle(sup)).startswith("[4/6]")


def test_with_the_defaults_recovery_comes_twice_then_the_user(
    sup: Supervisor, outputs: Outputs
) -> None:
    """Seed 001 §6 with the default rounds: no progress → a recovery prompt at the 2nd and the
    3rd failure, then the user is told when the round limit pauses the goal."""
    say_goal(sup)
    outputs.queue += [(1, f"FAILED tests/test_calc.py::test_{i} - boom") for i in range(4)]
    ladder = []
    for stop in (1, 2, 3, 4):
        actions = settle(sup)
        if "No measurable progress" in text(actions):  # rides with the repair continuation
            ladder.append(("recovery", stop))
        if "after two recovery prompts" in text(actions, Notify):
            ladder.append(("user", stop))
        if kinds(actions) == ["Pause"]:
            ladder.append(("pause", stop))
    assert ladder == [("recovery", 2), ("recovery", 3), ("user", 4), ("pause", 4)]


def test_a_timeout_is_a_failure(sup: Supervisor, outputs: Outputs) -> None:
    """A verification that timed out counts as a failed round."""
    say_goal(sup)
    outputs.queue.append((None, "collecting ..."))
    actions = settle(sup)
    assert "timed out after" in text(actions)


def test_the_agents_honest_exit_pauses_and_is_recorded(sup: Supervisor, outputs: Outputs) -> None:
    """[GOAL] blocked: <reason> pauses without running anything or spending a round."""
    say_goal(sup)
    actions = settle(
        sup, "I cannot reach the payment sandbox.\n[GOAL] blocked: no sandbox credentials"
    )
    assert kinds(actions) == ["Pause"]
    goal = load_goal(sup.project).goal  # type: ignore[union-attr]
    assert goal.status == "blocked" and goal.blocked_reason == "no sandbox credentials"
    assert goal.attempts == 0 and outputs.runs == 0
    assert any("no sandbox credentials" in line for line in goal.progress_log)


@dataclass
class OriginalTests:
    """How the verify ends when goalkeeper runs it against the original tests (in a scratch
    copy of the work tree, so in another folder than the project)."""

    exit_code: int = 1
    output: str = FAIL.format(t="0.50")
    runs: list[Path] = field(default_factory=list)


def replaying(sup: Supervisor, original: OriginalTests) -> OriginalTests:
    """Give ``sup`` a runner that answers a replay (another cwd) with ``original``."""
    project, inner = sup.project, sup.runner

    class Runner:
        def run(self, argv: Sequence[str], *, cwd: Path, timeout_s: float) -> Completed:
            if Path(cwd) != project and not any(w.endswith("git") for w in argv):
                original.runs.append(Path(cwd))
                return Completed(tuple(argv), original.exit_code, original.output)
            return inner.run(argv, cwd=cwd, timeout_s=timeout_s)

    sup.runner = Runner()
    return original


def test_a_deleted_test_holds_the_pass_until_the_user_accepts_it(sup: Supervisor) -> None:
    """Tests deleted since the goal was set, and the original tests fail against the code: the
    agent is sent back once, then the loop pauses; a Progress Log line changes nothing; the
    user's `goal accept-tests` (a new baseline) lets the pass close."""
    original = replaying(sup, OriginalTests())
    say_goal(sup)
    tick_criteria(sup.project)
    (sup.project / "tests" / "test_calc.py").unlink()
    held = settle(sup)
    assert kinds(held) == ["Continue"] and len(original.runs) == 1
    assert "tests/test_calc.py: deleted" in text(held)
    assert "only with your changes to the tests" in text(held)
    assert original.runs[0] != sup.project and not original.runs[0].exists()  # a scratch copy
    path = sup.project / ".agents" / "goal" / "GOAL.md"
    path.write_text(
        path.read_text(encoding="utf-8") + "- test_calc.py removed: the module it tested is gone\n",
        encoding="utf-8",
    )
    again = settle(sup)
    assert kinds(again) == ["Pause"] and "goalkeeper goal accept-tests" in text(again, Pause)
    from goalkeeper.store.test_baseline import take_baseline

    with sup.store.transaction() as conn:  # what `goalkeeper goal accept-tests` records
        take_baseline(conn, load_goal(sup.project).goal.goal_id, sup.project, 0.0)  # type: ignore[union-attr]
    assert kinds(settle(sup)) == ["Close"]


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s.replace("    assert sub(1, 1) == 0\n", "    pass\n"),
        lambda s: "import pytest\n@pytest.mark.skip\n" + s,
        lambda s: s.replace("assert add(1, 2) == 3", "assert True"),
    ],
)
def test_weakened_tests_hold_the_pass(sup: Supervisor, change) -> None:  # type: ignore[no-untyped-def]
    """A removed assertion, a new skip marker, `assert True`: the changed file is named and the
    pass holds, because the original test fails against the code."""
    replaying(sup, OriginalTests())
    say_goal(sup)
    tick_criteria(sup.project)
    path = sup.project / "tests" / "test_calc.py"
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
    held = settle(sup)
    assert kinds(held) == ["Continue"] and "tests/test_calc.py: changed" in text(held)


def test_changed_tests_that_still_pass_as_they_were_prove_the_goal(sup: Supervisor) -> None:
    """The agent changed a test, but the original tests pass against its code too: proven, and
    the record says the protected tests were checked."""
    original = replaying(sup, OriginalTests(exit_code=0, output="2 passed in 0.01s"))
    say_goal(sup)
    tick_criteria(sup.project)
    path = sup.project / "tests" / "test_calc.py"
    path.write_text(path.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
    closed = sup.handle([Settled("s", "done", activity=Activity(tool_calls=1))])
    assert kinds(closed.actions) == ["Close"] and len(original.runs) == 1
    record = next(a for a in closed.actions if isinstance(a, Record) and a.kind == "goal_complete")
    protected = record.data["protected_tests"]
    assert isinstance(protected, dict)
    assert protected["changes"] == [{"path": "tests/test_calc.py", "kind": "modified"}]


def test_unchanged_tests_need_no_replay(sup: Supervisor) -> None:
    """Nothing protected changed: no second run."""
    original = replaying(sup, OriginalTests())
    say_goal(sup)
    tick_criteria(sup.project)
    assert kinds(settle(sup)) == ["Close"] and original.runs == []


def test_an_api_error_is_retried_with_backoff_then_blocks(sup: Supervisor) -> None:
    """Claude Code cannot schedule: the user is told when a retry would start (4 s doubling);
    after 10 retries the goal is blocked with a strategy-change prompt."""
    say_goal(sup)
    clock = sup.clock
    assert isinstance(clock, FakeClock)
    delays = []
    for _ in range(10):
        actions = sup.handle([Settled("s", "", error="overloaded")]).actions
        note = text(actions, Notify)
        delays.append(note.split("would start after ")[1].split(" s")[0])
        clock.advance(float(delays[-1]))
    assert delays == ["4", "8", "16", "32", "64", "128", "256", "512", "600", "600"]
    final = sup.handle([Settled("s", "", error="overloaded")]).actions
    assert "after 10 failed retries" in text(final, Pause)


def test_a_stop_failure_is_recorded_and_the_next_prompt_resumes_from_it(sup: Supervisor) -> None:
    """Claude Code's StopFailure answer reaches nobody: the error is kept, and the next prompt
    (the user's or `goalkeeper run`'s retry) tells the agent to resume, not start over; once."""
    say_goal(sup)
    failed = sup.handle([Settled("s", "API Error: 529", error="server_error")]).actions
    assert any(isinstance(a, Record) and a.kind == "goal_retry" for a in failed)
    nxt = sup.handle([UserPrompt("s", "continue"), BeforeAgentStart("s")])
    told = text(nxt.actions, Advise)
    assert "The previous run ended with an error (server_error)" in told
    assert "Resume from the last completed step" in told
    again = sup.handle([UserPrompt("s", "and now?"), BeforeAgentStart("s")])
    assert "ended with an error" not in text(again.actions, Advise)


def test_errors_inside_the_backoff_are_one_outage_not_ten_retries(sup: Supervisor) -> None:
    """Eleven StopFailures in a few seconds (seed001 audit D4): only the first counts, so the
    goal is not blocked and its "≈ 37 min" budget is not spent; after the delay one more
    counts."""
    say_goal(sup)
    clock = sup.clock
    assert isinstance(clock, FakeClock)
    for _ in range(11):
        sup.handle([Settled("s", "", error="rate_limit")])
        clock.advance(0.3)
    doc = load_goal(sup.project)
    assert doc is not None and doc.goal is not None
    assert doc.goal.status == "active" and doc.goal.retries == 1
    clock.advance(4.0)
    sup.handle([Settled("s", "", error="rate_limit")])
    again = load_goal(sup.project)
    assert again is not None and again.goal is not None and again.goal.retries == 2


def test_a_paused_goal_is_shown_at_the_next_prompt_and_resent_it_resumes(
    sup: Supervisor, outputs: Outputs
) -> None:
    """Paused after the same failure twice, the goal is not hidden: the next prompt's context
    says it is paused and why. Sending the same goal again resumes it from its last failure
    (seed 004 §4.4): the rounds used and the failure stay, nothing starts over."""
    same = (1, "FAILED tests/test_calc.py::test_add - assert -1 == 3")
    outputs.queue += [same, same]
    say_goal(sup)
    settle(sup)
    paused = settle(sup)
    assert kinds(paused) == ["Pause"]
    prompt = sup.handle([UserPrompt("s", "what does calc.py do?"), BeforeAgentStart("s")])
    assert "Goal paused" in text(prompt.actions, Advise)
    assert "same failure twice" in text(prompt.actions, Advise)
    resent = sup.handle([UserPrompt("s", "/gk-goal `pytest -q` passes"), BeforeAgentStart("s")])
    assert "resumes from where it stopped" in text(resent.actions, Advise)
    doc = load_goal(sup.project)
    assert doc is not None and doc.goal is not None
    assert doc.goal.status == "active" and doc.goal.attempts == 1
    assert doc.goal.last_failure.signature  # the failure it resumes from
    outputs.queue.append((1, "FAILED tests/test_calc.py::test_sub - assert 1 == 0"))
    assert "[2/3]" in text(settle(sup))


def test_a_goal_resumed_by_the_prompt_is_not_also_called_paused(
    sup: Supervisor, outputs: Outputs
) -> None:
    """The prompt that resumes a paused goal tells the run it resumes with N more rounds and
    shows the goal as active: never also "paused, do not report done" (seed 004 §4.4)."""
    same = (1, "FAILED tests/test_calc.py::test_add - assert -1 == 3")
    outputs.queue += [same, same]
    say_goal(sup)
    settle(sup)
    assert kinds(settle(sup)) == ["Pause"]
    resent = sup.handle([UserPrompt("s", "/gk-goal `pytest -q` passes"), BeforeAgentStart("s")])
    told = text(resent.actions, Advise)
    assert "with 2 more repair rounds" in told and "repair rounds used: 1 of 3" in told
    assert "Goal paused" not in told and "do not report the goal as done" not in told
    later = sup.handle([UserPrompt("s", "and the docs?"), BeforeAgentStart("s")])
    assert "repair rounds used: 1 of 3" in text(later.actions, Advise)


def test_prose_goal_infers_the_projects_test_command(tmp_path: Path) -> None:
    """ "my goal is that all tests pass" → the project's own test command."""
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    sup = Supervisor(
        tmp_path,
        Config(no_plan="silent", review="off"),
        host="test",
        capabilities=CLAUDE_CAPABILITIES,
        clock=FakeClock(),
        runner=FakeRunner(Outputs()),
    )
    sup.handle(
        [UserPrompt("s", "My goal is that all the tests pass for the billing module refactor.")]
    )
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal is not None
    assert doc.goal.verify and "pytest" in doc.goal.verify[0]


def test_an_active_goal_is_fed_back_before_each_run(sup: Supervisor) -> None:
    """Anchors: objective, verify command, criteria and rounds, every prompt."""
    say_goal(sup)
    actions = sup.handle([UserPrompt("s", "continue please"), BeforeAgentStart("s")]).actions
    assert "Goal (from .agents/goal/GOAL.md)" in text(actions, Advise)
    assert "repair rounds used: 0 of 3" in text(actions, Advise)


def test_a_failing_goal_is_one_more_closing_gate_in_the_same_single_message(
    sup: Supervisor, outputs: Outputs, tmp_path: Path
) -> None:
    """`[PDCA] complete` with an open key result and a failing goal: the agent gets one message
    that names both, not two competing continuations."""
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "calc.md").write_text(
        "## Objective\nA calculator people trust.\n\n"
        "## Key Results\n- [ ] KR: failing tests 1 → 0\n\n"
        "## User Story Map\n- [x] add numbers\n",
        encoding="utf-8",
    )
    say_goal(sup)
    outputs.queue.append((1, FAIL.format(t="0.02")))
    actions = settle(sup, "All done.\n\n[PDCA] complete")
    assert kinds(actions) == ["Continue"]
    message = text(actions)
    assert "failing tests 1 → 0" in message, message
    assert "[1/3] `pytest -q` failed (exit 1)" in message, message
    assert "FAILED tests/test_calc.py::test_add" in message, message


def test_on_a_host_that_can_ask_a_paused_goal_asks_and_continue_resumes_it(
    tmp_path: Path, outputs: Outputs
) -> None:
    """Pi can ask: the same failure twice pauses the goal and asks continue / back to the plan /
    stop (stop when nobody answers); "continue" makes the goal active again and continues the
    agent with the last failure; "plan" continues it towards the plan with the goal paused."""
    from goalkeeper.core.values import Ask, Choice

    (tmp_path / "tests").mkdir()
    sup = Supervisor(
        tmp_path,
        Config(no_plan="silent", lang="en", review="off"),
        host="test",
        capabilities=CLAUDE_CAPABILITIES | {"ask"},
        clock=FakeClock(),
        runner=FakeRunner(outputs),
    )
    say_goal(sup)
    outputs.queue += [(1, FAIL.format(t="0.12")), (1, FAIL.format(t="0.97"))]
    settle(sup)
    paused = settle(sup)
    asks = [a for a in paused if isinstance(a, Ask)]
    assert kinds(paused) == ["Pause"] and len(asks) == 1
    assert [answer for answer, _ in asks[0].options] == ["continue", "plan", "stop"]
    assert asks[0].default == "stop" and "2 more repair rounds" in asks[0].options[0][1]

    nobody = sup.handle([Choice("s", asks[0].key, None)]).actions
    assert kinds(nobody) == [] and load_goal(tmp_path).goal.status == "blocked"  # type: ignore[union-attr]

    back = sup.handle([Choice("s", asks[0].key, "plan")]).actions
    assert "go back to the plan" in text(back)
    assert load_goal(tmp_path).goal.status == "blocked"  # type: ignore[union-attr]

    resumed = sup.handle([Choice("s", asks[0].key, "continue")]).actions
    assert kinds(resumed) == ["Continue"]
    assert "FAILED tests/test_calc.py::test_add" in text(resumed)
    goal = load_goal(tmp_path).goal  # type: ignore[union-attr]
    assert goal.status == "active" and goal.attempts == 1 and goal.rounds == 3
    assert goal.progress_log[-1].endswith("resumed by the user; rounds 1 of 3")
    again = sup.handle([Choice("s", asks[0].key, "continue")]).actions  # not paused any more
    assert kinds(again) == []


# ---------------------------------------------------------------------------------------------
# A coarse goal is worked through a route (seed 001 decision 7, the delegation)
# ---------------------------------------------------------------------------------------------

COARSE = "/gk-goal rewrite the store, then port the CLI, then update the docs; `pytest -q` passes"


def workflow_records(sup: Supervisor) -> list[dict[str, object]]:
    from goalkeeper.store import journal

    entries = journal.recent(sup.store.connection(), 500, "s")
    return [e.data for e in entries if e.kind == "workflow"]


def test_a_coarse_goal_starts_idea_to_ship_at_the_next_stop(sup: Supervisor) -> None:
    """Claude Code: the goal arrives with the prompt, so its route starts at the first stop, as
    a continuation carrying the route's entry procedure and the goal as the request."""
    sup.handle([UserPrompt("s", COARSE), BeforeAgentStart("s")])
    goal = load_goal(sup.project).goal  # type: ignore[union-attr]
    assert goal.route == "idea-to-ship" and len(goal.criteria) >= 3

    stopped = settle(sup, "I looked around.")
    body = text(stopped)
    assert "Route: idea-to-ship" in body and "Phase: shaping" in body
    assert "User target/request:\n" + goal.objective in body
    assert "started · " in text(stopped, Notify)
    (record,) = workflow_records(sup)
    assert record["route"] == "idea-to-ship" and record["status"] == "active"

    settle(sup, "still shaping")
    assert len(workflow_records(sup)) == 1  # once per goal: never restarted


def test_a_coarse_goal_set_outside_the_conversation_starts_at_the_next_run(
    sup: Supervisor,
) -> None:
    """Pi or the CLI: GOAL.md already names the route when the agent's run begins."""
    sup.handle([UserPrompt("s", COARSE)])
    started = sup.handle([UserPrompt("s", "go on"), BeforeAgentStart("s")]).actions
    assert "Route: idea-to-ship" in text(started, Advise)
    assert [r["route"] for r in workflow_records(sup)] == ["idea-to-ship"]


def test_a_fine_goal_names_no_route_and_starts_none(sup: Supervisor) -> None:
    say_goal(sup)
    assert load_goal(sup.project).goal.route is None  # type: ignore[union-attr]
    sup.handle([UserPrompt("s", "go on"), BeforeAgentStart("s")])
    settle(sup)
    assert workflow_records(sup) == []


def test_on_a_host_that_can_ask_a_held_change_is_approved_or_kept_by_the_user(
    tmp_path: Path, outputs: Outputs
) -> None:
    """Pi can ask: an edited verify command is held (it never runs; the goal in force is
    verified and fails here) and the user is asked, keeping their goal by default; "approve"
    records the change, and the next stop runs it."""
    from goalkeeper.core.values import Ask, Choice

    (tmp_path / "tests").mkdir()
    sup = Supervisor(
        tmp_path,
        Config(no_plan="silent", lang="en", review="off"),
        host="test",
        capabilities=CLAUDE_CAPABILITIES | {"ask"},
        clock=FakeClock(),
        runner=FakeRunner(outputs),
    )
    say_goal(sup)
    path = tmp_path / ".agents" / "goal" / "GOAL.md"
    path.write_text(path.read_text("utf-8").replace("- pytest -q", "- pytest -q -x"), "utf-8")
    outputs.queue.append((1, FAIL.format(t="0.1")))
    held = settle(sup)
    asks = [a for a in held if isinstance(a, Ask)]
    ran = [c for c in sup.runner.calls if "pytest" in " ".join(c)]
    assert kinds(held) == ["Pause"] and outputs.runs == 1 and "-x" not in ran[0]
    assert len(asks) == 1 and asks[0].default == "keep"
    kept = sup.handle([Choice("s", asks[0].key, "keep")]).actions
    assert "verify: pytest -q" in text(kept) and outputs.runs == 1
    approved = sup.handle([Choice("s", asks[0].key, "approve")]).actions
    assert "approved" in text(approved, Notify)
    settle(sup)
    assert outputs.runs == 2 and "-x" in sup.runner.calls[-1]  # the approved command ran


def test_a_verify_that_ran_no_test_is_never_a_pass(sup: Supervisor, outputs: Outputs) -> None:
    """Exit 0 with a summary that says no test ran (all deselected, none found) fails the
    round: an emptied test run proves nothing."""
    say_goal(sup)
    tick_criteria(sup.project)
    outputs.queue.append((0, "3 deselected in 0.02s"))
    first = settle(sup)
    assert kinds(first) == ["Continue"]
    assert "failed (exit 0, but nothing shows that a test ran)" in text(first)


def test_a_pytest_verify_that_prints_no_summary_is_never_a_pass(
    sup: Supervisor, outputs: Outputs
) -> None:
    """pytest always prints its summary line; exit 0 without one is code that ended the run
    early (`os._exit(0)` at import) or something else answering as pytest: not a pass."""
    say_goal(sup)
    tick_criteria(sup.project)
    outputs.queue.append((0, ""))
    first = settle(sup)
    assert kinds(first) == ["Continue"]
    assert "nothing shows that a test ran" in text(first)


def test_a_coarse_goal_has_no_second_criterion_for_its_verify(tmp_path: Path) -> None:
    """Seed001 audit D6: the stage "make sure all tests pass" duplicated the verify criterion
    goalkeeper writes itself. The real stages stay, numbered, and the route is set."""
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    sup = Supervisor(
        tmp_path,
        Config(no_plan="silent", lang="en", review="off"),
        host="test",
        capabilities=CLAUDE_CAPABILITIES,
        clock=FakeClock(),
        runner=FakeRunner(Outputs()),
    )
    sup.handle(
        [
            UserPrompt(
                "s",
                "Goal: migrate the storage layer from SQLite to Postgres across all modules: "
                "first add a repository interface, then port the queries, then move the "
                "migrations, and finally make sure all tests pass.",
            )
        ]
    )
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal is not None
    texts = [c.text for c in doc.goal.criteria]
    assert doc.goal.route == "idea-to-ship" and doc.goal.verify
    assert texts[1:] == [
        "stage 1: add a repository interface",
        "stage 2: port the queries",
        "stage 3: move the migrations",
    ]


def test_a_stop_reads_goal_md_once(sup: Supervisor, monkeypatch: pytest.MonkeyPatch) -> None:
    """One Stop that verifies, logs the pass, ticks goalkeeper's own criterion and archives
    the goal reads GOAL.md once: the update and the archive use what the event already read
    (it read the file about five times before)."""
    import goalkeeper.store.safe_read as safe_read
    from goalkeeper.store.goalfile import _cache

    say_goal(sup)
    reads: list[str] = []
    real = safe_read.read_capped

    def counting(path: Path, *args: object, **kwargs: object) -> bytes:
        if Path(path).name == "GOAL.md":
            reads.append(str(path))
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(safe_read, "read_capped", counting)
    _cache.clear()  # as in a new hook process
    assert kinds(settle(sup)) == ["Close"]
    assert len(reads) == 1
