"""docs/cli.md is generated from --help and must not be stale."""

from __future__ import annotations

from pathlib import Path

from goalkeeper.cli.docs import render_cli_docs

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_cli_docs_match_the_help() -> None:
    """Regenerate with: python -m goalkeeper.cli.docs > docs/cli.md"""
    assert DOCS.read_text(encoding="utf-8") == render_cli_docs()
