"""``goalkeeper report`` after a real Claude Code session (2.1.332, fake model): the agent stops
early, goalkeeper's own run of the tests fails, the agent fixes the code, the goal is proven.
The report shows both runs as goalkeeper ran them, and its HTML page renders in Chromium."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from .. import debian
from .harness import Case
from .test_claude_goal import PYTEST_FAILURE, assert_repaired_and_archived, run_repair

pytestmark = pytest.mark.e2e


def test_the_report_of_a_real_session_shows_what_goalkeeper_ran(case: Case) -> None:
    verify = f"{sys.executable} -m pytest -q"
    run = run_repair(case, verify)
    assert_repaired_and_archived(case, run, verify)

    status = case.goalkeeper("status").stdout
    (session,) = [s["session_id"] for s in case.status()["sessions"]]
    assert f"  {session[:12]}  claude" in status and "proven" in status, status

    proof = json.loads(
        case.goalkeeper("report", "--format", "json", "--session", session[:8]).stdout
    )
    assert proof["session"]["session_id"] == session
    assert proof["verdict"]["state"] == "proven", proof["verdict"]
    failed, passed = [r for r in proof["runs"] if r["kind"] == "verify"]
    assert (failed["argv"], failed["exit"], failed["passed"]) == (verify.split(), 1, False)
    assert PYTEST_FAILURE[1] in failed["output_tail"], failed
    assert (passed["exit"], passed["passed"]) == (0, True) and "1 passed" in passed["output_tail"]
    assert re.fullmatch(r"[0-9a-f]{64}", passed["output_sha256"])
    assert proof["protected_tests"]["files"] == ["test_calc.py"]
    assert proof["protected_tests"]["at_proof"] == "unchanged"
    assert proof["continuations"]["sent_back"] >= 1

    markdown = case.goalkeeper("report").stdout
    assert "**Verdict: ✓ proven**" in markdown and "exit 1 in" in markdown, markdown

    page = case.root / "proof.html"
    case.goalkeeper("report", "--format", "html", "-o", str(page))
    chromium = debian.require({"chromium": "chromium"})["chromium"]
    dom = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert 'data-state="proven"' in dom
    assert dom.count('data-kind="verify_run"') == 2
