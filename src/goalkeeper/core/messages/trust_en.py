"""English messages of the trust boundary: held goals, pinned settings, refused re-runs,
goalkeeper's own state and the hook transport. What the agent writes never widens what
goalkeeper runs; these texts tell the user and the agent what was held and how it is approved.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # -- held goals ---------------------------------------------------------------------------
    "trust.goal.unapproved_user": (
        "goalkeeper: {path} holds a goal nobody approved, so goalkeeper neither runs nor "
        "checks it:\n{diff}\nIf it is yours, run `goalkeeper goal approve` in your own terminal."
    ),
    "trust.goal.changed_user": (
        "goalkeeper: the goal you set was changed in {path}. goalkeeper runs none of the change "
        "and keeps verifying the goal you set, which is not proven yet. What changed:\n{diff}\n"
        "To accept the change, run "
        "`goalkeeper goal approve` in your own terminal; to keep your goal, ask the agent to "
        "put it back."
    ),
    "trust.goal.replaced_user": (
        "goalkeeper: {path} now holds another goal than the one you set ({objective}). "
        "goalkeeper runs none of it and keeps verifying the goal you set, which is not proven "
        "yet:\n{diff}\nTo accept the other goal instead, run `goalkeeper goal approve` in your "
        "own terminal."
    ),
    "trust.goal.missing_user": (
        "goalkeeper: {path} is gone, but the goal you set ({objective}) is not proven. To drop "
        "it, run `goalkeeper goal clear`; to go on, have the file restored "
        "(`goalkeeper goal status` shows what you set)."
    ),
    "trust.goal.held_model": (
        "The goal in {path} is held: it differs from what the user approved, so goalkeeper "
        "will not verify it and the goal is not done. Put back what the user approved, or ask "
        "the user to approve your change. Approved:\n{approved}"
    ),
    "trust.goal.held_work_model": (
        "Your change to {path} waits for the user: goalkeeper does not take it, and the goal "
        "they set is still the one in force and still not done. The goal in force:\n{approved}\n"
        "Do the real work toward it; a change to the goal is the user's to accept."
    ),
    "trust.goal.held_moot_user": (
        "goalkeeper: the goal you set was proven by its own verification and criteria. The "
        "unapproved change to {path} was not applied: nothing of it ran or counted."
    ),
    "trust.goal.replaced_waits_user": (
        "goalkeeper: the goal you set was proven by its own verification and criteria. {path} "
        "now holds another goal, which you did not set ({objective}): goalkeeper left it there "
        "and runs none of it. To make it your next goal, run `goalkeeper goal approve` in your "
        "own terminal; otherwise `goalkeeper goal clear`."
    ),
    "trust.goal.added_user": (
        "goalkeeper: the agent added acceptance criteria to your goal in {path}. They only make "
        "it stricter, so goalkeeper recorded them and the proof must meet them too:\n{items}\n"
        "Its reason: {reason}"
    ),
    "trust.goal.added_no_reason": "(none given)",
    "trust.goal.held_again_user": (
        "goalkeeper: the agent stopped again with your goal changed in {path} and not done "
        "(the change is shown above), so goalkeeper paused instead of sending it back again. "
        "Run `goalkeeper goal approve` to accept the change, or ask the agent to put your goal "
        "back and do the work."
    ),
    "trust.goal.unapproved_model": (
        "{path} holds a goal the user did not set, so goalkeeper does not check it. A goal is "
        "the user's to set: ask them if you think one is needed."
    ),
    "trust.goal.ask.title": "The goal in GOAL.md changed. Accept the change?\n{diff}",
    "trust.goal.ask.approve": "Accept the change",
    "trust.goal.ask.keep": "Keep the goal I set",
    "trust.goal.approved": "goalkeeper: the goal is approved as GOAL.md holds it now; goalkeeper verifies it from the next stop.",
    "trust.goal.tests_restored": (
        "goalkeeper: its record of this goal was lost, but it had a copy of the goal's tests as "
        "they were when you set it ({n} files): the goal is checked against those again."
    ),
    "trust.goal.tests_kept_now": (
        "goalkeeper: it had kept no tests for this goal (the agent proposed it, or goalkeeper's "
        "record of it was lost), so the goal is now held to the {n} test files and test "
        "settings as they are. Review them (`git diff`) before the agent goes on."
    ),
    "trust.goal.approve_stale": "goalkeeper: GOAL.md changed again after you were asked, so nothing was approved; run `goalkeeper goal approve` to see it.",
    "trust.goal.kept_model": (
        "The user kept the goal they set. Restore {path} to it (objective, verify commands and "
        "acceptance criteria), then go on:\n{approved}"
    ),
    "trust.goal.proposed": (
        "goalkeeper: the goal is written to {path}, but it was set from {agent}'s shell, so it "
        "is a proposal: nothing in it runs until the user approves it with "
        "`goalkeeper goal approve` in their own terminal."
    ),
    "trust.goal.tool.description": (
        "Ask the user to approve a change to the goal in .agents/goal/GOAL.md (its objective, "
        "verify commands or acceptance criteria). You cannot approve it yourself: the user sees "
        "what changed and decides. Use it only after you told them why the goal should change."
    ),
    "trust.goal.tool.nothing": "The goal in {path} is the one the user approved: nothing to approve.",
    "trust.goal.tool.no_ui": (
        "This host cannot show the user a form. Ask the user to review the change and run "
        "`goalkeeper goal approve` in their own terminal."
    ),
    "trust.goal.tool.approved": "The user approved the goal as {path} holds it now; it is verified from the next stop.",
    "trust.goal.tool.kept": "The user kept the goal they set. Restore {path} to it:\n{approved}",
    "trust.goal.tool.question": "{diff}\n\nAccept this change to your goal?",
    "trust.verify.not_approved": "not approved by the user",
    # -- refused re-runs ----------------------------------------------------------------------
    "trust.rerun.shell": "goalkeeper runs commands without a shell; shell operators are not allowed",
    "trust.rerun.unparsable": "the command line cannot be read as words",
    "trust.rerun.not_approved": "not a command goalkeeper may re-run (approved: {detail})",
    "trust.rerun.argument": "`{detail}` does more than select tests, so goalkeeper will not re-run it",
    # -- goalkeeper's own state ---------------------------------------------------------------
    "trust.state_write": (
        "{path} is goalkeeper's own state: it holds what the user approved, so no tool may "
        "write it. Leave it to goalkeeper and the user."
    ),
    "trust.host_config_write": (
        "{path} configures the agent's host to run goalkeeper (its hooks, their environment, "
        "the MCP servers): the agent may not change it. Ask the user to make the change."
    ),
    "trust.approval_command": (
        "`{command}` approves on the user's behalf; only the user may run it, in their own "
        "terminal. Ask the user instead."
    ),
    "trust.entry_command": (
        "`{command}` is one of goalkeeper's own entry points, which only the host starts (its "
        "hooks, its MCP server, the engine); the agent may not run it. If goalkeeper seems "
        "wrong, tell the user."
    ),
    "trust.opaque_command": (
        "This line runs a command its text does not show (`{command}`) next to goalkeeper's "
        "name or an approval verb, so goalkeeper cannot tell what it does and refuses it. Write "
        "the command out plainly."
    ),
    "trust.state_folder": (
        "`{path}` names goalkeeper's own folders (its state, config or runtime folder) or the "
        "host's record of the user's prompts: they hold what the user approved and said, so no "
        "tool of the agent may read, change or delete them. Leave them to goalkeeper and the "
        "user."
    ),
    # -- hook transport -----------------------------------------------------------------------
    "hook.runtime_unsafe": (
        "goalkeeper: {path} is not private to you (owner {owner}, mode {mode}), so the warm "
        "engine is off and every hook runs in its own process; remove that folder, or set "
        "GOALKEEPER_RUNTIME_DIR to a folder only you can open."
    ),
    "hook.server_foreign": (
        "goalkeeper: the engine socket {path} is served by {owner}, not by you; nothing was "
        "sent to it, the warm engine is off and every hook runs in its own process."
    ),
}
