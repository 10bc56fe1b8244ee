"""The workflow catalog files: the built-in catalog, an optional user catalog, procedure bodies.

The built-in catalog is ``workflows/catalog.json`` inside the package, its procedure texts in
``workflows/procedures/``. A user catalog (the ``catalog`` setting) is a JSON file in the same
shape whose procedure texts live in a ``procedures/`` folder next to it; it extends the built-in
catalog (new ids) or overrides built-in entries (same id). A user entry's text is read from the
user's folder, else from the built-in one, so an override may change only an entry's edges.

Loading never raises: a user catalog that cannot be read, parsed or validated (which includes
resolving every entry as a workflow would: no ``requires`` cycle, no bundle over 64 KiB) is
reported in ``LoadedCatalog.problems`` and the built-in catalog is used alone, so a typo in a
user file can never stop a workflow. Everything is cached by (path, mtime, size) like
``documents.py``: the workflow guard asks on every agent turn, and an unchanged catalog costs a
few ``stat`` calls (the first load, checks included, takes about 5 ms).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from msgspec import Struct, field

from goalkeeper.core.workflows.catalog import (
    Catalog,
    CatalogError,
    Procedure,
    merge_catalogs,
    parse_catalog,
    validate_catalog,
)
from goalkeeper.core.workflows.resolver import ResolveError, deliverability_problems
from goalkeeper.store.safe_read import UnsafeFile, read_capped

BUILTIN_DIR = Path(__file__).resolve().parent.parent / "workflows"
CATALOG_NAME = "catalog.json"
PROCEDURES = "procedures"
MAX_CATALOG_BYTES = 1024 * 1024  # the built-in catalog is ~20 KB
MAX_PROCEDURE_BYTES = 1024 * 1024  # 16 × the bundle cap: larger cannot be a procedure text
_NOT_CLASSIFIED = ": not in the catalog"

Stamp = tuple[int, int] | None  # (mtime_ns, size); None when the path does not exist


class ProcedureReader(Struct, frozen=True):
    """Reads a procedure's text: a user entry from the user's folder, then the built-in one.

    Raises ``ResolveError`` (the resolver's error, so callers catch one type) when the file is
    missing, unreadable or too large; bodies are cached by (path, mtime, size)."""

    builtin: Path
    user: Path | None = None
    user_ids: frozenset[str] = frozenset()

    def __call__(self, procedure: Procedure) -> str:
        folders = (self.user, self.builtin) if procedure.id in self.user_ids else (self.builtin,)
        for folder in folders:
            if folder is None:
                continue
            text = _read_body(folder / procedure.file, procedure, folder)
            if text is not None:
                return text
        raise ResolveError.of(
            "workflow.resolve.file_missing", procedure=procedure.id, file=procedure.file
        )


class LoadedCatalog(Struct, frozen=True):
    """The catalog in use, a reader for its procedure texts, and what is wrong with it."""

    catalog: Catalog
    read: Callable[[Procedure], str]
    problems: tuple[str, ...] = ()
    user_catalog: Path | None = None
    """The user catalog in use; None when only the built-in catalog is."""
    files: frozenset[str] = field(default_factory=frozenset)
    """The procedure file names present in the procedures folder(s) in use."""


_parsed: dict[str, tuple[Stamp, Catalog | tuple[str, ...]]] = {}
_bodies: dict[str, tuple[tuple[int, int], str]] = {}
_loaded: dict[tuple[object, ...], LoadedCatalog] = {}
_MAX_LOADED = 32  # distinct (catalog, folder) states kept; a warm engine serves few projects


def load_catalog(
    project: Path, catalog_setting: str | None, *, builtin_dir: Path = BUILTIN_DIR
) -> LoadedCatalog:
    """The built-in catalog, merged with the user catalog ``catalog_setting`` (a path relative
    to ``project``, or absolute; empty or None: built-in only). Never raises."""
    builtin_file = builtin_dir / CATALOG_NAME
    builtin_procedures = builtin_dir / PROCEDURES
    user_file = _user_path(project, catalog_setting)
    user_procedures = user_file.parent / PROCEDURES if user_file else None
    key = (
        str(builtin_dir),
        _stamp(builtin_file),
        _stamp(builtin_procedures),
        str(user_file),
        _stamp(user_file) if user_file else None,
        _stamp(user_procedures) if user_procedures else None,
    )
    cached = _loaded.get(key)
    if cached is not None:
        return cached
    loaded = _load(project, builtin_file, builtin_procedures, user_file, user_procedures)
    if len(_loaded) >= _MAX_LOADED:
        _loaded.clear()
    _loaded[key] = loaded
    return loaded


def _load(
    project: Path,
    builtin_file: Path,
    builtin_procedures: Path,
    user_file: Path | None,
    user_procedures: Path | None,
) -> LoadedCatalog:
    builtin, problems = _parse(builtin_file, "built-in " + CATALOG_NAME)
    builtin_files = _listing(builtin_procedures)
    reader = ProcedureReader(builtin_procedures)
    # The built-in catalog is not resolved here: that reads every procedure text (~10 ms at a
    # session's first event) to re-prove what ships with goalkeeper, which its tests prove
    # (tests/store/test_catalog_files.py). A user catalog is resolved whole, below.
    base_problems = [*problems, *validate_catalog(builtin, builtin_files)]
    alone = LoadedCatalog(builtin, reader, tuple(base_problems), None, builtin_files)
    if user_file is None or user_procedures is None:
        return alone
    shown = _shown(user_file, project)
    user, user_problems = _parse(user_file, shown)
    if user_problems:
        return _without_user(alone, user_problems, shown)
    merged = merge_catalogs(builtin, user)
    files = builtin_files | _listing(user_procedures)
    user_reader = ProcedureReader(
        builtin_procedures, user_procedures, frozenset(e.id for e in user.entries)
    )
    # Resolved as the run time resolves it: a requires cycle or an over-64 KiB bundle would
    # otherwise pass here and stop the workflow that reaches it (seed003 D1, D2).
    merged_problems = [
        *validate_catalog(merged, files),
        *deliverability_problems(merged, user_reader),
    ]
    known = set(base_problems)
    new = [p for p in merged_problems if p not in known]
    # A file nothing classifies breaks no workflow; anything else would break one at run time.
    if any(not p.endswith(_NOT_CLASSIFIED) for p in new):
        return _without_user(alone, new, shown)
    return LoadedCatalog(merged, user_reader, tuple(merged_problems), user_file, files)


NOT_USED = ": not used because of the problems above; using the built-in catalog only"
"""The line that follows a user catalog's problems: a consequence, not one more problem."""


def _without_user(alone: LoadedCatalog, problems: list[str], shown: str) -> LoadedCatalog:
    notice = f"{shown}{NOT_USED}"
    return LoadedCatalog(
        alone.catalog, alone.read, (*alone.problems, *problems, notice), None, alone.files
    )


def _parse(path: Path, shown: str) -> tuple[Catalog, list[str]]:
    """The catalog at ``path`` (cached by mtime and size), or an empty one and the problems."""
    stamp = _stamp(path)
    cached = _parsed.get(str(path))
    if cached is None or cached[0] != stamp:
        cached = (stamp, _parse_file(path, shown, stamp))
        _parsed[str(path)] = cached
    result = cached[1]
    if isinstance(result, Catalog):
        return result, []
    return Catalog(()), list(result)


def _parse_file(path: Path, shown: str, stamp: Stamp) -> Catalog | tuple[str, ...]:
    if stamp is None:
        return (f"{shown}: not found",)
    if stamp[1] > MAX_CATALOG_BYTES:
        return (f"{shown}: {stamp[1]} bytes is more than a catalog may have",)
    try:  # a user catalog may be planted as a FIFO or a device
        raw = read_capped(path, MAX_CATALOG_BYTES)
    except UnsafeFile as exc:
        return (f"{shown}: it {exc.reason}",)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return (f"{shown}: not UTF-8 text (invalid byte at {exc.start})",)
    try:
        return parse_catalog(text, source=shown)
    except CatalogError as exc:
        return tuple(exc.problems)


def _read_body(path: Path, procedure: Procedure, folder: Path) -> str | None:
    """The text of ``path``; None when it does not exist. Cached by (path, mtime, size)."""
    try:
        st = path.stat()
    except (OSError, ValueError):  # ValueError: a NUL byte in the name
        return None
    stamp = (st.st_mtime_ns, st.st_size)
    cached = _bodies.get(str(path))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    if st.st_size > MAX_PROCEDURE_BYTES:
        raise ResolveError.of(
            "workflow.resolve.file_too_big",
            procedure=procedure.id,
            file=procedure.file,
            size=st.st_size,
            limit=MAX_PROCEDURE_BYTES,
        )
    try:
        raw = read_capped(path, MAX_PROCEDURE_BYTES, within=folder)  # no symlink out of it
    except UnsafeFile as exc:
        raise ResolveError.of(
            "workflow.resolve.file_unsafe",
            procedure=procedure.id,
            file=procedure.file,
            reason=exc.reason,
        ) from exc
    text = raw.decode("utf-8-sig", "replace")
    _bodies[str(path)] = (stamp, text)
    return text


def _listing(folder: Path) -> frozenset[str]:
    """Names of the regular files in ``folder``, without hidden ones (editor swap files)."""
    names: set[str] = set()
    try:
        entries = os.scandir(folder)
    except (OSError, ValueError):
        return frozenset()
    with entries:
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_file():
                    names.add(entry.name)
            except OSError:
                continue
    return frozenset(names)


def _stamp(path: Path) -> Stamp:
    try:
        st = path.stat()
    except (OSError, ValueError):  # ValueError: a NUL byte in a configured path
        return None
    return (st.st_mtime_ns, st.st_size)


def _user_path(project: Path, setting: str | None) -> Path | None:
    """The user catalog file: the setting relative to the project (``~`` expanded); a folder
    stands for the ``catalog.json`` inside it."""
    text = (setting or "").strip()
    if not text:
        return None
    path = Path(text)
    try:
        path = path.expanduser()
    except (RuntimeError, ValueError):  # "~user" for an unknown user, or a NUL byte in it:
        pass  # taken literally, then not found
    if not path.is_absolute():
        path = project / path
    return path / CATALOG_NAME if path.is_dir() else path


def _shown(path: Path, project: Path) -> str:
    try:
        return path.relative_to(project).as_posix()
    except ValueError:
        return str(path)
