"""GOAL.md on disk (seed 001): read it as a ``Goal``, create it, update it in place, archive it.

GOAL.md belongs to the person as much as to goalkeeper: people add comments, extra keys and notes,
and those must survive every update. So an update never re-serializes the whole file: it sets
only the frontmatter fields it changes (``store.frontmatter`` splices their lines), appends its
Progress Log lines, and leaves every other byte where it was. The file is read on every Stop
hook, so it is parsed with libyaml (``store.yaml12``) and only when it changed.

A file that cannot be read as a goal is reported as a value by ``load_goal`` and refused by the
writers with ``GoalFileError``; goalkeeper never overwrites a file it could not read. Turning the
parts into a ``Goal`` and back is ``core.goal``'s job; this module only does the file work.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from msgspec import Struct

from goalkeeper.core.goals.goal import (
    Goal,
    GoalUpdate,
    frontmatter_of,
    goal_from_parts,
    parse_goal_body,
    render_goal_markdown,
    tick_criteria,
)
from goalkeeper.core.goals.goal import (
    GoalDoc as GoalDoc,  # the value load_goal returns; re-exported
)
from goalkeeper.core.text.lazy_re import lazy_re

GOAL_DIR = Path(".agents") / "goal"
GOAL_FILE = "GOAL.md"
ARCHIVE_DIR = "archive"
MAX_GOAL_BYTES = 1024 * 1024  # a goal is a page or two; a megabyte is not a goal document
HEADER = "# Kept by goalkeeper. People may edit it too: comments and extra keys are kept."
SHOWN = (GOAL_DIR / GOAL_FILE).as_posix()
_LIVE = ("active", "blocked")  # a goal still being worked on: never replaced unasked
_HEADING = lazy_re(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")  # the heading rule of parse_goal_body
_CONTROL = lazy_re(r"[\x00-\x08\x0b-\x1f\x7f]")  # NUL would make the file "binary"


class GoalFileError(Exception):
    """GOAL.md cannot be used as it is; the message says what is wrong and what to do.
    The file is left untouched."""


class _Parsed(Struct, frozen=True):
    """A GOAL.md read for writing: its text and where the frontmatter and the body are."""

    text: str
    """Without the BOM; CRLF files are turned into LF and back when written."""
    bom: bool
    crlf: bool
    yaml_start: int
    yaml_end: int
    body_start: int
    data: dict[Any, Any]


_cache: dict[str, tuple[tuple[int, int], GoalDoc, _Parsed | None]] = {}
"""GOAL.md by path: its (mtime, size), the goal read from it and the parsed text, so one event
reads the file once whether it loads the goal, updates it or archives it."""


def goal_path(project: Path) -> Path:
    return project / GOAL_DIR / GOAL_FILE


def split_frontmatter(text: str) -> tuple[str, str] | None:
    """("yaml text", "body") for a text that starts with a ``---`` line and has a closing ``---``
    line, else None. A BOM is dropped and CRLF line endings become LF."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    span = _span(text)
    if span is None:
        return None
    yaml_start, yaml_end, body_start = span
    return text[yaml_start:yaml_end], text[body_start:]


def load_goal(project: Path) -> GoalDoc | None:
    """The goal, or None when there is no GOAL.md. Read once per (path, mtime, size). Never
    raises: a file that cannot be read as a goal comes back with ``problem`` saying what to fix."""
    path = goal_path(project)
    key = str(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        _cache.pop(key, None)
        return None
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the project's path
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        return GoalDoc(SHOWN, None, problem=f"cannot read {SHOWN}: {reason}")
    stamp = (st.st_mtime_ns, st.st_size)
    cached = _cache.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    parsed: _Parsed | None = None
    try:
        parsed = _parse(_read(path, project))
        doc = GoalDoc(SHOWN, _goal(parsed.data, parsed.text[parsed.body_start :]))
    except GoalFileError as exc:
        doc = GoalDoc(SHOWN, None, problem=str(exc))
    _cache[key] = (stamp, doc, parsed)
    return doc


def create_goal(project: Path, goal: Goal, *, replace: bool = False) -> Path:
    """Write a new GOAL.md for ``goal``. An active or blocked goal (or a file that cannot be read,
    which may be one) is replaced only with ``replace``; any old file is archived first, so no
    goal is ever lost."""
    path = goal_path(project)
    old = load_goal(project)
    if old is not None:
        if not replace and old.goal is None:
            raise GoalFileError(
                f"{old.problem}. It may hold an active goal, so goalkeeper does not replace it; "
                "fix it, or replace it (the old file is archived)"
            )
        if not replace and old.goal is not None and old.goal.status in _LIVE:
            raise GoalFileError(
                f"{SHOWN} already holds a {old.goal.status} goal ({old.goal.objective!r}); "
                "finish or archive it first, or replace it (the old file is archived)"
            )
    from goalkeeper.store.frontmatter import FrontmatterError, render, yamlable

    try:
        fields = "".join(render(k, v) for k, v in yamlable(frontmatter_of(goal)).items())
    except FrontmatterError as exc:
        raise GoalFileError(f"{SHOWN}: {exc}") from None
    raw = f"---\n{HEADER}\n{fields}---\n{render_goal_markdown(goal)}".encode()
    _parse(raw)  # what goalkeeper writes, it must be able to read back
    if old is not None:
        objective = old.goal.objective if old.goal is not None else ""
        archive_goal(
            project, now=goal.created or goal.updated or _mtime_text(path), objective=objective
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomic(path, raw, expect=None)
    _cache.pop(str(path), None)
    return path


def update_goal(project: Path, update: GoalUpdate, *, now: str) -> Goal:
    """Apply ``update`` to GOAL.md: set its frontmatter fields and ``updated: now``, append its
    Progress Log lines, and keep everything else (comments, key order, unknown keys, the rest of
    the body) byte for byte. Written atomically; a file that is missing or cannot be read raises
    ``GoalFileError`` and is not written. With ``update.archive`` the file is archived after."""
    path = goal_path(project)
    from goalkeeper.store.frontmatter import FrontmatterError, set_fields, yamlable

    wanted = {key: yamlable(value) for key, value in update.fields.items()}
    wanted["updated"] = now
    for _ in range(3):  # a person saving the file meanwhile: redo the update on their version
        try:
            st = path.stat()
        except FileNotFoundError:
            raise GoalFileError(f"{SHOWN} does not exist; create a goal first") from None
        except OSError as exc:
            raise GoalFileError(f"cannot read {SHOWN}: {exc.strerror}") from None
        cached = _cache.get(str(path))
        if cached is not None and cached[0] == (st.st_mtime_ns, st.st_size) and cached[2]:
            parsed = cached[2]  # read already in this event (``load_goal``)
        else:
            parsed = _parse(_read(path, project))
        yaml_text = parsed.text[parsed.yaml_start : parsed.yaml_end]
        try:
            new_yaml = set_fields(yaml_text, parsed.data, wanted)
        except FrontmatterError as exc:
            raise GoalFileError(f"{SHOWN}: {exc}") from None
        body = tick_criteria(parsed.text[parsed.body_start :], update.tick)
        body = _append_log(body, update.log)
        closing = parsed.text[parsed.yaml_end : parsed.body_start]
        if body and not closing.endswith("\n"):  # a file that ended on its closing '---'
            closing += "\n"
        text = parsed.text[: parsed.yaml_start] + new_yaml + closing + body
        if parsed.crlf:
            text = text.replace("\n", "\r\n")
        raw = ("\ufeff" if parsed.bom else "").encode("utf-8") + text.encode("utf-8")
        written = _parse(raw)  # what goalkeeper writes, it must be able to read back
        goal = _goal(written.data, written.text[written.body_start :])
        if _write_atomic(path, raw, expect=(st.st_mtime_ns, st.st_size)):
            break
    else:
        raise GoalFileError(f"{SHOWN} kept changing while goalkeeper updated it; try again")
    _cache.pop(str(path), None)
    if update.archive:
        archive_goal(project, now=now, objective=goal.objective)
    return goal


def archive_goal(project: Path, *, now: str, objective: str | None = None) -> Path:
    """Move GOAL.md to ``archive/<YYYYmmddTHHMMSS>-<slug of the objective>.md``. The name is
    reserved before the move, so an archived goal is never overwritten."""
    path = goal_path(project)
    if not path.is_file():
        raise GoalFileError(f"{SHOWN} does not exist; there is no goal to archive")
    if objective is None:  # the caller did not just read it
        doc = load_goal(project)
        objective = doc.goal.objective if doc is not None and doc.goal is not None else ""
    folder = path.parent / ARCHIVE_DIR
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{_stamp_text(now)}-{_slug(objective)}"
    for n in itertools.count(1):
        target = folder / (f"{stem}.md" if n == 1 else f"{stem}-{n}.md")
        try:
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        break
    try:
        os.replace(path, target)
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    _cache.pop(str(path), None)
    return target


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


def _read(path: Path, project: Path) -> bytes:
    """GOAL.md's bytes: a regular file in the project of at most ``MAX_GOAL_BYTES`` (the agent
    can make it a FIFO, a device or a symlink out of the project)."""
    from goalkeeper.store.safe_read import UnsafeFile, read_capped

    try:
        return read_capped(path, MAX_GOAL_BYTES, within=project)
    except UnsafeFile as exc:
        if exc.kind == "too_large":
            raise GoalFileError(
                f"{SHOWN} {exc.reason}; shorten it (move old Progress Log entries elsewhere)"
            ) from None
        if exc.kind == "missing":
            raise GoalFileError(f"{SHOWN} does not exist; create a goal first") from None
        raise GoalFileError(f"{SHOWN} {exc.reason}; replace it with a regular file") from None


def _too_large(size: int) -> str:
    return (
        f"{SHOWN} is {size / 1024 / 1024:.1f} MB, more than the 1 MB a goal may have; "
        "shorten it (move old Progress Log entries elsewhere)"
    )


def _parse(raw: bytes) -> _Parsed:
    if len(raw) > MAX_GOAL_BYTES:  # grown between stat and read
        raise GoalFileError(_too_large(len(raw)))
    if b"\x00" in raw[:8192]:
        raise GoalFileError(
            f"{SHOWN} is a binary file, not Markdown text; replace it with a goal or remove it"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GoalFileError(
            f"{SHOWN} is not valid UTF-8 (byte {exc.start}); save it as UTF-8"
        ) from None
    bom = text.startswith("\ufeff")
    text = text.removeprefix("\ufeff")
    first = text.find("\n")
    crlf = first > 0 and text[first - 1] == "\r"
    if crlf:  # an LF file keeps any stray CR as it is; only a CRLF file is converted and back
        text = text.replace("\r\n", "\n")
    span = _span(text)
    if span is None:
        raise GoalFileError(
            f"{SHOWN} has no YAML frontmatter; it must start with a line '---', then the goal's "
            "fields ('status: active', ...), then a closing '---' line"
        )
    from goalkeeper.store.frontmatter import FrontmatterError, load_mapping  # libyaml: lazily

    try:
        data = load_mapping(text[span[0] : span[1]])
    except FrontmatterError as exc:
        raise GoalFileError(f"{SHOWN}: {exc}") from None
    return _Parsed(text, bom, crlf, span[0], span[1], span[2], data)


def _span(text: str) -> tuple[int, int, int] | None:
    """Where the YAML starts and ends and where the body starts, in a text without a BOM."""
    first = text.find("\n")
    if first < 0 or text[:first].rstrip() != "---":
        return None
    pos = first + 1
    while pos < len(text):
        end = text.find("\n", pos)
        line_end = len(text) if end < 0 else end
        if text[pos:line_end].rstrip() == "---":
            return first + 1, pos, len(text) if end < 0 else end + 1
        if end < 0:
            return None
        pos = end + 1
    return None


def _goal(data: Mapping[Any, Any], body: str) -> Goal:
    try:
        return goal_from_parts(data, body)
    except Exception as exc:  # a value core cannot convert (a 400-digit number) is a file problem
        message = f"{SHOWN} holds a value goalkeeper cannot use ({exc}); correct it"
        raise GoalFileError(message) from None


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


def _append_log(body: str, lines: Iterable[str]) -> str:
    """``body`` with ``- line`` entries after the last entry of its Progress Log section (the
    section ``parse_goal_body`` reads), or in a new section at the end. An entry is one line."""
    texts = (
        _CONTROL.sub("", " ".join(p.strip() for p in line.splitlines())).strip() for line in lines
    )
    entries = [f"- {text}" for text in texts if text]
    if not entries:
        return body
    rows = body.split("\n")
    fence = False
    heading: int | None = None
    end = len(rows)
    for i, row in enumerate(rows):
        if row.strip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence or not _HEADING.match(row):
            continue
        if parse_goal_body(f"{row}\n- x").progress_log == ("x",):
            heading, end = i, len(rows)
        elif heading is not None and end == len(rows):
            end = i
    if heading is None:
        prefix = body if not body or body.endswith("\n") else body + "\n"
        if prefix.strip() and not prefix.endswith("\n\n"):
            prefix += "\n"
        return prefix + "## Progress Log\n" + "\n".join(entries) + "\n"
    last = max((i for i in range(heading + 1, end) if rows[i].strip()), default=heading)
    rows[last + 1 : last + 1] = entries
    if last + 1 + len(entries) == len(rows):  # appended at the very end: end with a newline
        rows.append("")
    return "\n".join(rows)


def _write_atomic(path: Path, data: bytes, *, expect: tuple[int, int] | None) -> bool:
    """Write through a temp file in the same folder and ``os.replace``, keeping the file's mode.
    With ``expect``, the file is replaced only if its (mtime, size) is still that; False if not."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        mode: int | None = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        if expect is not None:
            try:
                st = path.stat()
            except FileNotFoundError:
                raise GoalFileError(f"{SHOWN} was removed while goalkeeper updated it") from None
            if (st.st_mtime_ns, st.st_size) != expect:
                tmp.unlink()
                return False
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return True


# ---------------------------------------------------------------------------------------------
# Names and YAML
# ---------------------------------------------------------------------------------------------


def _stamp_text(now: str) -> str:
    from datetime import datetime

    try:
        return datetime.fromisoformat(now.strip()).strftime("%Y%m%dT%H%M%S")
    except ValueError:
        digits = re.sub(r"\D", "", now)[:14].ljust(14, "0")
        return f"{digits[:8]}T{digits[8:]}"


def _slug(text: str) -> str:
    slug = "-".join(re.findall(r"[^\W_]+", text.lower()))[:48].rstrip("-")
    return slug or "goal"


def _mtime_text(path: Path) -> str:
    from datetime import UTC, datetime

    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat()
    except OSError:
        return "0"
