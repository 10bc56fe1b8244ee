"""The resolver (catalog spec §6): closure, rendering, the size cap, context replay, reference
access and delta delivery. Bodies come from a fake ``read``; the real texts are checked in
tests/store/test_catalog_files.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.core.workflows.catalog import Catalog, Procedure, parse_catalog
from goalkeeper.core.workflows.resolver import (
    MAX_BUNDLE_BYTES,
    Bundle,
    ResolveError,
    accessible_reference,
    available_references,
    bundle,
    closure,
    delta,
    render,
    workflow_context,
)

CATALOG_JSON = (
    Path(__file__).resolve().parents[2] / "src" / "goalkeeper" / "workflows" / "catalog.json"
)


@pytest.fixture(scope="module")
def real() -> Catalog:
    return parse_catalog(CATALOG_JSON.read_text(encoding="utf-8"))


def fake_read(procedure: Procedure) -> str:
    return f"\n  Body of {procedure.id}.  \n"


def reader(bodies: dict[str, str]) -> Any:
    return lambda procedure: bodies.get(procedure.id, f"Body of {procedure.id}.")


def proc(ident: str, kind: str = "utility", **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": ident,
        "file": extra.pop("file", f"{ident}.md"),
        "kind": kind,
        "invocation": "internal" if kind == "reference" else "model",
        "label": ident,
    }
    entry.update(extra)
    return entry


def build(*entries: dict[str, Any]) -> Catalog:
    return parse_catalog(json.dumps(list(entries)))


def ids(procedures: tuple[Procedure, ...]) -> list[str]:
    return [p.id for p in procedures]


def block(ident: str, body: str) -> str:
    return (
        f'<procedure-source id="{ident}" source="procedure/{ident}">\n{body}\n</procedure-source>'
    )


# ---------------------------------------------------------------------------------------------
# Closure (§6.1)
# ---------------------------------------------------------------------------------------------

DIAMOND = build(
    proc("a", requires=["b", "c"]),
    proc("b", requires=["d"]),
    proc("c", requires=["d", "b"]),
    proc("d"),
)


def test_closure_is_depth_first_pre_order_without_duplicates() -> None:
    """Root first, then each dependency and its own dependencies, each id once."""
    assert ids(closure(DIAMOND, "a")) == ["a", "b", "d", "c"]
    assert ids(closure(DIAMOND, "d.md")) == ["d"]


def test_closure_of_an_unknown_id() -> None:
    """An unknown root or dependency names the id as written."""
    with pytest.raises(ResolveError, match=r"^Unknown procedure: nope$"):
        closure(DIAMOND, "nope")
    with pytest.raises(ResolveError, match=r"^Unknown procedure: ghost$"):
        closure(build(proc("a", requires=["ghost"])), "a")


def test_closure_detects_a_cycle() -> None:
    """A cycle of requires names the procedure where it closes."""
    cyclic = build(proc("x", requires=["y"]), proc("y", requires=["z"]), proc("z", requires=["x"]))
    with pytest.raises(ResolveError, match=r"^Cyclic procedure dependency at x \(x → y → z → x\)$"):
        closure(cyclic, "x")
    with pytest.raises(ResolveError, match=r"^Cyclic procedure dependency at y \(y → z → x → y\)$"):
        closure(cyclic, "y")


def test_closure_survives_a_long_chain() -> None:
    """Iterative, so a chain deeper than Python's recursion limit still resolves."""
    n = 3000
    chain = build(*(proc(f"p{i}", requires=[f"p{i + 1}"]) for i in range(n)), proc(f"p{n}"))
    assert len(closure(chain, "p0")) == n + 1


# ---------------------------------------------------------------------------------------------
# Rendering (§6.2)
# ---------------------------------------------------------------------------------------------


def test_render_wraps_the_trimmed_body_in_a_source_block(real: Catalog) -> None:
    """Exact wrapper; the body is trimmed; the source id does not depend on the install path."""
    implement = real.find("implement")
    assert implement is not None
    assert render(real, implement, "\n\n  Do it.\n\n") == (
        '<procedure-source id="implement" source="procedure/implement">\n'
        "Do it.\n"
        "</procedure-source>"
    )


def test_render_rewrites_links_to_catalogued_files_only(real: Catalog) -> None:
    """Links to catalogued files become procedure:<id> (anchor kept); the rest stay."""
    tdd = real.find("tdd")
    assert tdd is not None
    body = (
        "See [mocks](./mocking.md), [the loop](bdd.md#automation-step), [the script](template.sh), "
        "[elsewhere](notes.md), [web](https://example.com/bdd.md), [sub](./dir/bdd.md) "
        "and [alias](tight-red-loop.md)."
    )
    assert render(real, tdd, body).splitlines()[1] == (
        "See [mocks](procedure:mocking), [the loop](procedure:bdd#automation-step), "
        "[the script](procedure:template), [elsewhere](notes.md), "
        "[web](https://example.com/bdd.md), [sub](./dir/bdd.md) and [alias](tight-red-loop.md)."
    )


# ---------------------------------------------------------------------------------------------
# Bundles and the cap
# ---------------------------------------------------------------------------------------------


def test_bundle_joins_blocks_with_a_blank_line_and_counts_utf8_bytes() -> None:
    """Blocks in closure order, separated by one blank line; byte_length is UTF-8."""
    result = bundle(DIAMOND, "a", reader({"b": "café"}))
    expected = "\n\n".join(
        [
            block("a", "Body of a."),
            block("b", "café"),
            block("d", "Body of d."),
            block("c", "Body of c."),
        ]
    )
    assert result == Bundle("a", ("a", "b", "d", "c"), (), expected, len(expected.encode()))
    assert result.byte_length == len(expected) + 1


def test_bundle_root_is_the_resolved_id(real: Catalog) -> None:
    """An alias or file name as the root gives the bundle of the id it stands for."""
    assert bundle(real, "tight-red-loop", fake_read).root == "diagnosing-bugs"
    assert bundle(real, "implement.md", fake_read).loaded[0] == "implement"


def test_available_is_the_union_of_disclosures_minus_the_loaded() -> None:
    """First-seen order, without duplicates or anything already loaded."""
    catalog = build(
        proc("a", requires=["b"], discloses=["r1", "b", "r2"]),
        proc("b", discloses=["r2", "r3", "a"]),
        proc("r1", "reference"),
        proc("r2", "reference"),
        proc("r3", "reference"),
    )
    assert bundle(catalog, "a", fake_read).available == ("r1", "r2", "r3")
    assert available_references(catalog, ()) == ()


def test_a_bundle_over_64_kib_is_an_error_never_truncated() -> None:
    """The cap error names the root and the size; exactly 65536 bytes still passes."""
    catalog = build(proc("big", requires=["dep"]), proc("dep"))
    room = MAX_BUNDLE_BYTES - len("\n\n".join([block("big", ""), block("dep", "x")]).encode())
    body = "é" * (room // 2) + "a" * (room % 2)  # two-byte characters: bytes, not characters
    assert bundle(catalog, "big", reader({"big": body, "dep": "x"})).byte_length == 65536
    over = reader({"big": body + "!", "dep": "x"})
    with pytest.raises(ResolveError) as info:
        bundle(catalog, "big", over)
    assert str(info.value) == "Procedure bundle big is 65537 bytes; maximum is 65536"


# ---------------------------------------------------------------------------------------------
# §6.4 expected bundles of the real catalog (setup-matt-pocock-skills is setup-repository)
# ---------------------------------------------------------------------------------------------

EXPECTED = {
    "grill-with-docs": (
        ["grill-with-docs", "grilling", "domain-modeling"],
        ["grill-me", "CONTEXT-FORMAT", "ADR-FORMAT"],
    ),
    "grill-me": (["grill-me", "grilling"], []),
    "research": (["research"], []),
    "prototype": (["prototype"], ["LOGIC", "UI"]),
    "to-spec": (
        ["to-spec", "bdd"],
        ["setup-repository", "bdd-best-practices", "tdd", "code-review"],
    ),
    "to-tickets": (
        ["to-tickets", "bdd"],
        ["setup-repository", "bdd-best-practices", "tdd", "code-review"],
    ),
    "implement": (
        ["implement", "bdd", "tdd"],
        [
            "codebase-design",
            "mocking",
            "testing-anti-patterns",
            "bdd-best-practices",
            "code-review",
            "tests",
        ],
    ),
    "code-review": (["code-review", "bdd"], ["setup-repository", "bdd-best-practices", "tdd"]),
    "handoff": (["handoff"], ["phase-boundaries"]),
    "diagnosing-bugs": (["diagnosing-bugs"], ["improve-codebase-architecture"]),
    "triage": (
        ["triage", "grilling", "domain-modeling"],
        ["AGENT-BRIEF", "OUT-OF-SCOPE", "setup-repository", "CONTEXT-FORMAT", "ADR-FORMAT"],
    ),
    "wayfinder": (
        ["wayfinder", "grilling", "domain-modeling"],
        ["setup-repository", "CONTEXT-FORMAT", "ADR-FORMAT"],
    ),
    "improve-codebase-architecture": (
        ["improve-codebase-architecture", "codebase-design"],
        ["HTML-REPORT", "grilling", "domain-modeling", "DESIGN-IT-TWICE", "DEEPENING"],
    ),
    "codebase-design": (["codebase-design"], ["DEEPENING", "DESIGN-IT-TWICE"]),
    "writing-for-agents": (["writing-for-agents"], ["SKILL-MECHANICS", "writing-great-skills"]),
    "wizard": (["wizard", "template"], []),
    "setup-repository": (
        ["setup-repository"],
        [
            "issue-tracker-github",
            "issue-tracker-gitlab",
            "issue-tracker-local",
            "triage-labels",
            "domain",
        ],
    ),
    "teach": (
        ["teach"],
        ["MISSION-FORMAT", "RESOURCES-FORMAT", "LEARNING-RECORD-FORMAT", "GLOSSARY-FORMAT"],
    ),
    "domain-modeling": (["domain-modeling"], ["CONTEXT-FORMAT", "ADR-FORMAT"]),
    "tdd": (
        ["tdd", "bdd"],
        ["tests", "mocking", "codebase-design", "code-review", "bdd-best-practices"],
    ),
}


@pytest.mark.parametrize("root", sorted(EXPECTED))
def test_expected_bundles_of_the_real_catalog(real: Catalog, root: str) -> None:
    """§6.4: loaded ids and available references, in order; every block carries its source."""
    result = bundle(real, root, fake_read)
    assert (list(result.loaded), list(result.available)) == EXPECTED[root]
    for ident in result.loaded:
        assert f'<procedure-source id="{ident}" source="procedure/{ident}">' in result.content


def test_architecture_bundle_exposes_html_report(real: Catalog) -> None:
    """The architecture entry loads its required codebase-design and exposes HTML-REPORT."""
    result = bundle(real, "improve-codebase-architecture", fake_read)
    assert result.loaded == ("improve-codebase-architecture", "codebase-design")
    assert "HTML-REPORT" in result.available
    html = accessible_reference(real, "improve-codebase-architecture", [], "HTML-REPORT", fake_read)
    assert html.loaded == ("HTML-REPORT",)


def test_deepening_is_loadable_through_the_required_codebase_design(real: Catalog) -> None:
    """DEEPENING is disclosed by codebase-design, which the architecture entry requires."""
    result = accessible_reference(
        real, "improve-codebase-architecture", [], "DEEPENING.md", fake_read
    )
    assert (result.root, result.loaded) == ("DEEPENING", ("DEEPENING",))
    assert 'source="procedure/DEEPENING"' in result.content


def test_a_reference_outside_the_workflow_is_refused(real: Catalog) -> None:
    """MISSION-FORMAT belongs to teach, not to the architecture workflow."""
    with pytest.raises(ResolveError) as info:
        accessible_reference(real, "improve-codebase-architecture", [], "MISSION-FORMAT", fake_read)
    assert str(info.value) == (
        "Reference MISSION-FORMAT is not disclosed by improve-codebase-architecture. "
        "Available references: HTML-REPORT, grilling, domain-modeling, DESIGN-IT-TWICE, DEEPENING"
    )


def test_reference_access_with_nothing_disclosed_and_unknown_ids(real: Catalog) -> None:
    """An empty disclosure list reads "none"; an unknown reference is an unknown procedure."""
    with pytest.raises(ResolveError) as info:
        accessible_reference(real, "research", [], "LOGIC", fake_read)
    assert str(info.value) == (
        "Reference LOGIC is not disclosed by research. Available references: —"
    )
    with pytest.raises(ResolveError, match=r"^Unknown procedure: nope$"):
        accessible_reference(real, "research", [], "nope", fake_read)


# ---------------------------------------------------------------------------------------------
# Context replay (§6.3)
# ---------------------------------------------------------------------------------------------


def test_restored_references_are_replayed(real: Catalog) -> None:
    """writing-for-agents with [SKILL-MECHANICS] restored loads both; writing-great-skills is
    still available."""
    result = workflow_context(real, "writing-for-agents", ["SKILL-MECHANICS"], fake_read)
    assert result.loaded == ("writing-for-agents", "SKILL-MECHANICS")
    assert "writing-great-skills" in result.available
    assert result.root == "writing-for-agents"


def test_a_loaded_reference_discloses_further_references(real: Catalog) -> None:
    """GLOSSARY becomes reachable once writing-great-skills (which discloses it) is loaded."""
    result = workflow_context(
        real, "writing-for-agents", ["writing-great-skills", "GLOSSARY"], fake_read
    )
    assert result.loaded == ("writing-for-agents", "writing-great-skills", "GLOSSARY")
    assert result.available == ("SKILL-MECHANICS",)
    with pytest.raises(ResolveError) as info:
        workflow_context(
            real, "writing-for-agents", ["GLOSSARY", "writing-great-skills"], fake_read
        )
    assert str(info.value) == (
        "Reference GLOSSARY is not disclosed by the restored workflow context. "
        "Available references: SKILL-MECHANICS, writing-great-skills"
    )


def test_replay_skips_loaded_ids_and_accepts_aliases_and_file_names(real: Catalog) -> None:
    """A reference already loaded (or required) is skipped; names are normalized first."""
    result = workflow_context(real, "implement", ["bdd", "mocking.md", "mocking"], fake_read)
    assert result.loaded == ("implement", "bdd", "tdd", "mocking")


def test_replay_with_nothing_available(real: Catalog) -> None:
    """A restored reference the context cannot disclose is refused with "none"."""
    with pytest.raises(ResolveError) as info:
        workflow_context(real, "research", ["LOGIC"], fake_read)
    assert str(info.value) == (
        "Reference LOGIC is not disclosed by the restored workflow context. Available references: —"
    )


def test_a_reference_brings_its_own_closure(real: Catalog) -> None:
    """Loading a disclosed capability loads what it requires, new ids only."""
    result = workflow_context(real, "code-review", ["tdd"], fake_read)
    assert result.loaded == ("code-review", "bdd", "tdd")


# ---------------------------------------------------------------------------------------------
# Delta delivery (§6.5)
# ---------------------------------------------------------------------------------------------


def test_first_delta_delivers_the_whole_context(real: Catalog) -> None:
    """The first delta for implement includes implement and bdd (and tdd)."""
    content, delivered = delta(real, "implement", [], (), fake_read)
    assert delivered == ("implement", "bdd", "tdd")
    assert content == workflow_context(real, "implement", [], fake_read).content


def test_repeating_a_delta_delivers_nothing(real: Catalog) -> None:
    """Nothing new: empty content and the same ids."""
    _, delivered = delta(real, "implement", [], (), fake_read)
    assert delta(real, "implement", [], delivered, fake_read) == ("", delivered)


def test_a_later_step_delivers_only_what_is_new(real: Catalog) -> None:
    """code-review after implement adds code-review alone, and is smaller than the first."""
    first, delivered = delta(real, "implement", [], (), fake_read)
    second, after = delta(real, "code-review", [], delivered, fake_read)
    assert after == ("implement", "bdd", "tdd", "code-review")
    assert 'source="procedure/code-review"' in second
    assert 'source="procedure/bdd"' not in second
    assert len(second) < len(first)


def test_a_delta_includes_loaded_references(real: Catalog) -> None:
    """References loaded in the workflow are part of the context a delta compares."""
    _, delivered = delta(real, "implement", [], (), fake_read)
    content, after = delta(real, "implement", ["mocking"], delivered, fake_read)
    assert after == (*delivered, "mocking")
    assert content == block("mocking", "Body of mocking.")


def test_a_restore_redelivers_in_full(real: Catalog) -> None:
    """After session_start the caller passes no delivered ids: everything is rendered again."""
    content, delivered = delta(real, "diagnosing-bugs", [], (), fake_read)
    assert delivered == ("diagnosing-bugs",)
    assert 'source="procedure/diagnosing-bugs"' in content


def test_the_cap_applies_to_what_a_delta_renders() -> None:
    """A context over 64 KiB in total still delivers step by step when each delta fits."""
    catalog = build(proc("a", requires=["x", "y"]), proc("x"), proc("y"))
    half = reader({"x": "x" * 40_000, "y": "y" * 40_000})
    with pytest.raises(ResolveError, match=r"^Procedure bundle a is \d+ bytes; maximum is 65536$"):
        delta(catalog, "a", [], (), half)
    content, delivered = delta(catalog, "a", [], ("x", "y"), half)
    assert (content, delivered) == (block("a", "Body of a."), ("x", "y", "a"))


def test_delta_errors_like_the_context(real: Catalog) -> None:
    """An unknown root or an undisclosed reference fails as in workflow_context."""
    with pytest.raises(ResolveError, match=r"^Unknown procedure: nope$"):
        delta(real, "nope", [], (), fake_read)
    with pytest.raises(ResolveError, match=r"not disclosed by the restored workflow context"):
        delta(real, "research", ["LOGIC"], (), fake_read)


def test_front_matter_is_left_out_of_the_rendered_text() -> None:
    """The built-in texts are upstream skill files byte for byte; their ``---`` metadata block
    is for a skill loader, not the model. A text that merely opens with a thematic break, or an
    unclosed block, is rendered as written."""
    entry = Procedure(id="p", file="p.md", kind="utility", invocation="model", label="P")
    catalog = Catalog((entry,))
    skill = "---\nname: p\ndisable-model-invocation: true\n---\n\nRun a `/grilling` session.\n"
    assert render(catalog, entry, skill) == (
        '<procedure-source id="p" source="procedure/p">\nRun a `/grilling` session.\n'
        "</procedure-source>"
    )
    for kept in ("---\n\nA rule, then text.\n---\n", "---\nname: p\nno end"):
        assert kept.strip() in render(catalog, entry, kept)
