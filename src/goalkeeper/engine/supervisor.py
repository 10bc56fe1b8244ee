"""The Supervisor: one host event in, one merged answer out, in one transaction.

It loads the session row, runs every guard in declared order, merges their actions (one
combined message), holds the continuation cap, saves the new states and journals what happened,
all inside one ``BEGIN IMMEDIATE`` transaction, so parallel hook processes never lose an update.
A guard that raises is skipped for this event, recorded, and the user told: an internal error
never produces a ``Continue``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from goalkeeper.config import Config
from goalkeeper.core.cadence.plan import PlanDoc
from goalkeeper.core.goals.promise import Promise
from goalkeeper.core.messages import Lang, make_say
from goalkeeper.core.text.lang import detect_lang
from goalkeeper.core.values import (
    AcceptPlan,
    Action,
    AddCriteria,
    ApproveGoal,
    Capability,
    Event,
    Facts,
    Inspect,
    KeepTests,
    Notify,
    Pause,
    Record,
    SessionStart,
    SetGoal,
    Settled,
    SubagentSettled,
    UserPrompt,
    WriteGoal,
)
from goalkeeper.engine.merge import merge_actions
from goalkeeper.engine.ports import Clock, Runner, SubprocessRunner, SystemClock
from goalkeeper.engine.registry import build_registry
from goalkeeper.guards.spec import Context, Registry, WorkflowView
from goalkeeper.store import journal
from goalkeeper.store.db import Store
from goalkeeper.store.documents import load_plan
from goalkeeper.store.goalfile import load_goal
from goalkeeper.store.sessions import SessionRow, load_session, save_session
from goalkeeper.store.todo_tasks import TaskTable
from goalkeeper.store.trust import accepted_plans, current_promise

APPLIED = (KeepTests, AcceptPlan, SetGoal, WriteGoal, ApproveGoal, AddCriteria)
"""The actions ``engine.apply`` carries out in the world after the transaction."""


class Outcome(Struct, frozen=True):
    """The merged actions, and the session as it was saved."""

    actions: tuple[Action, ...]
    session: SessionRow


class Supervisor:
    def __init__(
        self,
        project: Path,
        config: Config,
        *,
        host: str,
        capabilities: frozenset[Capability],
        store: Store | None = None,
        clock: Clock | None = None,
        registry: Registry | None = None,
        runner: Runner | None = None,
        tool_names: Mapping[str, str] | None = None,
        host_files: tuple[str, ...] = (),
        max_text: int | None = None,
    ) -> None:
        self.project = project
        self.config = config
        self.host = host
        self.capabilities = capabilities
        self.store = store or Store(project)
        self.clock = clock or SystemClock()
        self.registry = registry or build_registry(config)
        self.runner = runner or SubprocessRunner()
        self.tool_names = dict(tool_names or {})
        self.host_files = host_files
        self.max_text = max_text

    def read_text(self, rel: str) -> str | None:
        """A file under the project, at most 256 KB; None otherwise (never outside it)."""
        from goalkeeper.store.safe_read import read_capped

        try:
            raw = read_capped(self.project / rel, 262_144, within=self.project)
        except (OSError, ValueError):
            return None
        return raw.decode("utf-8", errors="replace")

    def procedures(self) -> Any:
        """The workflow catalog and its reader (cached by file stamps in the store layer)."""
        from goalkeeper.store.catalog_files import load_catalog

        return load_catalog(self.project, self.config.catalog)

    def handle(
        self, events: Sequence[Event], *, host_state: Mapping[str, Any] | None = None
    ) -> Outcome:
        """Run ``events`` (all of one session) through every guard as one transaction.

        ``host_state`` is merged into the session's host bookkeeping (e.g. a transcript offset).
        When a guard asks for facts (``Inspect``), the transaction is rolled back, the facts are
        gathered outside it (a re-run test must not hold the database lock), and the event is
        handled again with them; a second request in a row gets empty facts (bounded).
        """
        if not events:
            raise ValueError("handle() needs at least one event")
        facts: Facts | None = None
        for attempt in range(MAX_INSPECTIONS + 1):
            try:
                outcome = self._handle(events, host_state, facts, final=attempt == MAX_INSPECTIONS)
            except _NeedFacts as need:
                request = _approved_only(need.request, need.promise)
                baseline = self._baseline(need.promise) if request.tamper else None
                kept = self._kept(request.protect) if request.protect else None
                from goalkeeper.engine.inspect import gather_facts  # only when facts are asked

                facts = gather_facts(
                    request, self.project, self.config, self.runner, baseline, kept
                )
                continue
            return self._apply_files(outcome)
        raise AssertionError("unreachable: the last attempt never asks for facts")

    def _baseline(self, promise: Promise | None) -> Any:
        """The protected tests of the approved goal (``store.test_baseline``), or None."""
        return self._kept(promise.goal_id) if promise is not None else None

    def _kept(self, key: str) -> Any:
        """The tests kept under ``key`` (``KeepTests``), or None."""
        from goalkeeper.store.test_baseline import load_baseline

        with self.store.transaction() as conn:
            return load_baseline(conn, key)

    def _apply_files(self, outcome: Outcome) -> Outcome:
        """What the guards asked to change in the world (files, baselines, approvals, promises)
        happens after the transaction (it may run for a while, and a failure there must not roll
        back the session), in ``engine.apply``; what it says is added to the answer. The type
        check keeps the applier unimported on the events that change nothing (most of them)."""
        if not any(isinstance(a, APPLIED) for a in outcome.actions):
            return outcome
        from goalkeeper.engine.apply import apply_actions

        said = apply_actions(
            outcome.actions, self.project, self.store, self.config, self.clock, outcome.session
        )
        return Outcome(outcome.actions + said, outcome.session) if said is not None else outcome

    def _handle(
        self,
        events: Sequence[Event],
        host_state: Mapping[str, Any] | None,
        facts: Facts | None,
        *,
        final: bool,
    ) -> Outcome:
        session_id = events[0].session_id
        now = self.clock.now()
        doc = load_plan(self.project, self.config.plan_dir)
        with self.store.transaction() as conn:
            row = load_session(conn, session_id, self.host, now)
            lang = self._lang(row, doc, events)
            say = make_say(lang)
            if facts is None and final:
                facts = Facts()
            goal = load_goal(self.project)
            goal_id = goal.goal.goal_id if goal is not None and goal.goal is not None else None
            promise = current_promise(conn, goal_id)
            accepted = accepted_plans(conn) if doc is not None and doc.plan is not None else None
            ctx = Context(
                now,
                self.config,
                say,
                lang,
                doc,
                self.capabilities,
                facts,
                goal,
                procedures=self.procedures,
                read_text=self.read_text,
                run_mode=row.guards.get("modes", {}).get("mode"),
                project=str(self.project.resolve()),
                tool_names=self.tool_names,
                host_files=self.host_files,
                promise=promise,
                accepted_plans=accepted or frozenset(),
                workflow=WorkflowView.of(row.guards.get("workflow")),
                continuations=row.continuations,
                max_text=self.max_text,
            )
            tasks = TaskTable(conn, session_id)  # the todo tree's rows, read only when asked
            states = {
                g.name: tasks.attach(g.load_state(row.guards.get(g.name, {})))
                for g in self.registry.guards
            }
            actions: list[Action] = []
            continuations = row.continuations
            for event in events:
                if isinstance(event, UserPrompt) and event.verified:
                    continuations = 0  # a real user message starts a new run of continuations
                    if ctx.continuations:
                        ctx = replace(ctx, continuations=0)
                for guard in self.registry.guards:
                    try:
                        verdict = guard.on_event(event, states[guard.name], ctx)
                    except Exception as exc:  # a broken guard must not wedge the agent
                        actions.append(Record("error", _error_data(guard.name, exc)))
                        actions.append(
                            Notify(
                                say("hook.internal_error", error=f"{guard.name}: {exc!r}"), "error"
                            )
                        )
                        continue
                    asks = [a for a in verdict.actions if isinstance(a, Inspect)]
                    if asks and ctx.facts is None:
                        raise _NeedFacts(_combined(asks), promise)  # rolls the transaction back
                    actions.extend(a for a in verdict.actions if not isinstance(a, Inspect))
                    if verdict.state is not None:
                        states[guard.name] = verdict.state
            # advice kept for the main agent's next turn is not a subagent's to read
            subagent = any(isinstance(e, SubagentSettled) for e in events)
            merged = merge_actions(
                actions,
                continuations=continuations,
                max_continuations=self.config.max_continuations,
                say=say,
                follow_up="follow_up" in self.capabilities,
                deferred=() if subagent else row.deferred,
                carries_context=any(isinstance(e, SessionStart | UserPrompt) for e in events),
            )
            answer, held = self._notices(merged.actions, row.host_state.get(HELD, ()))
            merged = replace(merged, actions=answer)
            row = replace(
                row,
                updated_at=now,
                events=row.events + len(events),
                continuations=merged.continuations,
                lang=lang,
                guards={g.name: g.dump_state(states[g.name]) for g in self.registry.guards},
                host_state=_with_held({**row.host_state, **(host_state or {})}, held),
                deferred=row.deferred if subagent else merged.deferred,
            )
            save_session(conn, row)
            tasks.save(states.values())  # the tasks the event changed; none: nothing written
            for event in events:
                journal.append(conn, session_id, now, "event", _event_data(event))
            if facts is not None and (facts.commands or facts.verify or facts.kept):
                from goalkeeper.engine.run_records import run_entries  # only when something ran

                for kind, data in run_entries(facts):
                    journal.append(conn, session_id, now, kind, data)
            for action in merged.actions:
                if isinstance(action, Record):
                    journal.append(conn, session_id, now, action.kind, action.data)
                    if action.kind == "todo_completed":  # a claim only the user can accept
                        from goalkeeper.store.claims import record_completion

                        record_completion(conn, session_id, now, action.data)
            decision = [_action_summary(a) for a in merged.actions if not isinstance(a, Record)]
            if decision:
                journal.append(conn, session_id, now, "decision", {"actions": decision})
        return Outcome(merged.actions, row)

    def _notices(
        self, actions: tuple[Action, ...], held: object
    ) -> tuple[tuple[Action, ...], list[dict[str, str]]]:
        """A host that cannot tell the user anything now (an MCP tool call, Claude Code's
        StopFailure) leaves its notices, and why it paused, with the session; the next answer
        of one that can (a Claude Code hook) shows them first. The answer's actions, and the
        notices still held."""
        kept = [
            Notify(h["text"], h["level"] if h.get("level") in ("warning", "error") else "info")
            for h in (held if isinstance(held, list) else [])
            if isinstance(h, dict) and isinstance(h.get("text"), str)
        ]
        if "notify" in self.capabilities:
            return (*kept, *actions), []
        new = [
            a if isinstance(a, Notify) else Notify(a.reason, "warning")
            for a in actions
            if isinstance(a, Notify | Pause)
        ]
        return actions, [{"text": n.text, "level": n.level} for n in (kept + new)[-MAX_HELD:]]

    def _lang(self, row: SessionRow, doc: PlanDoc | None, events: Sequence[Event]) -> Lang:
        """``auto``: the plan's language, else the user's words, else what the session used."""
        if self.config.lang != "auto":
            return self.config.lang
        if doc is not None and doc.plan is not None:
            return doc.plan.lang
        prompt = next((e.text for e in events if isinstance(e, UserPrompt) and e.text), None)
        if prompt:
            return detect_lang(prompt)
        return "zh" if row.lang == "zh" else "en"


MAX_INSPECTIONS = 1


def _with_held(host_state: dict[str, Any], held: list[dict[str, str]]) -> dict[str, Any]:
    """The bookkeeping with the held notices, and without the key once none are held."""
    host_state.pop(HELD, None)
    return {**host_state, HELD: held} if held else host_state


HELD = "held_notices"
"""The session's host bookkeeping key for notices no answer could show yet."""
MAX_HELD = 10


class _NeedFacts(Exception):
    def __init__(self, request: Inspect, promise: Promise | None) -> None:
        super().__init__("a guard asked for facts")
        self.request = request
        self.promise = promise


def _approved_only(request: Inspect, promise: Promise | None) -> Inspect:
    """The I/O boundary's own check: a goal's verification runs only if every command is one
    the user approved (the guard asks for nothing else; this holds even if a guard did)."""
    if not request.verify:
        return request
    approved = promise.verify if promise is not None and promise.open else ()
    if all(command in approved for command in request.verify):
        return request
    return replace(request, verify=(), tamper=False, hidden=False)


def _combined(asks: Sequence[Inspect]) -> Inspect:
    files = tuple(dict.fromkeys(f for a in asks for f in a.files))
    commands = tuple(dict.fromkeys(c for a in asks for c in a.commands))
    verify = tuple(dict.fromkeys(c for a in asks for c in a.verify))
    timeout = max((a.verify_timeout_s for a in asks), default=120.0)
    protect = next((a.protect for a in asks if a.protect), "")
    tamper, replay = any(a.tamper for a in asks), any(a.replay_tests for a in asks)
    hidden = any(a.hidden for a in asks)
    return Inspect(files, commands, verify, timeout, tamper, protect, replay, hidden)


def _event_data(event: Event) -> dict[str, object]:
    data: dict[str, object] = {"type": type(event).__name__}
    if isinstance(event, Settled):
        data.update(
            aborted=event.aborted,
            error=event.error,
            tools=event.activity.tool_calls,
            context_tokens=event.activity.context_tokens,
            text_tail=event.last_text[-200:],
        )
    elif isinstance(event, UserPrompt):
        data["text_head"] = event.text[:200]
        if not event.verified:  # not shown as the user's: `status` must not say they spoke
            data["verified"] = False
    else:
        for key in ("source", "name"):
            if hasattr(event, key):
                data[key] = getattr(event, key)
    return data


def _action_summary(action: Action) -> dict[str, object]:
    kind = type(action).__name__
    text = next(
        (
            getattr(action, k)
            for k in ("text", "reason", "summary", "instructions")
            if hasattr(action, k)
        ),
        "",
    )
    return {"kind": kind, "text": str(text)[:500]}


def _error_data(guard: str, exc: Exception) -> dict[str, object]:
    return {"guard": guard, "error": type(exc).__name__, "message": str(exc)[:500]}
