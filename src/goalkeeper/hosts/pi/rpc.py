"""``goalkeeper pi run``: Pi in RPC mode, supervised from Python, for headless use (CI).

The guards are the same as in an interactive Pi: they run in goalkeeper's extension inside Pi
(loaded with ``-e`` unless it is installed already), so this module only drives Pi: it sends
the task, prints what the agent says and what goalkeeper tells the user, answers dialogs, and
waits until Pi has truly settled and goalkeeper has not continued it. The outcome comes from
goalkeeper's journal: the last decision was to close (done), to pause (stopped, with the
reason), or neither (the agent stopped on its own).

RPC protocol: ``../shared/reference/pi-host.md`` §7; settle detection: §8.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import IO, Any

from msgspec import Struct, field

GRACE_S = 1.5
"""After a settle, how long nothing may start for the run to count as finished: longer than the
bridge's 0.5 s quiet window on Pi 0.73 plus its decision."""
UNWATCHED_S = 5.0
"""Pi 0.73: when goalkeeper's journal holds nothing of the run this long after it ended, no
decision is coming (goalkeeper is off for the session); stop waiting for one."""
_DIALOGS = ("select", "confirm", "input", "editor")


class PiRunError(RuntimeError):
    """Pi could not be started, died, or did not settle in time."""

    session_id: str | None = None
    """Pi's session, when it said which before the run failed."""


class PiTimeout(PiRunError):
    """Pi did not settle in time (``goalkeeper run`` counts it as cut, not crashed)."""


class RunResult(Struct):
    session_id: str | None
    outcome: str
    """``closed``, ``paused`` or ``stopped``."""
    reason: str = ""
    last_text: str = ""
    runs: int = 0
    notices: list[str] = field(default_factory=list)
    returncode: int | None = None
    """How Pi's process exited once closed."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session_id,
            "outcome": self.outcome,
            "reason": self.reason,
            "last_text": self.last_text,
            "runs": self.runs,
            "notices": self.notices,
        }


class PiProcess:
    """``pi --mode rpc`` with a reader thread: replies by id, every event kept in order."""

    def __init__(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> None:
        try:
            self.proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None,
            )
        except OSError as exc:
            raise PiRunError(f"cannot start {argv[0]}: {exc.strerror or exc}") from None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._stdin: IO[bytes] = self.proc.stdin
        self.events: list[tuple[float, dict[str, Any]]] = []
        self.replies: dict[str, dict[str, Any]] = {}
        self.cond = threading.Condition()
        self.eof = False
        self.on_event: Callable[[dict[str, Any]], None] = lambda _e: None
        self._next = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        for raw in stdout:  # binary: split on LF only
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(record, dict):
                continue
            with self.cond:
                if record.get("type") == "response" and isinstance(record.get("id"), str):
                    self.replies[record["id"]] = record
                else:
                    self.events.append((time.monotonic(), record))
                self.cond.notify_all()
            if record.get("type") != "response":
                self.on_event(record)
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def send(self, record: Mapping[str, Any]) -> None:
        try:
            self._stdin.write(json.dumps(record).encode() + b"\n")
            self._stdin.flush()
        except (BrokenPipeError, ValueError):
            raise PiRunError("Pi closed its input") from None

    def command(self, kind: str, timeout: float = 60, **fields: Any) -> dict[str, Any]:
        self._next += 1
        ident = f"gk{self._next}"
        self.send({"id": ident, "type": kind, **fields})
        deadline = time.monotonic() + timeout
        with self.cond:
            while ident not in self.replies:
                left = deadline - time.monotonic()
                if self.eof:
                    raise PiRunError(f"Pi exited before answering {kind}")
                if left <= 0:
                    raise PiRunError(f"Pi did not answer {kind} within {timeout:g} s")
                self.cond.wait(left)
            return self.replies.pop(ident)

    def close(self, timeout: float = 10) -> int | None:
        try:
            self._stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                return self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                return self.proc.wait()


def wait_settled(pi: PiProcess, since: int, timeout: float, *, native: bool | None) -> int:
    """Wait until Pi settled after event index ``since`` and nothing started for ``GRACE_S``;
    the number of runs that started meanwhile. Raises ``PiRunError`` on timeout or exit.
    Without Pi's own settle event, Pi's state is asked too: while it still streams, compacts or
    holds messages, wait a little and look again (a loop: asking again at once, recursively,
    overflowed the stack while Pi 1.6 kept streaming)."""
    deadline = time.monotonic() + timeout
    while True:
        runs = _quiet_runs(pi, since, deadline, timeout, native)
        if native:
            return runs
        data = pi.command("get_state").get("data") or {}
        if not (
            data.get("isStreaming") or data.get("isCompacting") or data.get("pendingMessageCount")
        ):
            return runs
        with pi.cond:
            pi.cond.wait(max(0.0, min(0.1, deadline - time.monotonic())))


def _quiet_runs(
    pi: PiProcess, since: int, deadline: float, timeout: float, native: bool | None
) -> int:
    """Block until the events since ``since`` show Pi idle for ``GRACE_S`` after a run (and
    after its settle event, when Pi sends one); the runs that started."""
    with pi.cond:
        while True:
            now = time.monotonic()
            if now >= deadline:
                raise PiTimeout(f"Pi did not settle within {timeout:g} s")
            if pi.eof:
                raise PiRunError("Pi exited before it settled")
            events = pi.events[since:]
            state = _flags(events)
            seen_settled = native if native is not None else state["settled_event"]
            last = events[-1][0] if events else now
            idle_for = now - last
            done = not state["busy"] and state["runs"] > 0 and idle_for >= GRACE_S
            if seen_settled:
                done = done and state["settled_after_last_start"]
            if done:
                return int(state["runs"])
            pi.cond.wait(min(deadline - now, max(0.05, GRACE_S - idle_for)))


def _flags(events: Sequence[tuple[float, dict[str, Any]]]) -> dict[str, Any]:
    running = retry = compacting = False
    runs = 0
    settled_after_last_start = False
    settled_event = False
    for _, event in events:
        kind = event.get("type")
        if kind == "agent_start":
            running, retry, settled_after_last_start = True, False, False
            runs += 1
        elif kind == "agent_end":
            running = False
        elif kind == "auto_retry_start":
            retry = True
        elif kind == "auto_retry_end":
            retry = False
        elif kind == "compaction_start":
            compacting = True
        elif kind == "compaction_end":
            compacting = False
            retry = retry or event.get("willRetry") is True
        elif kind == "agent_settled":
            settled_event = settled_after_last_start = True
    return {
        "busy": running or retry or compacting,
        "runs": runs,
        "settled_after_last_start": settled_after_last_start,
        "settled_event": settled_event,
    }


def _started(pi: PiProcess, since: int) -> bool:
    """A run started after event ``since`` (call with ``pi.cond`` held)."""
    return any(e.get("type") == "agent_start" for _, e in pi.events[since:])


def _has_settle_events(pi: PiProcess, since: int) -> bool:
    with pi.cond:
        return bool(_flags(pi.events[since:])["settled_event"])


def _decided(
    pi: PiProcess, project: Path, session_id: str | None, since: int, deadline: float
) -> int | None:
    """A Pi without settle events (before 0.80.6) cannot show goalkeeper deciding: the
    bridge's own heuristic waits, then may run a goal's verification for many seconds before
    it continues the agent, longer than ``GRACE_S``. So wait until goalkeeper's journal holds
    its decision on the last run's end (its Settled event is written with the decision): the
    index of that ``agent_end`` event, or None when goalkeeper journalled nothing of the run
    for ``UNWATCHED_S`` (it is off for the session) or the deadline came first. Pi names no
    session with --no-session: then any session of the project counts."""
    from goalkeeper.store import journal
    from goalkeeper.store.db import Store

    with pi.cond:
        ends = [
            i for i, (_, e) in enumerate(pi.events) if i >= since and e.get("type") == "agent_end"
        ]
        last = ends[-1] if ends else None
        at = pi.events[last][0] if last is not None else 0.0
        first = pi.events[since][0] if last is not None else 0.0
    if last is None or not Store(project).exists():
        return None
    ended = time.time() - (time.monotonic() - at)  # the wall clock the journal uses
    began = time.time() - (time.monotonic() - first)
    while time.monotonic() < deadline:
        store = Store(project)
        try:
            entries = journal.recent(store.connection(), 50, session_id)
        finally:
            store.close()
        if any(
            e.kind == "event" and e.data.get("type") == "Settled" and e.at >= ended - 0.05
            for e in entries
        ):
            return last
        if not any(e.at >= began for e in entries) and time.time() - ended > UNWATCHED_S:
            return None  # goalkeeper saw nothing of this run: it is off, nothing will come
        with pi.cond:
            if pi.eof:
                return None
        time.sleep(0.1)
    return None


def outcome_of(project: Path, session_id: str | None) -> tuple[str, str]:
    """goalkeeper's last decision for the session: ("closed" | "paused" | "stopped", reason)."""
    from goalkeeper.store import journal
    from goalkeeper.store.db import Store

    store = Store(project)
    if not session_id or not store.exists():
        return "stopped", ""
    try:
        entries = journal.recent(store.connection(), 200, session_id)
    finally:
        store.close()
    for entry in reversed(entries):
        if entry.kind != "decision":
            continue
        actions = entry.data.get("actions") or []
        kinds = [a.get("kind") for a in actions if isinstance(a, dict)]
        if "Pause" in kinds:
            reason = next(str(a.get("text", "")) for a in actions if a.get("kind") == "Pause")
            return "paused", reason
        if "Close" in kinds:
            return "closed", ""
        if "Continue" in kinds:
            return "stopped", ""
    return "stopped", ""


def message_text(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        str(c.get("text", "")) for c in content if isinstance(c, dict) and c.get("type") == "text"
    )


def dialog_answer(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """Headless: every dialog takes its default (a select's first option is not assumed)."""
    if event.get("method") not in _DIALOGS:
        return None
    return {"type": "extension_ui_response", "id": event.get("id"), "cancelled": True}


def pi_environment(env: Mapping[str, str]) -> dict[str, str]:
    return {**env, "PI_CODING_AGENT": env.get("PI_CODING_AGENT", "true")}


def run_pi(
    pi_argv: Sequence[str],
    prompt: str,
    project: Path,
    env: Mapping[str, str],
    *,
    timeout: float,
    native: bool | None,
    on_text: Callable[[str], None],
    on_notice: Callable[[str], None],
) -> RunResult:
    """Run one task through Pi in RPC mode until it settles for good."""
    pi = PiProcess(pi_argv, project, pi_environment(env))
    notices: list[str] = []
    last_text = ""

    def on_event(event: dict[str, Any]) -> None:
        nonlocal last_text
        kind = event.get("type")
        if kind == "message_end" and (event.get("message") or {}).get("role") == "assistant":
            text = message_text(event["message"]).strip()
            if text:
                last_text = text
                on_text(text)
        elif kind == "extension_ui_request":
            if event.get("method") == "notify":
                notice = str(event.get("message", ""))
                notices.append(notice)
                on_notice(notice)
            answer = dialog_answer(event)
            if answer is not None:
                pi.send(answer)

    pi.on_event = on_event
    session_id: str | None = None
    try:
        state = pi.command("get_state", timeout=60)
        session_id = (state.get("data") or {}).get("sessionId")
        with pi.cond:
            mark = len(pi.events)
        reply = pi.command("prompt", message=prompt)
        if reply.get("success") is False:
            raise PiRunError(f"Pi refused the prompt: {reply.get('error')}")
        if ((reply.get("data") or {}).get("disposition")) == "handled":
            runs = 0
        else:
            deadline = time.monotonic() + timeout
            runs = wait_settled(pi, mark, timeout, native=native)
            while native is not True and not _has_settle_events(pi, mark):
                ended = _decided(pi, project, session_id, mark, deadline)
                if ended is None:
                    break
                with pi.cond:  # a continuation starts a run within GRACE_S of the decision
                    if not pi.cond.wait_for(partial(_started, pi, ended + 1), GRACE_S):
                        break  # goalkeeper let it stop
                runs = wait_settled(pi, mark, max(1.0, deadline - time.monotonic()), native=native)
    except PiRunError as exc:
        exc.session_id = session_id
        raise
    finally:
        code = pi.close()
    outcome, reason = outcome_of(project, session_id)
    if code not in (0, None) and outcome == "stopped":
        reason = f"Pi exited with status {code}"
    return RunResult(session_id, outcome, reason, last_text, runs, notices, code)


def default_pi_command(env: Mapping[str, str]) -> list[str]:
    import shlex
    import shutil

    configured = env.get("GOALKEEPER_PI_CMD")
    if configured:
        return shlex.split(configured)
    found = shutil.which("pi", path=env.get("PATH", os.defpath))
    return [found] if found else []
