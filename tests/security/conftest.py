"""Shared helpers of the security suite: the real hook entry point in a subprocess, with a
time bound, so that a hang or a crash shows up as the failure it is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..hook_answers import assert_no_internal_error

HOOK_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class HookRun:
    answer: dict[str, Any]
    seconds: float
    returncode: int
    stderr: str


def run_hook(
    project: Path,
    payload: Mapping[str, Any] | bytes,
    *,
    env: Mapping[str, str] | None = None,
    timeout_s: float = HOOK_TIMEOUT_S,
    internal_error_expected: bool = False,
) -> HookRun:
    """``goalkeeper hook claude`` as Claude Code starts it (in-process engine), one payload.
    Unless ``internal_error_expected``, an answer given because goalkeeper failed (it fails
    open) fails the test: a crash must never pass for the behaviour under test."""
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GOALKEEPER_", "CLAUDE_", "CLAUDECODE", "PI_"))
    }
    base.update({"GOALKEEPER_SERVER": "off", "CLAUDE_PROJECT_DIR": str(project)})
    base.update(env or {})
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "hook", "claude"],
        input=raw,
        capture_output=True,
        cwd=project,
        env=base,
        timeout=timeout_s,
    )
    seconds = time.monotonic() - started
    answer = json.loads(proc.stdout.decode("utf-8"))
    if not internal_error_expected:
        assert_no_internal_error(answer, project)
    return HookRun(answer, seconds, proc.returncode, proc.stderr.decode("utf-8", "replace"))


def stop(project: Path, session: str = "s1", text: str = "[PDCA] complete") -> dict[str, Any]:
    return {
        "hook_event_name": "Stop",
        "session_id": session,
        "cwd": str(project),
        "last_assistant_message": text,
    }


def session_start(project: Path, session: str = "s1") -> dict[str, Any]:
    return {
        "hook_event_name": "SessionStart",
        "session_id": session,
        "cwd": str(project),
        "source": "startup",
    }
