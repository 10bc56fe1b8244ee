"""Files the agent can plant never hang, flood or leak through a hook: a FIFO, a device, an
oversize file or a symlink out of the project is bad input with a clear notice."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from goalkeeper.store.goalfile import load_goal
from goalkeeper.store.safe_read import UnsafeFile, read_capped, resolves_within, sha256_of

from .conftest import run_hook, session_start, stop

FAST_S = 10.0  # a hook that takes longer than this on a planted file is as bad as a hang

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")


def _goal_dir(project: Path) -> Path:
    folder = project / ".agents" / "goal"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_read_capped_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    """Opening a FIFO nobody writes to returns at once with a reason, not a hang."""
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(UnsafeFile) as info:
        read_capped(fifo, 1000)
    assert info.value.kind == "special" and "FIFO" in str(info.value)


def test_a_content_hash_is_unknown_for_anything_but_the_regular_file_itself(
    tmp_path: Path,
) -> None:
    """The hash behind a todo's file evidence and git's blob ids (one helper for both): a FIFO
    is refused without blocking, a symlink is not followed, a file over the limit is not read."""
    import hashlib

    real = tmp_path / "real.txt"
    real.write_bytes(b"evidence\n")
    assert sha256_of(real, 1024) == hashlib.sha256(b"evidence\n").hexdigest()
    assert sha256_of(real, 3) is None
    (tmp_path / "link.txt").symlink_to(real)
    assert sha256_of(tmp_path / "link.txt", 1024) is None
    os.mkfifo(tmp_path / "pipe")
    assert sha256_of(tmp_path / "pipe", 1024) is None
    assert sha256_of(tmp_path / "missing", 1024) is None


def test_read_capped_refuses_a_device_and_reads_at_most_the_limit(tmp_path: Path) -> None:
    """/dev/zero is a device, never read; a file over the limit is refused before reading."""
    link = tmp_path / "zero"
    link.symlink_to("/dev/zero")
    with pytest.raises(UnsafeFile) as info:
        read_capped(link, 1000)
    assert info.value.kind == "special"
    big = tmp_path / "big"
    big.write_bytes(b"x" * 2001)
    with pytest.raises(UnsafeFile) as too_large:
        read_capped(big, 2000)
    assert too_large.value.kind == "too_large"
    assert read_capped(big, 2001) == b"x" * 2001


def test_read_capped_refuses_a_symlink_out_of_its_folder(tmp_path: Path) -> None:
    """A link inside the project pointing outside it is refused; one inside is followed."""
    project = tmp_path / "p"
    project.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("token", "utf-8")
    (project / "out").symlink_to(secret)
    (project / "real.txt").write_text("ok", "utf-8")
    (project / "in").symlink_to(project / "real.txt")
    with pytest.raises(UnsafeFile) as info:
        read_capped(project / "out", 100, within=project)
    assert info.value.kind == "outside"
    assert read_capped(project / "in", 100, within=project) == b"ok"
    assert resolves_within(project / "in", project)
    assert not resolves_within(project / ".." / "secret.txt", project)


def test_a_fifo_goal_file_never_hangs_a_hook(tmp_path: Path) -> None:
    """GOAL.md as a FIFO: SessionStart and Stop answer quickly and name the problem."""
    os.mkfifo(_goal_dir(tmp_path) / "GOAL.md")
    start = run_hook(tmp_path, session_start(tmp_path))
    assert start.returncode == 0 and start.seconds < FAST_S
    done = run_hook(tmp_path, stop(tmp_path))
    assert done.returncode == 0 and done.seconds < FAST_S
    assert "FIFO" in done.answer.get("systemMessage", "")
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal is None and "FIFO" in (doc.problem or "")


def test_a_goal_file_linked_to_dev_zero_is_refused_not_read(tmp_path: Path) -> None:
    """GOAL.md → /dev/zero: a notice in well under a second of work, no memory blow-up."""
    (_goal_dir(tmp_path) / "GOAL.md").symlink_to("/dev/zero")
    done = run_hook(tmp_path, stop(tmp_path))
    assert done.returncode == 0 and done.seconds < FAST_S
    message = done.answer.get("systemMessage", "")
    assert "GOAL.md" in message and ("outside" in message or "not a regular file" in message)


def test_a_goal_file_linked_out_of_the_project_is_not_read(tmp_path: Path) -> None:
    """A GOAL.md symlink to a file outside the project is refused, and the file is untouched."""
    project = tmp_path / "p"
    project.mkdir()
    outside = tmp_path / "elsewhere.md"
    body = "---\nstatus: active\nverify: ['true']\n---\n## Objective\nx\n"
    outside.write_text(body, "utf-8")
    (_goal_dir(project) / "GOAL.md").symlink_to(outside)
    doc = load_goal(project)
    assert doc is not None and doc.goal is None and "outside" in (doc.problem or "")
    done = run_hook(project, stop(project))
    assert done.returncode == 0
    assert outside.read_text("utf-8") == body


def test_a_fifo_transcript_never_hangs_the_stop_hook(tmp_path: Path) -> None:
    """Claude Code's transcript as a FIFO: the Stop answers, activity counts as not measured."""
    fifo = tmp_path / "transcript.jsonl"
    os.mkfifo(fifo)
    payload = {**stop(tmp_path, text="[PDCA] do"), "transcript_path": str(fifo)}
    done = run_hook(tmp_path, payload)
    assert done.returncode == 0 and done.seconds < FAST_S
    assert done.answer.get("decision") == "block"  # the cadence still decides


@pytest.mark.parametrize("name", ["pyproject.toml", ".goalkeeper.toml"])
def test_a_fifo_config_file_never_hangs_a_hook(tmp_path: Path, name: str) -> None:
    """The files every event reads (the project's configuration) planted as a FIFO are
    skipped: SessionStart and Stop answer as in a project without them, and the session's start
    tells the user why the file's settings are ignored."""
    project, control = tmp_path / "p", tmp_path / "control"
    for folder in (project, control):
        folder.mkdir()
    os.mkfifo(project / name)
    for payload in (session_start, stop):
        done = run_hook(project, payload(project))
        assert done.returncode == 0 and done.seconds < FAST_S
        expected = run_hook(control, payload(control)).answer
        said = done.answer.pop("systemMessage", "")
        assert done.answer == {k: v for k, v in expected.items() if k != "systemMessage"}
        if payload is session_start:
            assert f"{name}: it is a FIFO" in said


GOAL_PROMPT = "Keep going until all the tests pass."
"""A goal with no command: its verify is inferred from the project's files (seed 004 §4.5),
which is when a hook reads package.json, the Makefile and setup.cfg."""


def _typed(project: Path, home: Path) -> tuple[dict[str, object], dict[str, str]]:
    """The user's goal prompt, with Claude Code's record of it (only a prompt the host shows as
    the user's sets a goal): the payload and the hook's environment."""
    transcript = home / "projects" / "-p" / "s1.jsonl"
    transcript.parent.mkdir(parents=True, exist_ok=True)
    line = {"type": "queue-operation", "operation": "enqueue", "content": GOAL_PROMPT}
    transcript.write_text(json.dumps({**line, "sessionId": "s1"}) + "\n", "utf-8")
    payload = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": "s1",
        "cwd": str(project),
        "transcript_path": str(transcript),
        "prompt": GOAL_PROMPT,
    }
    return payload, {"CLAUDE_CONFIG_DIR": str(home)}


@pytest.mark.parametrize("name", ["package.json", "Makefile", "setup.cfg"])
def test_a_fifo_project_file_never_hangs_the_goals_verify_inference(
    tmp_path: Path, name: str
) -> None:
    """A project file that declares tests, planted as a FIFO, is skipped when a goal's verify
    command is inferred: the prompt is answered at once, as in a project without the file."""
    project, control = tmp_path / "p", tmp_path / "control"
    for folder in (project, control):
        (folder / ".git").mkdir(parents=True)
        (folder / "tests").mkdir()
        (folder / "tests" / "test_x.py").write_text("def test_x():\n    pass\n", "utf-8")
    os.mkfifo(project / name)
    payload, env = _typed(project, tmp_path / "claude-p")
    done = run_hook(project, payload, env=env)
    assert done.returncode == 0 and done.seconds < FAST_S
    payload, env = _typed(control, tmp_path / "claude-control")
    expected = run_hook(control, payload, env=env).answer
    assert "python -m pytest -q" in str(expected)  # the control inferred the test modules' runner
    assert done.answer == expected


def test_a_fifo_plan_never_hangs_a_hook(tmp_path: Path) -> None:
    """A plan file that is a FIFO is not a plan: the hook answers as if there were none (the
    answer of a project with no plan: continue, and write one)."""
    (tmp_path / "plan").mkdir()
    os.mkfifo(tmp_path / "plan" / "topic.md")
    done = run_hook(tmp_path, stop(tmp_path, text="[PDCA] do"))
    assert done.returncode == 0 and done.seconds < FAST_S
    os.unlink(tmp_path / "plan" / "topic.md")
    plan_less = run_hook(tmp_path, stop(tmp_path, session="s2", text="[PDCA] do"))
    assert done.answer == plan_less.answer and done.answer["decision"] == "block"


def test_a_plan_linked_out_of_the_project_is_not_read(tmp_path: Path) -> None:
    """A plan symlinked to a file outside the project is reported, not parsed."""
    from goalkeeper.store.documents import load_plan

    project = tmp_path / "p"
    (project / "plan").mkdir(parents=True)
    outside = tmp_path / "x.md"
    outside.write_text("## Objective\nsecret objective\n", "utf-8")
    (project / "plan" / "topic.md").symlink_to(outside)
    doc = load_plan(project)
    assert doc is not None and doc.plan is None and "outside" in (doc.problem or "")
