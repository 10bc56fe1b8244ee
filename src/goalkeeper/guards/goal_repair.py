"""The goal's verify/repair loop at a stop (seed 001 §5–§6, seed 004 §4): goalkeeper runs the
goal's verification itself; a failure sends the agent back with the evidence and ``[n/N]``; the
same failure again (same signature) or the round limit pauses and asks the user; a pass is
accepted only with honest tests and every acceptance criterion closed, then the goal is archived.
API errors are retried with backoff, stagnation gets a recovery prompt, and the model's
``[GOAL] blocked: <reason>`` is an honest exit. Pure: GOAL.md is changed only through actions.
"""

from __future__ import annotations

from msgspec.structs import replace

from goalkeeper.core.cadence.markers import parse_goal_blocked
from goalkeeper.core.goals.goal import Goal, GoalDoc, GoalUpdate, has_progress_words
from goalkeeper.core.values import (
    Action,
    Advise,
    Ask,
    Close,
    Continue,
    Facts,
    Inspect,
    Notify,
    Pause,
    Record,
    Retry,
    Settled,
    VerifyRun,
    WriteGoal,
)
from goalkeeper.guards.goal_confirm import CONFIRM_TIMEOUT_S
from goalkeeper.guards.goal_held import held_again_at_stop, held_at_stop
from goalkeeper.guards.goal_state import GoalState, active_goal, goal_path, held_goal, stamp
from goalkeeper.guards.goal_tests import (
    hidden_failed,
    hidden_key,
    proof_record,
    tests_held,
    tests_key,
)
from goalkeeper.guards.review import goal_review, may_ask_review
from goalkeeper.guards.spec import Context, Verdict

STAGNANT_ITERATIONS = 3  # seed 001: the passing count unchanged for 3 iterations …
RECOVERY_PROMPTS = 2  # … gets a recovery prompt twice, then the user is told
# The goal's setting is the first of those 3 iterations and the two prompts come on the next
# stagnant stops, so with the default 3 rounds the whole ladder fits: recovery at the 2nd and
# 3rd failure, the user at the 4th stop, where the round limit pauses (seed 001 §6).
TAIL_CHARS = 2000  # failure evidence fed back: enough to act on, bounded (Aider feeds it all)


def on_settled(ev: Settled, s: GoalState, ctx: Context) -> Verdict[GoalState]:
    doc = ctx.goal
    if s.review_close:  # the goal was proven at the last stop and a review round ran since
        if ev.aborted:
            return Verdict()
        # No goal the user set since (GOAL.md gone, or the agent's replacement, unapproved):
        # the proven one's close.
        if doc is None or ctx.promise is None:
            reviewed = Record("goal_reviewed", {"goal": s.review_goal})
            return Verdict((Close(s.review_close), reviewed), replace(s, review_close=""))
        s = replace(s, review_close="")  # the user set another goal meanwhile: that one counts
    if doc is not None and doc.problem:
        if s.notified_problem == doc.problem:
            return Verdict()
        text = ctx.say("goal.problem", path=doc.path, problem=doc.problem)
        return Verdict((Notify(text, "warning"),), replace(s, notified_problem=doc.problem))
    held = held_goal(ctx)
    if held is not None:
        key = f"{held.kind}:{held.digest}"
        if ev.aborted:
            return Verdict()
        from goalkeeper.guards.goal_in_force import verify_in_force

        in_force = verify_in_force(held, doc, s, ctx)
        if in_force is not None:  # asks for the facts, or the goal in force is proven
            return in_force
        if s.held_paused == key:
            return Verdict()
        if s.held_key == key:
            again = held_again_at_stop(held, goal_path(ctx), ctx)
            return Verdict(again, replace(s, held_paused=key))
        return Verdict(held_at_stop(held, goal_path(ctx), ctx), replace(s, held_key=key))
    goal = active_goal(ctx)
    if goal is None or doc is None or ev.aborted:
        return Verdict()
    if goal.goal_id != s.goal_id:  # the goal's setting is iteration 0 of the stagnation count
        s = GoalState(
            goal_id=goal.goal_id,
            log_seen=len(goal.progress_log),
            last_passing=goal.passing_criteria,
        )
    if ev.error:
        return _run_error(ev.error, goal, s, ctx)
    s = replace(s, retry_error=None) if s.retry_error else s  # the turn after it ended well
    reason = parse_goal_blocked(ev.last_text)
    if reason is not None:
        return _honest_exit(reason, goal, doc, s, ctx)
    if goal.status == "needs-upgrade":
        return _upgrade(goal, s, ctx)
    shaping, s = _shaping(goal, s, ctx)  # the proof still runs; only the rounds wait
    if not goal.verify:
        if s.flagged_hash == "no-verify":
            return Verdict()
        actions = (
            Notify(ctx.say("goal.no_verify_user"), "warning"),
            Advise(ctx.say("goal.no_verify_model", path=doc.path), "next_turn"),
        )
        return Verdict(actions, replace(s, flagged_hash="no-verify"))
    facts = ctx.facts
    if facts is None:
        return Verdict(
            (
                Inspect(
                    verify=goal.verify, verify_timeout_s=goal.timeout_s, tamper=True, hidden=True
                ),
            )
        )
    failed = next((run for run in facts.verify if not run.passed), None)
    if failed is None and len(facts.verify) < len(goal.verify):
        return _unverified(goal, facts, s, ctx)
    prefix, s = _context_pressure(ev, s, doc, ctx)
    if failed is not None and shaping:
        return _failed_while_shaping(failed, goal, s, ctx, prefix)
    if failed is not None:
        return _failed(failed, goal, s, ctx, prefix)
    return _passed(facts, goal, doc, s, ctx, prefix)


SHAPING_PHASES = frozenset(
    {"shaping", "research", "prototype", "to-spec", "to-tickets", "survey", "design-review"}
)
"""The phases of the coarse-goal routes (``idea-to-ship`` and ``architecture`` in the built-in
catalog) before the work is implemented: a failing verify there is expected, not a round to
spend (test-pinned against the catalog)."""


def _shaping(goal: Goal, s: GoalState, ctx: Context) -> tuple[bool, GoalState]:
    """Whether a coarse goal's route still shapes the work, so a failing verify at this stop
    spends no repair round (it still runs: delegation is not abandonment, seed 001 §7). The
    stop at which the route starts (Claude Code: the stop after the prompt that set the goal)
    counts as shaping once; a route that never starts (not in the catalog) shapes no more."""
    if not goal.route:
        return False, s
    view = ctx.workflow
    if view is None or view.goal_id != goal.goal_id:
        return (True, replace(s, route_waited=True)) if not s.route_waited else (False, s)
    return view.phase in SHAPING_PHASES, s


def _unverified(goal: Goal, facts: Facts, s: GoalState, ctx: Context) -> Verdict[GoalState]:
    """The engine could not run every verify command (not approved, none left to try): never a
    pass by default, and not a round either; the stop stands and the user is told why."""
    ran = {run.command for run in facts.verify}
    missing = ", ".join(f"`{c}`" for c in goal.verify if c not in ran)
    note = Notify(ctx.say("goal.unverified_user", commands=missing), "warning")
    return Verdict((note, Record("goal_unverified", {"missing": missing})), s)


def _failed_while_shaping(
    run: VerifyRun, goal: Goal, s: GoalState, ctx: Context, prefix: str
) -> Verdict[GoalState]:
    """A failing verify while the goal's route shapes the work: the agent is sent back with the
    evidence once per phase, no round spent and no failure recorded (the first failure once it
    implements is not "the same failure again"); another stop in the same phase (an interview
    waiting on the user) is allowed, and the user is told why. Bounded by the phases."""
    from goalkeeper.core.goals.verify import failure_headline

    say = ctx.say
    view = ctx.workflow
    phase = view.phase if view is not None and view.phase else ""  # "": about to start
    result = _result(run, ctx)
    label = phase or say("goal.shaping.first_step")
    data: dict[str, object] = {"phase": phase, "command": run.command, "exit": run.exit_code}
    if s.shaping_told == phase:
        line = failure_headline(run.output_tail) or "-"
        note = say(
            "goal.shaping_stop_user", command=run.command, result=result, line=line, phase=label
        )
        return Verdict((Notify(note), Record("goal_shaping_stop", data)), s)
    text = say(
        "goal.failed_shaping",
        command=run.command,
        result=result,
        phase=label,
        route=goal.route or "-",
        tail=run.output_tail[-TAIL_CHARS:].strip() or "(no output)",
    )
    progress = say("goal.progress.failed_shaping", command=run.command, result=result, phase=label)
    body = "\n\n".join(part for part in (prefix, text) if part)
    actions = (Notify(progress), Continue(body), Record("goal_shaping_failed", data))
    return Verdict(actions, replace(s, shaping_told=phase))


def _upgrade(goal: Goal, s: GoalState, ctx: Context) -> Verdict[GoalState]:
    """``status: needs-upgrade`` (the skill's signal that a goal is coarser than it looked):
    the goal is moved onto the route that fits it (``size.route_for``), which the workflow guard
    then starts. Its promise (objective, verify, criteria) is unchanged, so nothing is proven by
    it."""
    from goalkeeper.core.goals.size import route_for

    say = ctx.say
    route = goal.route or route_for(goal.objective)
    line = say("goal.log.upgraded", time=stamp(ctx.now), route=route)
    update = GoalUpdate({"status": "active", "route": route}, (line,))
    text = say("goal.upgraded", route=route, objective=goal.objective)
    return Verdict(
        (WriteGoal(update), Continue(text), Record("goal_upgraded", {"route": route})),
        replace(s, route_waited=False),
    )


def _failed(
    run: VerifyRun, goal: Goal, s: GoalState, ctx: Context, prefix: str
) -> Verdict[GoalState]:
    """A failure: the same signature again blocks at once (no round spent); past the limit
    blocks; otherwise one more round, with the evidence."""
    from goalkeeper.core.goals.verify import failure_headline, failure_signature

    say, now = ctx.say, stamp(ctx.now)
    signature = failure_signature(run.output_tail)
    line = failure_headline(run.output_tail)
    result = _result(run, ctx)
    if signature == goal.last_failure.signature:
        update = GoalUpdate(
            {"status": "blocked", "blocked_reason": "same failure twice"},
            (say("goal.log.same", time=now, command=run.command, line=line),),
        )
        pause = Pause(say("goal.blocked_same", command=run.command, line=line))
        record = Record("goal_blocked", {"why": "same"})
        return Verdict((WriteGoal(update), pause, record, *ask_paused(goal, ctx)), s)
    attempts = goal.attempts + 1
    failure = {
        "command": run.command,
        "exit": run.exit_code,
        "signature": signature,
        "tail": run.output_tail[-500:],
        "at": now,
    }
    if attempts > goal.rounds:
        told, s = _stagnation(goal, s, ctx)  # a recovery prompt is moot now; the user is not
        update = GoalUpdate(
            {"status": "blocked", "blocked_reason": "round limit", "last_failure": failure},
            (say("goal.log.limit", time=now, rounds=goal.rounds, command=run.command),),
        )
        pause = Pause(
            say("goal.blocked_limit", rounds=goal.rounds, command=run.command, result=result)
        )
        record = Record("goal_blocked", {"why": "limit"})
        user = tuple(a for a in told if isinstance(a, Notify))
        return Verdict((WriteGoal(update), pause, *user, record, *ask_paused(goal, ctx)), s)
    log = say(
        "goal.log.failed",
        time=now,
        n=attempts,
        rounds=goal.rounds,
        command=run.command,
        result=result,
        line=line,
    )
    update = GoalUpdate({"attempts": attempts, "retries": 0, "last_failure": failure}, (log,))
    text = say(
        "goal.failed",
        n=attempts,
        rounds=goal.rounds,
        command=run.command,
        result=result,
        tail=run.output_tail[-TAIL_CHARS:].strip() or "(no output)",
    )
    progress = say(
        "goal.progress.failed", n=attempts, rounds=goal.rounds, command=run.command, result=result
    )
    actions: list[Action] = [WriteGoal(update), Notify(progress)]
    stagnation, s = _stagnation(goal, s, ctx)
    actions += stagnation
    body = "\n\n".join(part for part in (prefix, text) if part)
    actions.append(Continue(body))
    actions.append(Record("goal_failed", {"n": attempts, "signature": signature}))
    return Verdict(tuple(actions), s)


def _passed(
    facts: Facts,
    goal: Goal,
    doc: GoalDoc,
    s: GoalState,
    ctx: Context,
    prefix: str,
) -> Verdict[GoalState]:
    say, now = ctx.say, stamp(ctx.now)
    commands = ", ".join(f"`{c}`" for c in goal.verify)
    passed = Notify(say("goal.progress.passed", command=", ".join(goal.verify)))
    replay = facts.tamper
    if replay is not None and not replay.passed:
        key = tests_key(replay)
        held = tests_held(replay, s.tests_held == key, doc.path, ctx)
        return Verdict((passed, *held), replace(s, tests_held=key))
    if facts.hidden is not None and not facts.hidden.passed:
        key = hidden_key(facts.hidden)
        held = hidden_failed(facts.hidden, s.tests_held == key, ctx)
        return Verdict((passed, *held), replace(s, tests_held=key))
    proven = proven_criteria(goal)  # "`cmd` exits 0": goalkeeper just saw it, ticks it itself
    unchecked = unchecked_criteria(goal)  # the user's to settle: ticked or not, they hold
    open_criteria = tuple(
        c for c in goal.open_criteria if c.text not in proven and c.text not in unchecked
    )
    if not open_criteria and unchecked:  # issue 23: a proof of part is not proof of the goal
        items = "\n".join(f"- {text}" for text in unchecked)
        pause = Pause(say("goal.unchecked_user", items=items))
        return Verdict((passed, pause, Record("goal_unchecked", {"n": len(unchecked)})), s)
    if open_criteria:
        items = "\n".join(f"- [ ] {c.text}" for c in open_criteria)
        text = say("goal.criteria_open", commands=commands, path=doc.path, items=items)
        stagnation, s = _stagnation(goal, s, ctx)
        if proven:  # goalkeeper's own tick is not the agent's progress
            s = replace(s, last_passing=s.last_passing + len(proven))
        body = "\n\n".join(part for part in (prefix, text) if part)
        if goal.retries == 0 and s.passed_logged == len(goal.progress_log) and not proven:
            return Verdict((passed, *stagnation, Continue(body)), s)  # logged already: no write
        logged = s.passed_logged == len(goal.progress_log)
        lines = () if logged else (say("goal.log.passed", time=now, commands=commands),)
        update = GoalUpdate({"retries": 0}, lines, tick=proven)
        # goalkeeper's own line is not the agent's progress (in Chinese it says 通过).
        seen = len(goal.progress_log) + len(lines)
        s = replace(s, passed_logged=seen, log_seen=seen)
        return Verdict((WriteGoal(update), passed, *stagnation, Continue(body)), s)
    return complete_goal(facts, goal, s, ctx, proven)


def complete_goal(
    facts: Facts,
    goal: Goal,
    s: GoalState,
    ctx: Context,
    proven: tuple[str, ...],
    also: tuple[Action, ...] = (),
    *,
    archived: bool = True,
) -> Verdict[GoalState]:
    """The goal is proven: logged, archived, its promise closed, the agent let go. Not
    ``archived``: GOAL.md holds another goal the user has not approved, which stays; only the
    proven goal's record is closed (``GoalUpdate.goal_id``)."""
    say, now = ctx.say, stamp(ctx.now)
    commands = ", ".join(f"`{c}`" for c in goal.verify)
    passed = Notify(say("goal.progress.passed", command=", ".join(goal.verify)))
    update = GoalUpdate(
        {"status": "complete", "retries": 0},
        (
            say("goal.log.passed", time=now, commands=commands),
            say("goal.log.complete", time=now),
        ),
        archive=True,
        tick=proven,
        goal_id=goal.goal_id,  # GOAL.md may hold the agent's replacement: not to be archived
    )
    key = "goal.complete" if archived else "goal.complete_file_kept"
    close = Close(say(key, objective=goal.objective, commands=commands))
    record = Record("goal_complete", proof_record(facts.verify, facts.tamper, facts.hidden))
    if s.review_goal != goal.goal_id and may_ask_review(ctx):
        # Proven and archived now; the close waits one round for the reviewer (seed 002).
        criteria = tuple(c.text for c in goal.criteria)
        ask = goal_review(goal.objective, criteria, commands, ctx)
        asked = Record("review_asked", {"goal": goal.goal_id})
        s = replace(s, review_goal=goal.goal_id, review_close=close.summary)
        return Verdict((WriteGoal(update), passed, *also, ask, record, asked), s)
    return Verdict((WriteGoal(update), passed, close, record, *also), s)


def proven_criteria(goal: Goal) -> tuple[str, ...]:
    """The open criteria goalkeeper wrote for the goal's verify commands ("`pytest -q` exits
    0", in either language), which the passing verify it just ran proves."""
    from goalkeeper.core.messages import render

    own = {
        " ".join(render(lang, "goal.criterion.command", command=command).split())
        for command in goal.verify
        for lang in ("en", "zh")
    }
    return tuple(c.text for c in goal.open_criteria if " ".join(c.text.split()) in own)


def unchecked_criteria(goal: Goal) -> tuple[str, ...]:
    """The criteria goalkeeper wrote for conditions no command checks ("coverage is at least
    80% (no command checks this …)", in either language), in any state: the agent's tick or
    cancel in GOAL.md does not settle them; the user drops them (``goal approve``) or gives a
    command."""
    from goalkeeper.core.messages import render

    marks = [
        render(lang, "goal.criterion.unchecked", words="\x00").split("\x00")
        for lang in ("en", "zh")
    ]
    return tuple(
        c.text
        for c in goal.criteria
        if any(len(m) == 2 and c.text.startswith(m[0]) and c.text.endswith(m[1]) for m in marks)
    )


ASK_KEY = "goal.blocked"


def ask_paused(goal: Goal, ctx: Context) -> tuple[Action, ...]:
    """Where the host can ask (Pi), a paused goal asks the user: continue, back to the plan, or
    stop. Nobody answering means stop: the pause stands, which is the safe default."""
    if "ask" not in ctx.capabilities:
        return ()
    from goalkeeper.core.goals.goal import resumed_rounds

    say = ctx.say
    more_rounds = resumed_rounds(goal) - goal.attempts
    options = (
        ("continue", say("goal.ask.continue", rounds=more_rounds)),
        ("plan", say("goal.ask.plan")),
        ("stop", say("goal.ask.stop")),
    )
    title = say("goal.ask.title", objective=goal.objective)
    return (Ask(ASK_KEY, title, options, "stop", CONFIRM_TIMEOUT_S),)


def _honest_exit(
    reason: str, goal: Goal, doc: GoalDoc, s: GoalState, ctx: Context
) -> Verdict[GoalState]:
    update = GoalUpdate(
        {"status": "blocked", "blocked_reason": reason},
        (ctx.say("goal.log.agent_blocked", time=stamp(ctx.now), reason=reason),),
    )
    pause = Pause(ctx.say("goal.blocked_agent", reason=reason, path=doc.path))
    return Verdict((WriteGoal(update), pause, Record("goal_blocked", {"why": "agent"})), s)


def _run_error(error: str, goal: Goal, s: GoalState, ctx: Context) -> Verdict[GoalState]:
    """Seed 001: tool and API failures are retried with per-iteration exponential backoff;
    after ``retries_max`` the goal is blocked with a strategy-change prompt."""
    say, now = ctx.say, stamp(ctx.now)
    if ctx.now < s.retry_after:  # still inside the last error's backoff: the same outage
        early = Record("goal_retry_early", {"error": error[:200]})
        return Verdict((early,), replace(s, retry_error=error))
    n = goal.retries + 1
    if n > goal.retries_max:
        update = GoalUpdate(
            {"status": "blocked", "blocked_reason": f"retries exhausted: {error}"},
            (say("goal.log.retries_exhausted", time=now, max=goal.retries_max, error=error),),
        )
        pause = Pause(say("goal.retries_exhausted", max=goal.retries_max, error=error))
        record = Record("goal_blocked", {"why": "retries"})
        return Verdict((WriteGoal(update), pause, record), replace(s, retry_error=None))
    from goalkeeper.core.goals.retry import retry_delay_s

    delay = retry_delay_s(n, ctx.config.retry_base_ms)
    s = replace(s, retry_after=ctx.now + delay, retry_error=error)
    update = GoalUpdate(
        {"retries": n}, (say("goal.log.retry", time=now, error=error, n=n, max=goal.retries_max),)
    )
    retry = Record("goal_retry", {"n": n, "max": goal.retries_max, "delay_s": delay})
    if "schedule" in ctx.capabilities:
        s = replace(s, retry_error=None)  # the host retries with the text itself
        return Verdict((WriteGoal(update), Retry(delay, say("goal.retry", error=error)), retry), s)
    note = say("goal.retry_user", error=error, n=n, max=goal.retries_max, delay=f"{delay:g}")
    return Verdict((WriteGoal(update), Notify(note, "warning"), retry), s)


def _stagnation(goal: Goal, s: GoalState, ctx: Context) -> tuple[tuple[Action, ...], GoalState]:
    """Dual signal (seed 001 §6): the passing-criteria count the same for 3 iterations in a
    row (the goal's setting or the last progress is the first) **and** no progress words in the
    Progress Log lines written meanwhile → a recovery prompt; still stuck at the next stop, a
    second one; still stuck, the user is told (once). Progress starts the ladder over."""
    passing = goal.passing_criteria
    new_lines = goal.progress_log[s.log_seen :]
    seen = len(goal.progress_log)
    if passing != s.last_passing or has_progress_words(new_lines):
        return (), replace(s, last_passing=passing, stagnant=0, recoveries=0, log_seen=seen)
    s = replace(s, stagnant=s.stagnant + 1, log_seen=seen)
    if s.stagnant < STAGNANT_ITERATIONS - 1:  # stops since the first of the 3 iterations
        return (), s
    if s.recoveries < RECOVERY_PROMPTS:
        text = ctx.say("goal.stagnant", n=s.stagnant, passing=passing, path=goal_path(ctx))
        return (Advise(text, "next_turn"),), replace(s, recoveries=s.recoveries + 1)
    if s.told_user:
        return (), s
    return (Notify(ctx.say("goal.stagnant_user", n=s.stagnant), "warning"),), replace(
        s, told_user=True
    )


def _context_pressure(
    ev: Settled, s: GoalState, doc: GoalDoc, ctx: Context
) -> tuple[str, GoalState]:
    ratio = ev.activity.context_ratio(ctx.config.context_window)
    if ratio is None:
        return "", s
    if ratio < ctx.config.compact_at:
        return "", replace(s, context_warned=False)
    if s.context_warned:
        return "", s
    text = ctx.say("goal.context_save", percent=round(ratio * 100), path=doc.path)
    return text, replace(s, context_warned=True)


def _result(run: VerifyRun, ctx: Context) -> str:
    if run.timed_out:
        return ctx.say("goal.timed_out", seconds=f"{run.seconds:.0f}")
    if run.no_tests:
        return ctx.say("proof.verify.no_tests")
    return ctx.say("goal.exit", code=run.exit_code)
