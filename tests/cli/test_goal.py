"""`goalkeeper goal` from a shell: set, status, verify, resume and clear the project's GOAL.md,
with the documented exit statuses (0 yes, 1 no, 2 usage) and one JSON value with --json."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.cli.app import run

FAILING = "sh -c 'echo boom >&2; exit 3'"
MALFORMED = b"---\nstatus: [unclosed\n---\n# Goal\n\n## Objective\nsecret work\n"


def gk(capsys: pytest.CaptureFixture[str], project: Path, *args: str) -> tuple[int, str, str]:
    code = run(["-C", str(project), "goal", *args])
    out, err = capsys.readouterr()
    return code, out, err


def gk_json(capsys: pytest.CaptureFixture[str], project: Path, *args: str) -> tuple[int, Any]:
    """Run with --json; json.loads fails unless stdout is exactly one JSON value."""
    code, out, _ = gk(capsys, project, *args, "--json")
    return code, json.loads(out)


def goal_file(project: Path) -> Path:
    return project / ".agents" / "goal" / "GOAL.md"


def archived(project: Path) -> list[Path]:
    return sorted((project / ".agents" / "goal" / "archive").glob("*.md"))


def edit_goal(project: Path, *replacements: tuple[str, str]) -> None:
    text = goal_file(project).read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in text
        text = text.replace(old, new, 1)
    goal_file(project).write_text(text, encoding="utf-8")


def test_set_with_verify_records_an_active_goal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """goal set --verify writes an active GOAL.md with one open criterion per command; exit 0."""
    code, data = gk_json(capsys, tmp_path, "set", "the checks pass", "--verify", "true")
    assert code == 0 and data["ok"] is True
    assert data["goal"]["objective"] == "the checks pass"
    assert data["goal"]["verify"] == ["true"]
    assert any("goal set" in m and "`true`" in m for m in data["messages"])
    text = goal_file(tmp_path).read_text(encoding="utf-8")
    assert "\nstatus: active\n" in text
    assert "- [ ] `true` exits 0" in text
    code, status = gk_json(capsys, tmp_path, "status")
    assert code == 0
    assert status["status"] == "active" and status["attempts"] == 0 and status["rounds"] == 3
    assert status["criteria"] == [{"text": "`true` exits 0", "state": "open"}]
    assert status["path"] == ".agents/goal/GOAL.md" and status["problem"] is None


def test_set_options_and_status_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--rounds/--timeout and several --verify are recorded and shown by goal status."""
    code, out, _ = gk(
        capsys,
        tmp_path,
        "set",
        "ship it",
        "--verify",
        "true",
        "--verify",
        "echo ok",
        "--rounds",
        "5",
        "--timeout",
        "30",
    )
    assert code == 0 and "goal set" in out and "ship it" in out
    code, out, _ = gk(capsys, tmp_path, "status")
    assert code == 0
    assert "Goal (.agents/goal/GOAL.md): ship it" in out
    assert "  status: active\n" in out
    assert "  verify: true, echo ok\n" in out
    assert "  rounds used: 0 of 5; timeout 30 s\n" in out
    assert "  [ ] `true` exits 0\n" in out and "  [ ] `echo ok` exits 0\n" in out


def test_second_goal_is_refused_while_one_is_active(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --replace a second goal exits 1 naming the active one; GOAL.md is untouched."""
    gk(capsys, tmp_path, "set", "the checks pass", "--verify", "true")
    before = goal_file(tmp_path).read_bytes()
    code, out, _ = gk(capsys, tmp_path, "set", "another goal", "--verify", "false")
    assert code == 1
    assert "already active (the checks pass)" in out and "--replace" in out
    code, data = gk_json(capsys, tmp_path, "set", "another goal", "--verify", "false")
    assert code == 1 and data["ok"] is False
    assert data["goal"]["objective"] == "the checks pass"
    assert goal_file(tmp_path).read_bytes() == before
    assert archived(tmp_path) == []


def test_replace_archives_the_old_goal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--replace sets the new goal (exit 0) and moves the old GOAL.md into archive/."""
    gk(capsys, tmp_path, "set", "the checks pass", "--verify", "true")
    old = goal_file(tmp_path).read_bytes()
    code, data = gk_json(capsys, tmp_path, "set", "another goal", "--verify", "false", "--replace")
    assert code == 0 and data["ok"] is True and data["goal"]["objective"] == "another goal"
    [archive] = archived(tmp_path)
    assert archive.read_bytes() == old
    assert "the-checks-pass" in archive.name
    assert "another goal" in goal_file(tmp_path).read_text(encoding="utf-8")


def test_verify_failure_shows_the_tail_and_logs_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A failing verify exits 1 with the output's last 15 lines and logs the manual run
    (no repair round spent, no last failure recorded)."""
    script = tmp_path / "noisy.py"
    script.write_text(
        "import sys\nfor i in range(1, 21):\n    print(f'line {i:02d}', file=sys.stderr)\n"
        "sys.exit(3)\n",
        encoding="utf-8",
    )
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    gk(capsys, tmp_path, "set", "it is quiet", "--verify", command)
    code, out, _ = gk(capsys, tmp_path, "verify")
    assert code == 1
    assert "failed (exit 3)" in out
    assert "  | line 20" in out and "  | line 06" in out
    assert "line 05" not in out
    code, status = gk_json(capsys, tmp_path, "status")
    assert code == 0 and status["status"] == "active"
    assert status["attempts"] == 0
    assert status["last_failure"] == {
        "command": None,
        "exit": None,
        "signature": None,
        "tail": None,
        "at": None,
    }
    assert status["progress_log"][-1].endswith("manual verification: failed")


def test_verify_json_stops_at_the_first_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """verify --json lists each command run, stopping at the first that fails; exit 1."""
    gk(capsys, tmp_path, "set", "g", "--verify", "true", "--verify", FAILING, "--verify", "echo x")
    code, data = gk_json(capsys, tmp_path, "verify")
    assert code == 1 and data["passed"] is False
    assert [(r["command"], r["exit_code"]) for r in data["runs"]] == [("true", 0), (FAILING, 3)]
    assert data["runs"][1]["output_tail"] == "boom\n" and data["runs"][1]["timed_out"] is False


def test_verify_passing_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """When every command passes, verify says so, exits 0 and logs a passed manual run."""
    gk(capsys, tmp_path, "set", "the checks pass", "--verify", "true", "--verify", "echo hi")
    code, out, _ = gk(capsys, tmp_path, "verify")
    assert code == 0
    assert "running true … passed" in out and "running echo hi … passed" in out
    code, data = gk_json(capsys, tmp_path, "verify")
    assert code == 0 and data["passed"] is True and len(data["runs"]) == 2
    _, status = gk_json(capsys, tmp_path, "status")
    assert status["progress_log"][-1].endswith("manual verification: passed")
    assert status["status"] == "active"  # a manual pass does not complete the goal


def test_verify_timeout_is_a_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A command running past --timeout is reported as timed out; exit 1."""
    gk(capsys, tmp_path, "set", "fast", "--verify", "sleep 5", "--timeout", "1")
    code, out, _ = gk(capsys, tmp_path, "verify")
    assert code == 1 and "running sleep 5 … timed out" in out


def test_verify_without_a_goal_or_command_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """verify with no goal, or a goal without verify command, exits 1 with a hint on stderr."""
    code, out, err = gk(capsys, tmp_path, "verify", "--json")
    assert code == 1 and out == ""
    assert "no goal with a verify command here" in err and "--verify" in err
    gk(capsys, tmp_path, "set", "all tests pass")
    code, out, err = gk(capsys, tmp_path, "verify")
    assert code == 1 and "no goal with a verify command here" in err


def test_prose_goal_without_inferable_command_is_set_but_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Prose "all tests pass" in an empty project: goal set, exit 1, no verify command found."""
    code, out, _ = gk(capsys, tmp_path, "set", "all tests pass")
    assert code == 1
    assert "no verify command was found for this goal" in out
    assert "goalkeeper goal set --replace --verify" in out
    assert goal_file(tmp_path).is_file()
    code, status = gk_json(capsys, tmp_path, "status")
    assert code == 0
    assert status["objective"] == "all tests pass" and status["status"] == "active"
    assert status["verify"] == []  # the condition it names is kept, for the user to settle
    unchecked = "tests pass (no command checks this: only the user can settle it)"
    assert status["criteria"] == [{"text": unchecked, "state": "open"}]
    assert "tests pass → no command found in this project" in out
    code, _, _ = gk(capsys, tmp_path, "set", "--replace", "--verify", "true", "all tests pass")
    assert code == 0  # the hint works as written: the goal now has a verify


def test_prose_goal_json_says_not_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """set --json for a goal without a verify command: ok false, the goal and the warning."""
    code, data = gk_json(capsys, tmp_path, "set", "all tests pass")
    assert code == 1 and data["ok"] is False
    assert data["goal"]["objective"] == "all tests pass" and data["goal"]["verify"] == []
    assert any("no verify command was found" in m for m in data["messages"])


def test_clear_archives_and_status_says_no_goal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """clear moves GOAL.md into archive/ (with a 'cleared' log line); then there is no goal."""
    gk(capsys, tmp_path, "set", "the checks pass", "--verify", "true")
    before = goal_file(tmp_path).read_text(encoding="utf-8")
    code, data = gk_json(capsys, tmp_path, "clear")
    assert code == 0 and set(data) == {"archived"}
    [archive] = archived(tmp_path)
    assert Path(data["archived"]) == archive
    assert not goal_file(tmp_path).exists()
    kept = archive.read_text(encoding="utf-8")
    assert "the checks pass" in kept and "cleared by the user" in kept
    assert kept.splitlines()[1:10] == before.splitlines()[1:10]  # the goal's fields are kept
    code, out, _ = gk(capsys, tmp_path, "status")
    assert code == 1 and out.startswith("No goal.")
    code, out, _ = gk(capsys, tmp_path, "status", "--json")
    assert code == 1 and json.loads(out) is None
    code, data = gk_json(capsys, tmp_path, "clear")
    assert code == 0 and data == {"archived": None}
    code, out, _ = gk(capsys, tmp_path, "clear")
    assert code == 0 and out == "No goal.\n"
    assert len(archived(tmp_path)) == 1


def test_clear_text_names_the_archive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """clear without --json prints where the goal was archived."""
    gk(capsys, tmp_path, "set", "the checks pass", "--verify", "true")
    code, out, _ = gk(capsys, tmp_path, "clear")
    [archive] = archived(tmp_path)
    assert code == 0 and out == f"Goal archived to {archive}.\n"


def block(project: Path, attempts: int) -> None:
    """Turn the active goal into one the Stop hook paused, as it would write it: GOAL.md and
    the counters it mirrors into the state (a GOAL.md edit alone pauses nothing)."""
    from goalkeeper.store.db import Store
    from goalkeeper.store.goalfile import load_goal
    from goalkeeper.store.trust import record_progress

    edit_goal(
        project,
        ("status: active", "status: blocked"),
        ("attempts: 0", f"attempts: {attempts}"),
        ("blocked_reason: null", "blocked_reason: same failure twice"),
        (
            "last_failure: null",
            f"last_failure:\n  command: {FAILING!r}\n  exit: 3\n  signature: abc123\n"
            "  tail: \"boom\\n\"\n  at: '2024-01-01T00:00:00Z'",
        ),
    )
    doc = load_goal(project)
    assert doc is not None and doc.goal is not None
    store = Store(project)
    with store.transaction() as conn:
        fields = {"status": "blocked", "attempts": attempts, "blocked_reason": "same failure twice"}
        record_progress(conn, doc.goal.goal_id, fields)
    store.close()


def test_status_shows_a_blocked_goal_and_its_last_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """status shows why a goal is paused and its last failure: command, exit, signature, tail."""
    gk(capsys, tmp_path, "set", "the checks pass", "--verify", FAILING)
    block(tmp_path, attempts=2)
    code, out, _ = gk(capsys, tmp_path, "status")
    assert code == 0
    assert "  status: blocked (same failure twice)\n" in out
    assert "  rounds used: 2 of 3;" in out
    assert f"  last failure: {FAILING} (exit 3), signature abc123\n" in out
    assert "    | boom\n" in out
    _, data = gk_json(capsys, tmp_path, "status")
    assert data["status"] == "blocked" and data["blocked_reason"] == "same failure twice"
    assert data["last_failure"]["exit"] == 3 and data["last_failure"]["tail"] == "boom"
    assert data["last_failure"]["signature"] == "abc123"


@pytest.mark.parametrize(("attempts", "rounds"), [(1, 3), (3, 6)])
def test_resume_reactivates_a_blocked_goal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], attempts: int, rounds: int
) -> None:
    """resume makes a paused goal active again; at its round limit it gets as many again."""
    gk(capsys, tmp_path, "set", "the checks pass", "--verify", FAILING)
    block(tmp_path, attempts=attempts)
    code, data = gk_json(capsys, tmp_path, "resume")
    assert code == 0
    assert data == {"ok": True, "status": "active", "attempts": attempts, "rounds": rounds}
    _, status = gk_json(capsys, tmp_path, "status")
    assert status["status"] == "active" and status["blocked_reason"] is None
    assert status["attempts"] == attempts and status["rounds"] == rounds
    assert status["progress_log"][-1].endswith(
        f"resumed by the user; rounds {attempts} of {rounds}"
    )
    assert "# Kept by goalkeeper" in goal_file(tmp_path).read_text(encoding="utf-8")


def test_resume_an_active_goal_or_no_goal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """resume with no goal exits 1; on an active goal it says so and changes nothing."""
    code, out, err = gk(capsys, tmp_path, "resume", "--json")
    assert code == 1 and out == "" and "no goal to resume here" in err
    gk(capsys, tmp_path, "set", "the checks pass", "--verify", "true")
    before = goal_file(tmp_path).read_bytes()
    code, out, _ = gk(capsys, tmp_path, "resume")
    assert code == 0 and out == "The goal is active already: rounds used 0 of 3.\n"
    assert goal_file(tmp_path).read_bytes() == before


def test_malformed_goal_md_is_reported_and_never_touched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A GOAL.md with broken YAML: status names the file (exit 1); set, verify and resume
    refuse (exit 1); the file stays byte for byte and nothing is archived."""
    goal_file(tmp_path).parent.mkdir(parents=True)
    goal_file(tmp_path).write_bytes(MALFORMED)
    code, out, _ = gk(capsys, tmp_path, "status")
    assert code == 1
    assert out.startswith(".agents/goal/GOAL.md: the frontmatter is not valid YAML at line"), out
    code, data = gk_json(capsys, tmp_path, "status")
    assert code == 1 and set(data) == {"path", "problem"}
    assert data["path"] == ".agents/goal/GOAL.md" and "not valid YAML" in data["problem"]
    code, out, _ = gk(capsys, tmp_path, "set", "new goal", "--verify", "true")
    assert code == 1
    assert ".agents/goal/GOAL.md" in out and "does not replace it" in out
    code, data = gk_json(capsys, tmp_path, "set", "new goal", "--verify", "true")
    assert code == 1 and data["ok"] is False and "not valid YAML" in data["goal"]["problem"]
    for command in ("verify", "resume"):  # they name the broken file, not "no goal"
        code, _, err = gk(capsys, tmp_path, command)
        assert code == 1 and ".agents/goal/GOAL.md" in err and "not valid YAML" in err, err
    assert goal_file(tmp_path).read_bytes() == MALFORMED
    assert archived(tmp_path) == []


@pytest.mark.parametrize(
    "args", [("set", "new goal", "--verify", "true", "--replace"), ("clear",)], ids=str
)
def test_a_malformed_goal_md_is_archived_byte_for_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    """set --replace and clear archive an unreadable GOAL.md exactly as it was; exit 0."""
    goal_file(tmp_path).parent.mkdir(parents=True)
    goal_file(tmp_path).write_bytes(MALFORMED)
    code, data = gk_json(capsys, tmp_path, *args)
    assert code == 0 and (data["archived"] if args == ("clear",) else data["ok"])
    [archive] = archived(tmp_path)
    assert archive.read_bytes() == MALFORMED


@pytest.mark.parametrize(
    "args",
    [
        ("set", "g", "--rounds", "0"),
        ("set", "g", "--rounds", "101"),
        ("set", "g", "--timeout", "0"),
        ("set", "g", "--rounds", "many"),
        ("set", "   "),
        ("set",),
        ("nope",),
    ],
    ids=" ".join,
)
def test_usage_errors_exit_2_and_set_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    """Bad flags, a missing or empty TEXT, an unknown subcommand: exit 2, no GOAL.md."""
    code, out, err = gk(capsys, tmp_path, *args)
    assert code == 2 and out == ""
    assert "goalkeeper: " in err
    assert not goal_file(tmp_path).exists()


def test_a_fractional_timeout_is_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--timeout 2.5 is recorded as 2.5 seconds, as the option accepts; 120 stays 120."""
    code, data = gk_json(capsys, tmp_path, "set", "g", "--verify", "true", "--timeout", "2.5")
    assert code == 0 and data["goal"]["timeout_s"] == 2.5
    assert "  timeout_s: 2.5\n" in goal_file(tmp_path).read_text(encoding="utf-8")
    gk(capsys, tmp_path, "set", "h", "--verify", "true", "--replace")
    assert "  timeout_s: 120\n" in goal_file(tmp_path).read_text(encoding="utf-8")
