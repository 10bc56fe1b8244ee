"""Resolve what the model reads for a procedure (catalog spec §6): the dependency closure, the
rendered source blocks, the disclosed references, and the delta not yet delivered.

A procedure is delivered together with everything it ``requires`` (depth-first, pre-order), each
body wrapped in a ``<procedure-source>`` block whose ``source="procedure/<id>"`` does not depend
on where goalkeeper is installed. References are reachable only along ``discloses`` edges of
what is loaded: anything outside the catalog graph is refused, so there is no arbitrary file
access. A bundle over 64 KiB is an error, never truncated and never missing a dependency: a
silently shortened procedure would be followed as if it were whole.

Pure; no I/O. Bodies come through the injected ``read``. Every refusal is a ``Problem`` (a
message-catalog key and its fields), so a zh session reads it in Chinese; ``str()`` of the error
is the English text, for logs and the records' cancel reasons.

``deliverability_problems`` runs the same closure and size checks over every entry, so that
``goalkeeper catalog check`` and the catalog loader refuse a cycle or an oversized bundle before
a workflow runs into it (seed003 D1, D2): one piece of logic, used at load and at run time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from msgspec import Struct

from goalkeeper.core.messages import make_say
from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.values import Problem
from goalkeeper.core.workflows.catalog import Catalog, Procedure

MAX_BUNDLE_BYTES = 65536
"""64 KiB: a bundle above this would crowd out the task itself in the model's context."""

Read = Callable[[Procedure], str]

# A Markdown link to a sibling file: "](" + optional "./" + a file name + optional "#anchor" + ")".
_LINK = lazy_re(r"\]\((\./)?([A-Za-z0-9.-]+)(#[^)]+)?\)")
# A leading YAML front matter block: "---" alone on the first line, then a "key:" line, up to
# the next "---" line (a text that merely opens with a thematic break keeps it).
_FRONT_MATTER = lazy_re(
    r"\A---[ \t]*\r?\n(?=[A-Za-z_][\w-]*[ \t]*:).*?^---[ \t]*(?:\r?\n|\Z)",
    re.MULTILINE | re.DOTALL,
)


class ResolveError(ValueError):
    """A procedure cannot be delivered: unknown id, cyclic ``requires``, a reference that the
    active workflow does not disclose, or a bundle over ``MAX_BUNDLE_BYTES``.

    ``problem`` says it in catalog terms (rendered in the session's language where it is
    shown); the exception's text is its English rendering."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.render(make_say("en")))
        self.problem = problem

    @classmethod
    def of(cls, key: str, **fields: object) -> ResolveError:
        return cls(Problem.of(key, **fields))


class Bundle(Struct, frozen=True):
    """What the model reads for ``root``: the ids loaded, in order; the references it may load
    next; the rendered blocks and their UTF-8 size."""

    root: str
    loaded: tuple[str, ...]
    available: tuple[str, ...]
    content: str
    byte_length: int


def closure(catalog: Catalog, root: str) -> tuple[Procedure, ...]:
    """§6.1: ``root`` and everything it requires, depth-first in pre-order, each once.

    Iterative rather than recursive, so a long chain in a user catalog cannot exhaust the
    stack. Raises ``ResolveError`` for an unknown id or a cycle of ``requires``."""
    start = _require(catalog, root)
    ordered: list[Procedure] = [start]
    visiting = {start.id}
    visited: set[str] = set()
    stack: list[tuple[Procedure, Iterator[str]]] = [(start, iter(start.requires))]
    while stack:
        current, deps = stack[-1]
        dep = next(deps, None)
        if dep is None:
            stack.pop()
            visiting.discard(current.id)
            visited.add(current.id)
            continue
        found = _require(catalog, dep)
        if found.id in visited:
            continue
        if found.id in visiting:
            chain = [p.id for p, _ in stack]
            path = " → ".join((*chain[chain.index(found.id) :], found.id))
            raise ResolveError.of("workflow.resolve.cycle", procedure=found.id, path=path)
        visiting.add(found.id)
        ordered.append(found)
        stack.append((found, iter(found.requires)))
    return tuple(ordered)


def render(catalog: Catalog, procedure: Procedure, body: str) -> str:
    """§6.2: the trimmed body in its source block, with links to catalogued files rewritten to
    ``procedure:<id>`` (other links stay as written).

    A leading front matter block is left out: the built-in texts are the upstream skill files
    byte for byte (so their digests prove it, see PROVENANCE.json), and their front matter
    (``name``, ``description``, ``disable-model-invocation``) is skill-loader metadata that the
    catalog already carries, not an instruction to the model."""

    def link(match: re.Match[str]) -> str:
        target = catalog.find_by_file(match.group(2))
        if target is None:
            return match.group(0)
        return f"](procedure:{target.id}{match.group(3) or ''})"

    text = _LINK.sub(link, strip_front_matter(body).strip())
    return (
        f'<procedure-source id="{procedure.id}" source="procedure/{procedure.id}">\n'
        f"{text}\n</procedure-source>"
    )


def strip_front_matter(body: str) -> str:
    """``body`` without a leading ``---`` … ``---`` metadata block (unchanged when none)."""
    return _FRONT_MATTER.sub("", body, count=1)


def available_references(catalog: Catalog, loaded: Iterable[Procedure]) -> tuple[str, ...]:
    """What ``loaded`` discloses, as ids in first-seen order, minus the loaded ids (§6.2)."""
    procedures = tuple(loaded)
    ids = {p.id for p in procedures}
    found: dict[str, None] = {}
    for p in procedures:
        for target in p.discloses:
            key = catalog.normalize(target)
            if key not in ids:
                found.setdefault(key, None)
    return tuple(found)


def bundle(catalog: Catalog, root: str, read: Read) -> Bundle:
    """§6.2: the bundle of ``root`` (an id or alias) and its closure."""
    procedures = closure(catalog, root)
    return _bundle(catalog, procedures[0].id, procedures, read)


def workflow_context(
    catalog: Catalog, active: str, loaded_references: Sequence[str], read: Read
) -> Bundle:
    """§6.3: the active procedure's closure, then each reference loaded earlier (and its own
    closure), replayed in order; a loaded reference may disclose further ones. Raises
    ``ResolveError`` when a reference was not disclosed by what was loaded before it."""
    root = catalog.normalize(active)
    return _bundle(catalog, root, _context(catalog, root, loaded_references), read)


def accessible_reference(
    catalog: Catalog,
    active: str,
    loaded_references: Sequence[str],
    reference: str,
    read: Read,
) -> Bundle:
    """§6.3: the bundle of ``reference`` alone, if the active workflow context discloses it.

    The context is resolved without rendering it: only its disclosures matter here."""
    root = catalog.normalize(active)
    context = _context(catalog, root, loaded_references)
    available = available_references(catalog, context)
    target = _require(catalog, reference)
    if target.id not in available:
        loaded = {p.id for p in context}
        key = (
            "workflow.resolve.already_loaded" if target.id in loaded else "workflow.resolve.hidden"
        )
        raise ResolveError.of(
            key, reference=target.id, procedure=root, available=_listed(available)
        )
    return bundle(catalog, target.id, read)


def context_available(
    catalog: Catalog, active: str, loaded_references: Sequence[str]
) -> tuple[str, ...]:
    """The references the workflow context of ``active`` offers next, without rendering it:
    what the state contract lists must not depend on whether the bodies still fit the cap
    (seed003 D3: a size error used to read as "Available references: none")."""
    root = catalog.normalize(active)
    return available_references(catalog, _context(catalog, root, loaded_references))


def context_size(
    catalog: Catalog, active: str, loaded_references: Sequence[str], read: Read
) -> int:
    """The UTF-8 size of the whole workflow context, rendered but not capped: a ``load`` is
    refused when it would take the context past ``MAX_BUNDLE_BYTES``, so a restore (which
    delivers it whole) can always deliver it."""
    root = catalog.normalize(active)
    return _joined(catalog, _context(catalog, root, loaded_references), read)[1]


def delta(
    catalog: Catalog,
    root: str,
    loaded_references: Sequence[str],
    delivered: Sequence[str],
    read: Read,
) -> tuple[str, tuple[str, ...]]:
    """§6.5: the blocks of the workflow context of ``root`` not delivered yet, and the delivered
    ids afterwards (the earlier ones, then the new ones; the tuple never shrinks).

    Nothing new gives ``("", delivered)``. The 64 KiB cap applies to what is rendered now.
    A restore after ``session_start`` is a context boundary: the caller passes ``delivered=()``.
    """
    key = catalog.normalize(root)
    done = set(delivered)
    fresh = [p for p in _context(catalog, key, loaded_references) if p.id not in done]
    if not fresh:
        return "", tuple(delivered)
    content, _ = _render(catalog, key, fresh, read)
    return content, (*delivered, *(p.id for p in fresh))


def _context(
    catalog: Catalog, root: str, loaded_references: Sequence[str]
) -> tuple[Procedure, ...]:
    procedures = list(closure(catalog, root))
    ids = {p.id for p in procedures}
    available = available_references(catalog, procedures)
    for requested in (catalog.normalize(r) for r in loaded_references):
        if requested in ids:
            continue
        if requested not in available:
            raise ResolveError.of(
                "workflow.resolve.hidden_restored",
                reference=requested,
                available=_listed(available),
            )
        for p in closure(catalog, requested):
            if p.id not in ids:
                procedures.append(p)
                ids.add(p.id)
        available = available_references(catalog, procedures)
    return tuple(procedures)


def _bundle(catalog: Catalog, root: str, procedures: Sequence[Procedure], read: Read) -> Bundle:
    content, size = _render(catalog, root, procedures, read)
    loaded = tuple(p.id for p in procedures)
    return Bundle(root, loaded, available_references(catalog, procedures), content, size)


def _joined(catalog: Catalog, procedures: Sequence[Procedure], read: Read) -> tuple[str, int]:
    content = "\n\n".join(render(catalog, p, read(p)) for p in procedures)
    # surrogatepass: a body with a lone surrogate is counted, not an UnicodeEncodeError.
    return content, len(content.encode("utf-8", "surrogatepass"))


def _render(
    catalog: Catalog, root: str, procedures: Sequence[Procedure], read: Read
) -> tuple[str, int]:
    content, size = _joined(catalog, procedures, read)
    if size > MAX_BUNDLE_BYTES:
        raise ResolveError.of(
            "workflow.resolve.too_big", root=root, size=size, limit=MAX_BUNDLE_BYTES
        )
    return content, size


_REPORTED_ELSEWHERE = frozenset(("workflow.resolve.unknown", "workflow.resolve.file_missing"))
"""Problems ``validate_catalog`` already names (unknown targets, missing files)."""


def deliverability_problems(catalog: Catalog, read: Read) -> list[str]:
    """Every entry resolved as the run time resolves it (``bundle``): its ``requires`` closure
    must be acyclic and its bundle must fit ``MAX_BUNDLE_BYTES``; a body that cannot be read
    (too large, unsafe) is a problem too. One line per entry that cannot be delivered, in
    ``validate_catalog``'s shape (``<id>: <why>``, English: it is for the catalog's author). A
    disclosed reference is checked as its own bundle, which is how a ``load`` delivers it."""
    problems: list[str] = []
    for entry in catalog.entries:
        if catalog.find(entry.id) is not entry:  # a duplicate id: validate_catalog names it
            continue
        try:
            bundle(catalog, entry.id, read)
        except ResolveError as exc:
            if exc.problem.key not in _REPORTED_ELSEWHERE:
                problems.append(f"{entry.id}: {exc}")
    return problems


def _require(catalog: Catalog, x: str) -> Procedure:
    found = catalog.find(x)
    if found is None:
        raise ResolveError.of("workflow.resolve.unknown", procedure=x)
    return found


def _listed(ids: Sequence[str]) -> str:
    return ", ".join(ids) or "—"  # language-neutral: the field is filled before it is said
