"""The workflow state machine (catalog spec §7) with plain values and the built-in catalog:
records, latest-record semantics, start, legal transitions, reference loads, finishing and the
validation a restored record must pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from goalkeeper.core.messages import make_say
from goalkeeper.core.workflows.catalog import Catalog
from goalkeeper.core.workflows.machine import (
    WorkflowError,
    WorkflowRecord,
    finish,
    is_work_item_id,
    latest_record,
    load_reference,
    record_from_json,
    restore_problem,
    start,
    transition,
)
from goalkeeper.core.workflows.resolver import Read
from goalkeeper.store.catalog_files import load_catalog

ITEM = "0b6f2b7e-3c1a-4d5e-9f00-123456789abc"
say = make_say("en")
ACTIVE_KEYS = {
    "version",
    "workItemId",
    "route",
    "procedure",
    "phase",
    "status",
    "loadedReferences",
}


@pytest.fixture
def catalog(tmp_path: Path) -> tuple[Catalog, Read]:
    loaded = load_catalog(tmp_path, "")
    assert loaded.problems == ()
    return loaded.catalog, loaded.read


def active(
    route: str = "architecture",
    procedure: str = "improve-codebase-architecture",
    phase: str = "survey",
) -> WorkflowRecord:
    return WorkflowRecord(ITEM, route, procedure, phase)


def refused(exc: pytest.ExceptionInfo[WorkflowError]) -> str:
    return exc.value.problem.render(say)


def active_json(**changes: Any) -> dict[str, Any]:
    data = active().to_json()
    data.update(changes)
    return data


# -- records --------------------------------------------------------------------------------


def test_an_active_record_has_exactly_the_seven_contract_keys() -> None:
    """Active JSON: version 1, the work item, route, procedure, phase, status, loaded refs."""
    data = WorkflowRecord(ITEM, "architecture", "implement", "implement", "active", ("DEEPENING",))
    assert data.to_json() == {
        "version": 1,
        "workItemId": ITEM,
        "route": "architecture",
        "procedure": "implement",
        "phase": "implement",
        "status": "active",
        "loadedReferences": ["DEEPENING"],
    }
    assert set(data.to_json()) == ACTIVE_KEYS


def test_a_terminal_record_keeps_the_work_item_and_drops_loaded_references() -> None:
    """Completed: the same work item, route, procedure and phase; no loaded refs, no reason."""
    done = finish(active(), "completed", "ignored for a completion")
    assert done.to_json() == {
        "version": 1,
        "workItemId": ITEM,
        "route": "architecture",
        "procedure": "improve-codebase-architecture",
        "phase": "survey",
        "status": "completed",
    }


def test_a_cancel_reason_is_kept_only_on_a_cancelled_record() -> None:
    """Cancelled with a reason carries it; cancelled without one has no reason key."""
    way = active("wayfinding", "wayfinder", "mapping")
    cancelled = finish(way, "cancelled", "blocked externally").to_json()
    assert cancelled["status"] == "cancelled" and cancelled["reason"] == "blocked externally"
    assert "loadedReferences" not in cancelled
    assert "reason" not in finish(way, "cancelled").to_json()


def test_records_round_trip_through_json() -> None:
    """What to_json writes, record_from_json reads back as the same value."""
    records = [
        WorkflowRecord(ITEM, "architecture", "implement", "implement", "active", ("HTML-REPORT",)),
        finish(active(), "completed"),
        finish(active(), "cancelled", "blocked externally"),
    ]
    for record in records:
        assert record_from_json(record.to_json()) == record


INVALID: list[object] = [
    None,
    "a record",
    [active_json()],
    active_json(version=2),
    active_json(version="1"),
    {k: v for k, v in active_json().items() if k != "version"},
    *({k: v for k, v in active_json().items() if k != key} for key in ("workItemId", "route")),
    *({k: v for k, v in active_json().items() if k != key} for key in ("procedure", "phase")),
    active_json(workItemId=""),
    active_json(route=7),
    active_json(procedure=None),
    active_json(phase=["survey"]),
    active_json(status="paused"),
    {k: v for k, v in active_json().items() if k != "status"},
    {k: v for k, v in active_json().items() if k != "loadedReferences"},
    active_json(loadedReferences="HTML-REPORT"),
    active_json(loadedReferences=["HTML-REPORT", 3]),
    active_json(deliveredProcedures="implement"),
    active_json(deliveredProcedures=[None]),
    active_json(status="cancelled", reason=42),
]


@pytest.mark.parametrize("data", INVALID)
def test_every_invalid_shape_is_rejected(data: object) -> None:
    """Wrong version, a missing or non-string field, an unknown status, bad lists: no record."""
    assert record_from_json(data) is None


def test_delivered_procedures_is_tolerated_as_an_eighth_key() -> None:
    """An active record with deliveredProcedures (a list of strings) is still valid."""
    data = active_json(deliveredProcedures=["improve-codebase-architecture", "codebase-design"])
    assert record_from_json(data) == active()


def test_a_boolean_version_is_rejected() -> None:
    """`"version": true` is not version 1."""
    assert record_from_json(active_json(version=True)) is None


def test_a_terminal_record_is_valid_without_loaded_references() -> None:
    """Completed and cancelled records need no loadedReferences; a completion drops a reason."""
    done = record_from_json({**finish(active(), "completed").to_json(), "reason": "x"})
    assert done is not None and done.status == "completed" and done.reason is None
    gone = record_from_json(finish(active(), "cancelled", "why").to_json())
    assert gone is not None and gone.reason == "why"


def test_the_latest_valid_record_wins() -> None:
    """Active alone is active; active then completed is completed; invalid entries are skipped."""
    started = active().to_json()
    completed = finish(active(), "completed").to_json()
    assert latest_record([]) is None
    assert latest_record([started]) == active()
    assert latest_record([started, completed]) == finish(active(), "completed")
    assert latest_record([completed, started, {"version": 1}, "junk", None]) == active()
    assert latest_record([{"status": "active"}]) is None


# -- start, transition, load ----------------------------------------------------------------


def test_starting_an_unknown_route_is_refused(catalog: tuple[Catalog, Read]) -> None:
    """An unknown route names itself; nothing is started."""
    cat, read = catalog
    with pytest.raises(WorkflowError) as exc:
        start(cat, "no-such-route", ITEM, read)
    assert refused(exc) == (
        "Unknown goalkeeper route: no-such-route. "
        "The routes: idea-to-ship, hard-bug, triage, wayfinding, architecture"
    )
    with pytest.raises(WorkflowError) as empty:
        start(cat, "", ITEM, read)
    assert refused(empty).startswith("No route given. The routes: idea-to-ship, hard-bug")


def test_starting_architecture_enters_the_survey(catalog: tuple[Catalog, Read]) -> None:
    """The entry procedure with its phase and no loaded refs; its required design comes too."""
    cat, read = catalog
    record, got = start(cat, "architecture", ITEM, read)
    assert record == WorkflowRecord(
        ITEM, "architecture", "improve-codebase-architecture", "survey", "active", ()
    )
    assert record.to_json()["loadedReferences"] == []
    assert got.loaded == ("improve-codebase-architecture", "codebase-design")
    assert 'source="procedure/codebase-design"' in got.content


def test_a_legal_transition_moves_procedure_and_phase(catalog: tuple[Catalog, Read]) -> None:
    """Architecture survey → implement: procedure and phase implement, same work item."""
    cat, read = catalog
    moved, got = transition(cat, active(), "implement", read)
    assert (moved.work_item, moved.procedure, moved.phase) == (ITEM, "implement", "implement")
    assert moved.loaded_references == () and got.root == "implement"


def test_transitions_drop_loaded_references(catalog: tuple[Catalog, Read]) -> None:
    """A new procedure starts with no loaded references."""
    cat, read = catalog
    loaded = replace(active(), loaded_references=("HTML-REPORT",))
    moved, _ = transition(cat, loaded, "codebase-design", read)
    assert moved.loaded_references == () and moved.phase == "design-review"


@pytest.mark.parametrize("target", ["research", "wayfinder"])
def test_an_illegal_transition_lists_the_allowed_ones(
    catalog: tuple[Catalog, Read], target: str
) -> None:
    """Survey → research or → wayfinder is refused with the survey's allowed next list."""
    cat, read = catalog
    with pytest.raises(WorkflowError) as exc:
        transition(cat, active(), target, read)
    assert refused(exc) == (
        f"Cannot transition architecture from improve-codebase-architecture to {target}. "
        "Allowed next procedures: codebase-design, implement, code-review. "
        "Complete or cancel the workflow if no next procedure applies."
    )


def test_a_terminal_procedure_allows_no_next(catalog: tuple[Catalog, Read]) -> None:
    """Idea-to-ship handoff has nowhere to go: the refusal says none."""
    cat, read = catalog
    with pytest.raises(WorkflowError) as exc:
        transition(cat, active("idea-to-ship", "handoff", "handoff"), "implement", read)
    assert "Allowed next procedures: —." in refused(exc)


def test_an_alias_target_is_normalized(catalog: tuple[Catalog, Read]) -> None:
    """Hard-bug code-review → tight-red-loop lands on diagnosing-bugs (feedback-loop)."""
    cat, read = catalog
    review = active("hard-bug", "code-review", "code-review")
    moved, got = transition(cat, review, "tight-red-loop", read)
    assert (moved.procedure, moved.phase) == ("diagnosing-bugs", "feedback-loop")
    assert got.root == "diagnosing-bugs"


def test_a_disclosed_reference_joins_the_loaded_ones(catalog: tuple[Catalog, Read]) -> None:
    """HTML-REPORT in architecture loads; once loaded it is no longer offered again."""
    cat, read = catalog
    loaded, got = load_reference(cat, active(), "HTML-REPORT", read)
    assert loaded.loaded_references == ("HTML-REPORT",)
    assert loaded.to_json()["loadedReferences"] == ["HTML-REPORT"]
    assert 'source="procedure/HTML-REPORT"' in got.content
    with pytest.raises(WorkflowError) as exc:  # §6.3: a loaded id is no longer available
        load_reference(cat, loaded, "HTML-REPORT", read)
    assert "HTML-REPORT is already loaded" in refused(exc)  # D8: not "not disclosed"


def test_an_undisclosed_reference_is_refused(catalog: tuple[Catalog, Read]) -> None:
    """ADR-FORMAT is not disclosed by the architecture survey."""
    cat, read = catalog
    with pytest.raises(WorkflowError) as exc:
        load_reference(cat, active(), "ADR-FORMAT", read)
    assert "ADR-FORMAT is not disclosed" in refused(exc)


def test_a_reference_disclosed_by_a_required_procedure_loads(
    catalog: tuple[Catalog, Read],
) -> None:
    """DEEPENING comes through codebase-design, which the survey requires."""
    cat, read = catalog
    loaded, _ = load_reference(cat, active(), "DEEPENING", read)
    assert loaded.loaded_references == ("DEEPENING",)


# -- finishing and restore ------------------------------------------------------------------


def test_finish_keeps_work_item_route_procedure_and_phase() -> None:
    """Completing or cancelling copies the addressing fields and clears the loaded refs."""
    loaded = WorkflowRecord(ITEM, "hard-bug", "implement", "implement", "active", ("mocking",))
    for status in ("completed", "cancelled"):
        done = finish(loaded, status)
        assert (done.work_item, done.route, done.procedure, done.phase) == (
            ITEM,
            "hard-bug",
            "implement",
            "implement",
        )
        assert done.status == status and not done.active and done.loaded_references == ()


def test_a_record_whose_placement_is_gone_cannot_be_restored(
    catalog: tuple[Catalog, Read],
) -> None:
    """A procedure no longer in the route is named, in JavaScript's String(error) form."""
    cat, _ = catalog
    stale = active("wayfinding", "missing-procedure", "mapping")
    assert restore_problem(cat, stale) == (
        "Error: Procedure missing-procedure is not part of workflow wayfinding."
    )


def test_a_record_with_an_undisclosed_loaded_reference_cannot_be_restored(
    catalog: tuple[Catalog, Read],
) -> None:
    """A loaded reference its context does not disclose fails the replay."""
    cat, _ = catalog
    bad = WorkflowRecord(ITEM, "architecture", "implement", "implement", "active", ("HTML-REPORT",))
    problem = restore_problem(cat, bad)
    assert problem is not None and problem.startswith("Error: Reference HTML-REPORT")


def test_a_sound_record_restores(catalog: tuple[Catalog, Read]) -> None:
    """The survey with HTML-REPORT loaded, and a hard-bug entry, restore without a problem."""
    cat, _ = catalog
    loaded = replace(active(), loaded_references=("HTML-REPORT",))
    assert restore_problem(cat, loaded) is None
    assert restore_problem(cat, active("hard-bug", "diagnosing-bugs", "feedback-loop")) is None


def test_work_item_ids_are_lowercase_uuids() -> None:
    """The id check accepts a lowercase UUID and nothing else."""
    assert is_work_item_id(ITEM)
    assert not is_work_item_id(ITEM.upper())
    assert not is_work_item_id("not-a-uuid")
