"""Loading the workflow catalog: the built-in one, a user catalog over it, procedure texts, the
mtime cache, and broken user catalogs reported instead of raised. The last section checks the
real built-in catalog and procedure texts."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from goalkeeper.core.workflows.resolver import (
    MAX_BUNDLE_BYTES,
    ResolveError,
    bundle,
    deliverability_problems,
    workflow_context,
)
from goalkeeper.store.catalog_files import BUILTIN_DIR, LoadedCatalog, load_catalog

T0 = 1_700_000_000 * 10**9  # a fixed mtime, in nanoseconds


def proc(ident: str, kind: str = "utility", **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": ident,
        "file": f"{ident}.md",
        "kind": kind,
        "invocation": "internal" if kind == "reference" else "model",
        "label": ident,
    }
    entry.update(extra)
    return entry


ENTRY = {"entry": True, "title": "R", "label": "Start r", "description": "Do r."}
BASE = [
    proc(
        "start",
        "workflow",
        discloses=["ref"],
        workflows=[{"route": "r", "phase": "one", "allowedNext": ["next"], **ENTRY}],
    ),
    proc("next", "workflow", workflows=[{"route": "r", "phase": "two", "allowedNext": ["start"]}]),
    proc("ref", "reference"),
]


def write_catalog(folder: Path, entries: list[dict[str, Any]] | str, **texts: str) -> Path:
    """A catalog.json in ``folder`` and a procedures/ folder with the given texts."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "catalog.json"
    path.write_text(entries if isinstance(entries, str) else json.dumps(entries), encoding="utf-8")
    (folder / "procedures").mkdir(exist_ok=True)
    for name, text in texts.items():
        (folder / "procedures" / f"{name}.md").write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def builtin(tmp_path: Path) -> Path:
    folder = tmp_path / "builtin"
    write_catalog(folder, BASE, start="Start here.", next="Then this.", ref="A reference.")
    return folder


def load(project: Path, setting: str | None, builtin: Path) -> LoadedCatalog:
    return load_catalog(project, setting, builtin_dir=builtin)


def text_of(loaded: LoadedCatalog, ident: str) -> str:
    found = loaded.catalog.find(ident)
    assert found is not None
    return loaded.read(found)


# ---------------------------------------------------------------------------------------------
# The built-in catalog alone
# ---------------------------------------------------------------------------------------------


def test_builtin_only_when_the_setting_is_empty(tmp_path: Path, builtin: Path) -> None:
    """No setting: the built-in catalog, its texts, no problems."""
    for setting in (None, "", "   "):
        loaded = load(tmp_path, setting, builtin)
        assert [e.id for e in loaded.catalog.entries] == ["start", "next", "ref"]
        assert (loaded.problems, loaded.user_catalog) == ((), None)
        assert loaded.files == {"start.md", "next.md", "ref.md"}
    assert text_of(loaded, "start") == "Start here."


def test_a_missing_procedure_text_is_a_resolve_error(tmp_path: Path, builtin: Path) -> None:
    """A catalogued file missing on disk is reported by validation and by the reader."""
    (builtin / "procedures" / "ref.md").unlink()
    loaded = load(tmp_path, "", builtin)
    assert loaded.problems == ("ref: file not found: ref.md",)
    with pytest.raises(ResolveError, match=r"^ref: file not found: ref\.md$"):
        text_of(loaded, "ref")


def test_bodies_are_cached_by_mtime_and_size(tmp_path: Path, builtin: Path) -> None:
    """An unchanged stamp serves the cached text; a new mtime reads the file again."""
    path = builtin / "procedures" / "next.md"
    os.utime(path, ns=(T0, T0))
    loaded = load(tmp_path, "", builtin)
    assert text_of(loaded, "next") == "Then this."
    path.write_text("Then that.", encoding="utf-8")  # same size
    os.utime(path, ns=(T0, T0))
    assert text_of(loaded, "next") == "Then this."
    os.utime(path, ns=(T0 + 10**9, T0 + 10**9))
    assert text_of(loaded, "next") == "Then that."


def test_loading_is_cached_until_a_file_changes(tmp_path: Path, builtin: Path) -> None:
    """The same object while nothing changed; a new one after the catalog is edited."""
    first = load(tmp_path, "", builtin)
    assert load(tmp_path, "", builtin) is first
    write_catalog(builtin, [*BASE, proc("extra", discloses=["ref"])], extra="More.")
    second = load(tmp_path, "", builtin)
    assert second is not first
    assert second.catalog.find("extra") is not None and second.problems == ()


def test_a_broken_builtin_catalog_is_reported_not_raised(tmp_path: Path, builtin: Path) -> None:
    """Even the built-in catalog failing to parse gives an (empty) catalog and the problems."""
    write_catalog(builtin, "[1]")
    loaded = load(tmp_path, "", builtin)
    assert loaded.catalog.entries == ()
    assert (
        loaded.problems[0] == "built-in catalog.json: entry 1: expected an object, found a number"
    )


def test_a_bom_is_not_part_of_the_text(tmp_path: Path, builtin: Path) -> None:
    """Files saved with a UTF-8 byte order mark read as if they had none."""
    (builtin / "procedures" / "ref.md").write_bytes("\ufeffA reference.".encode())
    assert text_of(load(tmp_path, "", builtin), "ref") == "A reference."


# ---------------------------------------------------------------------------------------------
# A user catalog over the built-in one
# ---------------------------------------------------------------------------------------------


def test_a_user_catalog_extends_and_overrides(tmp_path: Path, builtin: Path) -> None:
    """New ids are appended; a known id is replaced in place, its text read from the user's
    procedures folder."""
    write_catalog(
        tmp_path / "mine",
        [
            proc("next", "workflow", label="Mine", workflows=BASE[1]["workflows"]),
            proc("tool", discloses=["ref"]),
        ],
        next="My next step.",
        tool="My tool.",
    )
    loaded = load(tmp_path, "mine/catalog.json", builtin)
    assert [e.id for e in loaded.catalog.entries] == ["start", "next", "ref", "tool"]
    assert loaded.problems == ()
    assert loaded.user_catalog == tmp_path / "mine" / "catalog.json"
    assert (text_of(loaded, "next"), text_of(loaded, "tool")) == ("My next step.", "My tool.")
    assert text_of(loaded, "start") == "Start here."


def test_an_override_without_its_own_text_reads_the_builtin_text(
    tmp_path: Path, builtin: Path
) -> None:
    """Overriding only an entry's edges keeps the built-in text."""
    write_catalog(tmp_path / "mine", [proc("ref", "reference", label="Renamed")])
    loaded = load(tmp_path, "mine/catalog.json", builtin)
    assert loaded.problems == ()
    assert text_of(loaded, "ref") == "A reference."


def test_a_user_catalog_given_as_a_folder_or_absolute_path(tmp_path: Path, builtin: Path) -> None:
    """A folder stands for the catalog.json in it; absolute paths work from anywhere."""
    path = write_catalog(tmp_path / "mine", [proc("tool", discloses=["ref"])], tool="T.")
    for setting in ("mine", str(path), str(tmp_path / "mine")):
        loaded = load(tmp_path / "elsewhere" if setting != "mine" else tmp_path, setting, builtin)
        assert loaded.catalog.find("tool") is not None, setting
        assert loaded.user_catalog == path


def test_a_user_catalog_that_is_not_json_is_reported(tmp_path: Path, builtin: Path) -> None:
    """A broken user catalog is reported and the built-in catalog is used alone."""
    write_catalog(tmp_path / "mine", "[{,")
    loaded = load(tmp_path, "mine/catalog.json", builtin)
    assert [e.id for e in loaded.catalog.entries] == ["start", "next", "ref"]
    assert loaded.user_catalog is None
    assert loaded.problems == (
        "mine/catalog.json: not valid JSON (Expecting property name enclosed in double quotes "
        "at line 1, column 3)",
        "mine/catalog.json: not used because of the problems above; "
        "using the built-in catalog only",
    )
    assert text_of(loaded, "start") == "Start here."


def test_a_missing_user_catalog_is_reported(tmp_path: Path, builtin: Path) -> None:
    """A setting naming no file says so."""
    loaded = load(tmp_path, "nowhere.json", builtin)
    assert loaded.problems == (
        "nowhere.json: not found",
        "nowhere.json: not used because of the problems above; using the built-in catalog only",
    )


def test_a_user_catalog_breaking_the_graph_is_not_used(tmp_path: Path, builtin: Path) -> None:
    """Validation problems the user catalog brings make goalkeeper use the built-in alone."""
    write_catalog(
        tmp_path / "mine",
        [proc("tool", requires=["ghost"]), proc("next", "workflow", workflows=[])],
        tool="T.",
    )
    loaded = load(tmp_path, "mine/catalog.json", builtin)
    assert loaded.catalog.find("tool") is None
    assert loaded.problems == (
        "start: invalid r transition: next",
        "tool: unknown catalog target: ghost",
        "mine/catalog.json: not used because of the problems above; "
        "using the built-in catalog only",
    )


def test_a_requires_cycle_in_a_user_catalog_is_caught_at_load(
    tmp_path: Path, builtin: Path
) -> None:
    """seed003 D1: alpha ⇄ beta used to load and then fail at run time; each entry that cannot
    be delivered is named with the cycle's path, and the user catalog is not used."""
    write_catalog(
        tmp_path / "mine",
        [proc("alpha", requires=["beta"], discloses=["ref"]), proc("beta", requires=["alpha"])],
        alpha="A.",
        beta="B.",
    )
    loaded = load(tmp_path, "mine", builtin)
    assert loaded.catalog.find("alpha") is None
    assert loaded.problems == (
        "alpha: Cyclic procedure dependency at alpha (alpha → beta → alpha)",
        "beta: Cyclic procedure dependency at beta (beta → alpha → beta)",
        "mine/catalog.json: not used because of the problems above; "
        "using the built-in catalog only",
    )


def test_an_oversized_bundle_in_a_user_catalog_is_caught_at_load(
    tmp_path: Path, builtin: Path
) -> None:
    """seed003 D2: eps requires a 70,000-byte BIG; both bundles are over the cap, named with
    their size and the limit, and the user catalog is not used."""
    write_catalog(
        tmp_path / "mine",
        [proc("eps", requires=["BIG"], discloses=["ref"]), proc("BIG", "reference")],
        eps="E.",
        BIG="x" * 70_000,
    )
    loaded = load(tmp_path, "mine", builtin)
    assert loaded.catalog.find("eps") is None
    assert loaded.problems[:2] == (
        f"eps: Procedure bundle eps is 70146 bytes; maximum is {MAX_BUNDLE_BYTES}",
        f"BIG: Procedure bundle BIG is 70071 bytes; maximum is {MAX_BUNDLE_BYTES}",
    )
    assert len(loaded.problems) == 3


def test_a_stray_file_is_reported_but_the_user_catalog_used(tmp_path: Path, builtin: Path) -> None:
    """A file nothing classifies cannot break a workflow: reported, catalog still used."""
    write_catalog(tmp_path / "mine", [proc("tool", discloses=["ref"])], tool="T.", notes="N.")
    (tmp_path / "mine" / "procedures" / ".tool.md.swp").write_text("x", encoding="utf-8")
    loaded = load(tmp_path, "mine", builtin)
    assert loaded.catalog.find("tool") is not None
    assert loaded.problems == ("notes.md: not in the catalog",)


def test_editing_the_user_catalog_reloads_it(tmp_path: Path, builtin: Path) -> None:
    """The user catalog is cached by mtime and size like the built-in one."""
    path = write_catalog(tmp_path / "mine", [proc("tool", discloses=["ref"])], tool="T.")
    os.utime(path, ns=(T0, T0))
    assert load(tmp_path, "mine", builtin).catalog.find("tool") is not None
    path.write_text(json.dumps([proc("gadget", discloses=["ref"])]), encoding="utf-8")
    os.utime(path, ns=(T0 + 10**9, T0 + 10**9))
    (tmp_path / "mine" / "procedures" / "gadget.md").write_text("G.", encoding="utf-8")
    loaded = load(tmp_path, "mine", builtin)
    assert loaded.catalog.find("tool") is None and loaded.catalog.find("gadget") is not None


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(max_size=30))
@example("~\x00")  # found by hypothesis: a NUL byte in a "~user" name
@example("\x00/catalog.json")
def test_load_catalog_never_raises(tmp_path: Path, setting: str) -> None:
    """Any setting text gives a LoadedCatalog, never an exception."""
    loaded = load_catalog(tmp_path, setting)
    assert isinstance(loaded, LoadedCatalog)
    assert loaded.catalog.find("implement") is not None


# ---------------------------------------------------------------------------------------------
# The real built-in catalog and its procedure texts
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real() -> LoadedCatalog:
    return load_catalog(Path("/nonexistent-project"), "")


def test_the_builtin_catalog_is_sound(real: LoadedCatalog) -> None:
    """No validation problem: every file on disk classified once, the set of files on disk
    equal to the catalog's, unique ids, aliases resolving, every route reachable."""
    assert real.problems == ()
    assert real.files == {e.file for e in real.catalog.entries}
    assert len({e.id for e in real.catalog.entries}) == len(real.catalog.entries) == 54
    assert BUILTIN_DIR.name == "workflows"


def test_the_builtin_catalog_is_deliverable(real: LoadedCatalog) -> None:
    """A hook does not resolve the built-in catalog as it loads it (that reads every text):
    this test is what proves every built-in entry resolves (no cycle, within the cap)."""
    assert deliverability_problems(real.catalog, real.read) == []


def test_every_bundle_fits_the_cap(real: LoadedCatalog) -> None:
    """Every entry's bundle, and every workflow with all its disclosed references loaded, is
    at most 64 KiB and carries a source block per loaded procedure."""
    for entry in real.catalog.entries:
        result = bundle(real.catalog, entry.id, real.read)
        assert result.byte_length <= MAX_BUNDLE_BYTES
        for ident in result.loaded:
            assert f'source="procedure/{ident}"' in result.content
    for entry in real.catalog.definitions():
        first = bundle(real.catalog, entry.id, real.read)
        full = workflow_context(real.catalog, entry.id, first.available, real.read)
        assert full.byte_length <= MAX_BUNDLE_BYTES, entry.id


def test_links_in_procedure_texts_resolve(real: LoadedCatalog) -> None:
    """Every ``capability:`` link targets a model-standalone capability, and every Markdown
    link to a sibling file targets a catalogued file. The upstream texts link ``SKILL.md`` for
    the skill a reference belongs to (the step's reading note says so: the procedure that
    disclosed it) and show project paths such as ``./src/billing/CONTEXT.md`` in examples."""
    model = {p.id for p in real.catalog.model_standalone()}
    for entry in real.catalog.entries:
        text = real.read(entry)
        for target in re.findall(r"\]\(capability:([^)#\s]+)", text):
            assert target in model, f"{entry.file}: capability:{target}"
        for target in re.findall(r"\]\((?:\./)?([A-Za-z0-9.-]+\.(?:md|sh))[)#]", text):
            if target != "SKILL.md":
                assert real.catalog.find_by_file(target) is not None, f"{entry.file}: {target}"
