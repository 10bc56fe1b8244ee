"""Every test runs in its own folder with goalkeeper's environment cleared.

The warm engine process is switched off (``GOALKEEPER_SERVER=off``) so no test leaves a
background process behind; the tests of the server itself switch it on explicitly.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[Path]:
    for key in list(os.environ):
        if key.startswith(("GOALKEEPER_", "PI_TODONE_", "CLAUDE_")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("GOALKEEPER_SERVER", "off")
    # the user's own ~/.config/goalkeeper/config.toml must not reach a test
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    # nor may a test write its copies of goals' tests into the user's ~/.local/state
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    if request.node.get_closest_marker("internal_error_expected") is None:
        _no_internal_error_recorded(tmp_path)


def _no_internal_error_recorded(tmp_path: Path) -> None:
    """Hooks fail open: a guard that crashed lets the agent go on, which a test asserting "not
    blocked" cannot tell from the rule it tests. So every state database the test left (in its
    own state home) must hold no internal error."""
    from .hook_answers import journalled_errors

    homes = tmp_path / "xdg-state" / "goalkeeper" / "projects"
    for database in homes.glob("*/state.db"):
        errors = journalled_errors(database.parent.parent, database=database)
        assert not errors, f"goalkeeper recorded an internal error in {database}: {errors}"
