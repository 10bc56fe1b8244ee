"""Quick and normal modes (seed 004 §3): how much ceremony a task gets, chosen by the user.

``quick`` (a typo, a known small fix): no phases, no artifacts, no question gate, and a reported
completion closes without the plan's gates; a goal's verification still runs. ``normal`` (a new
feature, a tricky rule, a schema change): discuss → plan → execute → verify, with PLAN.md,
EXECUTION.md and VERIFY.md in the run's folder, the verification evidence required, and the
question gate: in discuss and plan, tools that write code are refused until the user has
confirmed the business facts and the plan exists. There is no default and no guessing: a run
starts only when the user names the mode (``/gk-mode normal <task>``, ``goalkeeper mode``).

The phase moves one step a stop, on the evidence on disk and in the run: the user's
confirmation, then PLAN.md, then EXECUTION.md once a code change was seen in the run, then
VERIFY.md with at least one recorded check once a check was seen running after the last change
(what the host recorded of each round, judged as the check gate judges it). Writing the three
files at once and stopping moves one phase, not to the end (audit D7).

The gate places a path before it compares it (``shell.places.locate``: ``..``, ``.``, absolute
or relative), and a write it would let through — into the run folder, or a shell's scratch file
outside the project — is looked at first (``Inspect``: where it resolves, symlinks followed), so
``.agents/runs/<id>/link/app.py`` with ``link`` pointing at ``src`` is a code change. A write it
cannot place (``> "$f"``), a link made and a project file removed in discuss or plan are refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from msgspec import Struct
from msgspec.structs import replace

from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.tools import SHELL_TOOLS, shell_command, tool_target
from goalkeeper.core.tools import WRITE_TOOLS as CODE_WRITING_TOOLS
from goalkeeper.core.values import (
    Action,
    Advise,
    BeforeAgentStart,
    Block,
    Continue,
    Event,
    Facts,
    Inspect,
    Notify,
    Pause,
    Record,
    Settled,
    ToolCall,
    UserPrompt,
)
from goalkeeper.guards.spec import Context, Verdict, dump_state_value, load_state_value

RUNS_DIR = ".agents/runs"
NORMAL_PHASES = ("discuss", "plan", "execute", "verify")
CONFIRM = "/gk-mode confirm"
_COMMAND = lazy_re(r"\A\s*/(?:gk-)?mode(?:\s+(?P<rest>.*))?\Z", re.DOTALL | re.IGNORECASE)
_EVIDENCE = lazy_re(
    r"(?im)^\s*[-*]\s+.*\b(?:exit\s*(?:code\s*)?\d+|pass(?:ed|es)?|fail(?:ed|s)?|ok)\b"
)
_ARTIFACT = {"plan": "PLAN.md", "execute": "EXECUTION.md", "verify": "VERIFY.md"}


class ModesState(Struct, frozen=True):
    mode: str | None = None
    """``quick`` or ``normal`` while a run is on; None otherwise."""
    run_dir: str | None = None
    phase: str | None = None
    confirmed: bool = False
    started: int = 0
    goal_id: str | None = None
    """The goal whose mode this session already ran (the per-goal option, once per goal)."""
    changed: bool = False
    """A project file was changed in this run's execute phase or later (what the host recorded)."""
    checked: bool = False
    """A verification ran and finished after the last change seen (the check gate's verdicts)."""
    announced: str = ""
    """Digests of the shell commands announced (ToolCall) since the last stop: a recorded
    command nobody announced did not run (``evaluate_round``'s ``seen``)."""
    announces: bool = False
    """The host announces shell commands before they run."""


class ModesGuard:
    name: ClassVar[str] = "modes"

    def initial_state(self) -> ModesState:
        return ModesState()

    def load_state(self, raw: Mapping[str, Any]) -> ModesState:
        return load_state_value(ModesState, raw)

    def dump_state(self, state: ModesState) -> dict[str, Any]:
        return dump_state_value(state)

    def on_event(self, event: Event, state: ModesState, ctx: Context) -> Verdict[ModesState]:
        if isinstance(event, UserPrompt) and _COMMAND.match(event.text):
            return on_command(event, state, ctx)
        if isinstance(event, BeforeAgentStart) and state.mode is None and ctx.goal is not None:
            return goal_mode(event, state, ctx)
        if state.mode != "normal":
            return Verdict()
        if isinstance(event, ToolCall) and event.name in CODE_WRITING_TOOLS | SHELL_TOOLS:
            state = _announce(event, state)
            verdict = on_code_write(event, state, ctx)
            return Verdict(verdict.actions, verdict.state or state)
        if isinstance(event, Settled) and not event.aborted and not event.error:
            return on_settled(event, state, ctx)
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
    the run's own artifacts (PLAN.md in the run folder) is always allowed, and so is a shell's
    scratch file outside the project; both are looked at (``Inspect``) before they pass."""
    if s.phase not in ("discuss", "plan"):
        return Verdict()
    from goalkeeper.core.shell.places import inside, locate
    from goalkeeper.core.shell.writes import read_writes

    say = ctx.say
    shell = ev.name in SHELL_TOOLS
    if shell:
        found = read_writes(shell_command(ev.input))
        if found.links:
            return _refuse(s, ev, ctx, found.links[0], say("mode.gate.link"))
        if found.unknown:
            return _unknown(s, ev, ctx, found.unknown[0])
        paths = (*found.paths, *found.removed)  # removing a project file changes it too
    else:
        paths = (tool_target(ev.input),)
    looked: list[str] = []
    for path in paths:
        where, rel = locate(path, ctx.project)
        own = where == "project" and bool(s.run_dir) and inside(rel, s.run_dir or "")
        if where == "unknown" and path:
            return _unknown(s, ev, ctx, path)
        if not (own or (shell and where == "outside")):
            return _refuse(s, ev, ctx, path or ev.name)
        looked.append(path)
    if not looked:  # reads and runs go through
        return Verdict()
    if ctx.facts is None:
        return Verdict((Inspect(files=tuple(dict.fromkeys(looked))),))
    for path in looked:
        landed = _lands(path, ctx.facts)
        if landed is not None and not (s.run_dir and inside(landed, s.run_dir)):
            return _refuse(s, ev, ctx, f"{path} → {landed or '.'}")
    return Verdict()


def _lands(path: str, facts: Facts) -> str | None:
    """Where ``path`` resolves in the project (symlinks followed, ``FileFact.rel``), None when
    it resolves outside it (scratch space); "?" when the engine did not say, which no run
    folder holds."""
    fact = next((f for f in facts.files if f.path == path), None)
    if fact is None:
        return "?"
    return fact.rel if fact.rel is not None else None


def _refuse(
    s: ModesState, ev: ToolCall, ctx: Context, path: str, lead: str = ""
) -> Verdict[ModesState]:
    say = ctx.say
    why = (
        say("mode.gate.discuss", confirm=CONFIRM)
        if s.phase == "discuss"
        else say("mode.gate.plan", run_dir=s.run_dir)
    )
    text = say("mode.gate", phase=s.phase, path=path, why=f"{lead} {why}" if lead else why)
    return _block(text, s, ev)


def _unknown(s: ModesState, ev: ToolCall, ctx: Context, target: str) -> Verdict[ModesState]:
    """A write the text cannot place (``> "$f"``): it may be code, so it waits like code."""
    text = ctx.say("mode.gate.unknown", phase=s.phase, target=target, run_dir=s.run_dir)
    return _block(text, s, ev)


def _block(text: str, s: ModesState, ev: ToolCall) -> Verdict[ModesState]:
    return Verdict((Block(text), Record("mode_gate", {"phase": s.phase, "tool": ev.name})))


def _announce(ev: ToolCall, s: ModesState) -> ModesState:
    from goalkeeper.guards.round_checks import announce

    announced = announce(s.announced, ev.input.get("command"))
    if ev.name not in SHELL_TOOLS or announced is None:
        return s
    return replace(s, announced=announced, announces=True)


def on_settled(ev: Settled, s: ModesState, ctx: Context) -> Verdict[ModesState]:
    """Move the phase at most one step, on what exists and what the run showed; ask for what
    is missing. Discuss waits for the user."""
    say = ctx.say
    if s.phase == "discuss":  # the stop is the user's: nothing may continue the agent past it
        return Verdict((Pause(say("mode.waiting", confirm=CONFIRM)),), replace(s, announced=""))
    s = _observe(ev, s, ctx)
    phase = s.phase or "plan"
    artifact = _artifact(phase, s, ctx)
    shown = (phase == "execute" and s.changed) or (phase == "verify" and s.checked)
    # check_needs_tool = false, the user's choice: the files count without the tool record
    # (a host that records no runs), as a [PDCA] check then does; still one phase a stop
    waived = phase in ("execute", "verify") and not ctx.config.check_needs_tool
    if artifact and (phase == "plan" or shown or waived):
        phase = NORMAL_PHASES[NORMAL_PHASES.index(phase) + 1] if phase != "verify" else "done"
        if s.phase == "plan":  # the run's work starts now: earlier rounds changed nothing
            s = replace(s, changed=False, checked=False)
    elif artifact:  # the file is there, what it records was not seen
        missing = "unchanged" if phase == "execute" else "unchecked"
        return Verdict((Continue(say(f"mode.phase.{phase}.{missing}", run_dir=s.run_dir)),), s)
    if phase == "done":
        record = Record("mode", {"mode": "normal", "phase": "done", "run_dir": s.run_dir})
        return Verdict(
            (record, Notify(say("mode.done", run_dir=s.run_dir))),
            ModesState(started=s.started, goal_id=s.goal_id),
        )
    actions: list[Action] = []
    if phase != s.phase:
        actions.append(Notify(say("mode.phase.moved", phase=phase)))
        actions.append(Record("mode", {"mode": "normal", "phase": phase, "run_dir": s.run_dir}))
    actions.append(Continue(say(f"mode.phase.{phase}", run_dir=s.run_dir)))
    return Verdict(tuple(actions), replace(s, phase=phase))


def _observe(ev: Settled, s: ModesState, ctx: Context) -> ModesState:
    """What this round's recorded tool calls show: a project file changed (not the run's
    artifacts, the plan or goalkeeper's records), and whether a verification ran and finished
    after the last change (judged as the check gate judges a round)."""
    from goalkeeper.core.cadence.gates import COUNTED
    from goalkeeper.core.shell.writes import run_writes
    from goalkeeper.guards.round_checks import is_change, judge_round

    announced = s.announced if s.announces else None
    evidence = judge_round(ev, ctx, tools=ev.activity.tool_calls, announced=announced)
    changed = is_change(ctx)
    wrote = any(changed(p) for run in ev.activity.runs or () for p in run_writes(run))
    checked = s.checked
    if evidence.status in COUNTED:
        checked = True
    elif evidence.status == "stale" or wrote:
        checked = False
    return replace(s, changed=s.changed or wrote, checked=checked, announced="")


def _artifact(phase: str, s: ModesState, ctx: Context) -> bool:
    """The phase's artifact is written (VERIFY.md: with at least one recorded check)."""
    if phase not in _ARTIFACT:
        return False
    text = _read(ctx, f"{s.run_dir}/{_ARTIFACT[phase]}")
    if text is None or not text.strip():
        return False
    return phase != "verify" or _EVIDENCE.search(text) is not None


def _read(ctx: Context, rel: str) -> str | None:
    reader = ctx.read_text
    return reader(rel) if reader is not None else None


def _run_id(session: str, now: float, n: int, task: str) -> str:
    import hashlib
    from datetime import UTC, datetime

    stamp = datetime.fromtimestamp(now, UTC).strftime("%Y%m%dT%H%M%S")
    slug = "-".join(re.findall(r"[^\W_]+", task.lower()))[:40].rstrip("-") or "run"
    digest = hashlib.sha256(f"{session}\0{now!r}\0{n}".encode()).hexdigest()[:6]
    return f"{stamp}-{slug}-{digest}"
