"""One check for every hook-level test: the answer came from goalkeeper's rules, not from its
failure policy.

A hook fails open: on an internal error it lets the agent go on and says so in a notice. So a
test that asserts only "exit 0", "not blocked" or "no marker file" also passes when the feature
under test crashed. ``assert_no_internal_error`` fails such a test: it looks for goalkeeper's
internal-error notice (in every language of the catalog) anywhere in the answer, and for an
error recorded in the project's journal.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, get_args

from goalkeeper.core.messages import Lang, render

_MARK = "\x00"


def _notice_prefixes() -> tuple[str, ...]:
    """The fixed start of the internal-error notice in each language (from the catalog, so a
    change of wording cannot make this check blind)."""
    out = []
    for lang in get_args(Lang):
        text = render(lang, "hook.internal_error", error=_MARK)
        prefix = text.split(_MARK, 1)[0]
        assert len(prefix) >= 10, f"the {lang} internal-error notice has no fixed start: {text!r}"
        out.append(prefix)
    return tuple(out)


PREFIXES = _notice_prefixes()


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)


def internal_errors(answer: Any) -> list[str]:
    """Every text in ``answer`` (a hook's JSON answer, a bridge message, a list of them) that
    is goalkeeper's internal-error notice."""
    return [t for t in _texts(answer) if any(p in t for p in PREFIXES)]


def journalled_errors(project: Path, database: Path | None = None) -> list[dict[str, Any]]:
    """The internal errors recorded in ``project``'s journal (none when it has no state). Read
    through a read-only connection, which leaves the database as it found it (a writer's last
    close would checkpoint and delete the WAL, which tests of the WAL look for)."""
    import json
    import sqlite3

    from goalkeeper.store.db import Store

    path = database or Store(project).path
    if not path.is_file():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT data FROM journal WHERE kind = 'error'").fetchall()
    finally:
        conn.close()
    return [json.loads(row[0]) for row in rows]


def assert_no_internal_error(answer: Any, project: Path | None = None) -> None:
    """``answer`` holds no internal-error notice, and ``project``'s journal (when given) holds
    no internal error: whatever the answer says, goalkeeper's rules said it."""
    said = internal_errors(answer)
    assert not said, f"goalkeeper failed open with an internal error: {said}"
    if project is not None:
        recorded = journalled_errors(project)
        assert not recorded, f"goalkeeper recorded an internal error: {recorded}"
