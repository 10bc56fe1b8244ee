"""Plan discovery and loading: newest ``plan/*.md``, an mtime cache, and unusable files."""

from __future__ import annotations

import os
from pathlib import Path

from goalkeeper.store.documents import MAX_PLAN_BYTES, find_plan, load_plan

T0 = 1_700_000_000 * 10**9  # a fixed mtime, in nanoseconds


def _write(project: Path, name: str, text: str | bytes, mtime_ns: int = T0) -> Path:
    path = project / "plan" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


# ---------------------------------------------------------------------------------------------
# find_plan
# ---------------------------------------------------------------------------------------------


def test_find_plan_picks_the_newest_modified_file(tmp_path: Path) -> None:
    """The most recently modified ``plan/*.md`` is the plan."""
    _write(tmp_path, "a.md", "old", T0)
    newest = _write(tmp_path, "b.md", "new", T0 + 10**9)
    _write(tmp_path, "c.md", "older", T0 - 10**9)
    assert find_plan(tmp_path) == newest


def test_find_plan_follows_a_touch(tmp_path: Path) -> None:
    """Touching an older file makes it the plan."""
    a = _write(tmp_path, "a.md", "a", T0)
    _write(tmp_path, "b.md", "b", T0 + 10**9)
    os.utime(a, ns=(T0 + 2 * 10**9, T0 + 2 * 10**9))
    assert find_plan(tmp_path) == a


def test_find_plan_ignores_plan_md(tmp_path: Path) -> None:
    """``plan.md`` is never the plan, even when it is the newest file."""
    topic = _write(tmp_path, "topic.md", "t", T0)
    _write(tmp_path, "plan.md", "p", T0 + 10**9)
    assert find_plan(tmp_path) == topic


def test_find_plan_with_only_plan_md_is_none(tmp_path: Path) -> None:
    """A folder holding only ``plan.md`` has no plan."""
    _write(tmp_path, "plan.md", "p")
    assert find_plan(tmp_path) is None


def test_find_plan_ignores_editor_swap_and_lock_files(tmp_path: Path) -> None:
    """Editor swap, lock and backup files are not plans, however new they are."""
    topic = _write(tmp_path, "topic.md", "t", T0)
    for name in (".topic.md.swp", ".#topic.md", "~topic.md", "#topic.md#", "topic.md~"):
        _write(tmp_path, name, "junk", T0 + 10**9)
    assert find_plan(tmp_path) == topic


def test_find_plan_ignores_other_extensions(tmp_path: Path) -> None:
    """Only Markdown files count."""
    topic = _write(tmp_path, "topic.md", "t", T0)
    _write(tmp_path, "notes.txt", "n", T0 + 10**9)
    assert find_plan(tmp_path) == topic


def test_find_plan_ignores_directories(tmp_path: Path) -> None:
    """A directory named like a Markdown file is not a plan."""
    topic = _write(tmp_path, "topic.md", "t", T0)
    folder = tmp_path / "plan" / "drafts.md"
    folder.mkdir()
    os.utime(folder, ns=(T0 + 10**9, T0 + 10**9))
    assert find_plan(tmp_path) == topic


def test_find_plan_without_folder_is_none(tmp_path: Path) -> None:
    """A project without ``plan/`` has no plan."""
    assert find_plan(tmp_path) is None


def test_find_plan_in_an_empty_folder_is_none(tmp_path: Path) -> None:
    """An empty ``plan/`` has no plan."""
    (tmp_path / "plan").mkdir()
    assert find_plan(tmp_path) is None


def test_find_plan_uses_the_configured_folder(tmp_path: Path) -> None:
    """``plan_dir`` names the folder to look in."""
    path = tmp_path / "docs" / "plans" / "topic.md"
    path.parent.mkdir(parents=True)
    path.write_text("t", encoding="utf-8")
    assert find_plan(tmp_path, "docs/plans") == path
    assert find_plan(tmp_path) is None


def test_find_plan_breaks_ties_deterministically(tmp_path: Path) -> None:
    """Files with the same mtime give the same answer every time."""
    _write(tmp_path, "a.md", "a", T0)
    _write(tmp_path, "b.md", "b", T0)
    first = find_plan(tmp_path)
    assert first is not None
    assert all(find_plan(tmp_path) == first for _ in range(3))


# ---------------------------------------------------------------------------------------------
# load_plan
# ---------------------------------------------------------------------------------------------


def test_load_plan_parses_the_newest_plan(tmp_path: Path) -> None:
    """``load_plan`` parses the newest plan and names it relative to the project."""
    _write(tmp_path, "old.md", "## Key Results\n- [ ] old\n", T0)
    _write(tmp_path, "new.md", "## Key Results\n- [x] new\n", T0 + 10**9)
    doc = load_plan(tmp_path)
    assert doc is not None
    assert doc.path == "plan/new.md"
    assert doc.plan is not None
    assert [kr.text for kr in doc.plan.key_results] == ["new"]
    assert (doc.problem, doc.note) == (None, None)


def test_load_plan_without_plan_is_none(tmp_path: Path) -> None:
    """With no plan file, there is no plan document."""
    assert load_plan(tmp_path) is None


def test_load_plan_returns_the_cached_parse_when_unchanged(tmp_path: Path) -> None:
    """An unchanged file is not parsed again: the same object comes back."""
    _write(tmp_path, "topic.md", "## Key Results\n- [ ] a\n")
    first = load_plan(tmp_path)
    assert first is not None
    assert load_plan(tmp_path) is first


def test_load_plan_reparses_after_an_mtime_change(tmp_path: Path) -> None:
    """A new mtime with the same size means a new parse."""
    path = _write(tmp_path, "topic.md", "## Key Results\n- [ ] a\n", T0)
    first = load_plan(tmp_path)
    _write(tmp_path, "topic.md", "## Key Results\n- [x] a\n", T0 + 10**9)
    assert path.stat().st_size == len("## Key Results\n- [ ] a\n")
    second = load_plan(tmp_path)
    assert second is not first
    assert second is not None and second.plan is not None
    assert second.plan.key_results[0].state == "done"


def test_load_plan_reparses_after_a_size_change(tmp_path: Path) -> None:
    """A new size with the same mtime means a new parse."""
    _write(tmp_path, "topic.md", "## Key Results\n- [ ] a\n", T0)
    first = load_plan(tmp_path)
    _write(tmp_path, "topic.md", "## Key Results\n- [ ] a\n- [ ] b\n", T0)
    second = load_plan(tmp_path)
    assert second is not first
    assert second is not None and second.plan is not None
    assert len(second.plan.key_results) == 2


def test_load_plan_follows_a_newer_plan_file(tmp_path: Path) -> None:
    """A newer plan file replaces the previous one."""
    _write(tmp_path, "a.md", "## Objective\nA.\n", T0)
    first = load_plan(tmp_path)
    assert first is not None and first.path == "plan/a.md"
    _write(tmp_path, "b.md", "## Objective\nB.\n", T0 + 10**9)
    doc = load_plan(tmp_path)
    assert doc is not None and doc.plan is not None
    assert (doc.path, doc.plan.objective) == ("plan/b.md", "B.")


def test_load_plan_clears_state_when_the_plan_disappears(tmp_path: Path) -> None:
    """With the plan gone, no stale parse survives, even for an identical-looking new file."""
    path = _write(tmp_path, "topic.md", "## Key Results\n- [ ] a\n", T0)
    assert load_plan(tmp_path) is not None
    path.unlink()
    assert load_plan(tmp_path) is None
    # Same path, mtime and size as before, different content: only a dropped cache sees it.
    _write(tmp_path, "topic.md", "## Key Results\n- [x] a\n", T0)
    doc = load_plan(tmp_path)
    assert doc is not None and doc.plan is not None
    assert doc.plan.key_results[0].state == "done"


def test_load_plan_of_a_huge_file_reports_a_problem(tmp_path: Path) -> None:
    """A 10 MB file is not parsed: ``problem`` says why, and nothing raises."""
    line = b"- [ ] a key result line that repeats\n"
    _write(tmp_path, "huge.md", line * (10 * 1024 * 1024 // len(line) + 1))
    doc = load_plan(tmp_path)
    assert doc is not None
    assert doc.plan is None
    assert doc.problem
    assert doc.path == "plan/huge.md"


def test_load_plan_just_under_the_limit_is_parsed(tmp_path: Path) -> None:
    """A file at the size limit is still a plan."""
    head = b"## Objective\nShip it.\n"
    _write(tmp_path, "big.md", head + b"x" * (MAX_PLAN_BYTES - len(head)))
    doc = load_plan(tmp_path)
    assert doc is not None
    assert doc.problem is None
    assert doc.plan is not None and doc.plan.objective == "Ship it."


def test_load_plan_of_a_binary_file_reports_a_problem(tmp_path: Path) -> None:
    """A binary file is not parsed: ``problem`` says why."""
    _write(tmp_path, "image.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01")
    doc = load_plan(tmp_path)
    assert doc is not None
    assert doc.plan is None
    assert doc.problem


def test_load_plan_of_invalid_utf8_is_parsed_with_a_note(tmp_path: Path) -> None:
    """Invalid UTF-8 is read with replacement characters and flagged in ``note``."""
    _write(tmp_path, "topic.md", b"## Key Results\n- [ ] caf\xe9 open\n- [x] done\n")
    doc = load_plan(tmp_path)
    assert doc is not None
    assert doc.problem is None
    assert doc.note
    assert doc.plan is not None
    assert [kr.state for kr in doc.plan.key_results] == ["open", "done"]
    assert "\ufffd" in doc.plan.key_results[0].text


def test_load_plan_of_valid_utf8_has_no_note(tmp_path: Path) -> None:
    """A clean UTF-8 Chinese plan parses with no note."""
    _write(tmp_path, "主题.md", "## 目标（Objective）\n上线。\n")
    doc = load_plan(tmp_path)
    assert doc is not None
    assert doc.note is None
    assert doc.plan is not None and doc.plan.objective == "上线。"


def test_load_plan_with_a_bom_and_crlf(tmp_path: Path) -> None:
    """A BOM and CRLF line endings in the file do not disturb parsing."""
    _write(tmp_path, "topic.md", "\ufeff## Key Results\r\n- [x] a\r\n".encode())
    doc = load_plan(tmp_path)
    assert doc is not None and doc.plan is not None
    assert [kr.state for kr in doc.plan.key_results] == ["done"]
