"""GOAL.md on disk (seed 001): read it as a ``Goal``, create it, update it in place, archive it.

GOAL.md belongs to the person as much as to goalkeeper: people add comments, extra keys and notes,
and those must survive every update. So an update never re-serializes the whole file: it rewrites
only the lines of the frontmatter fields it sets, appends its Progress Log lines, and leaves every
other byte where it was. ruamel.yaml (round-trip mode) parses the frontmatter, finds where each
field is, and renders the fields that change. It is imported inside the functions that need it:
hooks import this module, and ruamel costs ~30 ms to import.

A file that cannot be read as a goal is reported as a value by ``load_goal`` and refused by the
writers with ``GoalFileError``; goalkeeper never overwrites a file it could not read. Turning the
parts into a ``Goal`` and back is ``core.goal``'s job; this module only does the file work.
"""

from __future__ import annotations

import functools
import io
import itertools
import os
import re
from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

from goalkeeper.core.goal import (
    Goal,
    GoalUpdate,
    frontmatter_of,
    goal_from_parts,
    parse_goal_body,
    render_goal_markdown,
)
from goalkeeper.core.goal import GoalDoc as GoalDoc  # the value load_goal returns; re-exported

GOAL_DIR = Path(".agents") / "goal"
GOAL_FILE = "GOAL.md"
ARCHIVE_DIR = "archive"
MAX_GOAL_BYTES = 1024 * 1024  # a goal is a page or two; a megabyte is not a goal document
HEADER = "# Kept by goalkeeper. People may edit it too: comments and extra keys are kept."
SHOWN = (GOAL_DIR / GOAL_FILE).as_posix()
_LIVE = ("active", "blocked")  # a goal still being worked on: never replaced unasked
_WIDTH = 1 << 20  # never fold a long line: a folded objective or command is hard to edit
_STR_TAG = "tag:yaml.org,2002:str"
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")  # the heading rule of parse_goal_body
_KEY_LINE_COMMENT = re.compile(r"\s*:?(\s+#.*)$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # NUL would make the file "binary"
_OPENS_BLOCK = re.compile(r":\s*(?:[|>][-+1-9]*)?$")


class GoalFileError(Exception):
    """GOAL.md cannot be used as it is; the message says what is wrong and what to do.
    The file is left untouched."""


@dataclass(frozen=True, slots=True)
class _Parsed:
    """A GOAL.md read for writing: its text and where the frontmatter and the body are."""

    text: str
    """Without the BOM; CRLF files are turned into LF and back when written."""
    bom: bool
    crlf: bool
    yaml_start: int
    yaml_end: int
    body_start: int
    data: dict[Any, Any]


_cache: dict[str, tuple[tuple[int, int], GoalDoc]] = {}


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
    except OSError as exc:
        return GoalDoc(SHOWN, None, problem=f"cannot read {SHOWN}: {exc.strerror}")
    stamp = (st.st_mtime_ns, st.st_size)
    cached = _cache.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        parsed = _parse(_read(path, st.st_size))
        doc = GoalDoc(SHOWN, _goal(parsed.data, parsed.text[parsed.body_start :]))
    except GoalFileError as exc:
        doc = GoalDoc(SHOWN, None, problem=str(exc))
    _cache[key] = (stamp, doc)
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
    fields = "".join(_render(k, v) for k, v in _yamlable(frontmatter_of(goal)).items())
    raw = f"---\n{HEADER}\n{fields}---\n{render_goal_markdown(goal)}".encode()
    _parse(raw)  # what goalkeeper writes, it must be able to read back
    if old is not None:
        archive_goal(project, now=goal.created or goal.updated or _mtime_text(path))
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
    wanted = {key: _yamlable(value) for key, value in update.fields.items()}
    wanted["updated"] = now
    for _ in range(3):  # a person saving the file meanwhile: redo the update on their version
        try:
            st = path.stat()
        except FileNotFoundError:
            raise GoalFileError(f"{SHOWN} does not exist; create a goal first") from None
        except OSError as exc:
            raise GoalFileError(f"cannot read {SHOWN}: {exc.strerror}") from None
        parsed = _parse(_read(path, st.st_size))
        yaml_text = parsed.text[parsed.yaml_start : parsed.yaml_end]
        new_yaml, _ = _set_fields(yaml_text, parsed.data, wanted)
        body = _append_log(parsed.text[parsed.body_start :], update.log)
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
        archive_goal(project, now=now)
    return goal


def archive_goal(project: Path, *, now: str) -> Path:
    """Move GOAL.md to ``archive/<YYYYmmddTHHMMSS>-<slug of the objective>.md``. The name is
    reserved before the move, so an archived goal is never overwritten."""
    path = goal_path(project)
    if not path.is_file():
        raise GoalFileError(f"{SHOWN} does not exist; there is no goal to archive")
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


def _read(path: Path, size: int) -> bytes:
    if size > MAX_GOAL_BYTES:
        raise GoalFileError(_too_large(size))
    try:
        return path.read_bytes()
    except OSError as exc:
        raise GoalFileError(f"cannot read {SHOWN}: {exc.strerror}") from None


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
    data = _load_mapping(text[span[0] : span[1]])
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


def _load_mapping(yaml_text: str) -> dict[Any, Any]:
    try:
        data = _new_yaml().load(yaml_text)
    except Exception as exc:  # ruamel raises more than YAMLError on hostile text (RecursionError…)
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""  # +1: 1-based; +1: '---'
        what = getattr(exc, "problem", None) or type(exc).__name__
        what = "nested too deeply" if isinstance(exc, RecursionError) else what
        message = f"{SHOWN}: the frontmatter is not valid YAML{where} ({what}); fix that line"
        raise GoalFileError(message) from None
    if data is None and not _has_content(yaml_text):
        return {}  # an empty frontmatter: every field takes its default
    if not isinstance(data, Mapping):
        kind = "list" if isinstance(data, list) else "null" if data is None else "single value"
        raise GoalFileError(
            f"{SHOWN}: the frontmatter is a {kind}, not a mapping of fields; "
            "write one 'key: value' per line"
        )
    try:
        plain = _plain(data)
    except RecursionError:
        raise GoalFileError(f"{SHOWN}: the frontmatter is nested too deeply; simplify it") from None
    except Exception as exc:  # load_goal never raises, whatever shape ruamel gave the data
        message = (
            f"{SHOWN}: the frontmatter has a shape goalkeeper cannot read ({exc}); simplify it"
        )
        raise GoalFileError(message) from None
    return dict(plain)


def _goal(data: Mapping[Any, Any], body: str) -> Goal:
    try:
        return goal_from_parts(data, body)
    except Exception as exc:  # a value core cannot convert (a 400-digit number) is a file problem
        message = f"{SHOWN} holds a value goalkeeper cannot use ({exc}); correct it"
        raise GoalFileError(message) from None


def _has_content(yaml_text: str) -> bool:
    return any(
        s and not s.startswith("#") for s in (line.strip() for line in yaml_text.split("\n"))
    )


def _plain(data: Any) -> Any:
    """Plain dicts, lists, strings and numbers instead of ruamel's commented and scalar types.
    Shared and cyclic values (YAML anchors) are converted once."""
    from ruamel.yaml.scalarbool import ScalarBoolean

    memo: dict[int, Any] = {}

    def convert(value: Any) -> Any:
        if id(value) in memo:
            return memo[id(value)]
        if isinstance(value, Mapping):
            out: Any = {}
            memo[id(value)] = out
            out.update((_scalar(k), convert(v)) for k, v in value.items())
            return out
        if isinstance(value, list):
            seq: list[Any] = []
            memo[id(value)] = seq
            seq.extend(convert(v) for v in value)
            return seq
        return _scalar(value)

    def _scalar(value: Any) -> Any:  # also for keys: a complex key stays hashable as it is
        if isinstance(value, ScalarBoolean):
            return bool(value)
        if isinstance(value, str | bool):
            return str(value) if isinstance(value, str) else value
        if isinstance(value, int | float):
            return int(value) if isinstance(value, int) else float(value)
        return value

    return convert(data)


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


def _set_fields(
    yaml_text: str, data: dict[Any, Any], wanted: dict[str, Any]
) -> tuple[str, dict[Any, Any]]:
    """The frontmatter with ``wanted`` set, and what it now reads as. Only the lines of the
    fields that change are rewritten; when that cannot give the right result (a flow-style
    mapping, an anchor used elsewhere), the frontmatter is rendered again by ruamel, which keeps
    comments and order but may change spacing. Whatever is written is read back first."""
    keys = list(data) + [k for k in wanted if k not in data]
    for attempt in (_splice, _redump):
        candidate = attempt(yaml_text, wanted)
        if candidate is None:
            continue
        try:
            new = _load_mapping(candidate)
        except GoalFileError:
            continue
        if list(new) == keys and all(_same(new.get(k), v) for k, v in wanted.items()):
            return candidate, new
    raise GoalFileError(
        f"{SHOWN}: goalkeeper cannot set {', '.join(wanted)} without changing other fields; "
        "simplify the frontmatter (no anchors or flow style) and try again"
    )


def _splice(yaml_text: str, wanted: dict[str, Any]) -> str | None:
    """Replace the lines of each wanted top-level field and append the new ones at the end.
    A comment on the field's first line is kept; so are the comment and blank lines that end
    its span at the field's own indentation, since they introduce the next field."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode

    root = _new_yaml().compose(yaml_text)
    if root is None:
        pairs: list[tuple[Any, Any]] = []
    elif isinstance(root, MappingNode) and not root.flow_style:
        pairs = list(root.value)
    else:
        return None
    first = pairs[0][0].start_mark.index if pairs else 0
    column = first - _line_start(yaml_text, first)
    pad = " " * column
    out: list[str] = []
    done: set[str] = set()
    pos = 0
    for i, (key, value) in enumerate(pairs):
        name = key.value if isinstance(key, ScalarNode) and str(key.tag) == _STR_TAG else None
        if name not in wanted or name in done:
            continue
        start = _line_start(yaml_text, key.start_mark.index)
        nxt = (
            _line_start(yaml_text, pairs[i + 1][0].start_mark.index) if i + 1 < len(pairs) else None
        )
        end = _trim_tail(yaml_text, start, len(yaml_text) if nxt is None else nxt, column)
        chunk = _indent(_render(name, wanted[name]), pad)
        comment = _key_line_comment(yaml_text, key, value)
        head, _, rest = chunk.partition("\n")
        if comment and (not rest or _OPENS_BLOCK.search(head)):
            chunk = f"{head}{comment}\n{rest}"
        out += [yaml_text[pos:start], chunk]
        pos = end
        done.add(name)
    out.append(yaml_text[pos:])
    if out[-1] and not out[-1].endswith("\n"):
        out.append("\n")
    out += [_indent(_render(k, v), pad) for k, v in wanted.items() if k not in done]
    return "".join(out)


def _redump(yaml_text: str, wanted: dict[str, Any]) -> str | None:
    yaml = _new_yaml()
    try:
        data = yaml.load(yaml_text)
    except Exception:  # already parsed once; a failure here only means "cannot redump"
        return None
    if not isinstance(data, MutableMapping):
        return None
    for key, value in wanted.items():
        data[key] = _pretty(value)
    buffer = io.StringIO()
    yaml.dump(data, buffer)
    return buffer.getvalue()


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _trim_tail(text: str, start: int, end: int, column: int) -> int:
    """Move ``end`` back over trailing blank lines and comments not indented past the key."""
    first_end = text.find("\n", start, end)
    floor = end if first_end < 0 else first_end + 1
    while end > floor:
        prev = text.rfind("\n", start, end - 1) + 1
        line = text[prev:end]
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if stripped and not (stripped.startswith("#") and indent <= column):
            break
        end = prev
    return end


def _key_line_comment(text: str, key: Any, value: Any) -> str | None:
    """The comment at the end of a field's first line (``attempts: 2  # note``), if any."""
    eol = text.find("\n", key.end_mark.index)
    eol = len(text) if eol < 0 else eol
    starts, ends = value.start_mark.index, value.end_mark.index
    if key.end_mark.index <= starts and ends <= eol:  # a one-line value (not an alias)
        tail = text[ends:eol]
        match = re.match(r"(\s+#.*)$", tail)
        return match.group(1) if match else None
    if starts > eol:  # the value is on the lines below (a block mapping or list, or empty)
        match = _KEY_LINE_COMMENT.match(text[key.end_mark.index : eol])
        return match.group(1) if match else None
    return None


def _indent(chunk: str, pad: str) -> str:
    if not pad:
        return chunk
    return "".join(pad + line if line.strip() else line for line in chunk.splitlines(True))


def _render(key: str, value: Any) -> str:
    """``key: value`` as YAML lines. Multi-line text is written as a ``|`` block, which people
    can read and edit, unless that would not read back as the same text; then as plain YAML;
    and last with every string double-quoted, the one style that escapes every character
    (ruamel writes a NEL or a line separator raw in the others, and it reads back as a space)."""
    for candidate in (_pretty(value), value, _pretty(value, quote=True)):
        text = _dump({key: candidate})
        try:
            back = _plain(_new_yaml().load(text))
        except Exception:  # a rendering ruamel cannot read back is not used
            continue
        if isinstance(back, Mapping) and _same(back.get(key), value):
            return text
    raise ValueError(f"cannot write {key}={value!r} to {SHOWN} as YAML that reads back the same")


def _dump(data: Any) -> str:
    buffer = io.StringIO()
    _new_yaml().dump(data, buffer)
    return buffer.getvalue()


def _yamlable(value: Any) -> Any:
    """Plain YAML data for a field value: mappings, lists (from tuples too), dataclasses (as
    mappings), strings, numbers, booleans and None."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _yamlable(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Mapping):
        return {k: _yamlable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_yamlable(v) for v in value]
    raise TypeError(f"cannot write a {type(value).__name__} to {SHOWN}")


def _pretty(value: Any, *, quote: bool = False) -> Any:
    """``value`` with its multi-line strings marked for ``|`` blocks, or with ``quote`` every
    string marked for double quotes."""
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString, LiteralScalarString

    if isinstance(value, str) and quote:
        return DoubleQuotedScalarString(value)
    if isinstance(value, str) and "\n" in value.strip("\n"):
        return LiteralScalarString(value)
    if isinstance(value, Mapping):
        return {
            _pretty(k, quote=quote) if quote else k: _pretty(v, quote=quote)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_pretty(v, quote=quote) for v in value]
    return value


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True  # NaN
    return type(a) is type(b) and a == b


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


def _new_yaml() -> Any:
    """A fresh round-trip YAML instance (ruamel keeps state between calls, even after errors)."""
    from ruamel.yaml import YAML

    constructor, representer = _yaml_classes()
    yaml = YAML(typ="rt")
    yaml.Constructor = constructor
    yaml.Representer = representer
    yaml.preserve_quotes = True
    yaml.width = _WIDTH
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


@functools.cache
def _yaml_classes() -> tuple[type, type]:
    from ruamel.yaml.constructor import RoundTripConstructor
    from ruamel.yaml.representer import RoundTripRepresenter

    class Constructor(RoundTripConstructor):
        """Timestamps stay the text the person wrote: ``Goal`` keeps times as strings."""

    Constructor.add_constructor("tag:yaml.org,2002:timestamp", Constructor.construct_yaml_str)

    class Representer(RoundTripRepresenter):
        """None is written ``null`` (ruamel writes nothing), which says "no value" to a reader."""

    Representer.add_representer(
        type(None), lambda r, _: r.represent_scalar("tag:yaml.org,2002:null", "null")
    )
    return Constructor, Representer
