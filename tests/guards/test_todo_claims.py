"""Checked evidence (beyond the seed): ``judge_claims`` compares what completion evidence claims
with the files and re-run commands goalkeeper saw itself."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from goalkeeper.config import Config
from goalkeeper.core.evidence import CommandClaim, FileClaim
from goalkeeper.core.messages import Lang
from goalkeeper.core.todos import Task
from goalkeeper.core.values import CommandFact, Facts, FileFact, Inspect
from goalkeeper.engine.inspect import gather_facts
from goalkeeper.engine.ports import SubprocessRunner
from goalkeeper.guards.spec import Context
from goalkeeper.guards.todos import judge_claims
from goalkeeper.testing import context

NOW = 1_700_000_000.0
CREATED = NOW - 600.0
OLD = CREATED - 86_400.0
TASK = Task(3, "改 a", "in_progress", created_at=CREATED, updated_at=CREATED)


def ctx(lang: Lang = "en") -> Context:
    return context(lang=lang, now=NOW)


def judge_files(
    claims: tuple[FileClaim, ...], facts: tuple[FileFact, ...], lang: Lang = "en"
) -> tuple[str | None, list[dict[str, object]]]:
    return judge_claims(TASK, claims, (), Facts(files=facts), ctx(lang))


def judge_commands(
    claims: tuple[CommandClaim, ...], facts: tuple[CommandFact, ...], lang: Lang = "en"
) -> tuple[str | None, list[dict[str, object]]]:
    return judge_claims(TASK, (), claims, Facts(commands=facts), ctx(lang))


# ---------------------------------------------------------------------------------------------
# File claims
# ---------------------------------------------------------------------------------------------


def test_edit_of_a_file_unchanged_since_the_task_was_created_is_refused() -> None:
    """An edit claim on a file older than the task, which git shows unchanged, is refused."""
    refusal, notes = judge_files(
        (FileClaim("src/a.py", "edit"),), (FileFact("src/a.py", True, OLD, git_changed=False),)
    )
    assert refusal is not None
    assert "src/a.py" in refusal
    assert "#3" in refusal
    assert refusal == (
        "goalkeeper: the evidence says src/a.py was edited, but it has not changed since task #3 "
        "was created (last modified before the task was created, and git shows no change). "
        "Make the change, or correct the evidence."
    )
    assert notes == []


def test_unchanged_file_refusal_in_chinese() -> None:
    """The Chinese refusal names the path and the task too."""
    refusal, _ = judge_files(
        (FileClaim("src/a.py", "edit"),),
        (FileFact("src/a.py", True, OLD, git_changed=False),),
        lang="zh",
    )
    assert refusal == (
        "goalkeeper: 证据说 src/a.py 已修改，但它自任务 #3 创建以来没有变化"
        "（最后修改于任务创建之前，git 也未显示改动）。先真正改动它，或改正证据。"
    )


def test_outside_git_an_old_file_is_refused_on_its_mtime() -> None:
    """Without git, an old modification time alone refuses the claim, and says so."""
    refusal, _ = judge_files((FileClaim("a.py", "write"),), (FileFact("a.py", True, OLD, None),))
    assert refusal is not None
    assert "a.py was written" in refusal
    assert "(last modified before the task was created)" in refusal


def test_unchanged_mtime_but_git_reports_a_change_is_accepted() -> None:
    """A file git reports changed is accepted even with an old modification time."""
    refusal, notes = judge_files(
        (FileClaim("src/a.py", "edit"),), (FileFact("src/a.py", True, OLD, git_changed=True),)
    )
    assert refusal is None
    assert notes == [{"file": "src/a.py", "status": "verified"}]


def test_file_modified_after_the_task_was_created_is_accepted() -> None:
    """A modification time after the task's creation is a change."""
    refusal, notes = judge_files(
        (FileClaim("a.py", "edit"),), (FileFact("a.py", True, CREATED + 5, git_changed=False),)
    )
    assert refusal is None
    assert notes == [{"file": "a.py", "status": "verified"}]


@pytest.mark.parametrize("op", ["write", "edit", None])
def test_missing_file_for_write_or_edit_is_refused(op: str | None) -> None:
    """A written or edited file (no op means edit) must exist."""
    refusal, notes = judge_files((FileClaim("gone.py", op),), (FileFact("gone.py", False),))
    assert refusal is not None
    assert "gone.py" in refusal
    assert "there is no such file" in refusal
    assert notes == []


def test_delete_of_an_existing_file_is_refused() -> None:
    """A delete claim on a file that still exists is refused."""
    refusal, _ = judge_files(
        (FileClaim("old.py", "delete"),), (FileFact("old.py", True, NOW, git_changed=True),)
    )
    assert refusal == (
        "goalkeeper: the evidence says old.py was deleted, but it still exists. "
        "Delete it, or correct the evidence."
    )


def test_delete_of_a_gone_file_is_accepted() -> None:
    """A delete claim on a file that is gone is accepted."""
    refusal, notes = judge_files((FileClaim("old.py", "delete"),), (FileFact("old.py", False),))
    assert refusal is None
    assert notes == [{"file": "old.py", "status": "verified"}]


def test_claim_without_a_fact_is_left_alone() -> None:
    """A claimed file goalkeeper did not look at is neither refused nor verified."""
    assert judge_files((FileClaim("elsewhere.py", "edit"),), ()) == (None, [])


def test_first_false_file_claim_is_reported() -> None:
    """Claims are judged in order; the first false one is the refusal."""
    refusal, notes = judge_files(
        (FileClaim("ok.py", "edit"), FileClaim("gone.py", "edit"), FileClaim("old.py", "delete")),
        (
            FileFact("ok.py", True, NOW, True),
            FileFact("gone.py", False),
            FileFact("old.py", True, NOW, True),
        ),
    )
    assert refusal is not None
    assert "gone.py" in refusal
    assert notes == [{"file": "ok.py", "status": "verified"}]


def test_real_files_through_gather_facts(tmp_path: Path) -> None:
    """With facts gathered from disk, a file untouched since the task began is refused and a
    freshly written one is accepted."""
    (tmp_path / "old.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "new.py").write_text("x = 2\n", encoding="utf-8")
    os.utime(tmp_path / "old.py", (OLD, OLD))
    os.utime(tmp_path / "new.py", (NOW, NOW))
    facts = gather_facts(
        Inspect(files=("old.py", "new.py")), tmp_path, Config(), SubprocessRunner()
    )
    refusal, _ = judge_claims(TASK, (FileClaim("old.py", "edit"),), (), facts, ctx())
    assert refusal is not None
    assert "old.py" in refusal
    assert judge_claims(TASK, (FileClaim("new.py", "edit"),), (), facts, ctx()) == (
        None,
        [{"file": "new.py", "status": "verified"}],
    )


# ---------------------------------------------------------------------------------------------
# Command claims
# ---------------------------------------------------------------------------------------------


def test_command_whose_real_exit_differs_is_refused_with_its_output() -> None:
    """A test command claimed to exit 0 that really exits 1 is refused with the real output."""
    refusal, notes = judge_commands(
        (CommandClaim("pytest -q", 0),),
        (CommandFact("pytest -q", True, 1, "FAILED tests/test_a.py::test_x\n1 failed in 0.1s"),),
    )
    assert refusal == (
        "goalkeeper: the evidence says `pytest -q` exited 0, but goalkeeper ran it in the project "
        "folder and it exited 1. Last output:\nFAILED tests/test_a.py::test_x\n1 failed in 0.1s"
    )
    assert notes == []


def test_command_mismatch_in_chinese() -> None:
    """The Chinese refusal carries the claimed and real exit codes and the output tail."""
    refusal, _ = judge_commands(
        (CommandClaim("npm test", 0),), (CommandFact("npm test", True, 2, "boom"),), lang="zh"
    )
    assert refusal == (
        "goalkeeper: 证据说 `npm test` 的 exit 是 0，但 goalkeeper 在项目目录里重跑后 exit 是 2。"
        "输出末尾：\nboom"
    )


def test_missing_claimed_exit_counts_as_zero() -> None:
    """A command claimed without an exit code is held to exit 0."""
    refusal, _ = judge_commands(
        (CommandClaim("make test", None),), (CommandFact("make test", True, 2, "x"),)
    )
    assert refusal is not None
    assert "exited 0" in refusal
    assert "exited 2" in refusal


def test_output_tail_in_the_refusal_is_bounded() -> None:
    """Only the end of a long output is quoted."""
    tail = "a" * 5000 + "THE-END"
    refusal, _ = judge_commands(
        (CommandClaim("pytest", 0),), (CommandFact("pytest", True, 1, tail),)
    )
    assert refusal is not None
    assert refusal.endswith("THE-END")
    assert "a" * 1500 not in refusal


def test_timeout_is_a_failure() -> None:
    """A re-run that timed out refutes the claim."""
    refusal, notes = judge_commands(
        (CommandClaim("pytest", 0),),
        (CommandFact("pytest", True, None, "collecting ...", timed_out=True),),
    )
    assert refusal is not None
    assert "and it timed out" in refusal
    assert "collecting ..." in refusal
    assert notes == []


def test_timeout_in_chinese() -> None:
    """The Chinese refusal names the timeout."""
    refusal, _ = judge_commands(
        (CommandClaim("pytest", 0),),
        (CommandFact("pytest", True, None, "", timed_out=True),),
        lang="zh",
    )
    assert refusal is not None
    assert "重跑后超时了" in refusal


def test_command_that_was_not_allowed_is_accepted_as_unverified() -> None:
    """A command goalkeeper may not run stays a claim, marked unverified."""
    refusal, notes = judge_commands(
        (CommandClaim("./deploy.sh", 0),), (CommandFact("./deploy.sh", allowed=False),)
    )
    assert refusal is None
    reason = "not a command goalkeeper may re-run (approved: -)"
    assert notes == [{"cmd": "./deploy.sh", "status": "unverified", "reason": reason}]


def test_command_confirmed_by_the_rerun_is_verified() -> None:
    """A re-run that confirms the claimed exit code is marked verified with that code."""
    refusal, notes = judge_commands(
        (CommandClaim("pytest", 0),), (CommandFact("pytest", True, 0, "3 passed"),)
    )
    assert refusal is None
    assert notes == [{"cmd": "pytest", "status": "verified", "exit": 0}]


def test_a_confirmed_failure_claim_is_verified() -> None:
    """A claim of exit 1 that the re-run confirms is true, so it is verified, not refused."""
    refusal, notes = judge_commands(
        (CommandClaim("pytest", 1),), (CommandFact("pytest", True, 1, "1 failed"),)
    )
    assert refusal is None
    assert notes == [{"cmd": "pytest", "status": "verified", "exit": 1}]


def test_mixed_commands_keep_their_notes() -> None:
    """Unverified and verified commands are both noted, in claim order."""
    refusal, notes = judge_commands(
        (CommandClaim("x", 0), CommandClaim("pytest", 0), CommandClaim("unseen", 0)),
        (CommandFact("x", allowed=False), CommandFact("pytest", True, 0, "")),
    )
    assert refusal is None
    assert [n["status"] for n in notes] == ["unverified", "verified"]


def test_file_refusal_comes_before_command_checks() -> None:
    """A false file claim is the refusal even when a command claim is also false."""
    refusal, notes = judge_claims(
        TASK,
        (FileClaim("gone.py", "edit"),),
        (CommandClaim("pytest", 0),),
        Facts(files=(FileFact("gone.py", False),), commands=(CommandFact("pytest", True, 1, "x"),)),
        ctx(),
    )
    assert refusal is not None
    assert "gone.py" in refusal
    assert notes == []


def test_verified_file_and_command_notes_together() -> None:
    """True file and command claims are both noted as verified."""
    refusal, notes = judge_claims(
        TASK,
        (FileClaim("a.py", "edit"),),
        (CommandClaim("pytest", 0),),
        Facts(
            files=(FileFact("a.py", True, NOW, True),),
            commands=(CommandFact("pytest", True, 0, ""),),
        ),
        ctx(),
    )
    assert refusal is None
    assert notes == [
        {"file": "a.py", "status": "verified"},
        {"cmd": "pytest", "status": "verified", "exit": 0},
    ]
