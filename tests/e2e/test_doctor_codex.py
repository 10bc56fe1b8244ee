"""``goalkeeper doctor``'s verdict against the real Codex CLI (0.171.0): installed without
``--trust`` doctor says untrusted (exit 1) and Codex indeed runs none of goalkeeper's hooks
(without a word); after ``install codex --trust`` doctor says healthy (exit 0) and the hooks
run."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from .codex_harness import CodexCase
from .fake_responses import text

pytestmark = pytest.mark.e2e


def doctor(case: CodexCase) -> tuple[int, dict[str, Any]]:
    argv = [sys.executable, "-m", "goalkeeper", "-C", str(case.repo), "doctor", "--json"]
    proc = subprocess.run(
        [*argv, "--host", "codex"],
        cwd=case.repo,
        env=case.base_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    data: dict[str, Any] = json.loads(proc.stdout)
    return proc.returncode, data


def test_doctors_verdict_matches_whether_codex_runs_the_hooks(codex_case: CodexCase) -> None:
    case = codex_case
    case.configure()
    case.goalkeeper("install", "codex")
    code, data = doctor(case)
    (codex,) = data["hosts"]
    assert code == 1 and codex["status"] == "problem", data
    assert {f["check"] for f in codex["findings"] if not f["ok"]} == {"trust", "project-trust"}
    rules = [{"name": "hello", "reply": text("hello")}]
    run = case.run(rules, "Say hello.", {"GOALKEEPER_LANG": "en"})
    assert run.returncode == 0, run.describe()
    assert case.status()["sessions"] == [], "Codex ran a hook doctor called untrusted"

    case.goalkeeper("install", "codex", "--trust")
    code, data = doctor(case)
    assert code == 0 and data["hosts"][0]["status"] == "healthy", data
    run = case.run(rules, "Say hello.", {"GOALKEEPER_LANG": "en"})
    assert run.returncode == 0, run.describe()
    assert case.status()["sessions"], "doctor said healthy, yet Codex ran none of the hooks"
