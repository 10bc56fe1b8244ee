"""English message catalog: goals and the verify/repair loop (seed 001, seed 004 §4).

Same keys and fields as ``messages.goal_zh`` (golden-tested).
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    "goal.anchors": "Goal (from {path}): {objective}\n- verify: {verify}\n- acceptance criteria: {done} of {total} ticked\n- repair rounds used: {attempts} of {rounds}",
    "goal.anchors.failure": "- last failure: `{command}` (exit {exit}): {line}",
    "goal.anchors.none": "(none yet)",
    "goal.recorded": (
        "Goal recorded in {path}: {objective}\n"
        "Verify: {verify}. goalkeeper runs it itself at every stop; the goal is done when it "
        "passes and every acceptance criterion in {path} is ticked with its evidence. Fix causes, "
        "never the tests. If the goal turns out impossible, end a reply with "
        "`[GOAL] blocked: <reason>`: that is recorded, never punished."
    ),
    "goal.recorded_user": "goalkeeper: goal set ({source}): {objective} — verify: {verify}",
    "goal.exists": "goalkeeper: a goal is already active ({objective}); `goalkeeper goal set --replace …` replaces it.",
    "goal.exists.blocked": "goalkeeper: a paused goal is waiting ({objective}); `goalkeeper goal resume` continues it, `goalkeeper goal set --replace …` replaces it.",
    "goal.no_verify_user": "goalkeeper: no verify command was found for this goal; set one (the goal without one is replaced): goalkeeper goal set --replace --verify '<command>' \"<goal>\"",
    "goal.no_verify_model": 'The goal has no verification command yet. Propose one: add `verify: ["<command>"]` to the frontmatter of {path} and a Progress Log line saying why.',
    "goal.failed": (
        "[{n}/{rounds}] `{command}` failed ({result}). The failure, last lines:\n{tail}\n"
        "Fix the cause, not the check: do not delete, skip or weaken tests. When you stop, "
        "goalkeeper runs the verification again."
    ),
    "goal.exit": "exit {code}",
    "goal.progress.failed": "goalkeeper: [{n}/{rounds}] {command} … failed ({result})",
    "goal.progress.passed": "goalkeeper: {command} … passed",
    "goal.timed_out": "timed out after {seconds} s",
    "goal.blocked_same": (
        "goalkeeper paused the goal: `{command}` failed again with the same failure ({line}), so "
        "the last fix did not change it. Resume with `goalkeeper goal resume`, go back to the "
        "plan, or stop with `goalkeeper goal clear`."
    ),
    "goal.blocked_limit": (
        "goalkeeper paused the goal after {rounds} repair rounds: `{command}` still fails "
        "({result}). Resume with `goalkeeper goal resume` ({rounds} more rounds), go back to the "
        "plan, or stop with `goalkeeper goal clear`."
    ),
    "goal.blocked_agent": "goalkeeper paused the goal: the agent reports it is blocked: {reason}. It is recorded in {path}; resume with `goalkeeper goal resume`.",
    "goal.criteria_open": (
        "Verification passes ({commands}). Now tick each acceptance criterion in {path} with its "
        "evidence (`- [x]`), or cut it with a reason (`- [-] … (cancelled: <reason>)`). Still open:\n{items}"
    ),
    "goal.complete": "goalkeeper: goal proven: {objective}. Verified by {commands}; archived to .agents/goal/archive/.",
    "goal.complete_file_kept": "goalkeeper: goal proven: {objective}. Verified by {commands}; GOAL.md, which now holds another goal, is left as it is.",
    "goal.stagnant": (
        "No measurable progress for {n} iterations: the same {passing} criteria pass and the "
        "Progress Log records no progress. Step back: re-read the failure, question the approach, "
        "try one different hypothesis, and log what you learn in {path}."
    ),
    "goal.stagnant_user": "goalkeeper: the goal has made no progress for {n} iterations, even after two recovery prompts; it may need your input.",
    "goal.retry": "The previous run ended with an error ({error}). Resume from the last completed step; check existing tool results before repeating anything.",
    "goal.retry_user": "goalkeeper: the run ended with an error ({error}); retry {n} of {max} would start after {delay} s. Send a message to resume now.",
    "goal.retries_exhausted": "goalkeeper paused the goal after {max} failed retries ({error}). Change the strategy (a smaller step, another tool, a different approach), then resume with `goalkeeper goal resume`.",
    # -- `goalkeeper run`: it starts the session again after an API error (seed 001 §5) -------
    "goal.run_retry_prompt": "Continue the task from where the previous turn stopped.",
    "goal.run_retry": "goalkeeper: the agent's turn ended on an API error ({error}); retry {n} of {max} resumes session {session} in {delay} s.",
    "goal.run_retries_exhausted": "goalkeeper: the agent's turns still end on API errors after {max} retries over {minutes} min ({error}); it stopped retrying. Change the strategy (wait for the service, another model or account, a smaller step), then run again: `claude --resume {session}` continues the session.",
    "goal.context_save": "Context is {percent}% full: write the goal's progress into the Progress Log of {path} now, so nothing is lost when the history is compacted.",
    "goal.problem": "goalkeeper: {path} cannot be used ({problem}); the goal is not checked until it is fixed.",
    "goal.log.set": "{time} goal set ({source}): {objective}",
    "goal.log.failed": "{time} [{n}/{rounds}] {command} failed ({result}): {line}",
    "goal.log.same": "{time} blocked: {command} failed again with the same failure: {line}",
    "goal.log.limit": "{time} blocked: {rounds} repair rounds used; {command} still fails",
    "goal.log.agent_blocked": "{time} blocked (reported by the agent): {reason}",
    "goal.log.passed": "{time} verified: {commands} passed",
    "goal.log.complete": "{time} complete: verification passed and every criterion is closed",
    "goal.log.retry": "{time} run error ({error}); retry {n} of {max}",
    "goal.log.retries_exhausted": "{time} blocked: {max} retries failed ({error})",
    "goal.log.resumed": "{time} resumed by the user; rounds {attempts} of {rounds}",
    "goal.log.cleared": "{time} cleared by the user",
    "goal.log.manual_verify": "{time} manual verification: {result}",
    "goal.source.agent": "{agent}'s shell",
    "goal.source.command": "command",
    "goal.source.phrase": "the user's words",
    "goal.source.cli": "goalkeeper goal set",
    "goal.criterion.command": "`{command}` exits 0",
    "goal.criterion.stage": "stage {n}: {stage}",
    "goal.criterion.unchecked": "{words} (no command checks this: only the user can settle it)",
    "goal.condition.checked": "- {words} → {commands}",
    "goal.condition.unchecked": "- {words} → no command found in this project: kept as a criterion the goal cannot be proven without; give one with goalkeeper goal set --replace --verify '<command>' \"<goal>\", or drop it from GOAL.md and run goalkeeper goal approve",
    "goal.conditions_user": "goalkeeper: what each condition of the goal became:\n{items}",
    "goal.unchecked_user": "goalkeeper: the goal's verify passed, but these conditions have no command that checks them, so the goal is not proven:\n{items}\nGive a command for each (goalkeeper goal set --replace --verify '<command>' \"<goal>\"), or drop them from GOAL.md and run goalkeeper goal approve.",
    "goal.command_file": '---\ndescription: "Set a goal goalkeeper verifies itself at every stop (GOAL.md)"\nargument-hint: "<what must be true, e.g. `pytest -q` passes and mypy is clean>"\n---\nGoal: $ARGUMENTS\n\nWork until this goal is met. goalkeeper records it in .agents/goal/GOAL.md, runs its verification at every stop and tells you what still fails.\n',
    # -- Pi: the /goal command -----------------------------------------------------------------
    "goal.pi.command": "Set a goal goalkeeper verifies itself at every stop (GOAL.md); without text: show the goal",
    "goal.pi.prompt": "Goal: {goal}\n\nWork until this goal is met. goalkeeper records it in .agents/goal/GOAL.md, runs its verification at every stop and tells you what still fails.",
    "goal.pi.none": "goalkeeper: no goal. Set one: /goal <what must be true, e.g. `pytest -q` passes>",
    "goal.pi.status": "goalkeeper goal ({path}): {objective} — {status}; repair rounds used {attempts} of {rounds}; acceptance criteria {done} of {total} ticked.",
    # -- a paused goal: the user's choice where the host can ask (Pi) ----------------------------
    "goal.ask.title": "goalkeeper paused the goal: {objective}. What next?",
    "goal.ask.continue": "Continue: {rounds} more repair rounds",
    "goal.ask.plan": "Back to the plan: leave the goal paused",
    "goal.ask.stop": "Stop here",
    "goal.choice.continue": "The user chose to continue the goal ({objective}) with {rounds} more repair rounds. The last failure was: {line}. Try a different fix than last time, then stop: goalkeeper runs `{commands}` again.",
    "goal.choice.plan": "The user chose to leave the goal paused and go back to the plan. Pick the next open item of the plan and work on it; the goal stays in {path} for later.",
    "goal.choice.stop": "goalkeeper: the goal stays paused. Resume it any time with `goalkeeper goal resume` (or /goal in Pi).",
    "goal.resent.resumed": "The user sent the paused goal again ({objective}): it resumes from where it stopped, with {rounds} more repair rounds. The last failure was: {line}. Try a different fix than last time, then stop: goalkeeper runs `{commands}` again.",
    "goal.resent.active": "The user sent the goal again ({objective}): it is already active and goes on from where it is (repair rounds used: {attempts} of {rounds}). Continue with the next step toward it.",
    "goal.paused_anchor": "Goal paused (from {path}): {objective}\n- paused because: {reason}\n- goalkeeper does not verify it until the user resumes it (by sending the goal again or with `goalkeeper goal resume`). Work on what the user asks now; do not report the goal as done.",
    "goal.paused_strategy": "Before it resumes, change the strategy: a smaller step, another tool, a different approach.",
    "goal.upgraded": "The goal ({objective}) was marked `needs-upgrade`: it is coarser than one loop of fixes, so goalkeeper now works it through the `{route}` route. Follow the route's phases; the goal's verify and acceptance criteria stay as they are.",
    "goal.log.upgraded": "{time} upgraded to the {route} route (status: needs-upgrade)",
    "goal.confirm.title": "goalkeeper read a goal in your message: {objective}. It will verify it at every stop. Keep it?",
    "goal.confirm.keep": "Keep it as the goal",
    "goal.confirm.drop": "Drop it: that was not a goal",
    "goal.confirm.dropped": "goalkeeper: dropped the goal ({objective}); it is archived under .agents/goal/archive/.",
    "goal.stale.title": "A goal is still active from {hours} h ago: {objective}. Go on with it?",
    "goal.stale.continue": "Go on with it",
    "goal.stale.pause": "Pause it for now",
    "goal.stale.paused": "goalkeeper: the goal ({objective}) is paused. Resume it by sending it again or with `goalkeeper goal resume`.",
    "goal.log.paused_user": "{time} paused by the user",
    "goal.failed_shaping": (
        "The goal's verification still fails: `{command}` ({result}). That is expected while the "
        "{route} workflow shapes the work (phase {phase}), so no repair round is spent. The "
        "failure, last lines:\n{tail}\nGo on with the workflow's current step; the goal is "
        "proven only when this verification passes, and goalkeeper runs it at every stop."
    ),
    "goal.progress.failed_shaping": "goalkeeper: {command} … failed ({result}); the workflow is at {phase}: no repair round spent",
    "goal.shaping_stop_user": "goalkeeper: the agent stopped while the goal's workflow is at {phase}; `{command}` still fails ({result}: {line}). No repair round is spent before the work is implemented and the agent was already sent back once in this phase, so this stop stands; send a message to go on.",
    "goal.shaping.first_step": "its first step",
    "goal.unverified_user": "goalkeeper: the goal's verification could not run at this stop ({commands} did not run), so nothing was proven and the stop stands; `goalkeeper goal verify` runs it from your terminal.",
}
