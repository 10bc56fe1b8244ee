"""English message catalog: every word goalkeeper says to the model or the user.

Tone (seed 000 §7): positive first, then one next step; one variable at a time; failure is
evidence; when a decision is needed, take the most reasonable reversible default and record why;
a refused close names every failing gate at once. ``{name}`` fields are filled by ``render``.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # -- static guidance (cache-safe: never formatted with dynamic values) ---------------------
    "guidance.static": (
        "goalkeeper keeps this task on its plan until it is proven done.\n"
        "Three principles:\n"
        "1. Value is a state change the user can perceive.\n"
        "2. Evidence is a re-runnable behaviour result, or an observable KR figure or user "
        'feedback. "Looks fine" is not evidence.\n'
        "3. Done means every commitment has evidence, or was cancelled explicitly with a reason.\n"
        "The plan lives in plan/<topic>.md (SWOT, Objective, Key Results, User Story Map); you "
        "maintain it, goalkeeper only reads it.\n"
        "End every reply with one line reporting your PDCA phase:\n"
        "[PDCA] plan | [PDCA] do | [PDCA] check | [PDCA] act | [PDCA] complete | "
        "[PDCA] blocked: <reason>\n"
        "Do changes one variable; check it with re-runnable evidence before you act or complete."
    ),
    # -- no plan -------------------------------------------------------------------------------
    "guide.no_plan": (
        "Good progress. If this task needs more than one step, give it a plan so it survives "
        "compaction: write plan/<topic>.md with `## SWOT` (S:/W:/O:/T: lines), `## Objective` "
        "(one sentence of user value), `## Key Results` (`- [ ] KR: baseline → target`) and "
        "`## User Story Map` (an indented checklist; the first slice is the smallest end-to-end "
        "loop). Then end your reply with `[PDCA] plan`. If this was a one-off answer, just stop: "
        "goalkeeper will not ask again in this session."
    ),
    "guide.empty_plan": (
        "{path} has no key results and no story-map leaves, so nothing in it can hold or close "
        "the work. If this task needs more than one step, add them (`## Key Results` with "
        "`- [ ] KR: baseline → target`, `## User Story Map` with a checklist) and end your reply "
        "with `[PDCA] plan`; if it was a one-off answer, just stop."
    ),
    # -- anchors -------------------------------------------------------------------------------
    "anchors.header": "Plan anchors (from {path}):",
    "anchors.objective": "- Objective: {objective}",
    "anchors.krs": "- Open key results: {items}",
    "anchors.krs_more": " (+{n} more)",
    "anchors.leaf": "- Next map leaf: {leaf}",
    "anchors.map_done": "- Story map: every leaf is done or cancelled.",
    "anchors.swot": "- SWOT: {swot}",
    "anchors.progress": "now {current}; {baseline} → {target}",
    # -- next phase ----------------------------------------------------------------------------
    "phase.plan": (
        "Plan recorded. Next: [PDCA] do: change one variable, the one with the most effect on "
        "the open KR's evidence, with real actions."
    ),
    "phase.do": (
        "Change made. Next: [PDCA] check: verify it with re-runnable evidence (run the test, "
        "the command, the measurement) and compare with what you expected."
    ),
    "phase.check": (
        "Evidence in hand. Next: [PDCA] act: standardize what the evidence supports, or rewrite "
        "the plan where it refutes it. Tick what is proven (`- [x]`) in the plan."
    ),
    "phase.act": (
        "Loop closed. If every KR and map leaf is done or cancelled with a reason, report "
        "[PDCA] complete. Otherwise [PDCA] plan the next smallest loop: update SWOT with what you "
        "learned and pick the next open leaf."
    ),
    "phase.none": (
        "Keep going. Your last reply had no phase line: end every reply with `[PDCA] <phase>`. "
        "Continue from the plan: the next smallest step on the next open leaf."
    ),
    # -- refused close -------------------------------------------------------------------------
    "close.refused": "Not closed yet: {count} gate(s) still open. Fix them together, then report [PDCA] complete again.",
    "gate.check.no_check": (
        "- Check gate: no [PDCA] check was reported. Run re-runnable evidence (tests, the "
        "command, the measurement) and report [PDCA] check."
    ),
    "gate.check.do_after_check": (
        "- Check gate: there was a [PDCA] do after the last check. Check that change with "
        "re-runnable evidence and report [PDCA] check."
    ),
    "gate.check.check_without_evidence": (
        "- Check gate: the last [PDCA] check ran no tool, so it produced no re-runnable "
        "evidence. Run the check for real and report [PDCA] check."
    ),
    "gate.okr": "- OKR gate: {n} key result(s) not closed in {path}:",
    "gate.map": "- Map gate: {n} story-map leaf(s) not closed in {path}:",
    "gate.item.open": "  - [ ] {text}",
    "gate.item.no_reason": "  - [-] {text} (cancelled without a reason)",
    "gate.item.short": "  - [x] {text} (ticked, but its current figure has not reached the target)",
    "gate.item.more": "  - … and {n} more",
    "gate.ways_out": (
        "For each open item choose one way and write it into the plan:\n"
        "1. Do it, with evidence, then tick it: `- [x]`.\n"
        "2. Cut it: `- [-] … (cancelled: <reason>)`.\n"
        "3. Rewrite the KR: still measurable (baseline → target), an outcome, not a task."
    ),
    # -- blocked -------------------------------------------------------------------------------
    "blocked.decide": (
        "Blocked: {reason}. Do not hand the uncertainty back to the user. Pick the most "
        "reasonable, reversible, lowest-risk default, record the decision and why in the plan, "
        "and continue with [PDCA] plan."
    ),
    "blocked.no_reason": "no reason given",
    # -- stuck ---------------------------------------------------------------------------------
    "stuck.compact": (
        "{rounds} rounds without a tool call: the step is too big or the evidence too far. "
        "History is being compacted; afterwards re-read the plan and [PDCA] plan a smaller loop."
    ),
    "stuck.save": (
        "{rounds} rounds without a tool call: the step is too big or the evidence too far. "
        "Write the current state and what you learned into the plan now, then [PDCA] plan a "
        "smaller loop, one variable, with evidence you can run."
    ),
    "stuck.clear": (
        "{rounds} rounds without a tool call: the step is too big or the evidence too far. "
        "goalkeeper cleared the conversation so you start fresh: the earlier turns are gone, and "
        "what stands is below (the goal, the plan on disk and its next open step). Re-read the "
        "plan file, then [PDCA] plan a smaller loop, one variable, with evidence you can run. End "
        "every reply with one line reporting your PDCA phase: [PDCA] plan | [PDCA] do | "
        "[PDCA] check | [PDCA] act | [PDCA] complete | [PDCA] blocked: <reason>."
    ),
    "stuck.clear.request": "The user's last message (the cleared chat held it):\n{request}",
    "stuck.pause": (
        "goalkeeper paused: still no tool calls after {resets} re-plans. The plan is on disk; "
        "give the agent a hint or a smaller task to resume (a new prompt restarts the count)."
    ),
    "compact.instructions": (
        "Keep the plan path, the objective, the open key results, the next open map leaf, the "
        "last PDCA phase and the latest evidence."
    ),
    # -- context and session size --------------------------------------------------------------
    "context.save_state": (
        "Context is {percent}% full and will be compacted soon. Before anything else, write the "
        "current state into the plan (what is done with its evidence, what is next), so nothing "
        "is lost."
    ),
    "stuck.unmeasured": (
        "goalkeeper cannot read this session's transcript, so it cannot count the agent's tool "
        "calls: the stuck rule (re-plan after rounds without a tool) is off until it can, and "
        "checks that need a tool call do not count."
    ),
    "session.too_large": (
        "goalkeeper paused: this session's transcript is {mb} MB, over the {limit} MB limit. The plan is "
        "on disk: start a new session (/clear or a new terminal) and it will pick up from there."
    ),
    # -- pauses and closes (for the user) ------------------------------------------------------
    "pause.aborted": "goalkeeper paused: the run was aborted. Send a message to resume.",
    "pause.error": "goalkeeper paused: the run ended with an error ({error}). Send a message to resume.",
    "pause.cap": (
        "goalkeeper paused after {n} automatic continuations in a row (max_continuations). "
        "Send a message to resume (it restarts the count), or raise the limit."
    ),
    "close.done": "goalkeeper: every gate passes ({gates}); the task is closed.",
    "close.done_no_plan": "goalkeeper: [PDCA] complete reported; no plan file to check.",
    # -- problems (for the user) ---------------------------------------------------------------
    "plan.unreadable": "goalkeeper: the plan {path} could not be used ({problem}); gates are not checked until it is fixed.",
    "plan.note": "goalkeeper: the plan {path} was used with a caveat: {note}.",
    "hook.internal_error": "goalkeeper: internal error ({error}); the agent was not blocked. Details: goalkeeper status.",
    "hook.background_wait": (
        "goalkeeper: the agent stopped with {n} background task(s) still running, so nothing is "
        "decided yet: the work is not judged done; goalkeeper decides at the stop after them."
    ),
    "hook.bad_input": "goalkeeper: {problem}; the agent was not blocked.",
    "hook.unknown_event": "goalkeeper: ignored the unknown hook event '{event}'.",
    "hook.block_cap_low": (
        "goalkeeper: CLAUDE_CODE_STOP_HOOK_BLOCK_CAP={cap} is below the {n} continuations without "
        "a tool call that goalkeeper allows in a row (stuck × (reset + 1) − 1), so Claude Code "
        'would end such a streak first. Raise it: add "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "{n}" to '
        "the `env` of ~/.claude/settings.json (a plugin cannot set it), or run "
        "`goalkeeper install claude` again for a settings install."
    ),
    "config.warning": "goalkeeper config: {warning}",
}
