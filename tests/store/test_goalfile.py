"""GOAL.md on disk: create, load (with its cache and its problems), update in place, archive."""

from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path

import msgspec.structs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goalkeeper.core.goals.goal import Criterion, Failure, Goal, GoalUpdate
from goalkeeper.store.goalfile import (
    GoalFileError,
    archive_goal,
    create_goal,
    goal_path,
    load_goal,
    split_frontmatter,
    update_goal,
)

T0 = 1_700_000_000 * 10**9  # a fixed mtime, in nanoseconds
CREATED = "2025-05-01T10:00:00Z"
LATER = "2025-05-01T11:30:00Z"


def _goal(status: str = "active", objective: str = "Ship the CSV parser") -> Goal:
    return Goal(
        objective=objective,
        status=status,  # type: ignore[arg-type]
        verify=("pytest -q", "ruff check"),
        criteria=(
            Criterion("parses quoted fields", "open"),
            Criterion("rejects ragged rows", "done"),
        ),
        rounds=5,
        timeout_s=60.0,
        retries_max=4,
        goal_id="g-1",
        created=CREATED,
        updated=CREATED,
    )


def _write(project: Path, data: str | bytes) -> Path:
    path = goal_path(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8", newline="")
    return path


def _files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


# ---------------------------------------------------------------------------------------------
# create_goal and load_goal
# ---------------------------------------------------------------------------------------------


def test_create_then_load_round_trips_the_goal(tmp_path: Path) -> None:
    """A created goal loads back as the same value."""
    goal = _goal()
    create_goal(tmp_path, goal)
    doc = load_goal(tmp_path)
    assert doc is not None and doc.problem is None
    assert doc.path == ".agents/goal/GOAL.md"
    assert doc.goal == goal


def test_created_file_opens_with_a_comment_and_the_fields_in_order(tmp_path: Path) -> None:
    """The frontmatter says who keeps it, then lists the fields in ``frontmatter_of`` order."""
    text = create_goal(tmp_path, _goal()).read_text(encoding="utf-8")
    lines = text.split("\n")
    assert lines[0] == "---" and lines[1].startswith("# ") and "goalkeeper" in lines[1]
    keys = [ln.split(":")[0] for ln in lines[2 : lines.index("---", 1)] if ln[:1].isalpha()]
    assert keys[:4] == ["id", "status", "objective", "verify"]
    assert keys[-1] == "updated"
    assert "last_failure: null" in lines


def test_load_goal_without_a_file_is_none(tmp_path: Path) -> None:
    """No GOAL.md means no goal, not a problem."""
    assert load_goal(tmp_path) is None


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ("# Goal\n\n## Objective\nShip it\n", "no YAML frontmatter"),
        ("---\nstatus: [active\n---\n# Goal\n", "not valid YAML at line"),
        ("---\nstatus: active\nstatus: blocked\n---\n", "not valid YAML"),
        ("---\n- active\n- blocked\n---\n# Goal\n", "is a list"),
        (b"---\nstatus: active\n---\n" + b"x" * (2 * 1024 * 1024), "2.0 MB"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        (b"---\nstatus: active\n---\n## Objective\nna\xefve\n", "not valid UTF-8"),
    ],
)
def test_load_goal_reports_an_unusable_file_as_a_problem(
    tmp_path: Path, data: str | bytes, words: str
) -> None:
    """A file that cannot be read as a goal is a problem naming the file, never an exception."""
    _write(tmp_path, data)
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal is None
    assert doc.problem is not None
    assert ".agents/goal/GOAL.md" in doc.problem and words in doc.problem


def test_load_goal_reads_an_empty_frontmatter_as_defaults(tmp_path: Path) -> None:
    """An empty frontmatter is a goal with default fields and the body's objective."""
    _write(tmp_path, "---\n# nothing yet\n---\n## Objective\nShip it\n")
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal is not None
    assert doc.goal.objective == "Ship it" and doc.goal.status == "active"


def test_load_goal_keeps_unquoted_timestamps_as_text(tmp_path: Path) -> None:
    """A time a person typed without quotes is read as the text they wrote."""
    _write(tmp_path, "---\ncreated: 2025-05-01T10:00:00Z\nupdated: 2025-05-02\n---\n")
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal is not None
    assert (doc.goal.created, doc.goal.updated) == ("2025-05-01T10:00:00Z", "2025-05-02")


def test_load_goal_is_cached_until_the_file_changes(tmp_path: Path) -> None:
    """An unchanged file gives the same object; a changed one is read again."""
    path = _write(tmp_path, "---\nstatus: active\n---\n## Objective\nOne\n")
    os.utime(path, ns=(T0, T0))
    first = load_goal(tmp_path)
    assert load_goal(tmp_path) is first
    path.write_text("---\nstatus: blocked\n---\n## Objective\nTwo\n", encoding="utf-8")
    os.utime(path, ns=(T0 + 10**9, T0 + 10**9))
    second = load_goal(tmp_path)
    assert second is not first
    assert second is not None and second.goal is not None
    assert (second.goal.status, second.goal.objective) == ("blocked", "Two")


def test_load_goal_after_removal_is_none(tmp_path: Path) -> None:
    """A cached goal is forgotten once its file is gone."""
    path = create_goal(tmp_path, _goal())
    assert load_goal(tmp_path) is not None
    path.unlink()
    assert load_goal(tmp_path) is None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.text(),
        st.text(alphabet="-:#&*!|>[]{}'\"\n ?,ab1.~%@`\t\r\ufeff"),
        st.builds(
            lambda head, body: f"---\n{head}\n---\n{body}",
            st.text(alphabet="-:#&*!|>[]{}'\"\n ?,ab1.~%@`\t<=", max_size=80),
            st.text(max_size=80),
        ),
        st.binary(),
    )
)
def test_load_goal_never_raises(data: str | bytes) -> None:
    """Whatever GOAL.md holds, ``load_goal`` returns a goal or a problem."""
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        _write(project, data)
        doc = load_goal(project)
        assert doc is not None
        assert (doc.goal is None) == (doc.problem is not None)


# ---------------------------------------------------------------------------------------------
# update_goal
# ---------------------------------------------------------------------------------------------


def test_a_human_edit_survives_an_update(tmp_path: Path) -> None:
    """Comments, an unknown key and the body's other text stay exactly; only the set fields and
    the appended log lines change."""
    path = create_goal(tmp_path, _goal())
    text = path.read_text(encoding="utf-8")
    text = text.replace("status: active\n", "status: active\nowner: ana  # who to ask\n")
    text = text.replace("attempts: 0\n", "# bumped after every verify run\nattempts: 0  # runs\n")
    text = text.replace("## Progress Log\n", "## Progress Log\n- started on the lexer\n")
    text += "\n## Notes\nKeep the parser streaming.\n"
    path.write_text(text, encoding="utf-8")
    failure = {"command": "pytest -q", "exit": 1, "signature": "abc123", "tail": "E 1 != 2\n"}
    update = GoalUpdate(
        fields={"attempts": 2, "last_failure": failure},
        log=("ran pytest: 1 failed", "fixed the quoting bug"),
    )

    goal = update_goal(tmp_path, update, now=LATER)

    after = path.read_text(encoding="utf-8")
    diff = list(difflib.ndiff(text.split("\n"), after.split("\n")))
    removed = [d[2:] for d in diff if d.startswith("- ")]
    added = [d[2:] for d in diff if d.startswith("+ ")]
    assert removed == ["attempts: 0  # runs", "last_failure: null", f"updated: '{CREATED}'"]
    assert added[0] == "attempts: 2  # runs"
    assert "owner: ana  # who to ask" in after and "# bumped after every verify run\n" in after
    assert after.endswith("\n## Notes\nKeep the parser streaming.\n")
    log = after.split("## Progress Log\n")[1].split("\n\n")[0]
    assert log.split("\n") == [
        "- started on the lexer",
        "- ran pytest: 1 failed",
        "- fixed the quoting bug",
    ]
    assert goal.attempts == 2 and goal.updated == LATER
    assert goal.last_failure == Failure("pytest -q", 1, "abc123", "E 1 != 2", None)
    assert goal.extra == {"owner": "ana"}
    assert goal.progress_log[-2:] == update.log
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal == goal


def test_update_sets_none_as_null_and_replaces_a_nested_mapping_whole(tmp_path: Path) -> None:
    """``None`` writes ``null``; a new ``last_failure`` drops the keys of the old one."""
    create_goal(tmp_path, _goal())
    update_goal(
        tmp_path,
        GoalUpdate(fields={"last_failure": {"command": "a", "exit": 3}, "route": "comet"}),
        now=LATER,
    )
    goal = update_goal(
        tmp_path,
        GoalUpdate(fields={"last_failure": {"signature": "s"}, "route": None}),
        now=LATER,
    )
    assert goal.last_failure == Failure(signature="s") and goal.route is None
    assert "route: null\n" in goal_path(tmp_path).read_text(encoding="utf-8")


def test_update_adds_unknown_fields_at_the_end_of_the_frontmatter(tmp_path: Path) -> None:
    """A field the file does not have yet is appended after the existing ones."""
    path = _write(tmp_path, "---\n# mine\nstatus: active\n---\n## Objective\nShip it\n")
    goal = update_goal(tmp_path, GoalUpdate(fields={"phase": "build"}), now=LATER)
    assert path.read_text(encoding="utf-8") == (
        f"---\n# mine\nstatus: active\nphase: build\nupdated: '{LATER}'\n---\n"
        "## Objective\nShip it\n"
    )
    assert goal.extra == {"phase": "build"}


def test_update_keeps_a_comment_after_a_replaced_block(tmp_path: Path) -> None:
    """A comment line after a nested mapping introduces the next key and survives its
    replacement; the comments inside the old mapping go with it."""
    path = _write(
        tmp_path,
        "---\nlast_failure:\n  exit: 1  # old\n# who to ask\nowner: ana\n---\n## Objective\nX\n",
    )
    goal = update_goal(tmp_path, GoalUpdate(fields={"last_failure": {"exit": 2}}), now=LATER)
    assert path.read_text(encoding="utf-8").startswith(
        "---\nlast_failure:\n  exit: 2\n# who to ask\nowner: ana\n"
    )
    assert goal.last_failure.exit == 2 and goal.extra == {"owner": "ana"}


def test_update_of_a_file_ending_on_its_closing_line(tmp_path: Path) -> None:
    """A file without a body or a final newline gets a Progress Log after its closing line."""
    path = _write(tmp_path, "---\nstatus: active\n---")
    goal = update_goal(tmp_path, GoalUpdate(log=("started",)), now=LATER)
    assert path.read_text(encoding="utf-8").endswith("---\n## Progress Log\n- started\n")
    assert goal.progress_log == ("started",)


def test_update_creates_the_progress_log_when_missing(tmp_path: Path) -> None:
    """Without a Progress Log section, one is added at the end of the body; entries are one line."""
    path = _write(tmp_path, "---\nstatus: active\n---\n## Objective\nShip it")
    goal = update_goal(tmp_path, GoalUpdate(log=("first\nsecond line", "  ")), now=LATER)
    body = path.read_text(encoding="utf-8").split("---\n")[2]
    assert body == "## Objective\nShip it\n\n## Progress Log\n- first second line\n"
    assert goal.progress_log == ("first second line",)


def test_update_keeps_crlf_line_endings_and_the_bom(tmp_path: Path) -> None:
    """A Windows-style file stays CRLF with its BOM."""
    text = "---\r\nstatus: active\r\nattempts: 0\r\n---\r\n## Progress Log\r\n- one\r\n"
    path = _write(tmp_path, "\ufeff".encode() + text.encode())
    goal = update_goal(tmp_path, GoalUpdate(fields={"attempts": 1}, log=("two",)), now=LATER)
    raw = path.read_bytes()
    assert raw.startswith("\ufeff---\r\n".encode())
    assert b"\n" not in raw.replace(b"\r\n", b"")
    assert b"attempts: 1\r\n" in raw and raw.endswith(b"- one\r\n- two\r\n")
    assert goal.attempts == 1 and goal.progress_log == ("one", "two")


def test_update_of_a_flow_style_frontmatter_rewrites_it_keeping_other_keys(tmp_path: Path) -> None:
    """A one-line ``{...}`` frontmatter cannot be edited by lines; it is re-rendered instead."""
    _write(tmp_path, "---\n{status: active, owner: ana, attempts: 0}\n---\n## Objective\nX\n")
    goal = update_goal(tmp_path, GoalUpdate(fields={"attempts": 4}), now=LATER)
    assert goal.attempts == 4 and goal.extra == {"owner": "ana"} and goal.status == "active"


def test_update_of_a_field_whose_anchor_is_used_elsewhere_stays_readable(tmp_path: Path) -> None:
    """Replacing the field that defines an anchor never leaves a dangling alias."""
    _write(tmp_path, "---\nattempts: &n 3\nretries: *n\n---\n## Objective\nX\n")
    goal = update_goal(tmp_path, GoalUpdate(fields={"attempts": 4}), now=LATER)
    assert (goal.attempts, goal.retries) == (4, 3)
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal == goal


@pytest.mark.parametrize(
    "data",
    [
        "---\nstatus: [active\nattempts: 1\n---\n## Objective\nX\n",
        "# Goal\n\n## Objective\nX\n",
        "---\n- a list\n---\n## Objective\nX\n",
        b"---\nstatus: active\n---\n\xff\xfe\n",
    ],
)
def test_update_refuses_a_file_it_cannot_read_and_leaves_it_alone(
    tmp_path: Path, data: str | bytes
) -> None:
    """A broken GOAL.md is never overwritten: the update raises and the bytes are unchanged."""
    path = _write(tmp_path, data)
    before = path.read_bytes()
    with pytest.raises(GoalFileError, match=r"\.agents/goal/GOAL\.md"):
        update_goal(tmp_path, GoalUpdate(fields={"attempts": 1}, log=("x",)), now=LATER)
    assert path.read_bytes() == before
    assert _files(path.parent) == ["GOAL.md"]


def test_update_without_a_goal_file_raises(tmp_path: Path) -> None:
    """Updating a goal that does not exist is an error, and creates nothing."""
    with pytest.raises(GoalFileError, match="does not exist"):
        update_goal(tmp_path, GoalUpdate(fields={"attempts": 1}), now=LATER)
    assert not goal_path(tmp_path).exists()


def test_update_with_archive_moves_the_updated_file(tmp_path: Path) -> None:
    """``archive=True`` writes the update, then archives the file."""
    create_goal(tmp_path, _goal())
    update = GoalUpdate(fields={"status": "complete"}, log=("all green",), archive=True)
    goal = update_goal(tmp_path, update, now=LATER)
    assert goal.status == "complete" and load_goal(tmp_path) is None
    (archived,) = (goal_path(tmp_path).parent / "archive").iterdir()
    assert "status: complete" in archived.read_text(encoding="utf-8")
    assert "- all green" in archived.read_text(encoding="utf-8")


def test_writes_leave_no_temp_files_and_keep_the_mode(tmp_path: Path) -> None:
    """Atomic writes leave only GOAL.md behind, with the permissions it had."""
    path = create_goal(tmp_path, _goal())
    path.chmod(0o640)
    update_goal(tmp_path, GoalUpdate(fields={"attempts": 1}, log=("one",)), now=LATER)
    update_goal(tmp_path, GoalUpdate(fields={"attempts": 2}, log=("two",)), now=LATER)
    assert _files(path.parent) == ["GOAL.md"]
    assert path.stat().st_mode & 0o777 == 0o640


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(), st.text(min_size=1))
def test_an_updated_text_field_reads_back_the_same(value: str, log: str) -> None:
    """Any text written to a field is read back unchanged, and the file stays readable."""
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        create_goal(project, _goal())
        goal = update_goal(project, GoalUpdate(fields={"note": value}, log=(log,)), now=LATER)
        assert goal.extra["note"] == value
        doc = load_goal(project)
        assert doc is not None and doc.goal == goal


# ---------------------------------------------------------------------------------------------
# Replacing and archiving
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["active", "blocked"])
def test_create_refuses_to_replace_a_live_goal(tmp_path: Path, status: str) -> None:
    """An active or blocked goal is not replaced unless asked, and stays as it was."""
    path = create_goal(tmp_path, _goal(status=status))
    before = path.read_bytes()
    with pytest.raises(GoalFileError, match=status):
        create_goal(tmp_path, _goal(objective="Something else"))
    assert path.read_bytes() == before
    assert not (path.parent / "archive").exists()


def test_create_with_replace_archives_the_old_goal_first(tmp_path: Path) -> None:
    """``replace=True`` keeps the old goal in the archive, byte for byte."""
    path = create_goal(tmp_path, _goal())
    old = path.read_bytes()
    new = msgspec.structs.replace(_goal(objective="Ship the JSON writer"), created=LATER)
    create_goal(tmp_path, new, replace=True)
    (archived,) = (path.parent / "archive").iterdir()
    assert archived.name == "20250501T113000-ship-the-csv-parser.md"
    assert archived.read_bytes() == old
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal is not None
    assert doc.goal.objective == "Ship the JSON writer"


def test_create_over_a_finished_goal_archives_it_without_asking(tmp_path: Path) -> None:
    """A complete goal is archived and replaced without ``replace``."""
    path = create_goal(tmp_path, _goal(status="complete"))
    create_goal(tmp_path, _goal(objective="Next"))
    assert len(list((path.parent / "archive").iterdir())) == 1


def test_create_refuses_an_unreadable_file_unless_replacing(tmp_path: Path) -> None:
    """A broken GOAL.md may hold an active goal: it is replaced only when asked, and archived."""
    path = _write(tmp_path, "---\nstatus: [active\n---\n")
    with pytest.raises(GoalFileError, match="not valid YAML"):
        create_goal(tmp_path, _goal())
    create_goal(tmp_path, _goal(), replace=True)
    (archived,) = (path.parent / "archive").iterdir()
    assert archived.read_text(encoding="utf-8") == "---\nstatus: [active\n---\n"
    assert archived.name.endswith("-goal.md")


def test_archive_goal_moves_the_file_to_a_unique_name(tmp_path: Path) -> None:
    """Archiving twice at the same time never overwrites; afterwards there is no goal."""
    create_goal(tmp_path, _goal(objective="Réparer l'export: CSV/JSON"))
    one = archive_goal(tmp_path, now="2025-05-01T11:30:00+02:00")
    assert load_goal(tmp_path) is None
    create_goal(tmp_path, _goal(objective="Réparer l'export: CSV/JSON"))
    two = archive_goal(tmp_path, now="2025-05-01T11:30:00+02:00")
    assert one.name == "20250501T113000-réparer-l-export-csv-json.md"
    assert two.name == "20250501T113000-réparer-l-export-csv-json-2.md"
    assert one.read_bytes() == two.read_bytes()
    assert set(_files(goal_path(tmp_path).parent)) == {
        "archive",
        f"archive/{one.name}",
        f"archive/{two.name}",
    }


def test_archive_goal_without_a_goal_raises(tmp_path: Path) -> None:
    """There is nothing to archive when GOAL.md does not exist."""
    with pytest.raises(GoalFileError, match="no goal to archive"):
        archive_goal(tmp_path, now=LATER)


# ---------------------------------------------------------------------------------------------
# split_frontmatter
# ---------------------------------------------------------------------------------------------


def test_split_frontmatter_tolerates_a_bom_and_crlf() -> None:
    """A BOM is dropped and CRLF becomes LF in both parts."""
    assert split_frontmatter("\ufeff---\r\na: 1\r\n---\r\n# Goal\r\n") == ("a: 1\n", "# Goal\n")


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("---\n---\n", ("", "")),
        ("---\na: 1\n---", ("a: 1\n", "")),
        ("---  \na: 1\n---  \nbody", ("a: 1\n", "body")),
        ("# Goal\n---\na: 1\n---\n", None),
        ("---\na: 1\n", None),
        ("--- a\n---\n", None),
        ("", None),
        ("---", None),
    ],
)
def test_split_frontmatter_needs_an_opening_and_a_closing_line(
    text: str, parts: tuple[str, str] | None
) -> None:
    """Only a text opening with a ``---`` line and closing one later has a frontmatter."""
    assert split_frontmatter(text) == parts


def test_an_absurd_limit_is_clamped_not_fatal(tmp_path: Path) -> None:
    """A 400-digit timeout is read as the largest sensible limit, not an error."""
    path = tmp_path / ".agents" / "goal" / "GOAL.md"
    path.parent.mkdir(parents=True)
    path.write_text(
        "---\nstatus: active\nlimits:\n  timeout_s: " + "9" * 400 + "\n---\n", encoding="utf-8"
    )
    doc = load_goal(tmp_path)
    assert doc is not None and doc.goal is not None and doc.goal.timeout_s == 1e9
