"""Checked evidence (beyond the seed): ``judge_claims`` compares what completion evidence claims
with the files and re-run commands goalkeeper saw itself, and the todos guard holds declared
gates as duties (audit D2–D5)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from goalkeeper.config import Config
from goalkeeper.core.messages import Lang
from goalkeeper.core.todos.evidence import (
    PROJECT_FOLDER,
    Baseline,
    CommandClaim,
    FileClaim,
    make_baseline,
)
from goalkeeper.core.todos.tree import Task
from goalkeeper.core.values import (
    Block,
    CommandFact,
    Facts,
    FileFact,
    Inspect,
    Notify,
    Record,
    Reply,
    Settled,
    ToolCall,
    UserPrompt,
)
from goalkeeper.engine.inspect import gather_facts
from goalkeeper.engine.ports import SubprocessRunner
from goalkeeper.guards.spec import Context, Verdict
from goalkeeper.guards.todo_claims import Judgement, judge_claims
from goalkeeper.guards.todos import TodosGuard, TodosState
from goalkeeper.guards.todos_baselines import MAX_BASELINES
from goalkeeper.testing import context

NOW = 1_700_000_000.0
CREATED = NOW - 600.0
OLD = CREATED - 86_400.0
TASK = Task(3, "改 a", "in_progress", created_at=CREATED, updated_at=CREATED)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


BEFORE = make_baseline([("src/a.py", sha("x = 1\n")), ("old.py", sha("gone\n"))], (), True)


def ctx(lang: Lang = "en", **config: Any) -> Context:
    return context(lang=lang, now=NOW, config=Config(**config))


def fact(path: str, content: str | None = "x = 1\n", **fields: Any) -> FileFact:
    """A regular file inside the project, modified after the task was created."""
    values: dict[str, Any] = {
        "mtime": NOW,
        "rel": path,
        "digest": sha(content) if content else None,
    }
    values.update(fields)
    return FileFact(path, True, **values)


def judge_files(
    claims: tuple[FileClaim, ...],
    facts: tuple[FileFact, ...],
    lang: Lang = "en",
    baseline: Baseline | None = None,
) -> Judgement:
    return judge_claims(TASK, claims, (), Facts(files=facts), ctx(lang), baseline=baseline)


def judge_commands(
    claims: tuple[CommandClaim, ...],
    facts: tuple[CommandFact, ...],
    lang: Lang = "en",
    *,
    test_gate: bool = False,
) -> Judgement:
    return judge_claims(TASK, (), claims, Facts(commands=facts), ctx(lang), test_gate=test_gate)


# ---------------------------------------------------------------------------------------------
# File claims against the snapshot taken when the task was created
# ---------------------------------------------------------------------------------------------


def test_touch_is_not_an_edit() -> None:
    """A file whose content is what it was when the task was created is refused, however new
    its modification time (audit D5)."""
    judged = judge_files((FileClaim("src/a.py", "edit"),), (fact("src/a.py"),), baseline=BEFORE)
    assert judged.refusal == (
        "goalkeeper: the evidence says src/a.py was edited, but it has not changed since task #3 "
        "was created (its content is what it was then; a newer modification time is not an "
        "edit). Make the change, or correct the evidence."
    )
    assert judged.why == ("file", "src/a.py")
    assert judged.notes == ()


def test_touch_refusal_in_chinese() -> None:
    """The Chinese refusal names the path, the task and why."""
    judged = judge_files(
        (FileClaim("src/a.py", "edit"),), (fact("src/a.py"),), lang="zh", baseline=BEFORE
    )
    assert judged.refusal == (
        "goalkeeper: 证据说 src/a.py 已修改，但它自任务 #3 创建以来没有变化"
        "（内容与当时完全相同；更新的修改时间不等于改动）。先真正改动它，或改正证据。"
    )


def test_a_real_edit_is_verified_whatever_the_mtime() -> None:
    """Content that differs from the snapshot is an edit, even with an old modification time."""
    judged = judge_files(
        (FileClaim("src/a.py", "edit"),), (fact("src/a.py", "x = 2\n", mtime=OLD),), baseline=BEFORE
    )
    assert judged.refusal is None
    assert judged.notes == ({"file": "src/a.py", "status": "verified"},)
    assert judged.checked[0]["against"] == "snapshot"
    assert judged.checked[0]["digest"] == sha("x = 2\n")


def test_a_file_that_did_not_exist_then_is_written() -> None:
    """A complete snapshot without the file: it was written since the task was created."""
    judged = judge_files((FileClaim("new.py", "write"),), (fact("new.py"),), baseline=BEFORE)
    assert judged.refusal is None
    assert judged.notes == ({"file": "new.py", "status": "verified"},)


def test_a_file_outside_the_project_is_never_verified() -> None:
    """A path that resolves outside the project is refused, freshly touched or not (audit D5)."""
    outside = FileFact("/tmp/x.py", True, NOW, outside=True)
    judged = judge_files((FileClaim("/tmp/x.py", "edit"),), (outside,), baseline=BEFORE)
    assert judged.refusal == (
        "goalkeeper: the evidence says /tmp/x.py was edited, but it is outside the project, where "
        "goalkeeper checks nothing. Name the files you changed inside the project, or correct the "
        "evidence."
    )


def test_a_folder_is_not_a_file() -> None:
    """A claim naming a folder is refused: the files in it are the evidence."""
    folder = FileFact("src", True, NOW, rel="src", kind="folder")
    judged = judge_files((FileClaim("src", "edit"),), (folder,), baseline=BEFORE)
    assert judged.refusal is not None
    assert "it is a folder" in judged.refusal


def test_a_skipped_folder_falls_back_to_git() -> None:
    """A file in a folder the snapshot did not read is judged by git and mtime: a changed one is
    accepted but said unverified."""
    partial = make_baseline([("a.py", sha("a"))], ("node_modules",), True)
    judged = judge_files(
        (FileClaim("node_modules/x.js", "edit"),),
        (fact("node_modules/x.js", git_changed=True),),
        baseline=partial,
    )
    assert judged.refusal is None
    (note,) = judged.notes
    assert note["status"] == "unverified"
    assert "no snapshot of this file" in note["reason"]


# ---------------------------------------------------------------------------------------------
# File claims without a snapshot: git's HEAD and the modification time
# ---------------------------------------------------------------------------------------------


def test_without_a_snapshot_a_file_git_shows_unchanged_is_refused() -> None:
    """A touched file whose content is HEAD's is refused (audit D5)."""
    judged = judge_files((FileClaim("src/a.py", "edit"),), (fact("src/a.py", git_changed=False),))
    assert judged.refusal is not None
    assert "(its content is what git's HEAD has)" in judged.refusal


def test_edit_of_an_old_file_git_shows_unchanged_is_refused() -> None:
    """An edit claim on a file older than the task, which git shows unchanged, is refused."""
    judged = judge_files(
        (FileClaim("src/a.py", "edit"),), (fact("src/a.py", mtime=OLD, git_changed=False),)
    )
    assert judged.refusal == (
        "goalkeeper: the evidence says src/a.py was edited, but it has not changed since task #3 "
        "was created (last modified before the task was created, and git shows no change). "
        "Make the change, or correct the evidence."
    )
    assert judged.notes == ()


def test_unchanged_file_refusal_in_chinese() -> None:
    """The Chinese refusal names the path and the task too."""
    judged = judge_files(
        (FileClaim("src/a.py", "edit"),),
        (fact("src/a.py", mtime=OLD, git_changed=False),),
        lang="zh",
    )
    assert judged.refusal == (
        "goalkeeper: 证据说 src/a.py 已修改，但它自任务 #3 创建以来没有变化"
        "（最后修改于任务创建之前，git 也未显示改动）。先真正改动它，或改正证据。"
    )


@pytest.mark.parametrize("git_changed", [None, True])
def test_an_old_file_is_refused_on_its_mtime(git_changed: bool | None) -> None:
    """Without a snapshot, a file last modified before the task was created is refused, even if
    it differs from HEAD (it differed before the task began)."""
    judged = judge_files(
        (FileClaim("a.py", "write"),), (fact("a.py", mtime=OLD, git_changed=git_changed),)
    )
    assert judged.refusal is not None
    assert "a.py was written" in judged.refusal
    assert "(last modified before the task was created)" in judged.refusal


@pytest.mark.parametrize("git_changed", [None, True])
def test_a_newer_mtime_without_a_snapshot_is_only_unverified(git_changed: bool | None) -> None:
    """A change git and mtime cannot tell from a touch is accepted, said unverified, never
    verified."""
    judged = judge_files((FileClaim("a.py", "edit"),), (fact("a.py", git_changed=git_changed),))
    assert judged.refusal is None
    assert [n["status"] for n in judged.notes] == ["unverified"]


@pytest.mark.parametrize("op", ["write", "edit", None])
def test_missing_file_for_write_or_edit_is_refused(op: str | None) -> None:
    """A written or edited file (no op means edit) must exist."""
    gone = FileFact("gone.py", False, rel="gone.py")
    judged = judge_files((FileClaim("gone.py", op),), (gone,), baseline=BEFORE)
    assert judged.refusal is not None
    assert "gone.py" in judged.refusal
    assert "there is no such file" in judged.refusal
    assert judged.notes == ()


def test_delete_of_an_existing_file_is_refused() -> None:
    """A delete claim on a file that still exists is refused."""
    judged = judge_files((FileClaim("old.py", "delete"),), (fact("old.py", git_changed=True),))
    assert judged.refusal == (
        "goalkeeper: the evidence says old.py was deleted, but it still exists. "
        "Delete it, or correct the evidence."
    )


def test_delete_of_a_file_that_was_there_is_verified() -> None:
    """A file the snapshot had and that is gone now was deleted."""
    gone = FileFact("old.py", False, rel="old.py")
    judged = judge_files((FileClaim("old.py", "delete"),), (gone,), baseline=BEFORE)
    assert judged.refusal is None
    assert judged.notes == ({"file": "old.py", "status": "verified"},)


def test_delete_of_a_file_that_never_was_is_refused() -> None:
    """Deleting a file that did not exist when the task was created is no work done."""
    never = FileFact("never.py", False, rel="never.py")
    judged = judge_files((FileClaim("never.py", "delete"),), (never,), baseline=BEFORE)
    assert judged.refusal == (
        "goalkeeper: the evidence says never.py was deleted, but there was no such file when "
        "task #3 was created. Correct the evidence."
    )


def test_delete_without_a_snapshot_trusts_git_only() -> None:
    """Without a snapshot, a gone file HEAD has is verified; one HEAD lacks is unverified."""
    in_head = judge_files(
        (FileClaim("a.py", "delete"),), (FileFact("a.py", False, git_changed=True),)
    )
    assert in_head.notes == ({"file": "a.py", "status": "verified"},)
    unknown = judge_files((FileClaim("b.py", "delete"),), (FileFact("b.py", False),))
    assert [n["status"] for n in unknown.notes] == ["unverified"]


def test_claim_without_a_fact_is_left_unverified() -> None:
    """A claimed file goalkeeper did not look at is neither refused nor verified."""
    judged = judge_files((FileClaim("elsewhere.py", "edit"),), ())
    assert (judged.refusal, judged.notes) == (None, ())
    assert judged.checked[0]["status"] == "unverified"


def test_first_false_file_claim_is_reported() -> None:
    """Claims are judged in order; the first false one is the refusal."""
    judged = judge_files(
        (FileClaim("src/a.py", "edit"), FileClaim("gone.py", "edit"), FileClaim("x", "delete")),
        (
            fact("src/a.py", "x = 9\n"),
            FileFact("gone.py", False, rel="gone.py"),
            fact("x"),
        ),
        baseline=BEFORE,
    )
    assert judged.refusal is not None
    assert "gone.py" in judged.refusal
    assert judged.notes == ({"file": "src/a.py", "status": "verified"},)


def test_real_files_through_gather_facts(tmp_path: Path) -> None:
    """The snapshot and the facts gathered from disk: a touched file is refused, an edited one
    and a new one are verified, and a file reached through a symlink out of the project is
    outside."""
    (tmp_path / "same.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "edited.py").write_text("x = 1\n", encoding="utf-8")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.py"
    outside.write_text("y\n", encoding="utf-8")
    (tmp_path / "link.py").symlink_to(outside)
    (tmp_path / "loop.py").symlink_to(tmp_path / "loop.py")
    runner = SubprocessRunner()
    snap = gather_facts(Inspect(files=(PROJECT_FOLDER,)), tmp_path, Config(), runner)
    (folder,) = snap.files
    assert folder.complete and {rel for rel, _ in folder.entries} == {"same.py", "edited.py"}
    baseline = make_baseline(folder.entries, folder.skipped, folder.complete)
    os.utime(tmp_path / "same.py", (NOW + 5, NOW + 5))  # touch
    (tmp_path / "edited.py").write_text("x = 2\n", encoding="utf-8")
    (tmp_path / "new.py").write_text("z\n", encoding="utf-8")
    paths = ("same.py", "edited.py", "new.py", "link.py", "loop.py")
    facts = gather_facts(Inspect(files=paths), tmp_path, Config(), runner)
    task = replace(TASK, created_at=NOW)

    def verdict(path: str) -> Judgement:
        claim = (FileClaim(path, "edit"),)
        return judge_claims(task, claim, (), facts, ctx(), baseline=baseline)

    assert verdict("same.py").refusal is not None
    assert verdict("edited.py").notes == ({"file": "edited.py", "status": "verified"},)
    assert verdict("new.py").notes == ({"file": "new.py", "status": "verified"},)
    for unreadable in ("link.py", "loop.py"):  # out of the project; a loop resolves nowhere
        refusal = verdict(unreadable).refusal
        assert refusal is not None and "outside the project" in refusal


# ---------------------------------------------------------------------------------------------
# Command claims
# ---------------------------------------------------------------------------------------------

PASSED = "..\n2 passed in 0.05s\n"


def test_command_whose_real_exit_differs_is_refused_with_its_output() -> None:
    """A test command claimed to exit 0 that really exits 1 is refused with the real output."""
    judged = judge_commands(
        (CommandClaim("pytest -q", 0),),
        (CommandFact("pytest -q", True, 1, "FAILED tests/test_a.py::test_x\n1 failed in 0.1s"),),
    )
    assert judged.refusal == (
        "goalkeeper: the evidence says `pytest -q` exited 0, but goalkeeper ran it in the project "
        "folder and it exited 1. Last output:\nFAILED tests/test_a.py::test_x\n1 failed in 0.1s"
    )
    assert judged.why == ("test_failed", "exit 1")
    assert judged.notes == ()


def test_command_mismatch_in_chinese() -> None:
    """The Chinese refusal carries the claimed and real exit codes and the output tail."""
    judged = judge_commands(
        (CommandClaim("npm test", 0),), (CommandFact("npm test", True, 2, "boom"),), lang="zh"
    )
    assert judged.refusal == (
        "goalkeeper: 证据说 `npm test` 的 exit 是 0，但 goalkeeper 在项目目录里重跑后 exit 是 2。"
        "输出末尾：\nboom"
    )


def test_missing_claimed_exit_counts_as_zero() -> None:
    """A command claimed without an exit code is held to exit 0."""
    judged = judge_commands(
        (CommandClaim("make test", None),), (CommandFact("make test", True, 2, "x"),)
    )
    assert judged.refusal is not None
    assert "exited 0" in judged.refusal
    assert "exited 2" in judged.refusal


def test_output_tail_in_the_refusal_is_bounded() -> None:
    """Only the end of a long output is quoted."""
    tail = "a" * 5000 + "THE-END"
    judged = judge_commands((CommandClaim("pytest", 0),), (CommandFact("pytest", True, 1, tail),))
    assert judged.refusal is not None
    assert judged.refusal.endswith("THE-END")
    assert "a" * 1500 not in judged.refusal


def test_timeout_is_a_failure() -> None:
    """A re-run that timed out refutes the claim."""
    judged = judge_commands(
        (CommandClaim("pytest", 0),),
        (CommandFact("pytest", True, None, "collecting ...", timed_out=True),),
    )
    assert judged.refusal is not None
    assert "and it timed out" in judged.refusal
    assert "collecting ..." in judged.refusal
    assert judged.why == ("test_failed", "timed out")


def test_timeout_in_chinese() -> None:
    """The Chinese refusal names the timeout."""
    judged = judge_commands(
        (CommandClaim("pytest", 0),),
        (CommandFact("pytest", True, None, "", timed_out=True),),
        lang="zh",
    )
    assert judged.refusal is not None
    assert "重跑后超时了" in judged.refusal


def test_a_command_not_re_run_is_unverified_without_a_test_gate() -> None:
    """Without a test gate, a command goalkeeper may not run stays a claim, noted unverified."""
    judged = judge_commands(
        (CommandClaim("./deploy.sh", 0),), (CommandFact("./deploy.sh", allowed=False),)
    )
    assert judged.refusal is None
    reason = "not a command goalkeeper may re-run (approved: -)"
    assert judged.notes == ({"cmd": "./deploy.sh", "status": "unverified", "reason": reason},)


def test_a_command_confirmed_by_the_rerun_is_verified_with_its_tests() -> None:
    """A re-run that confirms the claimed exit code is verified, with the tests it ran."""
    judged = judge_commands(
        (CommandClaim("pytest", 0),),
        (CommandFact("pytest", True, 0, PASSED, argv=("pytest",), seconds=0.5),),
        test_gate=True,
    )
    assert judged.refusal is None
    assert judged.notes == ({"cmd": "pytest", "status": "verified", "exit": 0, "tests": 2},)
    (seen,) = judged.checked
    assert seen["argv"] == ["pytest"] and seen["seconds"] == 0.5
    assert seen["output_sha256"] == sha(PASSED)
    assert seen["tests"]["passed"] == 2


def test_a_confirmed_failure_claim_is_verified() -> None:
    """A claim of exit 1 that the re-run confirms is true, so it is verified, not refused."""
    judged = judge_commands(
        (CommandClaim("pytest", 1),), (CommandFact("pytest", True, 1, "1 failed in 0.1s"),)
    )
    assert judged.refusal is None
    assert judged.notes == ({"cmd": "pytest", "status": "verified", "exit": 1, "tests": 0},)


def test_mixed_commands_keep_their_notes() -> None:
    """Unverified and verified commands are both noted, in claim order."""
    judged = judge_commands(
        (CommandClaim("x", 0), CommandClaim("pytest", 0), CommandClaim("unseen", 0)),
        (CommandFact("x", allowed=False), CommandFact("pytest", True, 0, PASSED)),
        test_gate=True,
    )
    assert judged.refusal is None
    assert [n["status"] for n in judged.notes] == ["unverified", "verified"]


# ---------------------------------------------------------------------------------------------
# A test gate needs goalkeeper's own run of at least one test (audit D2, D3)
# ---------------------------------------------------------------------------------------------

APPROVED = ("pytest", "python -m pytest")


@pytest.mark.parametrize(
    ("cmd", "refusal", "detail"),
    [
        ("./run_tests.sh", "not_approved", "`pytest`, `python -m pytest`"),
        ("pytest -q tests/test_fail.py || true", "shell", ""),
        ("pytest --version", "argument", "--version"),
        ("pytest --collect-only -q", "argument", "--collect-only"),
    ],
)
def test_a_command_goalkeeper_will_not_run_fails_the_test_gate(
    cmd: str, refusal: str, detail: str
) -> None:
    """Refused, naming the commands goalkeeper would run: never accepted as unverified."""
    judged = judge_commands(
        (CommandClaim(cmd, 0),),
        (CommandFact(cmd, False, refusal=refusal, detail=detail, approved=APPROVED),),
        test_gate=True,
    )
    assert judged.refusal is not None
    assert judged.refusal.startswith(
        "goalkeeper: task #3 declares a test gate, which needs a test run goalkeeper makes itself,"
    )
    assert f"will not re-run `{cmd}`" in judged.refusal
    assert "(`pytest`, `python -m pytest`)" in judged.refusal
    assert judged.why == ("not_rerun", cmd)


def test_with_no_approved_command_the_refusal_says_how_to_get_one() -> None:
    """With nothing approved, the refusal says the user sets and allows a test command."""
    judged = judge_commands(
        (CommandClaim("npm test", 0),),
        (CommandFact("npm test", False, refusal="not_approved", detail="-"),),
        test_gate=True,
    )
    assert judged.refusal is not None
    assert "none is approved for this project yet" in judged.refusal
    assert "goalkeeper allow" in judged.refusal


@pytest.mark.parametrize(
    ("output", "summary"),
    [
        ("\nno tests ran in 0.01s\n", "no tests ran"),
        ("\n2 deselected in 0.01s\n", "2 deselected"),
        ("a::b\n\n2 tests collected in 0.01s\n", "2 tests collected"),
        ("sx\n1 skipped, 1 xfailed in 0.02s\n", "1 skipped, 1 xfailed"),
        ("Ran 0 tests in 0.000s\n\nOK\n", "Ran 0 tests in 0.000s OK"),
    ],
)
def test_a_run_that_executed_no_test_fails_the_test_gate(output: str, summary: str) -> None:
    """Exit 0 is not enough: the summary must show a test that ran and passed."""
    judged = judge_commands(
        (CommandClaim("pytest -q", 0),),
        (CommandFact("pytest -q", True, 0, output),),
        test_gate=True,
    )
    assert judged.refusal == (
        "goalkeeper: task #3 declares a test gate; goalkeeper re-ran `pytest -q` and it exited 0 "
        f"but ran no tests ({summary}). A test gate needs a run that executes at least one test: "
        "select tests that exist, or write them."
    )
    assert judged.why == ("no_tests", "pytest -q")


def test_a_quiet_pytest_run_proves_the_test_gate() -> None:
    """`pytest -qq` prints its progress and no summary line: a run that reached 100% with
    passing marks is a test run (an honest agent was refused "no test summary")."""
    judged = judge_commands(
        (CommandClaim("pytest -qq", 0),),
        (CommandFact("pytest -qq", True, 0, "..s                     [100%]\n"),),
        test_gate=True,
    )
    assert judged.refusal is None
    assert judged.notes == ({"cmd": "pytest -qq", "status": "verified", "exit": 0, "tests": 2},)


def test_output_without_a_summary_fails_the_test_gate() -> None:
    """Output goalkeeper cannot read as a test summary shows no test ran."""
    judged = judge_commands(
        (CommandClaim("pytest -qq", 0),),
        (CommandFact("pytest -qq", True, 0, "..\n"),),
        test_gate=True,
    )
    assert judged.refusal is not None
    assert "its output has no test summary goalkeeper can read" in judged.refusal
    assert judged.refusal.endswith("Last output:\n..\n")
    assert judged.why == ("no_summary", "pytest -qq")


def test_a_gated_command_goalkeeper_could_not_run_fails_closed() -> None:
    """No fact for the claimed run (goalkeeper could not gather it): the gate is not met."""
    judged = judge_commands((CommandClaim("pytest", 0),), (), test_gate=True)
    assert judged.refusal is not None
    assert "could not re-run `pytest` this time" in judged.refusal


def test_one_proving_run_is_enough() -> None:
    """An approved run with passing tests meets the gate beside a claim goalkeeper did not run."""
    judged = judge_commands(
        (CommandClaim("./lint.sh", 0), CommandClaim("pytest -q", 0)),
        (
            CommandFact("./lint.sh", False, refusal="not_approved", detail="-"),
            CommandFact("pytest -q", True, 0, PASSED),
        ),
        test_gate=True,
    )
    assert judged.refusal is None


def test_file_refusal_comes_before_command_checks() -> None:
    """A false file claim is the refusal even when a command claim is also false."""
    judged = judge_claims(
        TASK,
        (FileClaim("gone.py", "edit"),),
        (CommandClaim("pytest", 0),),
        Facts(
            files=(FileFact("gone.py", False, rel="gone.py"),),
            commands=(CommandFact("pytest", True, 1, "x"),),
        ),
        ctx(),
    )
    assert judged.refusal is not None
    assert "gone.py" in judged.refusal
    assert judged.notes == ()


# ---------------------------------------------------------------------------------------------
# The todos guard: declared gates are duties
# ---------------------------------------------------------------------------------------------

GUARD = TodosGuard()


class Tool:
    """The todos guard alone, answering its requests for facts the way a test decides."""

    def __init__(self, context: Context, facts: Facts | None = None) -> None:
        self.ctx = context
        self.facts = facts or Facts()
        self.state: TodosState = GUARD.initial_state()
        self.actions: tuple[Any, ...] = ()

    def send(self, event: Any) -> tuple[Any, ...]:
        verdict: Verdict[TodosState] = GUARD.on_event(event, self.state, self.ctx)
        if any(isinstance(a, Inspect) for a in verdict.actions):
            verdict = GUARD.on_event(event, self.state, replace(self.ctx, facts=self.facts))
        self.state = verdict.state or self.state
        self.actions = tuple(verdict.actions)
        return self.actions

    def todo(self, **tool_input: Any) -> Block | Reply:
        actions = self.send(ToolCall("s", "todo", tool_input))
        return next(a for a in actions if isinstance(a, Block | Reply))

    def records(self, kind: str) -> list[dict[str, object]]:
        return [a.data for a in self.actions if isinstance(a, Record) and a.kind == kind]


def complete(evidence: dict[str, Any], task: int = 1, **metadata: Any) -> dict[str, Any]:
    return {
        "action": "update",
        "id": task,
        "status": "completed",
        "metadata": {"evidence": evidence, **metadata},
    }


RUNNABLE = {"kind": "runnable", "evidence": [{"type": "cmd", "cmd": "pytest -q", "exit": 0}]}
PYTEST_FACTS = Facts(commands=(CommandFact("pytest -q", True, 0, PASSED, argv=("pytest", "-q")),))


@pytest.mark.parametrize(
    ("declared", "weakened"),
    [
        ({"test": True}, None),
        (["test", "audit"], "audit"),
        ({"test": True}, {"test": False}),
        ("audit", "test"),
        (["test", "audit"], {"test": True}),
    ],
)
def test_a_declared_gate_cannot_be_dropped_or_weakened(declared: Any, weakened: Any) -> None:
    """An update that drops a duty of the declared gate is refused and the gate stays (D4)."""
    tool = Tool(ctx())
    tool.todo(action="create", subject="tests pass", metadata={"gate": declared})
    answer = tool.todo(action="update", id=1, status="in_progress", metadata={"gate": weakened})
    assert isinstance(answer, Block)
    assert "a declared gate is a duty: an update cannot remove or weaken it" in answer.reason
    assert tool.state.tree.tasks[0].metadata["gate"] == declared
    assert tool.state.tree.tasks[0].status == "pending"


def test_the_gate_refusal_in_both_languages() -> None:
    """The refusal names the task, the gate declared and the gate asked for."""
    cases: list[tuple[Lang, str]] = [
        ("en", "goalkeeper: task #1 declared the gate test+audit, and a declared gate is a duty"),
        ("zh", "goalkeeper: 任务 #1 声明了门禁 test+audit，声明即义务"),
    ]
    for lang, expected in cases:
        tool = Tool(ctx(lang))
        tool.todo(action="create", subject="t", metadata={"gate": ["test", "audit"]})
        answer = tool.todo(action="update", id=1, metadata={"gate": "test"})
        assert isinstance(answer, Block) and answer.reason.startswith(expected), answer


def test_adding_duties_to_a_gate_is_fine() -> None:
    """A gate may grow: test, then test and audit."""
    tool = Tool(ctx())
    tool.todo(action="create", subject="t", metadata={"gate": "test"})
    answer = tool.todo(action="update", id=1, metadata={"gate": ["test", "audit"]})
    assert isinstance(answer, Reply)
    assert tool.state.tree.tasks[0].metadata["gate"] == ["test", "audit"]


def test_a_completion_that_drops_the_gate_in_the_same_call_is_refused() -> None:
    """Dropping the gate inside the completing update is refused too, and nothing is stored."""
    tool = Tool(ctx(), PYTEST_FACTS)
    tool.todo(action="create", subject="t", metadata={"gate": {"test": True}})
    answer = tool.todo(**complete(RUNNABLE, gate=None))
    assert isinstance(answer, Block)
    assert tool.state.tree.tasks[0].metadata == {"gate": {"test": True}}


def test_the_stored_gate_is_what_a_later_completion_is_held_to() -> None:
    """After a refused drop, a completion without an exit is still refused by the test gate."""
    tool = Tool(ctx(evidence_check="off"))
    tool.todo(action="create", subject="t", metadata={"gate": {"test": True}})
    tool.todo(action="update", id=1, metadata={"gate": None})
    answer = tool.todo(**complete({"cmd": "pytest -q"}))
    assert isinstance(answer, Block) and "test hard gate" in answer.reason


def test_goalkeepers_own_notes_cannot_be_written_by_the_agent() -> None:
    """metadata.verification is goalkeeper's: a call that sets it is refused."""
    tool = Tool(ctx())
    tool.todo(action="create", subject="t")
    forged = [{"cmd": "pytest", "status": "verified", "exit": 0}]
    answer = tool.todo(action="update", id=1, metadata={"verification": forged})
    assert isinstance(answer, Block) and "metadata.verification" in answer.reason
    answer = tool.todo(**complete({"kind": "effect", "evidence": []}, verification=forged))
    assert isinstance(answer, Block)


@pytest.mark.parametrize("gate", [{"test": True}, "audit"])
def test_effect_cannot_complete_a_gated_todo(gate: Any) -> None:
    """effect evidence, even with an `echo ok` entry claimed exit 0, is refused on a gated task
    (audit D3)."""
    tool = Tool(ctx())
    tool.todo(action="create", subject="t", metadata={"gate": gate})
    entries: list[dict[str, Any]] = [{"type": "cmd", "cmd": "echo ok", "exit": 0}]
    if gate == "audit":
        entries.append({"type": "review", "agent": "r", "path": "r.md"})
    answer = tool.todo(**complete({"kind": "effect", "evidence": entries}))
    assert isinstance(answer, Block)
    assert "effect evidence is a declaration left for human acceptance" in answer.reason


def test_effect_still_completes_an_ungated_todo() -> None:
    """The honest exit stays open for a task that declares no gate."""
    tool = Tool(ctx())
    tool.todo(action="create", subject="t")
    assert isinstance(tool.todo(**complete({"kind": "effect", "evidence": []})), Reply)


def test_with_evidence_check_below_rerun_a_gated_claim_is_said_unverified() -> None:
    """files and off keep today's acceptance, and the task's notes say the run was not checked."""
    for mode in ("files", "off"):
        tool = Tool(ctx(evidence_check=mode))
        tool.todo(action="create", subject="t", metadata={"gate": "test"})
        answer = tool.todo(**complete(RUNNABLE))
        assert isinstance(answer, Reply), answer
        task: Any = answer.data["task"]
        notes = task["metadata"]["verification"]
        reason = f"evidence_check is {mode}: goalkeeper did not re-run it"
        assert notes == [{"cmd": "pytest -q", "status": "unverified", "reason": reason}]


def test_a_completion_is_recorded_with_what_was_verified_and_how() -> None:
    """The journal gets each command with argv, exit, duration and output digest, the tests it
    ran, each file with its digest, and what stayed unverified and why (item 7)."""
    facts = Facts(
        files=(fact("src/a.py", "x = 2\n"),),
        commands=(
            CommandFact("pytest -q", True, 0, PASSED, argv=("pytest", "-q"), seconds=1.25),
            CommandFact("./lint.sh", False, refusal="not_approved", detail="-"),
        ),
    )
    tool = Tool(ctx(), facts)
    tool.todo(action="create", subject="fix a", metadata={"gate": ["test", "audit"]})
    evidence = {
        "kind": "runnable",
        "evidence": [
            {"type": "cmd", "cmd": "pytest -q", "exit": 0},
            {"type": "cmd", "cmd": "./lint.sh", "exit": 0},
            {"type": "file", "path": "src/a.py", "op": "edit"},
            {"type": "review", "agent": "reviewer", "path": "review.md"},
        ],
    }
    assert isinstance(tool.todo(**complete(evidence)), Reply)
    (record,) = tool.records("todo_completed")
    assert (record["id"], record["subject"], record["gate"]) == (1, "fix a", "test+audit")
    commands = record["commands"]
    assert isinstance(commands, list)
    run = commands[0]
    assert run["argv"] == ["pytest", "-q"] and run["exit"] == 0 and run["seconds"] == 1.25
    assert run["output_sha256"] == sha(PASSED) and run["tests"]["passed"] == 2
    assert run["status"] == "verified"
    files = record["files"]
    assert isinstance(files, list) and files[0]["digest"] == sha("x = 2\n")
    left = record["unverified"]
    assert isinstance(left, list)
    assert {(u["what"], u.get("cmd") or u.get("path")) for u in left} == {
        ("cmd", "./lint.sh"),
        ("file", "src/a.py"),  # no snapshot in these facts: judged by mtime only
        ("review", "review.md"),
    }


def test_an_ungated_completion_records_its_commands_as_not_re_run() -> None:
    """Without a test gate nothing is re-run, and the record says so."""
    tool = Tool(ctx())
    tool.todo(action="create", subject="t")
    assert isinstance(tool.todo(**complete(RUNNABLE)), Reply)
    (record,) = tool.records("todo_completed")
    assert record["unverified"] == [
        {
            "what": "cmd",
            "cmd": "pytest -q",
            "why": "the task has no test gate: goalkeeper re-runs commands only for test-gated "
            "todos",
        }
    ]


# ---------------------------------------------------------------------------------------------
# The truth at a stop
# ---------------------------------------------------------------------------------------------


def notice(actions: tuple[Any, ...]) -> str | None:
    texts = [a.text for a in actions if isinstance(a, Notify)]
    assert len(texts) <= 1, texts
    return texts[0] if texts else None


def test_a_stop_after_a_refused_completion_tells_the_user() -> None:
    """A refused completion not yet fixed is named at the stop, even inside the quiet window."""
    failing = Facts(commands=(CommandFact("pytest -q", True, 1, "1 failed in 0.1s"),))
    tool = Tool(ctx(), failing)
    tool.todo(action="create", subject="tests pass", metadata={"gate": "test"})
    assert isinstance(tool.todo(**complete(RUNNABLE)), Block)
    tool.send(UserPrompt("s", "go on"))  # the user just spoke: advice stays quiet
    actions = tool.send(Settled("s", "done"))
    assert notice(actions) == "goalkeeper: not done — todo #1: its test run failed (exit 1)."
    assert not any(a.__class__.__name__ in ("Advise", "Continue") for a in actions)


def test_a_refused_native_completion_is_journalled_and_told_at_the_stop() -> None:
    """Claude Code's own TodoWrite marking an item completed is refused, journalled, and the
    user hears of it at the next stop (once), though goalkeeper's tree holds no task."""
    tool = Tool(ctx())
    item = {"content": "fix add()", "status": "completed", "activeForm": "fixing"}
    actions = tool.send(ToolCall("s", "TodoWrite", {"todos": [item]}))
    assert any(isinstance(a, Block) for a in actions)
    assert tool.records("todo_refused") == [{"tool": "TodoWrite", "reason": "native"}]
    text = notice(tool.send(Settled("s", "Done: everything is fixed.")))
    assert text == (
        "goalkeeper: not done — a task marked completed with TodoWrite was refused (no evidence)."
    )
    assert notice(tool.send(Settled("s", "done"))) is None
    state = GUARD.load_state(GUARD.dump_state(replace(tool.state, native_refused="TaskUpdate")))
    assert state.native_refused == "TaskUpdate"


def test_an_open_gated_todo_is_named_at_every_stop() -> None:
    """An open gated task is named at each stop, alongside the ⑦ ultimatum for the agent."""
    tool = Tool(ctx("zh"))
    tool.todo(action="create", subject="测试", metadata={"gate": {"test": True}})
    first = tool.send(Settled("s", "好了"))
    assert notice(first) == "goalkeeper: 尚未完成 —— todo #1 仍未完成，声明了门禁 test。"
    assert any(a.__class__.__name__ == "Continue" for a in first)  # ⑦, as before
    assert notice(tool.send(Settled("s", "好了"))) is not None


def test_a_fixed_completion_ends_the_notice() -> None:
    """Once the task completes, the stop says nothing about it."""
    tool = Tool(ctx(), Facts(commands=(CommandFact("pytest -q", True, 1, "1 failed in 0.1s"),)))
    tool.todo(action="create", subject="t", metadata={"gate": "test"})
    tool.todo(**complete(RUNNABLE))
    tool.facts = PYTEST_FACTS
    assert isinstance(tool.todo(**complete(RUNNABLE)), Reply)
    assert notice(tool.send(Settled("s", "done"))) is None


def test_a_deleted_refused_todo_is_reported_once() -> None:
    """Deleting a task whose completion was refused is told at the next stop, then forgotten."""
    tool = Tool(ctx())
    tool.todo(action="create", subject="t", metadata={"gate": "test"})
    echo = {"kind": "effect", "evidence": [{"type": "cmd", "cmd": "echo ok", "exit": 0}]}
    assert isinstance(tool.todo(**complete(echo)), Block)
    tool.todo(action="update", id=1, status="deleted")
    text = notice(tool.send(Settled("s", "done")))
    assert text == (
        "goalkeeper: not done — todo #1 (deleted): it was claimed with effect evidence despite "
        "its gate."
    )
    assert notice(tool.send(Settled("s", "done"))) is None


def test_deleting_an_open_gated_todo_is_told_once() -> None:
    """The tombstone is allowed, and the duty it dropped is told at the next stop only."""
    tool = Tool(ctx())
    tool.todo(action="create", subject="t", metadata={"gate": ["test", "audit"]})
    tool.todo(action="create", subject="plain")
    assert isinstance(tool.todo(action="update", id=1, status="deleted"), Reply)
    tool.todo(action="update", id=2, status="deleted")
    text = notice(tool.send(Settled("s", "done")))
    assert text == "goalkeeper: not done — todo #1 (deleted): its gate test+audit was never met."
    assert notice(tool.send(Settled("s", "done"))) is None


def test_the_notice_names_three_todos_and_counts_the_rest() -> None:
    """One line: three todos named, the others counted."""
    tool = Tool(ctx())
    for n in range(5):
        tool.todo(action="create", subject=f"t{n}", metadata={"gate": "audit"})
    text = notice(tool.send(Settled("s", "done")))
    assert text is not None and "\n" not in text
    assert text.endswith("todo #3 is still open, with the gate audit (and 2 more).")


# ---------------------------------------------------------------------------------------------
# Baselines in the guard's state
# ---------------------------------------------------------------------------------------------


def snapshot(*files: tuple[str, str]) -> Facts:
    entries = tuple((rel, sha(content)) for rel, content in files)
    return Facts(
        files=(FileFact(PROJECT_FOLDER, True, kind="folder", entries=entries, complete=True),)
    )


def test_todos_created_from_the_same_files_share_one_baseline() -> None:
    """A batch of todos keeps one snapshot; it survives the state's round trip and goes when
    its tasks are done."""
    tool = Tool(ctx(), snapshot(("a.py", "x = 1\n")))
    for subject in ("a", "b", "c"):
        tool.todo(action="create", subject=subject)
    assert len(tool.state.baselines) == 1
    ident = tool.state.baselines[0][0]
    assert [tool.state.tree.get(t).baseline for t in (1, 2, 3)] == [ident] * 3  # type: ignore[union-attr]
    assert tool.state.baseline_refs == ((ident, 3),)
    reloaded = GUARD.load_state(json.loads(json.dumps(GUARD.dump_state(tool.state))))
    assert reloaded.baselines == tool.state.baselines
    assert reloaded.baseline_refs == tool.state.baseline_refs
    assert reloaded.tree == tool.state.tree
    for task in (1, 2, 3):
        tool.todo(action="update", id=task, status="deleted")
    assert not tool.state.baselines and not tool.state.baseline_refs


def test_the_number_of_baselines_is_bounded() -> None:
    """Past the cap the oldest snapshot goes, and its task falls back to git and mtime."""
    tool = Tool(ctx())
    for n in range(MAX_BASELINES + 2):
        tool.facts = snapshot(("a.py", f"x = {n}\n"))
        tool.todo(action="create", subject=f"t{n}")
    assert len(tool.state.baselines) == MAX_BASELINES
    kept = {i for i, _ in tool.state.baselines}
    with_one = [t.id for t in tool.state.tree.tasks if t.baseline in kept]
    assert with_one == list(range(3, MAX_BASELINES + 3))
    assert {i for i, _ in tool.state.baseline_refs} == kept


def test_a_claim_is_judged_against_its_own_tasks_baseline() -> None:
    """Task 2, created after a.py changed, sees that content as its starting point."""
    tool = Tool(ctx(), snapshot(("a.py", "x = 1\n")))
    tool.todo(action="create", subject="first")
    tool.facts = snapshot(("a.py", "x = 2\n"))
    tool.todo(action="create", subject="second")
    tool.facts = Facts(files=(fact("a.py", "x = 2\n"),))
    state_claim = {"kind": "state", "evidence": [{"type": "file", "path": "a.py", "op": "edit"}]}
    assert isinstance(tool.todo(**complete(state_claim, task=2)), Block)
    assert isinstance(tool.todo(**complete(state_claim, task=1)), Reply)
