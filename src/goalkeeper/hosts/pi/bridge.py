"""``goalkeeper bridge pi``: the Python side of goalkeeper's Pi extension.

One process per Pi session runtime, started by the extension and spoken to over stdin/stdout
(``hosts.pi.protocol``). It keeps one engine (one database connection) for its life, so an event
costs a transaction, not an interpreter start. Messages are handled one at a time in arrival
order; the settle timer (Pi 0.73.x) and a scheduled retry run on timer threads and take the
same lock. Nothing here may take Pi down: a line that cannot be used gets an ``error`` line, an
internal failure answers "no change" (Pi's default) and tells the user, and the extension
restarts this process once if it dies.

Whose prompt it is (issue 21): an ``input`` line is the user's because it comes down the pipe
the extension opened inside Pi, not because any record says so. A same-user shell can still
forge one: start its own ``goalkeeper bridge pi`` (the trust guard refuses the plain command
line, no more), or write a line into this process's stdin through ``/proc/<pid>/fd/0``. The
record that could settle it is Pi's session file; whether Pi has written the prompt there when
``input`` fires (an interceptor, before Pi acts on the text) is not established, and no check
against it is made here.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from msgspec.structs import replace

from goalkeeper.config import load_config
from goalkeeper.core.messages import Lang, render
from goalkeeper.core.values import (
    Action,
    Advise,
    BeforeAgentStart,
    Choice,
    Event,
    Notify,
    Reply,
    SessionSource,
    SessionStart,
    ToolCall,
    ToolRun,
    TurnEnd,
    UserPrompt,
)
from goalkeeper.hosts.pi import protocol as wire
from goalkeeper.hosts.pi.host import (
    ACTIVE_ONLY_TOOLS,
    CAPABILITIES,
    GOAL_COMMAND,
    HOST,
    MODE_COMMAND,
    OWN_TOOLS,
    WORKFLOW_COMMAND,
    Answer,
    declaration,
    finished,
    outcome_of,
    session_source,
    settled_event,
    tool_result,
    tool_run,
    translate,
)
from goalkeeper.hosts.pi.protocol import Incoming, PiContext, ProtocolError
from goalkeeper.hosts.pi.settle import RunEnd, SettleTracker, retry_settings, settles_itself

DEFAULT_SESSION = "pi"

Write = Callable[[bytes], None]
TimerFactory = Callable[[float, Callable[[], None]], Any]


def _thread_timer(delay: float, fn: Callable[[], None]) -> threading.Timer:
    timer = threading.Timer(delay, fn)
    timer.daemon = True
    timer.start()
    return timer


class Bridge:
    """Everything one Pi session runtime needs from goalkeeper."""

    def __init__(
        self,
        project: Path,
        env: Mapping[str, str],
        write: Write,
        *,
        timer: TimerFactory = _thread_timer,
        clock: Any = None,
        runner: Any = None,
    ) -> None:
        from goalkeeper.engine.supervisor import Supervisor

        self.project = project
        self.env = dict(env)
        self.config = load_config(project, self.env)
        self.lang: Lang = "zh" if self.config.lang == "zh" else "en"
        self._write = write
        self._timer = timer
        self.lock = threading.RLock()
        from goalkeeper.hosts.pi.install import host_files

        self.supervisor = Supervisor(
            project,
            self.config,
            host=HOST,
            capabilities=CAPABILITIES,
            clock=clock,
            runner=runner,
            host_files=host_files(project, self.env),
        )
        self.tracker = SettleTracker(retry_settings(project, self.env))
        self.session_id = DEFAULT_SESSION
        self.start_source: SessionSource | None = "startup"
        self.static: str | None = None
        self.advice: list[str] = []
        self.last_ctx = PiContext()
        self.retry_token = 0
        self.pi_version: str | None = None
        self.workflow_tools: bool | None = None
        """Whether the active-workflow tools are enabled in Pi (None: not set yet)."""
        self.runs: list[ToolRun] = []
        """The tool calls of the current run (since the previous settle), in order."""
        self.run_ids: dict[str, int] = {}
        """A call's ``toolCallId`` → its place in ``runs``, for its ``tool_result``."""
        self.results_seen = False
        """The extension forwards ``tool_result``: from then on a call without one did not
        finish (before, its end is unknown)."""
        self.closed = False

    # -- the loop's entry points -------------------------------------------------------------

    def receive(self, line: bytes) -> None:
        """Handle one line from the extension; never raises."""
        try:
            msg = wire.parse_line(line)
        except ProtocolError as exc:
            self._write(wire.error(exc.id, str(exc)))
            if exc.id is not None:  # release the extension's wait at once
                self._write(wire.reply(exc.id, None))
            return
        except Exception as exc:  # whatever the line was, the bridge stays up
            self._write(wire.error(None, f"unreadable line ({type(exc).__name__})"))
            return
        with self.lock:
            try:
                result = self._dispatch(msg)
            except Exception as exc:  # fail open: Pi's default, the user is told
                result = None
                self._internal_error(exc)
            if msg.wants_reply:
                self._write(wire.reply(msg.id, result))

    def close(self) -> None:
        with self.lock:
            self.closed = True
            self.retry_token += 1
            self.tracker.generation += 1
            self.supervisor.store.close()

    # -- dispatch ------------------------------------------------------------------------------

    def _dispatch(self, msg: Incoming) -> dict[str, Any] | None:
        if msg.ctx.session_id:
            self.session_id = msg.ctx.session_id
        if not msg.ctx.stale:
            self.last_ctx = msg.ctx
        if msg.kind == "hello":
            pi = msg.data.get("pi")
            version = pi.get("version") if isinstance(pi, dict) else None
            self.pi_version = version if isinstance(version, str) else None
            if settles_itself(self.pi_version):
                self.tracker.native = True  # no heuristic: Pi's own settle events decide
            self._journal(
                "host", {"host": HOST, "pi": self.pi_version, "native": self.tracker.native}
            )
            self._say_state_moved()
            return declaration(self.config, self.lang, self.project)
        if msg.kind == "tool":
            return self._tool(msg)
        if msg.kind == "command":
            return self._command(msg)
        return self._event(msg.name, msg.data, msg.ctx)

    def _event(self, name: str, data: dict[str, Any], ctx: PiContext) -> dict[str, Any] | None:
        arm = self.tracker.on_event(name, data)
        if arm is not None:
            self._timer(arm.delay_s, lambda: self._settle_due(arm.generation))
        sid = self.session_id
        if name == "session_start":
            self.start_source = session_source(data.get("reason"))
        elif name == "session_compact":
            self.start_source = "compact"  # the anchors come back with the next run
        elif name == "session_shutdown":
            self.closed = True
        elif name == "input":
            self.retry_token += 1
            if data.get("source") != "extension":  # goalkeeper's own messages are not the user's
                text = data.get("text")
                self._run([UserPrompt(sid, text if isinstance(text, str) else "")], name)
        elif name == "before_agent_start":
            return self._before_agent_start(sid)
        elif name == "tool_call":
            tool = data.get("toolName")
            if not isinstance(tool, str):
                return None
            raw = data.get("input")
            args = raw if isinstance(raw, dict) else {}
            index = self._record_call(data.get("toolCallId"), tool, args)
            if tool in OWN_TOOLS:
                return None
            result = self._run([ToolCall(sid, tool, args)], name).result
            if result and result.get("block"):  # goalkeeper refused it: it never ran
                self.runs[index] = replace(self.runs[index], outcome="refused")
            return result
        elif name == "tool_result":
            ident = data.get("toolCallId")
            self.results_seen = True
            if isinstance(ident, str) and ident in self.run_ids:
                index = self.run_ids[ident]
                self.runs[index] = finished(self.runs[index], data)
        elif name == "turn_end":
            self._run([TurnEnd(sid)], name)
        elif name == "agent_before_settle":
            return self._settle(
                RunEnd(
                    str(data.get("outcome") or "completed"),
                    _text(data, "errorMessage"),
                    _text(data, "lastText") or "",
                ),
                ctx,
                can_continue=data.get("canContinue") is not False,
            )
        elif name == "agent_settled" and data.get("aborted") is True:
            self._settle(RunEnd("aborted"), ctx, can_continue=False)
        elif name == "choice":
            key, answer = data.get("key"), data.get("answer")
            if isinstance(key, str):
                choice = Choice(sid, key, answer if isinstance(answer, str) else None)
                self._run([choice], name)
        return None

    def _before_agent_start(self, sid: str) -> dict[str, Any] | None:
        events: list[Event] = []
        if self.start_source is not None:
            events.append(SessionStart(sid, self.start_source))
            self.start_source = None
        events.append(BeforeAgentStart(sid))
        answer = self._run(events, "before_agent_start")
        if answer.static:
            self.static = answer.static
        message = "\n\n".join(dict.fromkeys([*self.advice, *answer.advice]))
        self.advice = []
        result: dict[str, Any] = {}
        if self.static:
            result["appendSystemPrompt"] = self.static
        if message:
            result["message"] = message
        return result or None

    def _record_call(self, ident: object, tool: str, args: dict[str, Any]) -> int:
        """Count a tool call of this run (the settle reports them: seed 000 §6's stuck rule
        and the check gate need them); its place in ``runs``."""
        self.runs.append(tool_run(tool, args))
        if isinstance(ident, str):
            self.run_ids[ident] = len(self.runs) - 1
        return len(self.runs) - 1

    def _take_runs(self) -> list[ToolRun]:
        """The run's calls, and a fresh list for the next run. Once ``tool_result`` events
        arrive, a call that got none did not finish."""
        runs, self.runs, self.run_ids = self.runs, [], {}
        if self.results_seen:
            runs = [replace(r, outcome="unfinished") if r.outcome == "unknown" else r for r in runs]
        return runs

    def _settle(self, end: RunEnd, ctx: PiContext, *, can_continue: bool) -> dict[str, Any] | None:
        outcome = outcome_of(end.stop_reason)  # 0.73.x stop reasons and ≥0.80.6 outcomes alike
        event = settled_event(
            self.session_id,
            end.last_text,
            outcome=outcome,
            error=end.error,
            ctx=ctx,
            runs=self._take_runs(),
        )
        answer = self._run([event], "settle", can_continue=can_continue)
        self.advice.extend(answer.advice)
        if answer.retry is not None:
            self.retry_token += 1
            token, text = self.retry_token, answer.retry.text
            self._timer(answer.retry.after_s, lambda: self._retry_due(token, text))
        return answer.result

    def _settle_due(self, generation: int) -> None:
        """The 0.73.x settle timer rang."""
        with self.lock:
            if self.closed:
                return
            end = self.tracker.fire(generation)
            if end is None:
                return
            try:
                self._settle(end, self.last_ctx, can_continue=False)
            except Exception as exc:
                self._internal_error(exc)

    def _retry_due(self, token: int, text: str) -> None:
        with self.lock:
            if self.closed or token != self.retry_token or self.tracker.running:
                return
            self._write(wire.action("continue", text=text))

    def _tool(self, msg: Incoming) -> dict[str, Any]:
        if msg.name not in OWN_TOOLS:
            return {"text": f"goalkeeper: no tool named {msg.name!r}", "isError": True}
        actions = self._actions([ToolCall(self.session_id, msg.name, dict(msg.data))])
        self._send([a for a in actions if isinstance(a, Notify)], "tool")
        dialog = next(
            (a.data["dialog"] for a in actions if isinstance(a, Reply) and "dialog" in a.data),
            None,
        )
        if dialog is not None:  # the extension shows it and reports back through this tool
            return {"dialog": dialog}
        return tool_result(actions)

    def _command(self, msg: Incoming) -> dict[str, Any]:
        if msg.name == WORKFLOW_COMMAND:
            return self._as_prompt(f"/workflow {str(msg.data.get('args') or '').strip()}")
        if msg.name == MODE_COMMAND:
            return self._as_prompt(f"/gk-mode {str(msg.data.get('args') or '').strip()}")
        if msg.name != GOAL_COMMAND:
            return {"notify": f"goalkeeper: no command named {msg.name!r}"}
        args = str(msg.data.get("args") or "").strip()
        if not args:
            return {"notify": self._goal_status()}
        actions = self._actions([UserPrompt(self.session_id, f"/goal {args}")])
        notes = [a.text for a in actions if isinstance(a, Notify)]
        # what the agent should hear (the goal recorded, resumed): with the run the prompt starts
        self.advice.extend(a.text for a in actions if isinstance(a, Advise) and not a.static)
        from goalkeeper.core.text.lang import detect_lang

        lang: Lang = self.lang if self.config.lang != "auto" else detect_lang(args)
        result: dict[str, Any] = {"prompt": render(lang, "goal.pi.prompt", goal=args)}
        if notes:
            result["notify"] = "\n".join(notes)
        return result

    def _as_prompt(self, text: str) -> dict[str, Any]:
        """``/workflow …``, ``/mode …``: handled as the user's prompt; what it delivers goes to
        the agent as one displayed message that starts a turn (catalog spec §11), what the user
        should read as a notice."""
        actions = self._actions([UserPrompt(self.session_id, text.strip())])
        answer = translate("command", actions, can_continue=False)
        result: dict[str, Any] = {}
        notes = [a["text"] for a in answer.actions if a.get("action") == "notify"]
        if notes:
            result["notify"] = "\n".join(notes)
        if answer.advice:
            result["message"] = "\n\n".join(answer.advice)
        return result

    def _goal_status(self) -> str:
        from goalkeeper.store.goalfile import load_goal

        doc = load_goal(self.project)
        if doc is None:
            return render(self.lang, "goal.pi.none")
        if doc.goal is None:
            return f"goalkeeper: {doc.problem}"
        goal = doc.goal
        return render(
            self.lang,
            "goal.pi.status",
            path=doc.path,
            objective=goal.objective,
            status=goal.status,
            attempts=goal.attempts,
            rounds=goal.rounds,
            done=goal.passing_criteria,
            total=len(goal.criteria),
        )

    # -- engine and output ---------------------------------------------------------------------

    def _run(self, events: Sequence[Event], name: str, *, can_continue: bool = False) -> Answer:
        answer = translate(name, self._actions(events), can_continue=can_continue)
        for item in answer.actions:
            self._write(wire.action(item.pop("action"), **item))
        return answer

    def _actions(self, events: Sequence[Event]) -> tuple[Action, ...]:
        outcome = self.supervisor.handle(events)
        self._disclose(bool(outcome.session.guards.get("workflow", {}).get("active")))
        return outcome.actions

    def _disclose(self, active: bool) -> None:
        """Progressive disclosure (catalog spec §8): the active-workflow tools are in the
        model's tool list only while a workflow is active (started, restored or moved by the
        user from outside), so an inactive session carries no transition or ask operations.
        Pi 0.73.x takes a run's tools when the run starts, so a tool enabled during a run would
        be missing for the rest of it: there all of them stay enabled."""
        if active == self.workflow_tools or not settles_itself(self.pi_version):
            return
        self.workflow_tools = active
        key = "enable" if active else "disable"
        self._write(wire.action("tools", **{key: list(ACTIVE_ONLY_TOOLS)}))

    def _send(self, actions: Sequence[Action], name: str) -> None:
        for item in translate(name, actions, can_continue=False).actions:
            self._write(wire.action(item.pop("action"), **item))

    def _journal(self, kind: str, data: dict[str, Any]) -> None:
        import time

        from goalkeeper.store import journal

        with self.supervisor.store.transaction() as conn:
            journal.append(conn, self.session_id, time.time(), kind, data)

    def _say_state_moved(self) -> None:
        """Once, where the project's state was moved from its legacy folder (``store.legacy``):
        the other hosts say it at their session start, Pi when its extension says hello."""
        from goalkeeper.store.legacy import take_notice

        moved = take_notice(self.supervisor.store.path.parent)
        if moved is not None:
            self._write(wire.action("notify", text=render(self.lang, moved[0], **moved[1])))

    def _internal_error(self, exc: BaseException) -> None:
        from goalkeeper.hosts.command_hooks.fail_open import journal_internal_error

        journal_internal_error(self.project, self.session_id, exc)
        text = render(self.lang, "hook.internal_error", error=f"{type(exc).__name__}: {exc}")
        try:
            self._write(wire.action("notify", text=text, level="error"))
        except Exception:
            pass


def serve(project: Path, stdin: BinaryIO, stdout: BinaryIO, env: Mapping[str, str]) -> int:
    """Run until the extension closes stdin (or Pi shuts the session down)."""
    out_lock = threading.Lock()

    def write(data: bytes) -> None:
        with out_lock:
            stdout.write(data)
            stdout.flush()

    bridge = Bridge(project, env, write)
    try:
        for raw in stdin:  # a binary stream splits on b"\n" only
            line = raw.rstrip(b"\r\n")
            if line.strip():
                bridge.receive(line)
            if bridge.closed:
                break
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    finally:
        bridge.close()
    return 0


def main(project: Path) -> int:
    """Protocol on the real stdout; anything else printed goes to stderr."""
    stdout = sys.stdout.buffer
    sys.stdout = sys.stderr
    return serve(project, sys.stdin.buffer, stdout, os.environ)


def _text(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None
