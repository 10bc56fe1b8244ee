"""The workflow catalog (catalog spec §1–§5): parsing, lookups, validation and merging."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goalkeeper.core.workflows.catalog import (
    Catalog,
    CatalogError,
    Placement,
    Procedure,
    Route,
    merge_catalogs,
    parse_catalog,
    validate_catalog,
)

CATALOG_JSON = (
    Path(__file__).resolve().parents[2] / "src" / "goalkeeper" / "workflows" / "catalog.json"
)


def real_data() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(CATALOG_JSON.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def real() -> Catalog:
    return parse_catalog(CATALOG_JSON.read_text(encoding="utf-8"))


def proc(ident: str, kind: str = "utility", **extra: Any) -> dict[str, Any]:
    """A catalog entry as JSON data; file, invocation and label derived unless given."""
    entry: dict[str, Any] = {
        "id": ident,
        "file": f"{ident}.md",
        "kind": kind,
        "invocation": "internal" if kind in ("reference", "asset") else "model",
        "label": ident.title(),
    }
    entry.update(extra)
    return entry


def place(route: str, nxt: tuple[str, ...] = (), entry: bool = False, **extra: Any) -> dict:
    """A placement; an entry placement gets a title, label and description unless given."""
    p: dict[str, Any] = {"route": route, "phase": extra.pop("phase", "work"), "allowedNext": nxt}
    if entry:
        p.update(entry=True, title="Route", label="Start it", description="Do it.")
    p.update(extra)
    return p


def build(*entries: dict[str, Any]) -> Catalog:
    return parse_catalog(json.dumps(list(entries)))


def files_of(catalog: Catalog) -> set[str]:
    return {e.file for e in catalog.entries}


def problems_of(text: str, source: str = "catalog.json") -> list[str]:
    with pytest.raises(CatalogError) as info:
        parse_catalog(text, source=source)
    return info.value.problems


def ids(procedures: tuple[Procedure, ...]) -> list[str]:
    return [p.id for p in procedures]


# A sound two-step route with one disclosed reference: validates clean.
SOUND = (
    proc("start", "workflow", discloses=["ref"], workflows=[place("r", ("next",), entry=True)]),
    proc("next", "workflow", workflows=[place("r", ("start",))]),
    proc("ref", "reference"),
)


# ---------------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------------


def test_the_real_catalog_parses_into_typed_entries(real: Catalog) -> None:
    """The built-in catalog: 54 entries, 14 workflow, 10 utility, 28 reference, 2 asset."""
    kinds = [e.kind for e in real.entries]
    assert len(real.entries) == 54
    assert [kinds.count(k) for k in ("workflow", "utility", "reference", "asset")] == [
        14,
        10,
        28,
        2,
    ]
    implement = real.find("implement")
    assert implement is not None
    assert implement.requires == ("bdd", "tdd")
    assert implement.placements[0] == Placement(
        "idea-to-ship", "implement", ("code-review", "handoff"), entry=False
    )


def test_optional_fields_default_and_null_means_absent() -> None:
    """Missing optional fields take their defaults; an explicit null counts as missing."""
    catalog = build(proc("a", description=None, aliases=None, standalone=None))
    assert catalog.entries == (Procedure("a", "a.md", "utility", "model", "A"),)


def test_not_json_is_reported_with_its_position() -> None:
    """Text that is not JSON names the source and where parsing stopped."""
    assert problems_of("[{", source="mine.json") == [
        "mine.json: not valid JSON (Expecting property name enclosed in double quotes "
        "at line 1, column 3)"
    ]


def test_a_catalog_must_be_an_array() -> None:
    """The catalog is a bare JSON array of entries (§2)."""
    assert problems_of('{"id": "a"}') == [
        "catalog.json: expected a JSON array of entries, found an object"
    ]


def test_an_entry_must_be_an_object() -> None:
    """An entry that is not an object is named by its position, counted from 1."""
    assert problems_of(json.dumps([proc("a"), 7])) == [
        "catalog.json: entry 2: expected an object, found a number"
    ]


def test_missing_and_ill_typed_fields_name_the_entry_and_the_field() -> None:
    """Every bad field of every entry is listed at once, with the entry's position and id."""
    bad = proc("a", requires="b", standalone="yes")
    del bad["file"]
    text = json.dumps([bad, proc("b", label=""), {"file": "x.md"}])
    assert problems_of(text) == [
        'catalog.json: entry 1 ("a"): missing field "file"',
        'catalog.json: entry 1 ("a"): "standalone" must be true or false, found a string',
        'catalog.json: entry 1 ("a"): "requires" must be a list of strings, found a string',
        'catalog.json: entry 2 ("b"): "label" must be a non-empty string, found an empty string',
        'catalog.json: entry 3: missing field "id"',
        'catalog.json: entry 3: missing field "kind"',
        'catalog.json: entry 3: missing field "invocation"',
        'catalog.json: entry 3: missing field "label"',
    ]


def test_unknown_kind_and_invocation_are_reported() -> None:
    """kind and invocation take only the values of §2."""
    assert problems_of(json.dumps([proc("a", kind="skill", invocation="agent")])) == [
        'catalog.json: entry 1 ("a"): unknown kind "skill" '
        "(expected workflow, utility, reference, asset)",
        'catalog.json: entry 1 ("a"): unknown invocation "agent" (expected model, user, internal)',
    ]


def test_unknown_fields_are_reported_not_ignored() -> None:
    """A misspelt field would silently drop an edge, so it is a problem."""
    assert problems_of(json.dumps([proc("a", disclose=["b"])])) == [
        'catalog.json: entry 1 ("a"): unknown field "disclose"'
    ]


def test_placements_are_checked_field_by_field() -> None:
    """A placement needs a route, a phase and allowedNext; entry is a boolean."""
    text = json.dumps(
        [proc("a", "workflow", workflows=[{"route": "r", "phase": "p", "entry": 1}, "x"])]
    )
    assert problems_of(text) == [
        'catalog.json: entry 1 ("a"): workflows 1: missing field "allowedNext"',
        'catalog.json: entry 1 ("a"): workflows 1: "entry" must be true or false, found a number',
        'catalog.json: entry 1 ("a"): workflows 2: expected an object, found a string',
    ]


def test_only_workflow_entries_have_placements() -> None:
    """``workflows`` is only for kind "workflow" (§2)."""
    assert problems_of(json.dumps([proc("a", workflows=[place("r", entry=True)])])) == [
        'catalog.json: entry 1 ("a"): "workflows" is only allowed on kind "workflow", not "utility"'
    ]


@pytest.mark.parametrize("name", ["../secret.md", "sub/a.md", "..", "a\\b.md", " a.md"])
def test_a_file_must_be_a_plain_name_in_the_procedures_folder(name: str) -> None:
    """A file path could reach outside the procedures folder, so only plain names are allowed."""
    (problem,) = problems_of(json.dumps([proc("a", file=name)]))
    assert problem.startswith('catalog.json: entry 1 ("a"): "file" must be a plain file name')


def test_an_id_with_surrounding_spaces_is_refused() -> None:
    """Lookups trim their input, so an id with surrounding spaces could never be found."""
    assert problems_of(json.dumps([proc(" a", file="a.md")])) == [
        'catalog.json: entry 1 (" a"): "id" must not start or end with spaces'
    ]


def test_absurd_nesting_and_huge_numbers_are_catalog_errors() -> None:
    """Inputs on which json.loads raises RecursionError or ValueError still give CatalogError."""
    assert problems_of("[" * 100_000) == ["catalog.json: not valid JSON (RecursionError)"]
    assert problems_of("[" + "9" * 5000 + "]") == ["catalog.json: not valid JSON (ValueError)"]


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)
_entry_like = st.fixed_dictionaries(
    {},
    optional={
        "id": st.text(max_size=6) | st.integers(),
        "file": st.text(max_size=6),
        "kind": st.sampled_from(["workflow", "utility", "reference", "asset", "x"]),
        "invocation": st.sampled_from(["model", "user", "internal", 3]),
        "label": st.text(max_size=6),
        "requires": st.lists(st.text(max_size=4)) | st.text(),
        "workflows": st.lists(_json_values, max_size=3),
        "standalone": _json_values,
    },
)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200) | _json_values.map(json.dumps) | st.lists(_entry_like).map(json.dumps))
def test_parse_catalog_raises_only_catalog_error(text: str) -> None:
    """On any input, parse_catalog returns a Catalog or raises CatalogError with problems."""
    try:
        catalog = parse_catalog(text)
    except CatalogError as exc:
        assert exc.problems and all(isinstance(p, str) for p in exc.problems)
    else:
        assert isinstance(catalog, Catalog)
        validate_catalog(catalog, ())  # a parsed catalog never breaks validation either


# ---------------------------------------------------------------------------------------------
# Lookups (§2.1) on the real catalog
# ---------------------------------------------------------------------------------------------


def test_normalize_trims_strips_md_and_maps_aliases(real: Catalog) -> None:
    """§2.1: trim, drop ``.md`` in any case, alias → id; anything else comes back stripped."""
    assert real.normalize("  implement.md ") == "implement"
    assert real.normalize("implement.MD") == "implement"
    assert real.normalize("tight-red-loop") == "diagnosing-bugs"
    assert real.normalize("clarify-goal.md") == "wayfinder"
    assert real.normalize(" no-such-thing.md ") == "no-such-thing"
    assert real.normalize("template.sh") == "template.sh"


def test_aliases_resolve(real: Catalog) -> None:
    """The catalog's aliases: tight-red-loop → diagnosing-bugs, clarify-goal → wayfinder."""
    assert {a: e.id for e in real.entries for a in e.aliases} == {
        "tight-red-loop": "diagnosing-bugs",
        "clarify-goal": "wayfinder",
    }
    found = real.find("tight-red-loop")
    assert found is not None and found.id == "diagnosing-bugs"
    assert real.find("nothing") is None


def test_find_by_file(real: Catalog) -> None:
    """A file name, with or without ``./``, finds the entry classifying it."""
    by_file = real.find_by_file("./template.sh")
    assert by_file is not None and by_file.id == "template"
    found = real.find_by_file("ADR-FORMAT.md")
    assert found is not None and found.id == "ADR-FORMAT"
    assert real.find_by_file("ADR-FORMAT") is None


def test_routes_in_catalog_order_with_their_texts(real: Catalog) -> None:
    """§3: five routes in order, each with its title, label and description."""
    assert real.routes() == (
        Route(
            "idea-to-ship",
            "Idea to Ship",
            "Start an idea-to-ship flow",
            "Shape an idea before planning and implementation.",
        ),
        Route(
            "hard-bug",
            "Hard Bug Diagnosis",
            "Diagnose a hard bug",
            "Build a tight feedback loop before forming a theory.",
        ),
        Route(
            "triage",
            "Task Triage",
            "Triage incoming work",
            "Turn incoming issues into agent-ready briefs.",
        ),
        Route(
            "wayfinding",
            "Architecture Wayfinding",
            "Map a large ambiguous initiative",
            "Resolve decision tickets before creating a build plan.",
        ),
        Route(
            "architecture",
            "Codebase Architecture",
            "Improve codebase architecture",
            "Find and develop deepening opportunities.",
        ),
    )


@pytest.mark.parametrize(
    ("route", "entry", "phase"),
    [
        ("idea-to-ship", "grill-with-docs", "shaping"),
        ("hard-bug", "diagnosing-bugs", "feedback-loop"),
        ("triage", "triage", "triage"),
        ("wayfinding", "wayfinder", "mapping"),
        ("architecture", "improve-codebase-architecture", "survey"),
    ],
)
def test_route_entries_and_their_phase(real: Catalog, route: str, entry: str, phase: str) -> None:
    """§3: each route's entry procedure and the phase it starts in."""
    found = real.entry(route)
    assert found is not None and found.id == entry
    placement = real.placement(route, entry)
    assert placement is not None and placement.entry and placement.phase == phase


def test_first_route_entry_is_grill_with_docs(real: Catalog) -> None:
    """The first route's entry is grill-with-docs."""
    first = real.entry(real.routes()[0].route)
    assert first is not None and first.id == "grill-with-docs"


ROUTE_PROCEDURES = {
    "idea-to-ship": [
        "grill-with-docs",
        "grill-me",
        "research",
        "prototype",
        "to-spec",
        "to-tickets",
        "implement",
        "code-review",
        "handoff",
    ],
    "hard-bug": ["implement", "code-review", "diagnosing-bugs"],
    "triage": ["to-spec", "to-tickets", "implement", "code-review", "triage"],
    "wayfinding": [
        "research",
        "prototype",
        "to-spec",
        "to-tickets",
        "implement",
        "code-review",
        "wayfinder",
    ],
    "architecture": [
        "implement",
        "code-review",
        "improve-codebase-architecture",
        "codebase-design",
    ],
}


@pytest.mark.parametrize("route", sorted(ROUTE_PROCEDURES))
def test_definitions_of_a_route_in_catalog_order(real: Catalog, route: str) -> None:
    """§4.1: the procedures placed in each route, in catalog order."""
    assert ids(real.definitions(route)) == ROUTE_PROCEDURES[route]


def test_definitions_without_a_route_are_all_workflow_procedures(real: Catalog) -> None:
    """Without a route: every entry with a placement, i.e. the 14 workflow procedures."""
    assert ids(real.definitions()) == [e.id for e in real.entries if e.kind == "workflow"]
    assert len(real.definitions()) == 14
    assert real.definitions("no-such-route") == ()


def test_a_procedure_has_the_same_phase_in_every_route(real: Catalog) -> None:
    """§4.1: the phase is the placement's, and the same for a procedure in every route."""
    for procedure in real.definitions():
        assert len({p.phase for p in procedure.placements}) == 1


ALLOWED = {
    ("idea-to-ship", "grill-with-docs"): (
        "grill-me",
        "research",
        "prototype",
        "to-spec",
        "implement",
    ),
    ("idea-to-ship", "grill-me"): (
        "grill-with-docs",
        "research",
        "prototype",
        "to-spec",
        "implement",
    ),
    ("idea-to-ship", "research"): ("grill-with-docs", "prototype", "to-spec", "implement"),
    ("idea-to-ship", "prototype"): ("grill-with-docs", "research", "to-spec", "implement"),
    ("idea-to-ship", "to-spec"): ("to-tickets", "implement"),
    ("idea-to-ship", "to-tickets"): ("implement",),
    ("idea-to-ship", "implement"): ("code-review", "handoff"),
    ("idea-to-ship", "code-review"): ("implement", "handoff"),
    ("idea-to-ship", "handoff"): (),
    ("hard-bug", "implement"): ("code-review", "diagnosing-bugs"),
    ("hard-bug", "code-review"): ("implement", "diagnosing-bugs"),
    ("hard-bug", "diagnosing-bugs"): ("implement", "code-review"),
    ("triage", "to-spec"): ("to-tickets", "implement"),
    ("triage", "to-tickets"): ("implement",),
    ("triage", "implement"): ("code-review",),
    ("triage", "code-review"): ("implement",),
    ("triage", "triage"): ("to-spec", "to-tickets", "implement"),
    ("wayfinding", "research"): ("wayfinder", "prototype", "to-spec"),
    ("wayfinding", "prototype"): ("wayfinder", "research", "to-spec"),
    ("wayfinding", "to-spec"): ("to-tickets", "implement"),
    ("wayfinding", "to-tickets"): ("implement",),
    ("wayfinding", "implement"): ("code-review",),
    ("wayfinding", "code-review"): ("implement",),
    ("wayfinding", "wayfinder"): ("research", "prototype", "to-spec"),
    ("architecture", "implement"): ("code-review",),
    ("architecture", "code-review"): ("implement",),
    ("architecture", "improve-codebase-architecture"): (
        "codebase-design",
        "implement",
        "code-review",
    ),
    ("architecture", "codebase-design"): (
        "improve-codebase-architecture",
        "implement",
        "code-review",
    ),
}


def test_allowed_transitions_include_the_lateral_edges(real: Catalog) -> None:
    """§4.1 with the §4.2 lateral edges: every placement's allowed next procedures."""
    table = {
        (r, d.id): real.allowed(r, d.id) for r in ROUTE_PROCEDURES for d in real.definitions(r)
    }
    assert table == ALLOWED


def test_allowed_accepts_aliases_and_is_empty_off_route(real: Catalog) -> None:
    """An alias finds its placement; a procedure outside the route has no transitions."""
    assert real.allowed("hard-bug", "tight-red-loop.md") == ("implement", "code-review")
    assert real.allowed("hard-bug", "research") == ()
    assert real.placement("hard-bug", "research") is None


def test_model_standalone_capabilities(real: Catalog) -> None:
    """§5.3: the 11 capabilities the model may start itself, in catalog order."""
    assert ids(real.model_standalone()) == [
        "research",
        "prototype",
        "code-review",
        "diagnosing-bugs",
        "codebase-design",
        "writing-for-agents",
        "resolving-merge-conflicts",
        "wizard",
        "grilling",
        "domain-modeling",
        "tdd",
    ]


def test_menu_standalone_capabilities(real: Catalog) -> None:
    """§5.3: the 18 menu capabilities; setup-repository and teach are standalone, user-only."""
    assert ids(real.standalone()) == [
        "grill-me",
        "research",
        "prototype",
        "code-review",
        "handoff",
        "diagnosing-bugs",
        "improve-codebase-architecture",
        "codebase-design",
        "writing-for-agents",
        "resolving-merge-conflicts",
        "wizard",
        "setup-repository",
        "teach",
        "to-questionnaire",
        "wait-what",
        "grilling",
        "domain-modeling",
        "tdd",
    ]
    model = ids(real.model_standalone())
    assert {"writing-for-agents", "resolving-merge-conflicts", "wizard"} <= set(model)
    assert {"setup-repository", "teach"}.isdisjoint(model)


def test_references_and_assets_are_never_capabilities(real: Catalog) -> None:
    """References and assets are internal, never standalone, never placed."""
    for entry in real.entries:
        if entry.kind in ("reference", "asset"):
            assert entry.invocation == "internal"
            assert not entry.standalone and not entry.placements


def test_the_real_catalog_validates_against_its_own_files(real: Catalog) -> None:
    """With every file present, the real catalog has no problem: the reachability check passes
    thanks to the lateral edges."""
    assert validate_catalog(real, files_of(real)) == []


def test_without_the_lateral_edges_two_procedures_are_unreachable() -> None:
    """§2.2: the baseline graph leaves grill-me and codebase-design unreachable."""
    data = real_data()
    lateral = {
        ("idea-to-ship", "grill-with-docs"): "grill-me",
        ("idea-to-ship", "grill-me"): "grill-with-docs",
        ("idea-to-ship", "research"): "prototype",
        ("idea-to-ship", "prototype"): "research",
        ("wayfinding", "research"): "prototype",
        ("wayfinding", "prototype"): "research",
        ("hard-bug", "implement"): "diagnosing-bugs",
        ("hard-bug", "code-review"): "diagnosing-bugs",
        ("architecture", "improve-codebase-architecture"): "codebase-design",
        ("architecture", "codebase-design"): "improve-codebase-architecture",
    }
    for entry in data:
        for p in entry.get("workflows", []):
            added = lateral.get((p["route"], entry["id"]))
            p["allowedNext"] = [n for n in p["allowedNext"] if n != added]
    baseline = parse_catalog(json.dumps(data))
    assert validate_catalog(baseline, files_of(baseline)) == [
        "idea-to-ship: unreachable workflow procedure: grill-me",
        "architecture: unreachable workflow procedure: codebase-design",
    ]


# ---------------------------------------------------------------------------------------------
# Lookups on synthetic catalogs
# ---------------------------------------------------------------------------------------------


def test_route_texts_fall_back_to_the_entry_procedure() -> None:
    """§2.1: title → route id, label → the entry's label, description → its description → id."""
    bare = build(
        proc(
            "a",
            "workflow",
            workflows=[{"route": "r", "phase": "p", "entry": True, "allowedNext": []}],
        ),
        proc(
            "b",
            "workflow",
            label="Bee",
            description="Does b.",
            workflows=[{"route": "s", "phase": "p", "entry": True, "allowedNext": []}],
        ),
    )
    assert bare.routes() == (Route("r", "r", "A", "a"), Route("s", "s", "Bee", "Does b."))


def test_an_id_wins_over_another_entry_alias() -> None:
    """When an alias equals another entry's id, the id wins and the alias is reported."""
    catalog = build(proc("a", aliases=["b"]), proc("b"))
    found = catalog.find("b")
    assert found is not None and found.id == "b"
    assert validate_catalog(catalog, files_of(catalog)) == [
        "a: alias does not resolve: b (it names b)"
    ]


def test_lookups_never_raise_on_unknown_ids() -> None:
    """Unknown ids and routes give None or empty tuples."""
    catalog = build(*SOUND)
    assert catalog.placement("r", "ref") is None
    assert catalog.entry("nowhere") is None
    assert catalog.allowed("nowhere", "start") == ()
    assert catalog.find_by_file("missing.md") is None


# ---------------------------------------------------------------------------------------------
# Validation (§2.2), one synthetic catalog per message
# ---------------------------------------------------------------------------------------------


def check(*entries: dict[str, Any], files: set[str] | None = None) -> list[str]:
    catalog = build(*entries)
    return validate_catalog(catalog, files_of(catalog) if files is None else files)


def test_a_sound_catalog_has_no_problems() -> None:
    """The synthetic baseline every other case breaks in one way."""
    assert check(*SOUND) == []


def test_duplicate_id() -> None:
    """An id seen before."""
    assert check(*SOUND, proc("ref", "reference", file="ref2.md")) == ["ref: duplicate catalog id"]


def test_file_classified_twice() -> None:
    """A file seen before."""
    assert check(*SOUND, proc("other", file="ref.md", discloses=["ref"])) == [
        "ref.md: classified more than once"
    ]


def test_file_not_found() -> None:
    """A catalogued file missing from the procedures folder."""
    assert check(*SOUND, files={"start.md", "next.md"}) == ["ref: file not found: ref.md"]


def test_file_not_in_the_catalog() -> None:
    """A file in the procedures folder no entry classifies (sorted by name)."""
    files = {"start.md", "next.md", "ref.md", "stray.md", "notes.md"}
    assert check(*SOUND, files=files) == [
        "notes.md: not in the catalog",
        "stray.md: not in the catalog",
    ]


def test_unknown_catalog_target() -> None:
    """A requires or discloses target that does not resolve."""
    assert check(*SOUND, proc("u", requires=["ghost"], discloses=["ref", "phantom"])) == [
        "u: unknown catalog target: ghost",
        "u: unknown catalog target: phantom",
    ]


def test_invalid_transition() -> None:
    """An allowedNext target with no placement in that route."""
    assert check(
        proc("start", "workflow", workflows=[place("r", ("next", "ref"), entry=True)]),
        proc("next", "workflow", discloses=["ref"], workflows=[place("r", ("start",))]),
        proc("ref", "reference"),
    ) == ["start: invalid r transition: ref"]


def test_alias_does_not_resolve() -> None:
    """An alias taken by an earlier entry does not resolve back to its own entry."""
    assert check(*SOUND, proc("x", aliases=["y"]), proc("z", aliases=["y"])) == [
        "z: alias does not resolve: y (it names x)"  # seed003 audit D10a: the owner named
    ]


def test_route_without_an_entry() -> None:
    """A route whose placements have no entry."""
    assert check(*SOUND, proc("w", "workflow", workflows=[place("q")])) == [
        "q: expected exactly one workflow entry, found 0"
    ]


def test_route_with_two_entries() -> None:
    """A route with two entry placements."""
    assert check(
        proc("start", "workflow", discloses=["ref"], workflows=[place("r", ("next",), entry=True)]),
        proc("next", "workflow", workflows=[place("r", ("start",), entry=True)]),
        proc("ref", "reference"),
    ) == ["r: expected exactly one workflow entry, found 2"]


@pytest.mark.parametrize("missing", ["title", "label", "description"])
def test_entry_without_title_label_or_description(missing: str) -> None:
    """The entry placement must carry the route's title, label and description."""
    entry = place("r", ("next",), entry=True)
    del entry[missing]
    assert check(
        proc("start", "workflow", discloses=["ref"], workflows=[entry]),
        *SOUND[1:],
    ) == ["r: workflow entry requires title, label, and description"]


def test_unreachable_procedure() -> None:
    """A route procedure no chain of transitions from the entry reaches (BFS)."""
    assert check(*SOUND, proc("island", "workflow", workflows=[place("r", ("start",))])) == [
        "r: unreachable workflow procedure: island"
    ]


def test_reference_without_inbound_edge() -> None:
    """A reference nothing requires or discloses; assets are exempt."""
    assert check(*SOUND, proc("lonely", "reference"), proc("tool.sh", "asset", file="tool.sh")) == [
        "lonely: internal reference has no inbound catalog edge"
    ]


def test_problems_come_per_entry_then_per_route_then_references() -> None:
    """§2.2's order: each entry's checks in turn, then each route, then references, then
    unclassified files."""
    catalog = build(
        proc(
            "start",
            "workflow",
            requires=["ghost"],
            workflows=[place("r", ("nowhere",), entry=True)],
        ),
        proc("start", "workflow", file="start2.md", workflows=[place("r", ("start",))]),
        proc("island", "workflow", aliases=["start"], workflows=[place("r")]),
        proc("ref", "reference"),
        proc("dup", file="ref.md", discloses=["ref"]),
        proc("lost", "reference"),
    )
    files = {"start.md", "island.md", "ref.md", "extra.md"}
    assert validate_catalog(catalog, files) == [
        "start: unknown catalog target: ghost",
        "start: invalid r transition: nowhere",
        "start: duplicate catalog id",
        "start: file not found: start2.md",
        "island: alias does not resolve: start (it names start)",
        "ref.md: classified more than once",
        "lost: file not found: lost.md",
        "r: unreachable workflow procedure: island",
        "lost: internal reference has no inbound catalog edge",
        "extra.md: not in the catalog",
    ]


# ---------------------------------------------------------------------------------------------
# Merging a user catalog
# ---------------------------------------------------------------------------------------------


def test_merge_overrides_in_place_and_appends_new_ids() -> None:
    """A user entry with a known id replaces it where it stood; a new id is appended."""
    base = build(*SOUND)
    extra = build(
        proc("next", "workflow", label="Mine", workflows=[place("r", ("start",))]), proc("new")
    )
    merged = merge_catalogs(base, extra)
    assert ids(merged.entries) == ["start", "next", "ref", "new"]
    found = merged.find("next")
    assert found is not None and found.label == "Mine"
    original = base.find("next")
    assert original is not None and original.label == "Next"


def test_merge_keeps_a_duplicate_of_the_user_catalog_visible() -> None:
    """An id the user catalog holds twice is appended the second time, so validation names it."""
    merged = merge_catalogs(
        build(*SOUND), build(proc("ref", "reference"), proc("ref", "reference", file="r2.md"))
    )
    assert ids(merged.entries) == ["start", "next", "ref", "ref"]
    assert validate_catalog(merged, files_of(merged)) == ["ref: duplicate catalog id"]


def test_merge_with_an_empty_catalog_is_the_base() -> None:
    """Merging nothing changes nothing."""
    base = build(*SOUND)
    assert merge_catalogs(base, Catalog(())) == base
