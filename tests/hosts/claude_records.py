"""Claude Code's own record of what the user typed, as 2.1.332 writes it, for tests that send
a UserPromptSubmit meant as the user's (``hosts.claude.transcript.user_prompt_shown``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def user_typed(monkeypatch: pytest.MonkeyPatch, home: Path, session_id: str, *prompts: str) -> str:
    """Point ``CLAUDE_CONFIG_DIR`` at ``home`` and write the session's transcript there with
    each prompt enqueued as Claude Code does (a ``queue-operation`` line about 50 ms into the
    hook); the transcript's path, for the payload."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    path = home / "projects" / "-proj" / f"{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        for prompt in prompts:
            line = {"type": "queue-operation", "operation": "enqueue", "content": prompt}
            f.write(json.dumps({**line, "sessionId": session_id}) + "\n")
    return str(path)
