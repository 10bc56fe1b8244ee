"""Fixtures of the end-to-end suite: the pinned Claude Code CLI (installed on first use) and one
isolated project per case with goalkeeper's hooks installed the way a user installs them.

``GOALKEEPER_SKIP_E2E=1`` skips the suite; anything else that keeps the CLI from being installed
fails every test with the reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .harness import Case, ClaudeInstallError, ensure_claude
from .pi_harness import FakeOpenAI, PiCase, PiCli, PiInstallError, ensure_pi

# Read at import: the suite-wide autouse fixture clears GOALKEEPER_* before each test runs.
SKIP_E2E = os.environ.get("GOALKEEPER_SKIP_E2E", "").strip() == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not SKIP_E2E:
        return
    skip = pytest.mark.skip(reason="GOALKEEPER_SKIP_E2E=1")
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    """tests/e2e/node_modules/.bin/claude at the pinned version, installed with npm if needed."""
    try:
        return ensure_claude()
    except ClaudeInstallError as exc:
        pytest.fail(
            f"cannot install the pinned Claude Code CLI for the end-to-end tests: {exc}\n"
            "(set GOALKEEPER_SKIP_E2E=1 to skip these tests)",
            pytrace=False,
        )


@pytest.fixture
def case(tmp_path: Path, claude_bin: Path) -> Iterator[Case]:
    c = Case(tmp_path / "case", claude_bin)
    try:
        yield c
    finally:
        c.stop_engine()


# -------------------------------------------------------------------------------------------
# The Pi coding agent (both pinned lines) against the fake OpenAI-compatible server
# -------------------------------------------------------------------------------------------
PI_LINES = ["0.73", "1.6"]


@pytest.fixture(scope="session", params=PI_LINES, ids=[f"pi-{line}" for line in PI_LINES])
def pi_cli(request: pytest.FixtureRequest) -> PiCli:
    """One pinned Pi line (tests using it run once per line), installed with npm if needed."""
    line: str = request.param
    try:
        return ensure_pi(line)
    except PiInstallError as exc:
        pytest.fail(
            f"cannot install the pinned Pi {line} CLI for the end-to-end tests: {exc}\n"
            "(set GOALKEEPER_SKIP_E2E=1 to skip these tests)",
            pytrace=False,
        )


@pytest.fixture
def pi_fake(tmp_path: Path) -> Iterator[FakeOpenAI]:
    """The fake OpenAI-compatible server of one test, running, with no rules yet (set them with
    ``set_rules``); its files are under tmp_path/pi/fake."""
    with FakeOpenAI(tmp_path / "pi" / "fake") as fake:
        yield fake


@pytest.fixture
def pi_case(tmp_path: Path, pi_cli: PiCli, pi_fake: FakeOpenAI) -> Iterator[PiCase]:
    """A PiCase under tmp_path/pi (``--no-session``) talking to ``pi_fake``; every RPC Pi it
    started is stopped afterwards. For kept sessions (``--session-dir``) build one in the test:
    ``with PiCase(tmp_path / "kept", pi_cli, pi_fake, sessions=True) as case: …``."""
    c = PiCase(tmp_path / "pi", pi_cli, pi_fake)
    try:
        yield c
    finally:
        c.close()


# -------------------------------------------------------------------------------------------
# Gemini CLI (pinned) against the fake Gemini API
# -------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def gemini_bin() -> Path:
    """tests/e2e/gemini/node_modules/.bin/gemini at the pinned version, installed if needed."""
    from .gemini_harness import GeminiInstallError, ensure_gemini

    try:
        return ensure_gemini()
    except GeminiInstallError as exc:
        pytest.fail(
            f"cannot install the pinned Gemini CLI for the end-to-end tests: {exc}\n"
            "(set GOALKEEPER_SKIP_E2E=1 to skip these tests)",
            pytrace=False,
        )


@pytest.fixture
def gemini_case(tmp_path: Path, gemini_bin: Path) -> Iterator[Any]:
    """A GeminiCase (project, HOME, fake Gemini API running) under tmp_path/gemini."""
    from .gemini_harness import GeminiCase

    c = GeminiCase(tmp_path / "gemini", gemini_bin)
    try:
        yield c
    finally:
        c.close()


# -------------------------------------------------------------------------------------------
# The Codex CLI (pinned) against the fake Responses API
# -------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def codex_cli() -> Path:
    """tests/e2e/codex/node_modules/.bin/codex at the pinned version, installed with npm if
    needed."""
    from .codex_harness import CodexInstallError, ensure_codex

    try:
        return ensure_codex()
    except CodexInstallError as exc:
        pytest.fail(
            f"cannot install the pinned Codex CLI for the end-to-end tests: {exc}\n"
            "(set GOALKEEPER_SKIP_E2E=1 to skip these tests)",
            pytrace=False,
        )


@pytest.fixture
def codex_case(tmp_path: Path, codex_cli: Path) -> Iterator[Any]:
    """A CodexCase under tmp_path (HOME, CODEX_HOME, a git repo); goalkeeper's warm engine is
    stopped afterwards."""
    from .codex_harness import CodexCase

    case = CodexCase(tmp_path / "codex", codex_cli)
    try:
        yield case
    finally:
        case.stop_engine()
