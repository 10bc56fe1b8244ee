"""The workflow catalog (seed 003, catalog spec §1–§5): one list of procedures from which routes,
phases, legal transitions, menus, model capabilities, aliases and disclosures are all derived.

Three jobs, each a pure function of text or values: ``parse_catalog`` turns the JSON text into
typed values (strictly: an unknown field or kind is a problem, never silently ignored, because a
typo in a user catalog would otherwise drop an edge without a word); ``Catalog`` answers the
lookups the workflow guard makes on every agent turn from dictionaries built once; and
``validate_catalog`` runs the integrity checks of §2.2 with their exact messages.
Pure; no I/O: the procedure files present on disk are passed in as names.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Literal, cast

from msgspec import Struct

Kind = Literal["workflow", "utility", "reference", "asset"]
Invocation = Literal["model", "user", "internal"]
KINDS: tuple[Kind, ...] = ("workflow", "utility", "reference", "asset")
INVOCATIONS: tuple[Invocation, ...] = ("model", "user", "internal")


class Placement(Struct, frozen=True):
    """Where a workflow procedure sits in one route: its phase and the legal next procedures.

    ``allowed_next`` is kept as written (ids or aliases); ``Catalog.allowed`` gives them as ids.
    The entry placement of a route carries the route's title, menu label and description."""

    route: str
    phase: str
    allowed_next: tuple[str, ...]
    entry: bool = False
    title: str | None = None
    label: str | None = None
    description: str | None = None


class Procedure(Struct, frozen=True):
    """One catalog entry (§2): a workflow step, a standalone utility, a reference or an asset."""

    id: str
    file: str
    kind: Kind
    invocation: Invocation
    label: str
    description: str | None = None
    aliases: tuple[str, ...] = ()
    standalone: bool = False
    requires: tuple[str, ...] = ()
    """Eager dependencies: loaded together with this procedure."""
    discloses: tuple[str, ...] = ()
    """On-demand references and capabilities this procedure makes reachable."""
    placements: tuple[Placement, ...] = ()


class Route(Struct, frozen=True):
    """A route as menus and the model's gateway show it (§2.1 ``workflowRoutes``)."""

    route: str
    title: str
    label: str
    description: str


class Catalog:
    """The entries in catalog order, with every lookup answered from dictionaries built once.

    Lookups never raise: an unknown id gives None or an empty tuple. Where a (broken) catalog
    holds an id twice, the first entry wins, as ``validate_catalog`` reports."""

    __slots__ = (
        "_allowed",
        "_by_file",
        "_by_id",
        "_by_route",
        "_keys",
        "_model_standalone",
        "_placed",
        "_routes",
        "_standalone",
        "_workflows",
        "entries",
    )

    entries: tuple[Procedure, ...]
    _keys: dict[str, str]
    _by_id: dict[str, Procedure]
    _by_file: dict[str, Procedure]
    _by_route: dict[str, tuple[Procedure, ...]]
    _placed: dict[tuple[str, str], Placement]
    _allowed: dict[tuple[str, str], tuple[str, ...]]
    _routes: tuple[Route, ...]
    _workflows: tuple[Procedure, ...]
    _standalone: tuple[Procedure, ...]
    _model_standalone: tuple[Procedure, ...]

    def __init__(self, entries: tuple[Procedure, ...]) -> None:
        self.entries = entries
        keys: dict[str, str] = {}
        for entry in self.entries:
            for alias in entry.aliases:
                keys.setdefault(alias, entry.id)
        # An id wins over another entry's alias: a colliding alias then fails to resolve back to
        # its own entry, and validate_catalog names it.
        ids: dict[str, str] = {}
        for entry in self.entries:
            ids.setdefault(entry.id, entry.id)
        keys.update(ids)
        by_id: dict[str, Procedure] = {}
        by_file: dict[str, Procedure] = {}
        for entry in self.entries:
            by_id.setdefault(entry.id, entry)
            by_file.setdefault(entry.file, entry)
        by_route: dict[str, list[Procedure]] = {}
        placed: dict[tuple[str, str], Placement] = {}
        routes: list[Route] = []
        for entry in self.entries:
            seen: set[str] = set()
            for p in entry.placements:
                if p.route not in seen:
                    by_route.setdefault(p.route, []).append(entry)
                    seen.add(p.route)
                if by_id[entry.id] is entry:
                    placed.setdefault((p.route, entry.id), p)
                if p.entry:
                    description = p.description or entry.description or entry.id
                    routes.append(
                        Route(p.route, p.title or p.route, p.label or entry.label, description)
                    )
        self._keys = keys
        self._by_id = by_id
        self._by_file = by_file
        self._by_route = {route: tuple(found) for route, found in by_route.items()}
        self._placed = placed
        allowed = {
            key: tuple(self.normalize(n) for n in p.allowed_next) for key, p in placed.items()
        }
        self._allowed = allowed
        self._routes = tuple(routes)
        self._workflows = tuple(e for e in self.entries if e.placements)
        standalone = tuple(e for e in self.entries if e.standalone)
        self._standalone = standalone
        self._model_standalone = tuple(e for e in standalone if e.invocation == "model")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Catalog) and other.entries == self.entries

    __hash__ = None  # type: ignore[assignment]  # equal by entries, yet holds dictionaries

    def __repr__(self) -> str:
        return f"Catalog(entries={self.entries!r})"

    def normalize(self, x: str) -> str:
        """§2.1 ``normalizeProcedureId``: trim, drop a trailing ``.md`` (any case), map an alias
        to its id; anything else comes back as the stripped text, unchanged."""
        key = x.strip()
        if key[-3:].lower() == ".md":
            key = key[:-3]
        return self._keys.get(key, key)

    def find(self, x: str) -> Procedure | None:
        """The entry an id, alias or file-like name (``implement.md``) stands for."""
        return self._by_id.get(self.normalize(x))

    def find_by_file(self, f: str) -> Procedure | None:
        """The entry classifying file ``f`` (a leading ``./`` is ignored)."""
        return self._by_file.get(f.removeprefix("./"))

    def definitions(self, route: str | None = None) -> tuple[Procedure, ...]:
        """Entries placed in ``route`` (in any route when None), in catalog order."""
        if route is None:
            return self._workflows
        return self._by_route.get(route, ())

    def placement(self, route: str, x: str) -> Placement | None:
        """Where procedure ``x`` (id or alias) sits in ``route``; None when it is not there."""
        return self._placed.get((route, self.normalize(x)))

    def entry(self, route: str) -> Procedure | None:
        """The first procedure whose placement in ``route`` is the route's entry."""
        for definition in self.definitions(route):
            p = self._placed.get((route, definition.id))
            if p is not None and p.entry:
                return definition
        return None

    def routes(self) -> tuple[Route, ...]:
        """One route per entry placement, in catalog order, with the §2.1 fallbacks (title →
        route id, label → the entry's label, description → the entry's description → its id)."""
        return self._routes

    def allowed(self, route: str, x: str) -> tuple[str, ...]:
        """The ids ``x`` may hand over to in ``route`` (aliases mapped to ids); () when none."""
        return self._allowed.get((route, self.normalize(x)), ())

    def standalone(self) -> tuple[Procedure, ...]:
        """Menu capabilities: every standalone entry, user-invoked ones included."""
        return self._standalone

    def model_standalone(self) -> tuple[Procedure, ...]:
        """Capabilities the model may start itself: standalone and ``invocation == "model"``."""
        return self._model_standalone


class CatalogError(ValueError):
    """The catalog text cannot be used: not JSON, or entries of the wrong shape.

    ``problems`` lists every problem found (not only the first), one readable line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


# ---------------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------------

_ENTRY_FIELDS = frozenset(
    (
        "id",
        "file",
        "kind",
        "invocation",
        "label",
        "description",
        "aliases",
        "standalone",
        "requires",
        "discloses",
        "workflows",
    )
)
_PLACEMENT_FIELDS = frozenset(
    ("route", "phase", "entry", "allowedNext", "title", "label", "description")
)


def parse_catalog(text: str, *, source: str = "catalog.json") -> Catalog:
    """The catalog in ``text``: a JSON array of entries (§2). Raises ``CatalogError`` listing
    every problem, and nothing else, on any input. Entries are counted from 1 in messages."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise CatalogError([f"{source}: not valid JSON ({exc.msg} at {where})"]) from None
    except (ValueError, RecursionError) as exc:  # 4,300-digit integers; absurd nesting
        raise CatalogError([f"{source}: not valid JSON ({type(exc).__name__})"]) from None
    if not isinstance(data, list):
        found = _json_type(data)
        raise CatalogError([f"{source}: expected a JSON array of entries, found {found}"])
    problems: list[str] = []
    entries: list[Procedure] = []
    for number, raw in enumerate(data, 1):
        entry = _parse_entry(raw, f"{source}: entry {number}", problems)
        if entry is not None:
            entries.append(entry)
    if problems:
        raise CatalogError(problems)
    return Catalog(tuple(entries))


class _Fields:
    """Reads typed fields out of one JSON object, recording a problem for each bad one."""

    def __init__(self, data: Mapping[str, object], where: str, problems: list[str]) -> None:
        self.data, self.where, self.problems = data, where, problems
        self.ok = True

    def fail(self, message: str) -> None:
        self.problems.append(f"{self.where}: {message}")
        self.ok = False

    def text(self, name: str) -> str:
        value = self.data.get(name)
        if name not in self.data:
            self.fail(f'missing field "{name}"')
        elif not isinstance(value, str) or not value.strip():
            self.fail(f'"{name}" must be a non-empty string, found {_json_type(value)}')
        else:
            return value
        return ""

    def optional_text(self, name: str) -> str | None:
        value = self.data.get(name)
        if value is None:
            return None
        if not isinstance(value, str):
            self.fail(f'"{name}" must be a string, found {_json_type(value)}')
            return None
        return value

    def flag(self, name: str) -> bool:
        value = self.data.get(name)
        if value is None:
            return False
        if not isinstance(value, bool):
            self.fail(f'"{name}" must be true or false, found {_json_type(value)}')
            return False
        return value

    def names(self, name: str, required: bool = False) -> tuple[str, ...]:
        value = self.data.get(name)
        if value is None:
            if required:
                self.fail(f'missing field "{name}"')
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(f'"{name}" must be a list of strings, found {_json_type(value)}')
            return ()
        return tuple(cast(list[str], value))

    def choice(self, name: str, choices: tuple[str, ...]) -> str:
        value = self.text(name)
        if value and value not in choices:
            self.fail(f'unknown {name} "{value}" (expected {", ".join(choices)})')
        return value

    def unknown(self, allowed: frozenset[str]) -> None:
        for key in self.data:
            if key not in allowed:
                self.fail(f'unknown field "{key}"')


def _parse_entry(raw: object, where: str, problems: list[str]) -> Procedure | None:
    if not isinstance(raw, dict):
        problems.append(f"{where}: expected an object, found {_json_type(raw)}")
        return None
    data = cast(dict[str, object], raw)
    ident = data.get("id")
    if isinstance(ident, str) and ident.strip():
        where = f'{where} ("{ident}")'
    f = _Fields(data, where, problems)
    f.unknown(_ENTRY_FIELDS)
    ident = f.text("id")
    if ident and ident != ident.strip():
        f.fail('"id" must not start or end with spaces')
    file = f.text("file")
    if file and (
        "/" in file or "\\" in file or file in (".", "..") or file != file.strip() or "\0" in file
    ):
        # Bodies are read as <procedures folder>/<file>: a path would reach outside it.
        f.fail(f'"file" must be a plain file name in the procedures folder, found "{file}"')
    kind = f.choice("kind", KINDS)
    invocation = f.choice("invocation", INVOCATIONS)
    label = f.text("label")
    description = f.optional_text("description")
    aliases = f.names("aliases")
    standalone = f.flag("standalone")
    requires = f.names("requires")
    discloses = f.names("discloses")
    placements: list[Placement] = []
    raw_placements = data.get("workflows")
    if raw_placements is not None:
        if not isinstance(raw_placements, list):
            f.fail(f'"workflows" must be a list of placements, found {_json_type(raw_placements)}')
        elif raw_placements and kind in KINDS and kind != "workflow":
            f.fail(f'"workflows" is only allowed on kind "workflow", not "{kind}"')
        else:
            for index, item in enumerate(raw_placements, 1):
                p = _parse_placement(item, f"{where}: workflows {index}", problems)
                if p is None:
                    f.ok = False
                else:
                    placements.append(p)
    if not f.ok:
        return None
    return Procedure(
        ident,
        file,
        cast(Kind, kind),
        cast(Invocation, invocation),
        label,
        description,
        aliases,
        standalone,
        requires,
        discloses,
        tuple(placements),
    )


def _parse_placement(raw: object, where: str, problems: list[str]) -> Placement | None:
    if not isinstance(raw, dict):
        problems.append(f"{where}: expected an object, found {_json_type(raw)}")
        return None
    f = _Fields(cast(dict[str, object], raw), where, problems)
    f.unknown(_PLACEMENT_FIELDS)
    placement = Placement(
        route=f.text("route"),
        phase=f.text("phase"),
        allowed_next=f.names("allowedNext", required=True),
        entry=f.flag("entry"),
        title=f.optional_text("title"),
        label=f.optional_text("label"),
        description=f.optional_text("description"),
    )
    return placement if f.ok else None


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string" if value.strip() else "an empty string"
    if isinstance(value, list):
        return "an array"
    return "an object"


# ---------------------------------------------------------------------------------------------
# Validation and merging
# ---------------------------------------------------------------------------------------------


def validate_catalog(catalog: Catalog, files: Collection[str]) -> list[str]:
    """The integrity checks of §2.2 with their exact messages, in their order: per entry, then
    per route (including the reachability check adopted with the §4.2 lateral edges), then
    references; last, files in the procedures folder that no entry classifies.

    ``files`` holds the names of the files present in the procedures folder(s). An empty list
    means the catalog is sound: every file classified once, ids unique, aliases resolving,
    every route with one complete entry from which each of its procedures can be reached."""
    present = set(files)
    errors: list[str] = []
    ids: set[str] = set()
    classified: set[str] = set()
    for d in catalog.entries:
        if d.id in ids:
            errors.append(f"{d.id}: duplicate catalog id")
        if d.file in classified:
            errors.append(f"{d.file}: classified more than once")
        ids.add(d.id)
        classified.add(d.file)
        if d.file not in present:
            errors.append(f"{d.id}: file not found: {d.file}")
        for target in (*d.requires, *d.discloses):
            if catalog.find(target) is None:
                errors.append(f"{d.id}: unknown catalog target: {target}")
        for p in d.placements:
            for nxt in p.allowed_next:
                if catalog.placement(p.route, nxt) is None:
                    errors.append(f"{d.id}: invalid {p.route} transition: {nxt}")
        for alias in d.aliases:
            found = catalog.find(alias)
            if found is None or found.id != d.id:  # the spec's words, then whose name it is
                owner = f" (it names {found.id})" if found is not None else ""
                errors.append(f"{d.id}: alias does not resolve: {alias}{owner}")

    routes: dict[str, list[Placement]] = {}
    for d in catalog.entries:
        for p in d.placements:
            routes.setdefault(p.route, []).append(p)
    for route, placements in routes.items():
        entries = [p for p in placements if p.entry]
        if len(entries) != 1:
            errors.append(f"{route}: expected exactly one workflow entry, found {len(entries)}")
        if entries and not (entries[0].title and entries[0].label and entries[0].description):
            errors.append(f"{route}: workflow entry requires title, label, and description")
        errors.extend(_unreachable(catalog, route))

    inbound = {catalog.normalize(t) for d in catalog.entries for t in (*d.requires, *d.discloses)}
    for d in catalog.entries:
        if d.kind == "reference" and d.id not in inbound:
            errors.append(f"{d.id}: internal reference has no inbound catalog edge")
    for name in sorted(present - classified):
        errors.append(f"{name}: not in the catalog")
    return errors


def _unreachable(catalog: Catalog, route: str) -> list[str]:
    """Procedures of ``route`` no chain of legal transitions leads to from its entry (BFS)."""
    start = catalog.entry(route)
    if start is None:
        return []
    reached = {start.id}
    queue = [start.id]
    while queue:
        current = queue.pop(0)
        for nxt in catalog.allowed(route, current):
            if nxt not in reached:
                reached.add(nxt)
                queue.append(nxt)
    return [
        f"{route}: unreachable workflow procedure: {d.id}"
        for d in catalog.definitions(route)
        if d.id not in reached
    ]


def merge_catalogs(base: Catalog, extra: Catalog) -> Catalog:
    """``base`` extended by ``extra``: an entry of ``extra`` whose id is in ``base`` replaces
    that entry in place (so catalog order, and thus route and menu order, stays); any other is
    appended. An id ``extra`` holds twice is appended the second time, so ``validate_catalog``
    reports the duplicate instead of one silently winning."""
    merged = list(base.entries)
    index = {e.id: i for i, e in reversed(list(enumerate(merged)))}
    for entry in extra.entries:
        at = index.pop(entry.id, None)
        if at is None:
            merged.append(entry)
        else:
            merged[at] = entry
    return Catalog(tuple(merged))
