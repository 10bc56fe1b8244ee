"""The workflow state machine (seed 003; catalog spec §7): records, start, legal transitions,
reference loads, completion and cancellation, and the validation a restored record must pass.

A workflow is a value: each change returns a new ``WorkflowRecord``, and the guard persists it
(its state, and one journal entry per change). There is no fallback anywhere: an illegal
transition is refused with the legal ones listed, a record that no longer fits the catalog is
cancelled with the reason rather than quietly reset to the route's entry. Refusals are
``WorkflowError`` carrying a ``Problem`` (a catalog key and fields), so they are said in the
session's language. Pure; no I/O (procedure bodies come through ``read``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, TypeVar

from msgspec import Struct
from msgspec.structs import replace

from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.values import Problem
from goalkeeper.core.workflows.catalog import Catalog
from goalkeeper.core.workflows.resolver import (
    MAX_BUNDLE_BYTES,
    Bundle,
    Read,
    ResolveError,
    accessible_reference,
    bundle,
    context_available,
    context_size,
)
from goalkeeper.core.workflows.resolver import workflow_context as resolve_context

_T = TypeVar("_T")
VERSION = 1
Status = Literal["active", "completed", "cancelled"]
_UUID = lazy_re(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class WorkflowError(ValueError):
    """A workflow operation refused; ``problem`` says why in catalog terms."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.key)
        self.problem = problem


class WorkflowRecord(Struct, frozen=True):
    """One state of a work item (§7.1). The user's own words are never part of it."""

    work_item: str
    route: str
    procedure: str
    phase: str
    status: Status = "active"
    loaded_references: tuple[str, ...] = ()
    reason: str | None = None

    @property
    def active(self) -> bool:
        return self.status == "active"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "version": VERSION,
            "workItemId": self.work_item,
            "route": self.route,
            "procedure": self.procedure,
            "phase": self.phase,
            "status": self.status,
        }
        if self.active:
            data["loadedReferences"] = list(self.loaded_references)
        elif self.status == "cancelled" and self.reason:
            data["reason"] = self.reason
        return data


def record_from_json(data: object) -> WorkflowRecord | None:
    """A valid active or terminal record (§7.1), else None."""
    version = data.get("version") if isinstance(data, Mapping) else None
    if type(version) is not int or version != VERSION:  # JSON true is not version 1
        return None
    assert isinstance(data, Mapping)
    fields = [data.get(k) for k in ("workItemId", "route", "procedure", "phase")]
    if not all(isinstance(f, str) and f for f in fields):
        return None
    work_item, route, procedure, phase = (str(f) for f in fields)
    status = data.get("status")
    if status == "active":
        loaded = data.get("loadedReferences")
        delivered = data.get("deliveredProcedures")
        if not _strings(loaded) or (delivered is not None and not _strings(delivered)):
            return None
        return WorkflowRecord(work_item, route, procedure, phase, "active", tuple(loaded))  # type: ignore[arg-type]
    if status in ("completed", "cancelled"):
        reason = data.get("reason")
        if reason is not None and not isinstance(reason, str):
            return None
        return WorkflowRecord(
            work_item,
            route,
            procedure,
            phase,
            status,
            reason=reason if status == "cancelled" else None,
        )
    return None


def latest_record(entries: Iterable[object]) -> WorkflowRecord | None:
    """§7.2: the last valid record of ``entries`` (oldest first); invalid ones are skipped."""
    latest = None
    for data in entries:
        record = record_from_json(data)
        if record is not None:
            latest = record
    return latest


def is_work_item_id(value: str) -> bool:
    return bool(_UUID.match(value))


def start(
    catalog: Catalog, route: str, work_item: str, read: Read
) -> tuple[WorkflowRecord, Bundle]:
    """§7.4: the route's entry procedure, its bundle resolved before anything is persisted."""
    if route not in {r.route for r in catalog.routes()}:
        routes = ", ".join(dict.fromkeys(r.route for r in catalog.routes()))
        key = "workflow.error.unknown_route" if route else "workflow.error.no_route"
        raise WorkflowError(Problem.of(key, route=route, routes=routes))
    entry = catalog.entry(route)
    placement = catalog.placement(route, entry.id) if entry else None
    if entry is None or placement is None:
        raise WorkflowError(Problem.of("workflow.error.no_entry", route=route))
    record = WorkflowRecord(work_item, route, entry.id, placement.phase)
    return record, _resolve(lambda: bundle(catalog, entry.id, read))


def transition(
    catalog: Catalog, state: WorkflowRecord, target: str, read: Read
) -> tuple[WorkflowRecord, Bundle]:
    """§7.5: only to one of the current placement's ``allowedNext`` (aliases accepted)."""
    normalized = catalog.normalize(target)
    allowed = catalog.allowed(state.route, state.procedure)
    if normalized not in allowed:
        raise WorkflowError(
            Problem.of(
                "workflow.error.transition",
                route=state.route,
                procedure=state.procedure,
                target=target,
                allowed=", ".join(allowed) or "—",  # language-neutral, filled before said
            )
        )
    placement = catalog.placement(state.route, normalized)
    if placement is None:
        raise WorkflowError(
            Problem.of("workflow.error.not_in_route", procedure=normalized, route=state.route)
        )
    record = replace(state, procedure=normalized, phase=placement.phase, loaded_references=())
    return record, _resolve(lambda: bundle(catalog, normalized, read))


def load_reference(
    catalog: Catalog, state: WorkflowRecord, reference: str, read: Read
) -> tuple[WorkflowRecord, Bundle]:
    """§8.2 ``load``: a reference the current context discloses; it joins the loaded ones.

    Refused when the whole workflow context would then pass the 64 KiB cap: a restore delivers
    that context in full, and a record it cannot deliver would be cancelled (seed003 D3)."""
    found = _resolve(
        lambda: accessible_reference(
            catalog, state.procedure, state.loaded_references, reference, read
        )
    )
    loaded = tuple(dict.fromkeys((*state.loaded_references, *found.loaded)))
    size = _resolve_value(lambda: context_size(catalog, state.procedure, loaded, read))
    if size > MAX_BUNDLE_BYTES:
        raise WorkflowError(
            Problem.of(
                "workflow.resolve.context_too_big",
                reference=found.root,
                procedure=state.procedure,
                size=size,
                limit=MAX_BUNDLE_BYTES,
            )
        )
    return replace(state, loaded_references=loaded), found


def finish(state: WorkflowRecord, status: Status, reason: str | None = None) -> WorkflowRecord:
    """§7.6: the terminal record keeps the work item, route, procedure and phase."""
    return replace(state, status=status, loaded_references=(), reason=reason)


def context(catalog: Catalog, state: WorkflowRecord, read: Read) -> Bundle:
    """Everything the active state has loaded (§6.3), for a full re-delivery after a restore."""
    return _resolve(
        lambda: resolve_context(catalog, state.procedure, state.loaded_references, read)
    )


def restore_issue(catalog: Catalog, state: WorkflowRecord) -> Problem | None:
    """§7.3: why a restored active record can no longer be used (None when it can): its
    placement must still exist and its loaded references must still be disclosed along the
    catalog's edges. Structure only: a context that no longer fits the size cap (its files
    grew) is a delivery matter, and the guard keeps the workflow (seed003 D3)."""
    if catalog.placement(state.route, state.procedure) is None:
        return Problem.of(
            "workflow.error.not_in_route", procedure=state.procedure, route=state.route
        )
    try:
        context_available(catalog, state.procedure, state.loaded_references)
    except ResolveError as exc:
        return exc.problem
    return None


def restore_problem(catalog: Catalog, state: WorkflowRecord) -> str | None:
    """``restore_issue`` in English, in JavaScript's ``String(error)`` form: the cancel reason
    the terminal record keeps (records are English whatever the session's language)."""
    issue = restore_issue(catalog, state)
    return f"Error: {in_english(issue)}" if issue is not None else None


def in_english(problem: Problem) -> str:
    """``problem`` as a record keeps it (records are English whatever the session says)."""
    from goalkeeper.core.messages import make_say

    return problem.render(make_say("en"))


def _resolve(fn: Callable[[], Bundle]) -> Bundle:
    """A procedure that cannot be delivered (not disclosed, too big, its file unreadable)."""
    return _resolve_value(fn)


def _resolve_value(fn: Callable[[], _T]) -> _T:
    try:
        return fn()
    except ResolveError as exc:
        raise WorkflowError(exc.problem) from None
    except OSError as exc:
        raise WorkflowError(Problem.of("workflow.error.resolve", problem=str(exc))) from None


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)
