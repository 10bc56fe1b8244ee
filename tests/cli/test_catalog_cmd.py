"""`goalkeeper catalog check`: the built-in catalog merged with the configured user catalog,
exit 0 without problems and 1 with any, one JSON value with --json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.cli.app import run
from goalkeeper.pinning import allow_project

ROUTES = ["idea-to-ship", "hard-bug", "triage", "wayfinding", "architecture"]


def gk(capsys: pytest.CaptureFixture[str], project: Path, *args: str) -> tuple[int, str, str]:
    code = run(["-C", str(project), "catalog", "check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def user_catalog(project: Path, entries: list[dict[str, Any]] | str, **texts: str) -> None:
    """A user catalog in project/custom/ and the setting that points at it."""
    folder = project / "custom"
    (folder / "procedures").mkdir(parents=True)
    text = entries if isinstance(entries, str) else json.dumps(entries)
    (folder / "catalog.json").write_text(text, encoding="utf-8")
    for name, body in texts.items():
        (folder / "procedures" / f"{name}.md").write_text(body, encoding="utf-8")
    (project / ".goalkeeper.toml").write_text('catalog = "custom/catalog.json"\n', encoding="utf-8")
    allow_project(project, 0.0)  # a catalog is the user's to choose


TOOL = {
    "id": "release-notes",
    "file": "release-notes.md",
    "kind": "utility",
    "invocation": "model",
    "label": "Release Notes",
    "standalone": True,
    "discloses": ["bdd"],
}


def test_the_builtin_catalog_checks_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a user catalog: the built-in catalog, no problems, exit 0."""
    code, out, _ = gk(capsys, tmp_path)
    assert (code, out) == (0, "catalog OK: 54 entries, 5 routes\n")


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints one object: ok, entries, routes, user_catalog, problems."""
    code, out, _ = gk(capsys, tmp_path, "--json")
    assert code == 0
    assert json.loads(out) == {
        "ok": True,
        "entries": 54,
        "routes": ROUTES,
        "user_catalog": None,
        "problems": [],
    }


def test_a_user_catalog_extends_the_builtin_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sound user catalog is merged: one more entry, exit 0."""
    user_catalog(tmp_path, [TOOL], **{"release-notes": "Write the notes."})
    code, out, _ = gk(capsys, tmp_path, "--json")
    data = json.loads(out)
    assert (code, data["entries"], data["problems"]) == (0, 55, [])
    assert data["user_catalog"] == str(tmp_path / "custom" / "catalog.json")


def test_a_broken_user_catalog_is_listed_with_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A user catalog that does not parse: its problems printed, exit 1."""
    user_catalog(tmp_path, json.dumps([{**TOOL, "kind": "skill"}]))
    code, out, err = gk(capsys, tmp_path)
    assert code == 1
    assert out.splitlines() == [
        'custom/catalog.json: entry 1 ("release-notes"): unknown kind "skill" '
        "(expected workflow, utility, reference, asset)",
        "custom/catalog.json: not used because of the problems above; "
        "using the built-in catalog only",
    ]
    assert err.splitlines()[-1] == "1 catalog problem"  # the "not used" line is not a problem


def test_validation_problems_of_the_user_catalog(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing text and a stray file in the user's procedures folder are both reported."""
    user_catalog(tmp_path, [TOOL], stray="Not catalogued.")
    code, out, _ = gk(capsys, tmp_path, "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False
    assert data["problems"] == [
        "release-notes: file not found: release-notes.md",
        "stray.md: not in the catalog",
        "custom/catalog.json: not used because of the problems above; "
        "using the built-in catalog only",
    ]
    assert data["entries"] == 54 and data["user_catalog"] is None


def test_the_setting_comes_from_the_environment_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """GOALKEEPER_CATALOG names the user catalog like the file setting does."""
    monkeypatch.setenv("GOALKEEPER_CATALOG", "missing.json")
    code, out, _ = gk(capsys, tmp_path)
    assert code == 1
    assert out.splitlines()[0] == "missing.json: not found"


def test_a_requires_cycle_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """seed003 D1: overriding implement to require code-review (which requires implement) used
    to pass as "catalog OK" and then trap hard-bug in diagnosing-bugs; now exit 1, the cycle's
    path named, in text and in --json."""
    from goalkeeper.store.catalog_files import BUILTIN_DIR

    builtin = json.loads((BUILTIN_DIR / "catalog.json").read_text(encoding="utf-8"))
    by_id = {e["id"]: e for e in builtin}
    implement = {
        **by_id["implement"],
        "requires": [*by_id["implement"].get("requires", []), "code-review"],
    }
    review = {**by_id["code-review"], "requires": ["implement"]}
    user_catalog(tmp_path, [implement, review])
    code, out, _ = gk(capsys, tmp_path)
    assert code == 1
    assert "implement: Cyclic procedure dependency at implement (implement → " in out
    assert "code-review → implement)" in out
    code, out, _ = gk(capsys, tmp_path, "--json")
    data = json.loads(out)
    assert (code, data["ok"], data["user_catalog"]) == (1, False, None)
    assert any("Cyclic procedure dependency" in p for p in data["problems"])


def test_an_oversized_bundle_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """seed003 D2: a 70,000-byte dependency: exit 1, the size and the limit named."""
    big = {"id": "BIG", "file": "BIG.md", "kind": "reference", "invocation": "internal",
           "label": "Big"}  # fmt: skip
    user_catalog(tmp_path, [{**TOOL, "requires": ["BIG"]}, big],
                 **{"release-notes": "Write the notes.", "BIG": "x" * 70_000})  # fmt: skip
    code, out, _ = gk(capsys, tmp_path)
    assert code == 1
    assert "release-notes: Procedure bundle release-notes is " in out
    assert "BIG: Procedure bundle BIG is 70071 bytes; maximum is 65536" in out
