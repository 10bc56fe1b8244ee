"""The built-in procedure texts are the selected upstream methods themselves (seed 003), not
rewrites: every file the catalog names is recorded in ``PROVENANCE.json`` with the repository,
path and commit it was copied from, and its digests. A silent edit of a text — or a rewrite in
goalkeeper's own words — no longer matches its record and fails here."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.core.workflows.resolver import bundle
from goalkeeper.store.catalog_files import BUILTIN_DIR, load_catalog

HEX40 = re.compile(r"^[0-9a-f]{40}$")


def git_blob_id(data: bytes) -> str:
    """The id ``git hash-object`` gives these bytes: anyone with the upstream repository can
    check it against ``git rev-parse <commit>:<path>``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def provenance_problems(folder: Path) -> list[str]:
    """What does not match between ``folder``'s catalog, its procedure files and its
    provenance record: one line per problem, empty when every text is its recorded original."""
    catalog = json.loads((folder / "catalog.json").read_text(encoding="utf-8"))
    provenance: dict[str, Any] = json.loads((folder / "PROVENANCE.json").read_text("utf-8"))
    records = {r["file"]: r for r in provenance.get("files", [])}
    licences = provenance.get("licences", {})
    problems: list[str] = []
    for entry in catalog:
        name = entry["file"]
        path = folder / "procedures" / name
        record = records.get(name)
        if record is None:
            problems.append(f"{name}: no provenance record")
            continue
        if not path.is_file():
            problems.append(f"{name}: missing")
            continue
        data = path.read_bytes()
        if record.get("id") != entry["id"]:
            problems.append(f"{name}: recorded for {record.get('id')}, catalogued as {entry['id']}")
        if record.get("repo") not in licences:
            problems.append(f"{name}: {record.get('repo')} has no licence record")
        if not HEX40.match(str(record.get("commit", ""))) or not record.get("path"):
            problems.append(f"{name}: no exact source (commit and path)")
        if hashlib.sha256(data).hexdigest() != record.get("sha256"):
            problems.append(f"{name}: sha256 differs from the recorded original")
        if git_blob_id(data) != record.get("blob"):
            problems.append(f"{name}: git blob id differs from the recorded original")
    return problems


def test_every_procedure_is_its_recorded_original() -> None:
    """Each file named in catalog.json exists and matches the digests of the upstream file it
    was copied from (repository, path and commit recorded beside them)."""
    assert provenance_problems(BUILTIN_DIR) == []


def test_a_silent_rewrite_is_caught(tmp_path: Path) -> None:
    """The check above can fail: one changed word in one text, and it names that file."""
    copy = tmp_path / "workflows"
    shutil.copytree(BUILTIN_DIR, copy)
    target = copy / "procedures" / "implement.md"
    target.write_text(target.read_text("utf-8").replace("tickets", "tasks"), encoding="utf-8")
    assert provenance_problems(copy) == [
        "implement.md: sha256 differs from the recorded original",
        "implement.md: git blob id differs from the recorded original",
    ]


def test_every_licence_is_named_in_the_notice() -> None:
    """NOTICE.md carries each source's copyright lines: the MIT licence's one condition."""
    provenance = json.loads((BUILTIN_DIR / "PROVENANCE.json").read_text("utf-8"))
    notice = (BUILTIN_DIR / "NOTICE.md").read_text("utf-8")
    assert "Permission is hereby granted, free of charge" in notice
    for repo, licence in provenance["licences"].items():
        assert repo in notice
        for line in licence["copyright"]:
            assert line in notice, line


@pytest.mark.parametrize("kind", ["workflow", "utility"])
def test_every_procedure_is_non_trivial(kind: str) -> None:
    """A procedure's own text says something once its front matter is left out (a few words
    at least: grill-me's original is one sentence that hands over to grilling), and what the
    model receives for it — its bundle with everything it requires — is a method, not a stub."""
    from goalkeeper.core.workflows.resolver import strip_front_matter

    loaded = load_catalog(Path("/nonexistent-project"), "")
    for entry in (e for e in loaded.catalog.entries if e.kind == kind):
        body = strip_front_matter(loaded.read(entry))
        assert len(body.split()) >= 3, entry.id
        assert bundle(loaded.catalog, entry.id, loaded.read).byte_length >= 200, entry.id
