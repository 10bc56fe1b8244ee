"""The goal guard (seed 001, seed 004 §4): a goal that must be proven, and the verify/repair loop.

A user prompt that states a goal records it (``SetGoal``), and with it the promise the user
approved (``core.promise``). While a goal is active, its anchors are re-fed before each run, and
at every settle goalkeeper runs the goal's verification itself (``Inspect``): a failure sends the
agent back with the evidence and ``[n/N]``; the same failure again (same signature) or the round
limit pauses and asks the user; a pass is accepted only with honest tests (no deleted tests, lost
assertions or new skips since the goal was set) and every acceptance criterion closed, then the
goal is archived. A GOAL.md that differs from the approved promise is held: nothing in it runs
until the user approves (``goal_held``), while the goal in force is still verified and criteria
the agent only added are recorded (``goal_in_force``); its limits and counters are never looser
than the recorded ones. The model's ``[GOAL] blocked: <reason>`` is an honest exit: recorded, never
punished. Pure: GOAL.md is changed only through actions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from msgspec.structs import replace

from goalkeeper.core.goals.approval_tool import NAME as GOAL_APPROVAL
from goalkeeper.core.goals.goal import Goal, GoalUpdate
from goalkeeper.core.values import (
    Advise,
    BeforeAgentStart,
    Choice,
    Continue,
    Event,
    Notify,
    Record,
    SessionStart,
    SetGoal,
    Settled,
    ToolCall,
    UserPrompt,
    WriteGoal,
)
from goalkeeper.guards.goal_state import (
    GoalState,
    active_goal,
    goal_path,
    held_goal,
    paused_goal,
    stamp,
    trusted_goal_of,
)
from goalkeeper.guards.spec import Context, Verdict, dump_state_value, load_state_value

__all__ = ["GoalGuard", "GoalState", "goal_anchor", "render_goal_anchors"]


class GoalGuard:
    name: ClassVar[str] = "goal"

    def initial_state(self) -> GoalState:
        return GoalState()

    def load_state(self, raw: Mapping[str, Any]) -> GoalState:
        return load_state_value(GoalState, raw)

    def dump_state(self, state: GoalState) -> dict[str, Any]:
        return dump_state_value(state)

    def on_event(self, event: Event, state: GoalState, ctx: Context) -> Verdict[GoalState]:
        # Each event's helpers are imported when it comes: a session's first event, answered
        # in a fresh process, does not pay for the repair loop or the approval questions.
        if isinstance(event, UserPrompt):
            verdict = on_user_prompt(event, state, ctx)
            if verdict.state is None and state.review_close and event.verified:
                verdict = Verdict(verdict.actions, replace(state, review_close=""))  # user spoke
            return _after_error(verdict, state, ctx) if state.retry_error else verdict
        if isinstance(event, Choice):
            return on_choice(event, state, ctx)
        if isinstance(event, ToolCall) and event.name == GOAL_APPROVAL:
            from goalkeeper.guards.goal_held import on_approval_call

            actions, asking = on_approval_call(
                event, held_goal(ctx), state.asking, goal_path(ctx), ctx
            )
            return Verdict(actions, replace(state, asking=asking))
        if isinstance(event, BeforeAgentStart | SessionStart):
            anchor = goal_anchor(ctx, resumed=state.resumed)
            state = replace(state, resumed=None) if state.resumed else state
            if anchor is None:
                return Verdict((), state)
            fresh = held_goal(ctx) is None and active_goal(ctx) is not None
            if isinstance(event, SessionStart) and fresh:  # an active goal: is it stale?
                from goalkeeper.guards.goal_confirm import stale_at_start

                stale = stale_at_start(event, state, ctx)
                if stale is not None:
                    return Verdict((anchor, *stale.actions), stale.state)
            return Verdict((anchor,), state)
        if isinstance(event, Settled):
            from goalkeeper.guards.goal_in_force import record_additions
            from goalkeeper.guards.goal_repair import on_settled

            verdict = on_settled(event, state, ctx)
            added = record_additions(ctx)  # criteria the agent added: recorded, not held
            return Verdict((*added, *verdict.actions), verdict.state) if added else verdict
        return Verdict()


def on_user_prompt(ev: UserPrompt, s: GoalState, ctx: Context) -> Verdict[GoalState]:
    """A prompt that states a goal records it (an explicit command replaces an active goal)."""
    from goalkeeper.core.goals.detect import detect_goal  # ~30 ms of patterns: only for prompts
    from goalkeeper.core.goals.verify import verify_request
    from goalkeeper.guards.goal_confirm import confirm_detected

    intent = detect_goal(ev.text)
    if intent is None:
        return Verdict()
    if not ev.verified:  # the host's record does not show it as the user's: no goal from it
        return Verdict((Record("goal_prompt_unverified", {"source": intent.source}),))
    resent = _resent(intent.text, s, ctx)
    if resent is not None:
        return resent
    if active_goal(ctx) is not None and intent.source != "command":
        return Verdict()
    # Every condition the text names; none named means no verify: the user is asked for one.
    asked = verify_request(intent.text)
    action = SetGoal(
        intent.text,
        asked.commands,
        asked.conditions,
        intent.stages if intent.coarse else (),
        intent.source,
        replace=intent.source == "command",
    )
    confirm = confirm_detected(intent.text, intent.source, ctx)
    record = Record("goal_detected", {"source": intent.source})
    return Verdict((action, record, *confirm), GoalState())


def on_choice(ev: Choice, s: GoalState, ctx: Context) -> Verdict[GoalState]:
    """The user's answer to ``_ask`` (only a goal that is still paused is acted on), or to the
    approval question of a held goal."""
    from goalkeeper.guards.goal_confirm import CONFIRM_KEY, STALE_KEY, on_confirm_choice
    from goalkeeper.guards.goal_held import APPROVE_KEY, on_approve_choice
    from goalkeeper.guards.goal_repair import ASK_KEY

    if ev.key in (CONFIRM_KEY, STALE_KEY):
        return on_confirm_choice(ev, s, ctx)
    if ev.key == APPROVE_KEY:
        digest = s.held_key.partition(":")[2] if s.held_key else None
        return Verdict(on_approve_choice(ev, digest, goal_path(ctx), ctx), s)
    doc = ctx.goal
    goal = trusted_goal_of(ctx)
    if ev.key != ASK_KEY or goal is None or doc is None or goal.status != "blocked":
        return Verdict()
    say = ctx.say
    record = Record("goal_choice", {"answer": ev.answer})
    if ev.answer == "continue":
        update, text = _resume(goal, "goal.choice.continue", ctx)
        return Verdict((WriteGoal(update), Continue(text), record), s)
    if ev.answer == "plan":
        return Verdict((Continue(say("goal.choice.plan", path=doc.path)), record), s)
    return Verdict((Notify(say("goal.choice.stop")), record), s)


def _resume(goal: Goal, key: str, ctx: Context) -> tuple[GoalUpdate, str]:
    """A paused goal made active again by the user, counting on from its last failure (seed 004
    §4.4): the rounds used stay, a goal paused at its limit gets as many again."""
    from goalkeeper.core.goals.goal import resume_update, resumed_rounds
    from goalkeeper.core.goals.verify import failure_headline

    say = ctx.say
    rounds = resumed_rounds(goal)
    line = say("goal.log.resumed", time=stamp(ctx.now), attempts=goal.attempts, rounds=rounds)
    text = say(
        key,
        objective=goal.objective,
        rounds=rounds - goal.attempts,
        line=failure_headline(goal.last_failure.tail or "") or "-",
        commands=", ".join(goal.verify),
    )
    return resume_update(goal, line), text


def _resent(text: str, s: GoalState, ctx: Context) -> Verdict[GoalState] | None:
    """The user sent the goal they set again: it resumes where it stopped (a paused goal counts
    on from its last failure; an active one keeps its rounds), never starts over. Compared with
    the approved objective, so an edited GOAL.md cannot make another goal "the same"."""
    promise, goal = ctx.promise, trusted_goal_of(ctx)
    if promise is None or goal is None or not promise.open:
        return None
    if _words(text) != _words(promise.objective):
        return None
    record = Record("goal_resent", {"status": goal.status})
    if goal.status == "blocked":
        update, said = _resume(goal, "goal.resent.resumed", ctx)
        resumed = replace(s, resumed=goal.goal_id or goal.objective)
        return Verdict((WriteGoal(update), Advise(said), record), resumed)
    said = ctx.say(
        "goal.resent.active", objective=goal.objective, attempts=goal.attempts, rounds=goal.rounds
    )
    return Verdict((Advise(said), record), s)


def _after_error(verdict: Verdict[GoalState], s: GoalState, ctx: Context) -> Verdict[GoalState]:
    """The prompt after a turn that ended on an API error (seed 001 §5): Claude Code's
    StopFailure answer reaches nobody, so this prompt (the user's, or ``goalkeeper run``'s
    retry) carries the retry's words: resume from the last completed step, do not start over."""
    state = replace(verdict.state or s, retry_error=None)
    if active_goal(ctx) is None or s.retry_error is None:
        return Verdict(verdict.actions, state)
    said = Advise(ctx.say("goal.retry", error=s.retry_error))
    return Verdict((*verdict.actions, said), state)


def _words(text: str) -> str:
    """A goal's text as compared for "the same goal": case, spacing and end punctuation aside."""
    return " ".join(text.casefold().split()).rstrip(".!。！ ")


def goal_anchor(ctx: Context, *, resumed: str | None = None) -> Advise | None:
    """What a run is told of the goal before it starts: that it is held (and what the user
    approved), the active goal's anchors, or that it is paused; None without a goal. Also what a
    continuation into a cleared context carries (``cadence_rules.stuck_reset``). A paused goal
    the same prompt ``resumed`` is shown as the active goal it becomes (seed 004 §4.4): one run
    is never told both "resumes" and "paused, do not report done"."""
    held = held_goal(ctx)
    if held is not None:
        from goalkeeper.guards.goal_held import held_anchor

        return held_anchor(held, goal_path(ctx), ctx)
    goal = active_goal(ctx)
    if goal is not None:
        return Advise(render_goal_anchors(goal, ctx))
    paused = paused_goal(ctx)
    if paused is None:
        return None
    if resumed is not None and resumed == (paused.goal_id or paused.objective):
        from goalkeeper.core.goals.goal import resumed_goal

        return Advise(render_goal_anchors(resumed_goal(paused), ctx))
    return Advise(render_paused(paused, ctx))


def render_paused(goal: Goal, ctx: Context) -> str:
    """A paused goal is shown, not hidden: the agent learns it is paused and why (after
    exhausted retries, with the strategy change), and how the user resumes it."""
    say = ctx.say
    reason = goal.blocked_reason or "-"
    text = say("goal.paused_anchor", objective=goal.objective, reason=reason, path=goal_path(ctx))
    if reason.startswith("retries exhausted"):
        text += "\n" + say("goal.paused_strategy")
    return text


def render_goal_anchors(goal: Goal, ctx: Context) -> str:
    say = ctx.say
    doc = ctx.goal
    text = say(
        "goal.anchors",
        path=doc.path if doc else ".agents/goal/GOAL.md",
        objective=goal.objective,
        verify=", ".join(f"`{c}`" for c in goal.verify) or say("goal.anchors.none"),
        done=goal.passing_criteria,
        total=len(goal.criteria),
        attempts=goal.attempts,
        rounds=goal.rounds,
    )
    failure = goal.last_failure
    if failure.command:
        from goalkeeper.core.goals.verify import failure_headline

        line = failure_headline(failure.tail or "")
        text += "\n" + say(
            "goal.anchors.failure", command=failure.command, exit=failure.exit, line=line
        )
    return text
