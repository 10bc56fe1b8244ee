"""The scripted agent's side of both demos: the real ``goalkeeper hook claude`` process, one per
event as Claude Code starts it, and a transcript in Claude Code's format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SESSION = "demo-0000-4000-8000-000000000001"


class HookRunner:
    """Starts ``goalkeeper hook claude`` as Claude Code does: a fresh process per event."""

    def __init__(self, project: Path, transcript: Path) -> None:
        self.project = project
        self.transcript = transcript
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith(("GOALKEEPER_", "CLAUDE_"))
        }
        self.env.update(
            CLAUDE_PROJECT_DIR=str(project),
            CLAUDE_CODE_STOP_HOOK_BLOCK_CAP="50",  # as `goalkeeper install claude` sets it
            GOALKEEPER_SERVER="off",  # leave no engine process behind in a throwaway folder
            GOALKEEPER_LANG="en",
        )

    def send(self, event: str, **fields: Any) -> dict[str, Any]:
        payload = {
            "session_id": SESSION,
            "transcript_path": str(self.transcript),
            "cwd": str(self.project),
            "hook_event_name": event,
            **fields,
        }
        proc = subprocess.run(
            [sys.executable, "-m", "goalkeeper", "hook", "claude"],
            input=json.dumps(payload).encode(),
            capture_output=True,
            cwd=self.project,
            env=self.env,
            timeout=60,
            check=False,
        )
        try:
            answer = json.loads(proc.stdout or b"{}")
        except ValueError:
            answer = {"systemMessage": f"unreadable hook output: {proc.stdout[:200]!r}"}
        return answer if isinstance(answer, dict) else {}


def _append_tool(
    transcript: Path, name: str, tool_input: dict[str, Any], result: str, n: str
) -> None:
    ident = f"toolu_demo_{n}"
    lines = [
        {
            "type": "assistant",
            "message": {
                "id": f"msg_{n}",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": ident, "name": name, "input": tool_input}],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": ident, "content": result}],
            },
        },
    ]
    with transcript.open("a", encoding="utf-8") as f:
        f.writelines(json.dumps(line) + "\n" for line in lines)


def append_text(transcript: Path, text: str) -> None:
    line = {
        "type": "assistant",
        "message": {
            "id": "msg_text",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 12_000, "output_tokens": 200},
        },
    }
    with transcript.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())
