"""Claimed todo evidence never makes goalkeeper run a command the user did not approve, or
widen an approved one beyond selecting tests: the audit's vectors (reliability.md defect 3),
through `goalkeeper todo`, the same engine as the MCP tool, with the default settings. Each
asserts that the claim was refused with its reason, and that the marker file the payload would
create never appears."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..hook_answers import assert_no_internal_error

OUTSIDE_MARKER = "goalkeeper-security-outside.xml"


def _env() -> dict[str, str]:
    names = ("CLAUDECODE", "PI_CODING_AGENT", "AI_AGENT", "CODEX_", "GEMINI_CLI", "GOALKEEPER_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(names)}
    env.update({"GOALKEEPER_SERVER": "off", "GOALKEEPER_SESSION": "s1"})
    return env


def todo(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(project), "todo", *args],
        cwd=project,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def claim(project: Path, command: str) -> dict[str, object]:
    """Create a test-gated todo and complete it with `command` claimed as exit 0; the task."""
    assert todo(project, "create", "tests pass", "--gate", "test").returncode == 0
    evidence = json.dumps({"type": "cmd", "cmd": command, "exit": 0})
    done = todo(project, "update", "1", "--status", "completed", "--evidence", evidence, "--json")
    data: dict[str, object] = json.loads(done.stdout) if done.stdout.strip() else {}
    return data


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "p"
    project.mkdir()
    (project / ".git").mkdir()
    return project


def _touch_marker(project: Path, name: str) -> str:
    """A script that creates the marker M in the project when run."""
    script = project / name
    script.write_text(f"#!/bin/sh\ntouch {project / 'M'}\n", encoding="utf-8")
    script.chmod(0o755)
    return str(script)


NOT_RERUN = "not a command goalkeeper may re-run"
NO_SHELL = "goalkeeper runs commands without a shell; shell operators are not allowed"


def widens(flag: str) -> str:
    return f"`{flag}` does more than select tests, so goalkeeper will not re-run it"


@pytest.mark.parametrize(
    ("files", "command", "reason"),
    [
        ({".goalkeeper.toml": 'evidence-commands = ["touch"]\n'}, "touch M", NOT_RERUN),
        (
            {"pyproject.toml": '[tool.goalkeeper]\ntest-command = "sh"\n'},
            "sh -c 'touch M'",
            NOT_RERUN,
        ),
        (
            {"Makefile": "test:\n\ttrue\n"},
            "make test '--eval=X:=${shell touch M}'",
            widens("--eval=X:=${shell touch M}"),
        ),
        (
            {"Makefile": "test:\n\ttrue\n", "evil.mk": "test:\n\ttouch M\n"},
            "make test -f evil.mk",
            widens("-f"),
        ),
        ({"Makefile": "test:\n\ttrue\n"}, "make test CC=x -e", widens("CC=x")),
        (
            {"package.json": '{"scripts": {"test": "true"}}'},
            "npm test --script-shell=./sh.sh",
            widens("--script-shell=./sh.sh"),
        ),
        (
            {"Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\n'},
            "cargo test --offline --config build.rustc=./rc.sh",
            widens("--config"),
        ),
        (
            {"pytest.ini": "[pytest]\n", "evil.py": "open('M', 'w')\n"},
            "python -m pytest -p evil",
            widens("-p"),
        ),
        (
            {"pytest.ini": "[pytest]\n", "evil.py": "open('M', 'w')\n"},
            "python -m pytest --co -q -p evil",
            widens("--co"),
        ),
        (
            {"pytest.ini": "[pytest]\n", "evil.py": "open('M', 'w')\n"},
            "pytest -qp evil",
            widens("-qp"),
        ),
        (
            {"pytest.ini": "[pytest]\n", "args.txt": "-p evil\n", "evil.py": "open('M','w')\n"},
            "pytest @args.txt",
            widens("@args.txt"),
        ),
        ({"pytest.ini": "[pytest]\n"}, "pytest -q; touch M", NO_SHELL),
        ({"pytest.ini": "[pytest]\n"}, "pytest -q $(touch M)", NO_SHELL),
        ({"package.json": '{"scripts": {"test": "true"}}'}, "npm test -- && touch M", NO_SHELL),
        ({"go.mod": "module x\n"}, "go test -exec ./sh.sh ./...", widens("-exec")),
    ],
)
def test_no_claimed_command_widens_what_goalkeeper_runs(
    tmp_path: Path, files: dict[str, str], command: str, reason: str
) -> None:
    """The claim is refused, naming the command and why it is not re-run, and the command's
    payload never ran (its marker file is absent)."""
    project = _project(tmp_path)
    for name, body in files.items():
        (project / name).write_text(body, encoding="utf-8")
    _touch_marker(project, "sh.sh")
    _touch_marker(project, "rc.sh")
    task = claim(project, command)
    assert not (project / "M").exists(), task
    assert_refused(task, command, reason)


def assert_refused(task: dict[str, object], command: str, reason: str) -> None:
    """The completion was refused because goalkeeper would not re-run ``command``, for
    ``reason``; not because something failed."""
    assert_no_internal_error(task)
    assert task.get("ok") is False and task.get("result") is None, task
    assert f"goalkeeper will not re-run `{command}`: {reason}" in str(task.get("refused")), task


def test_a_report_written_outside_the_project_is_refused(tmp_path: Path) -> None:
    """`pytest --junitxml=<outside>` would write a file anywhere: refused, nothing written."""
    project = _project(tmp_path)
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    outside = tmp_path / OUTSIDE_MARKER
    command = f"python -m pytest -q --junitxml={outside}"
    task = claim(project, command)
    assert not outside.exists()
    assert_refused(task, command, widens(f"--junitxml={outside}"))


def test_the_projects_own_command_is_re_run_and_a_selection_does_not_meet_the_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The positive control: `python -m pytest -q` is what the project declares, so goalkeeper
    re-runs it and marks the claim verified. With a path it is still re-run (a selection is
    not a widening), but a selection of the tests does not meet a test gate."""
    project = _project(tmp_path)
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (project / "tests").mkdir()
    (project / "tests" / "test_ok.py").write_text("def test_ok():\n    assert 1\n", "utf-8")
    bin_dir = os.path.dirname(sys.executable)  # `python` is this virtualenv's, with pytest
    monkeypatch.setenv("PATH", bin_dir + os.pathsep + os.environ.get("PATH", ""))
    narrowed = claim(project, "python -m pytest -q tests/test_ok.py")
    assert narrowed["ok"] is False, narrowed
    assert "it passed, but it ran a selection of the tests (1 passed)" in str(narrowed), narrowed
    evidence = json.dumps({"type": "cmd", "cmd": "python -m pytest -q", "exit": 0})
    done = todo(project, "update", "1", "--status", "completed", "--evidence", evidence, "--json")
    verification = done.stdout
    assert '"status": "verified"' in verification, verification
