"""Reading a YAML frontmatter, and setting some of its fields without disturbing the rest.

A frontmatter that a person edits keeps their comments, key order and unknown keys: setting a
field rewrites only that field's lines (found from where the parser saw each key) and leaves
every other byte alone. Whatever is produced is read back and compared before it is used, so
a layout the splice cannot handle (a flow-style mapping, an anchor used by another field)
falls back to writing the frontmatter out again in block style; only then are comments inside
it lost, and the comment lines above the first field are still kept.

Errors are ``FrontmatterError`` with a message that starts with "the frontmatter" or says what
could not be written; the caller adds the file's name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from msgspec import Struct

from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.store import yaml12

_STR_TAG = "tag:yaml.org,2002:str"
_KEY_LINE_COMMENT = lazy_re(r"\s*:?(\s+#.*)$")
_OPENS_BLOCK = lazy_re(r":\s*(?:[|>][-+1-9]*)?$")


class FrontmatterError(ValueError):
    """The frontmatter cannot be read, or cannot be given the wanted fields."""


def load_mapping(yaml_text: str) -> dict[Any, Any]:
    """The fields of a frontmatter (an empty one has none)."""
    try:
        data = yaml12.load(yaml_text)
    except Exception as exc:  # a constructor can raise more than YAMLError (a huge int…)
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""  # +1: 1-based; +1: '---'
        what = getattr(exc, "problem", None) or type(exc).__name__
        raise FrontmatterError(
            f"the frontmatter is not valid YAML{where} ({what}); fix that line"
        ) from None
    if data is None and not _has_content(yaml_text):
        return {}  # an empty frontmatter: every field takes its default
    if not isinstance(data, Mapping):
        kind = "list" if isinstance(data, list) else "null" if data is None else "single value"
        raise FrontmatterError(
            f"the frontmatter is a {kind}, not a mapping of fields; write one 'key: value' per line"
        )
    return dict(data)


def set_fields(yaml_text: str, data: dict[Any, Any], wanted: dict[str, Any]) -> str:
    """``yaml_text`` (which reads as ``data``) with the ``wanted`` top-level fields set, the
    new ones appended in order. Values must be plain YAML data (see ``yamlable``)."""
    keys = list(data) + [k for k in wanted if k not in data]
    for attempt in (_splice, _rewrite):
        candidate = attempt(yaml_text, data, wanted)
        if candidate is None:
            continue
        try:
            new = load_mapping(candidate)
        except FrontmatterError:
            continue
        if list(new) == keys and all(same(new.get(k), v) for k, v in wanted.items()):
            return candidate
    raise FrontmatterError(
        f"goalkeeper cannot set {', '.join(wanted)} without changing other fields; "
        "simplify the frontmatter (no anchors or flow style) and try again"
    )


def render(key: Any, value: Any) -> str:
    """``key: value`` as YAML lines. Multi-line text is written as a ``|`` block, which people
    can read and edit, unless that would not read back as the same text; then in the plain
    style; and last with every string double-quoted, the style that escapes every character."""
    for candidate in (_pretty(value), value, _pretty(value, quote=True)):
        try:
            text = yaml12.dump({key: candidate})
            back = yaml12.load(text)
        except Exception:  # a rendering that cannot be read back is not used
            continue
        if isinstance(back, Mapping) and same(back.get(key), value):
            return text
    raise FrontmatterError(f"cannot write {key}={value!r} as YAML that reads back the same")


def yamlable(value: Any) -> Any:
    """Plain YAML data for a field value: mappings, lists (from tuples too), value structs (as
    mappings), strings, numbers, booleans and None."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, Struct):
        return {name: yamlable(getattr(value, name)) for name in value.__struct_fields__}
    if isinstance(value, Mapping):
        return {k: yamlable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [yamlable(v) for v in value]
    raise TypeError(f"cannot write a {type(value).__name__} as YAML")


def same(a: Any, b: Any) -> bool:
    """Equal as YAML data: same types (``1`` is not ``1.0`` nor ``true``), same key order."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True  # NaN
    return type(a) is type(b) and a == b


def _has_content(yaml_text: str) -> bool:
    return any(
        s and not s.startswith("#") for s in (line.strip() for line in yaml_text.split("\n"))
    )


def _splice(yaml_text: str, data: dict[Any, Any], wanted: dict[str, Any]) -> str | None:
    """Replace the lines of each wanted top-level field and append the new ones at the end.
    A comment on the field's first line is kept; so are the comment and blank lines that end
    its span at the field's own indentation, since they introduce the next field."""
    try:
        root = yaml12.compose(yaml_text)
    except Exception:  # already read once; a failure here only means "cannot splice"
        return None
    if root is None:
        pairs: list[tuple[Any, Any]] = []
    elif isinstance(root, yaml12.MappingNode) and not root.flow_style:
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
        name = key.value if isinstance(key, yaml12.ScalarNode) and key.tag == _STR_TAG else None
        if name not in wanted or name in done:
            continue
        start = _line_start(yaml_text, key.start_mark.index)
        nxt = (
            _line_start(yaml_text, pairs[i + 1][0].start_mark.index) if i + 1 < len(pairs) else None
        )
        end = _trim_tail(yaml_text, start, len(yaml_text) if nxt is None else nxt, column)
        chunk = _indent(render(name, wanted[name]), pad)
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
    out += [_indent(render(k, v), pad) for k, v in wanted.items() if k not in done]
    return "".join(out)


def _rewrite(yaml_text: str, data: dict[Any, Any], wanted: dict[str, Any]) -> str | None:
    """Every field written out again in block style, after the comment lines that open the
    frontmatter. For the layouts ``_splice`` cannot change in place."""
    lines = yaml_text.splitlines(keepends=True)
    lead = []
    for line in lines:
        if line.strip() and not line.lstrip().startswith("#"):
            break
        lead.append(line)
    merged = {**data, **wanted}
    try:
        return "".join(lead) + "".join(render(k, yamlable(v)) for k, v in merged.items())
    except (FrontmatterError, TypeError):
        return None


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


def _pretty(value: Any, *, quote: bool = False) -> Any:
    """``value`` with its multi-line strings marked for ``|`` blocks, or with ``quote`` every
    string marked for double quotes."""
    if isinstance(value, str) and quote:
        return yaml12.Quoted(value)
    if isinstance(value, str) and "\n" in value.strip("\n"):
        return yaml12.Literal(value)
    if isinstance(value, Mapping):
        return {
            _pretty(k, quote=quote) if quote else k: _pretty(v, quote=quote)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_pretty(v, quote=quote) for v in value]
    return value
