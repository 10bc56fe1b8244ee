"""A repository whose ``.git/config`` and ``.gitattributes`` name programs (fsmonitor, filters,
diff drivers, pager, hooks, credential helper, ...) never gets them run by goalkeeper, and a
todo's file evidence is still judged right (defect 3 of the reliability audit)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.engine.git import git_argv
from goalkeeper.engine.ports import SubprocessRunner

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX shell scripts")

GIT = ("git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false")
HOOKS = (
    "pre-commit",
    "post-commit",
    "post-checkout",
    "post-index-change",
    "reference-transaction",
    "pre-auto-gc",
    "fsmonitor-watchman",
)
# What the planted config names, each pointing at the marker script (``!`` runs it via sh).
HOSTILE = {
    "core.fsmonitor": "{script}",
    "core.hooksPath": "{hooks}",
    "core.pager": "{script}",
    "pager.status": "{script}",
    "pager.ls-tree": "{script}",
    "core.editor": "{script}",
    "sequence.editor": "{script}",
    "core.askPass": "{script}",
    "core.sshCommand": "{script}",
    "core.gitProxy": "{script}",
    "core.alternateRefsCommand": "{script}",
    "credential.helper": "!{script}",
    "diff.external": "{script}",
    "diff.evil.command": "{script}",
    "diff.evil.textconv": "{script}",
    "filter.evil.clean": "{script}",
    "filter.evil.smudge": "{script}",
    "merge.evil.driver": "{script}",
    "gpg.program": "{script}",
    "log.showSignature": "true",
    "protocol.allow": "always",
    "protocol.ext.allow": "always",
}
OLD = 3600.0  # seconds: files look last modified long before the todo was created


def git(repo: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    """A committed repository, then armed: every program its config or attributes name
    appends to ``marker``. Returns (project, marker)."""
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    (project / "a.py").write_text("x = 1\n", encoding="utf-8")
    (project / "b.py").write_text("y = 1\n", encoding="utf-8")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "init")

    marker = tmp_path / "marker"
    script = tmp_path / "evil.sh"
    # A filter must pass the content through, the rest may print anything: `cat` does both.
    script.write_text(f'#!/bin/sh\necho "$0 $*" >> "{marker}"\ncat\n', encoding="utf-8")
    script.chmod(0o755)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for name in HOOKS:
        (hooks / name).symlink_to(script)
    values = {"script": str(script), "hooks": str(hooks)}
    for key, value in HOSTILE.items():
        git(project, "config", key, value.format(**values))
    (project / ".gitattributes").write_text("* filter=evil diff=evil merge=evil\n", "utf-8")
    (project / ".git" / "info").mkdir(exist_ok=True)
    (project / ".git" / "info" / "attributes").write_text("* filter=evil diff=evil\n", "utf-8")
    assert not marker.exists()
    return project, marker


def goalkeeper(project: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """``goalkeeper -C <project> todo … --json`` as a separate process, as an agent runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(project), "todo", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.returncode, json.loads(done.stdout)


def complete_with_file(project: Path, task: int, path: str) -> tuple[int, dict[str, Any]]:
    evidence = json.dumps({"type": "file", "path": path, "op": "edit"})
    return goalkeeper(
        project,
        *("update", str(task), "--status", "completed", "--evidence", evidence),
        *("--session", "s1", "--json"),
    )


def age(*paths: Path) -> None:
    then = time.time() - OLD
    for path in paths:
        os.utime(path, (then, then))


def test_file_evidence_is_judged_by_git_without_running_the_repository_programs(
    hostile: tuple[Path, Path],
) -> None:
    """An edited file (old mtime) is accepted because its content changed since the todo was
    created, an untouched one is refused, a new one is accepted, and none of the planted
    programs (fsmonitor, filters, pager, hooks ...) ran."""
    project, marker = hostile
    for subject in ("edit a", "edit b", "add new"):  # the todos first, then the work
        code, _ = goalkeeper(project, "create", subject, "--session", "s1", "--json")
        assert code == 0
    (project / "a.py").write_text("x = 2\n", encoding="utf-8")
    (project / "new.py").write_text("z = 1\n", encoding="utf-8")
    age(project / "a.py", project / "b.py", project / "new.py")

    code, data = complete_with_file(project, 1, "a.py")
    assert (code, data["ok"]) == (0, True), data
    assert data["result"]["task"]["metadata"]["verification"] == [
        {"file": "a.py", "status": "verified"}
    ]
    code, data = complete_with_file(project, 2, "b.py")
    assert (code, data["ok"]) == (1, False), data
    assert "has not changed since task #2 was created" in data["refused"]
    code, data = complete_with_file(project, 3, "new.py")
    assert (code, data["ok"]) == (0, True), data

    assert not marker.exists(), marker.read_text()


def test_every_goalkeeper_git_command_leaves_the_marker_absent(
    hostile: tuple[Path, Path],
) -> None:
    """The commands goalkeeper's check runs, and a few more that would reach the planted
    programs without the overrides (a signature check, a pager, fetches over the transports
    that run a command or a proxy), run none of them."""
    project, marker = hostile
    (project / "a.py").write_text("x = 2\n", encoding="utf-8")
    runner = SubprocessRunner()
    for args in (
        ("rev-parse", "--show-toplevel", "--show-object-format", "-q", "--verify", "HEAD"),
        ("ls-tree", "-z", "--full-tree", "HEAD", "--", "a.py", "b.py"),
        ("log", "-1"),
        ("var", "GIT_PAGER"),
    ):
        done = runner.run(git_argv(*args), cwd=project, timeout_s=10)
        assert done.exit_code == 0, (args, done.output_tail)
    script = project.parent / "evil.sh"
    for url in (f"ext::{script}", "git://127.0.0.1:9/x", "ssh://127.0.0.1:9/x"):
        done = runner.run(git_argv("fetch", url), cwd=project, timeout_s=10)
        assert done.exit_code != 0 and "not allowed" in done.output_tail, done.output_tail
    assert not marker.exists(), marker.read_text()


def test_the_planted_programs_do_run_under_plain_git(hostile: tuple[Path, Path]) -> None:
    """Control: the same repository makes a plain ``git status`` run the planted programs, so
    the absent marker above is the overrides' doing."""
    project, marker = hostile
    (project / "a.py").write_text("x = 2\n", encoding="utf-8")
    subprocess.run(["git", "status"], cwd=project, capture_output=True, timeout=30)
    assert marker.exists()
