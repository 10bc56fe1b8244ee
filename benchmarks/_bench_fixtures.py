"""Realistic fixtures: a plan with SWOT, objective, key results and a story map of hundreds of
leaves, a transcript in Claude Code's JSONL shape, and the hook payloads that name them."""

from __future__ import annotations

import json
import random
from pathlib import Path

from _bench_base import BenchError

# ---------------------------------------------------------------------------------------------
# Fixtures: a realistic plan
# ---------------------------------------------------------------------------------------------

_SLICES = (
    "walking skeleton",
    "first real user",
    "team rollout",
    "hardening",
    "scale out",
    "polish",
)
_ACTIVITIES = (
    "Install",
    "Configure",
    "Run the first task",
    "Review results",
    "Share with the team",
    "Recover from failure",
)
_VERBS = (
    "can see",
    "can export",
    "gets a clear error when",
    "can undo",
    "is warned before",
    "can search",
    "can resume",
)
_OBJECTS = (
    "the deploy log as JSON",
    "a failed step with its command line",
    "the plan's open items in the status bar",
    "`--dry-run` output for every change",
    "the last 20 runs of a pipeline",
    "which key result a change moves",
    "a config value's source (file, env, flag)",
)


def make_plan(lines: int, seed: int = 7) -> str:
    """A Markdown plan of exactly ``lines`` lines in goalkeeper's grammar.

    SWOT, an objective, 20 key results with figures (some done, some cancelled with a reason,
    one with notes), a fenced code block and an HTML comment the parser must skip, then a story
    map in ``### Slice`` sections of activity → leaf items filling the rest. Leaf states
    are mixed (about 55 % done, 40 % open, 5 % cancelled), so the anchors and the gates have
    real work to do.
    """
    rng = random.Random(seed)
    out = [
        "# Plan: one-command deploy for small teams",
        "",
        "## SWOT",
        "",
        "S: the deploy engine is covered by tests and already used internally",
        "W: no onboarding; errors are raw tracebacks",
        "O: two pilot teams asked for it this quarter",
        "T: the platform team may ship a competing tool",
        "",
        "## Objective",
        "",
        "A new team ships its first deploy in under 10 minutes without help. Background: "
        "pilot teams churned at the config step.",
        "",
        "## Key Results",
        "",
    ]
    for n in range(1, 21):
        base, target = rng.randint(0, 40), rng.randint(50, 100)
        current = rng.randint(base, target)
        text = f"KR{n}: pilot teams deploying unaided, baseline {base} → target {target}"
        roll = n % 7
        if roll == 3:
            out.append(f"- [x] {text} (current {target})")
        elif roll == 5:
            out.append(f"- [-] {text} (cancelled: pilot ended early)")
        else:
            out.append(f"- [ ] {text} (current {current})")
        if n == 2:
            out.append("  - note: measured from the deploy log, weekly")
    out += [
        "",
        "<!-- reviewed with the pilot teams on Monday",
        "- [ ] this commented-out item must not count -->",
        "",
        "```bash",
        "- [ ] neither must this one inside a fence",
        "```",
        "",
        "## User Story Map",
        "",
    ]
    slice_no = 0
    while len(out) < lines:
        slice_no += 1
        out += [f"### Slice {slice_no}: {_SLICES[(slice_no - 1) % len(_SLICES)]}", ""]
        for activity in rng.sample(_ACTIVITIES, 2):
            if len(out) >= lines - 1:
                break
            out.append(f"- [ ] {activity}")
            for _ in range(rng.randint(35, 50)):
                if len(out) >= lines:
                    break
                out.append("  " + _leaf(rng))
        if len(out) < lines:
            out.append("")
    return "\n".join(out[:lines]) + "\n"


def _leaf(rng: random.Random) -> str:
    text = f"a user {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}"
    roll = rng.random()
    if roll < 0.55:
        return f"- [x] {text}"
    if roll < 0.95:
        return f"- [ ] {text}"
    return f"- [-] {text} (cancelled: out of scope for the pilot)"


def write_plan(project: Path, lines: int, name: str = "deploy.md") -> Path:
    folder = project / "plan"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(make_plan(lines), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Fixtures: a Claude Code transcript (JSONL)
# ---------------------------------------------------------------------------------------------


class Transcript:
    """Writes transcript lines shaped like Claude Code's (reference §11).

    Each content block of an API message is its own ``assistant`` line with the same
    ``message.id`` and a ``usage`` object; tool results are ``user`` lines with a
    ``tool_result`` block, a ``toolUseResult`` copy and ``sourceToolAssistantUUID``.
    """

    def __init__(self, path: Path, session_id: str, cwd: Path, seed: int = 11) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = str(cwd)
        self.rng = random.Random(seed)
        self.parent: str | None = None
        self.counter = 0
        self.context = 42_000  # tokens in the context window; grows slowly, stays below 80 %

    def _hex(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def _uuid(self) -> str:
        h = self._hex(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:]}"

    def _line(self, kind: str, body: dict[str, object]) -> tuple[str, bytes]:
        uid = self._uuid()
        self.counter += 1
        entry: dict[str, object] = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.332",
            "gitBranch": "main",
            "type": kind,
            **body,
            "uuid": uid,
            "timestamp": f"2025-11-30T08:{self.counter // 60 % 60:02d}:{self.counter % 60:02d}Z",
        }
        self.parent = uid
        return uid, json.dumps(entry, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"

    def _assistant(self, msg_id: str, block: dict[str, object]) -> tuple[str, bytes]:
        self.context += self.rng.randint(50, 400)
        usage = {
            "input_tokens": self.rng.randint(2, 12),
            "cache_creation_input_tokens": self.rng.randint(200, 3000),
            "cache_read_input_tokens": self.context,
            "output_tokens": self.rng.randint(20, 600),
            "service_tier": "standard",
        }
        message = {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-5",
            "content": [block],
            "stop_reason": "tool_use" if block["type"] == "tool_use" else None,
            "stop_sequence": None,
            "usage": usage,
        }
        return self._line("assistant", {"message": message, "requestId": "req_" + self._hex(24)})

    def round(self, final: str | None = None, output_bytes: int | None = None) -> bytes:
        """One agent step: a sentence, a tool call, its result, optionally a final text.

        ``output_bytes`` sets the tool output's size (random 300 B .. 12 KB when None: shell
        output and file reads make most of a real transcript's bulk)."""
        msg_id = "msg_" + self._hex(24)
        tool_id = "toolu_" + self._hex(24)
        tool, tool_input = self.rng.choice(
            (
                ("Bash", {"command": "pytest -q tests/deploy", "description": "Run the tests"}),
                ("Read", {"file_path": f"{self.cwd}/src/deploy/runner.py"}),
                ("Grep", {"pattern": "def deploy", "path": "src", "output_mode": "content"}),
                ("Edit", {"file_path": f"{self.cwd}/src/deploy/log.py", "old_string": "x"}),
            )
        )
        size = output_bytes if output_bytes is not None else self.rng.randint(300, 12_000)
        output = _filler(self.rng, size)
        parts = [self._assistant(msg_id, {"type": "text", "text": "Let me check that."})[1]]
        tool_uuid, line = self._assistant(
            msg_id, {"type": "tool_use", "id": tool_id, "name": tool, "input": tool_input}
        )
        parts.append(line)
        result = {
            "message": {
                "role": "user",
                "content": [
                    {
                        "tool_use_id": tool_id,
                        "type": "tool_result",
                        "content": output,
                        "is_error": False,
                    }
                ],
            },
            "toolUseResult": {"stdout": output, "stderr": "", "interrupted": False},
            "sourceToolAssistantUUID": tool_uuid,
        }
        parts.append(self._line("user", result)[1])
        if final is not None:
            final_id = "msg_" + self._hex(24)
            parts.append(self._assistant(final_id, {"type": "text", "text": final})[1])
        return b"".join(parts)

    def block(self, approx_bytes: int) -> bytes:
        """Consecutive rounds of about ``approx_bytes``, to be written many times over."""
        chunks: list[bytes] = []
        total = 0
        while total < approx_bytes:
            chunk = self.round(final="Done with this step.\n\n[PDCA] do" if total % 3 else None)
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)

    def fill(self, size: int, block_bytes: int = 512 * 1024) -> int:
        """Write the file up to ``size`` bytes (less at most one line) fast: one block of
        rounds written repeatedly, the last copy cut after a complete line."""
        block = self.block(min(block_bytes, max(size // 4, 4096)))
        written = 0
        with open(self.path, "wb") as f:
            while written + len(block) <= size:
                f.write(block)
                written += len(block)
            rest = block[: block.rfind(b"\n", 0, size - written) + 1]
            f.write(rest)
            written += len(rest)
        return written

    def append_round(self, final: str) -> int:
        """Append one small new round (tool_use line, tool_result, final text); its length."""
        data = self.round(final=final, output_bytes=1500)
        with open(self.path, "ab") as f:
            f.write(data)
        return len(data)


def _filler(rng: random.Random, size: int) -> str:
    words = ("ok", "PASSED", "tests/deploy/test_runner.py::", "def", "return", "self", "0.12s")
    out: list[str] = []
    total = 0
    while total < size:
        line = " ".join(rng.choice(words) for _ in range(10))
        out.append(line)
        total += len(line) + 1
    return "\n".join(out)[:size]


def stop_payload(session_id: str, transcript: Path, cwd: Path, text: str) -> bytes:
    """A Stop hook input as Claude Code sends it (reference §9.1)."""
    return json.dumps(
        {
            "session_id": session_id,
            "transcript_path": str(transcript),
            "cwd": str(cwd),
            "permission_mode": "default",
            "effort": {"level": "medium"},
            "prompt_id": "p-1",
            "hook_event_name": "Stop",
            "stop_hook_active": True,
            "last_assistant_message": text,
            "background_tasks": [],
            "session_crons": [],
        }
    ).encode()


def session_start_payload(session_id: str, transcript: Path, cwd: Path) -> bytes:
    return json.dumps(
        {
            "session_id": session_id,
            "transcript_path": str(transcript),
            "cwd": str(cwd),
            "hook_event_name": "SessionStart",
            "source": "startup",
            "model": "claude-opus-4-5",
        }
    ).encode()


def check_stop_answer(stdout: bytes) -> None:
    """A Stop answer must be the engine's real decision (a continuation with the plan's
    anchors), not a fail-open message: otherwise the timing measured an error path."""
    try:
        answer = json.loads(stdout)
    except ValueError as exc:
        raise BenchError(f"hook printed no JSON: {stdout[:200]!r}") from exc
    if answer.get("decision") != "block" or "Plan anchors" not in str(answer.get("reason")):
        raise BenchError(f"unexpected Stop answer: {json.dumps(answer)[:400]}")
