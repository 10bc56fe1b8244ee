"""Quick and normal modes (seed 004 §3): how much ceremony a task gets, chosen by the user.

``quick`` (a typo, a known small fix): no phases, no artifacts, no question gate, and a reported
completion closes without the plan's gates; a goal's verification still runs. ``normal`` (a new
feature, a tricky rule, a schema change): discuss → plan → execute → verify, with PLAN.md,
EXECUTION.md and VERIFY.md in the run's folder, the verification evidence required, and the
question gate: in discuss and plan, tools that write code are refused until the user has
confirmed the business facts and the plan exists. There is no default and no guessing: a run
starts only when the user names the mode (``/gk-mode normal <task>``, ``goalkeeper mode``).

The phase moves on the evidence on disk, read at each stop: the user's confirmation, then
PLAN.md, then EXECUTION.md, then VERIFY.md with at least one recorded check.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar

from goalkeeper.core.tools import SHELL_TOOLS, shell_command, tool_target
from goalkeeper.core.tools import WRITE_TOOLS as CODE_WRITING_TOOLS
from goalkeeper.core.values import (
    Action,
    Advise,
    BeforeAgentStart,
    Block,
    Continue,
    Event,
    Notify,
    Pause,
    Record,
    Settled,
    ToolCall,
    UserPrompt,
)
from goalkeeper.guards.spec import Context, Verdict, load_state_value

RUNS_DIR = ".agents/runs"
NORMAL_PHASES = ("discuss", "plan", "execute", "verify")
CONFIRM = "/gk-mode confirm"
_COMMAND = re.compile(r"\A\s*/(?:gk-)?mode(?:\s+(?P<rest>.*))?\Z", re.DOTALL | re.IGNORECASE)
_EVIDENCE = re.compile(
    r"(?im)^\s*[-*]\s+.*\b(?:exit\s*(?:code\s*)?\d+|pass(?:ed|es)?|fail(?:ed|s)?|ok)\b"
)
_ARTIFACT = {"plan": "PLAN.md", "execute": "EXECUTION.md", "verify": "VERIFY.md"}


@dataclass(frozen=True, slots=True)
class ModesState:
    mode: str | None = None
    """``quick`` or ``normal`` while a run is on; None otherwise."""
    run_dir: str | None = None
    phase: str | None = None
    confirmed: bool = False
    started: int = 0
    goal_id: str | None = None
    """The goal whose mode this session already ran (the per-goal option, once per goal)."""


class ModesGuard:
    name: ClassVar[str] = "modes"

    def initial_state(self) -> ModesState:
        return ModesState()

    def load_state(self, raw: Mapping[str, Any]) -> ModesState:
        return load_state_value(ModesState, raw)

    def dump_state(self, state: ModesState) -> dict[str, Any]:
        return asdict(state)

    def on_event(self, event: Event, state: ModesState, ctx: Context) -> Verdict[ModesState]:
        if isinstance(event, UserPrompt) and _COMMAND.match(event.text):
            return on_command(event, state, ctx)
        if isinstance(event, BeforeAgentStart) and state.mode is None and ctx.goal is not None:
            return goal_mode(event, state, ctx)
        if state.mode != "normal":
            return Verdict()
        if isinstance(event, ToolCall) and event.name in CODE_WRITING_TOOLS | SHELL_TOOLS:
            return on_code_write(event, state, ctx)
        if isinstance(event, Settled) and not event.aborted and not event.error:
            return on_settled(state, ctx)
        return Verdict()


def on_command(ev: UserPrompt, s: ModesState, ctx: Context) -> Verdict[ModesState]:
    say = ctx.say
    match = _COMMAND.match(ev.text)
    rest = ((match.group("rest") if match else None) or "").strip()
    word, _, task = rest.partition(" ")
    word, task = word.lower(), task.strip()
    if word == "status":
        if s.mode is None:
            return Verdict((Notify(say("mode.status.none")),))
        text = say(
            "mode.status.run", mode=s.mode, phase=s.phase or "execute", run_dir=s.run_dir or "-"
        )
        return Verdict((Notify(text),))
    if word == "confirm":
        if s.mode != "normal" or s.phase != "discuss":
            return Verdict((Notify(say("mode.confirm.none"), "warning"),))
        new = replace(s, confirmed=True, phase="plan")
        record = Record("mode", {"mode": "normal", "phase": "plan", "run_dir": s.run_dir})
        advice = Advise(say("mode.phase.plan", run_dir=s.run_dir))
        return Verdict((record, Notify(say("mode.confirmed")), advice), new)
    if word == "off":
        record = Record("mode", {"mode": None})
        ended = ModesState(started=s.started, goal_id=s.goal_id)
        return Verdict((record, Notify(say("mode.off"))), ended)
    if word not in ("quick", "normal"):
        return Verdict((Notify(say("mode.usage"), "warning"),))
    return start_run(word, task, ev.session_id, s, ctx)


def start_run(
    mode: str, task: str, session_id: str, s: ModesState, ctx: Context
) -> Verdict[ModesState]:
    say = ctx.say
    task_text = say("mode.task", task=task) if task else ""
    n = s.started + 1
    if mode == "quick":
        new = ModesState(mode="quick", phase="execute", started=n, goal_id=s.goal_id)
        actions: tuple[Action, ...] = (
            Record("mode", {"mode": "quick"}),
            Notify(say("mode.started.quick")),
            Advise(say("mode.advise.quick", task=task_text)),
        )
        return Verdict(actions, new)
    run_dir = f"{RUNS_DIR}/{_run_id(session_id, ctx.now, n, task)}"
    new = ModesState(mode="normal", run_dir=run_dir, phase="discuss", started=n, goal_id=s.goal_id)
    actions = (
        Record("mode", {"mode": "normal", "phase": "discuss", "run_dir": run_dir}),
        Notify(say("mode.started.normal", run_dir=run_dir)),
        Advise(say("mode.advise.normal", run_dir=run_dir, confirm=CONFIRM, task=task_text)),
    )
    return Verdict(actions, new)


def goal_mode(ev: BeforeAgentStart, s: ModesState, ctx: Context) -> Verdict[ModesState]:
    """The per-goal option: a goal set with a mode (``goalkeeper goal set --mode normal``) runs
    in it, once per goal and session (``off`` ends it for good)."""
    doc = ctx.goal
    goal = doc.goal if doc is not None else None
    if goal is None or goal.status != "active" or goal.goal_id == s.goal_id:
        return Verdict()
    mode = goal.extra.get("mode")
    if mode not in ("quick", "normal"):
        return Verdict()
    started = start_run(str(mode), goal.objective, ev.session_id, s, ctx)
    return Verdict(started.actions, replace(started.state or s, goal_id=goal.goal_id))


def on_code_write(ev: ToolCall, s: ModesState, ctx: Context) -> Verdict[ModesState]:
    """The question gate: no code before the facts are confirmed and the plan exists. Writing
    the run's own artifacts (PLAN.md in the run folder) is always allowed."""
    if s.phase not in ("discuss", "plan"):
        return Verdict()
    if ev.name in SHELL_TOOLS:
        from goalkeeper.core.shell.writes import in_project, written_paths

        written = written_paths(shell_command(ev.input))
        outside = [
            p
            for p in written
            if in_project(p, ctx.project) and not (s.run_dir and _inside(p, s.run_dir))
        ]
        if not outside:  # reads, runs, scratch files and the run's own folder go through
            return Verdict()
        path = outside[0]
    else:
        path = tool_target(ev.input)
        if path and s.run_dir and _inside(path, s.run_dir):
            return Verdict()
    say = ctx.say
    why = (
        say("mode.gate.discuss", confirm=CONFIRM)
        if s.phase == "discuss"
        else say("mode.gate.plan", run_dir=s.run_dir)
    )
    text = say("mode.gate", phase=s.phase, path=path or ev.name, why=why)
    return Verdict((Block(text), Record("mode_gate", {"phase": s.phase, "tool": ev.name})))


def on_settled(s: ModesState, ctx: Context) -> Verdict[ModesState]:
    """Move the phase on what exists; ask for what is missing. Discuss waits for the user."""
    say = ctx.say
    if s.phase == "discuss":  # the stop is the user's: nothing may continue the agent past it
        return Verdict((Pause(say("mode.waiting", confirm=CONFIRM)),))
    phase = s.phase or "plan"
    actions: list[Action] = []
    while phase in _ARTIFACT and _done(phase, s, ctx):
        phase = NORMAL_PHASES[NORMAL_PHASES.index(phase) + 1] if phase != "verify" else "done"
    if phase == "done":
        record = Record("mode", {"mode": "normal", "phase": "done", "run_dir": s.run_dir})
        return Verdict(
            (record, Notify(say("mode.done", run_dir=s.run_dir))), ModesState(started=s.started)
        )
    if phase != s.phase:
        actions.append(Notify(say("mode.phase.moved", phase=phase)))
        actions.append(Record("mode", {"mode": "normal", "phase": phase, "run_dir": s.run_dir}))
    actions.append(Continue(say(f"mode.phase.{phase}", run_dir=s.run_dir)))
    return Verdict(tuple(actions), replace(s, phase=phase))


def _done(phase: str, s: ModesState, ctx: Context) -> bool:
    text = _read(ctx, f"{s.run_dir}/{_ARTIFACT[phase]}")
    if text is None or not text.strip():
        return False
    return phase != "verify" or _EVIDENCE.search(text) is not None


def _read(ctx: Context, rel: str) -> str | None:
    reader = ctx.read_text
    return reader(rel) if reader is not None else None


def _inside(path: str, run_dir: str) -> bool:
    """Under the run folder, whether the tool gave an absolute or a relative path."""
    return run_dir.strip("/") + "/" in path.replace("\\", "/")


def _run_id(session: str, now: float, n: int, task: str) -> str:
    from datetime import UTC, datetime

    stamp = datetime.fromtimestamp(now, UTC).strftime("%Y%m%dT%H%M%S")
    slug = "-".join(re.findall(r"[^\W_]+", task.lower()))[:40].rstrip("-") or "run"
    digest = hashlib.sha256(f"{session}\0{now!r}\0{n}".encode()).hexdigest()[:6]
    return f"{stamp}-{slug}-{digest}"
