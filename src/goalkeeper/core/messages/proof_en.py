"""English messages of proof that cannot be forged: protected tests, checks that really ran,
todo gates as duties, honest exits and what the user hears at a stop."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # -- protected tests (goal verify) --------------------------------------------------------
    "proof.verify.no_tests": "exit 0, but nothing shows that a test ran",
    "proof.tests.modified": "- {path}: changed",
    "proof.tests.deleted": "- {path}: deleted",
    "proof.tests.added": "- {path}: added",
    "proof.tests.more": "- … and {n} more",
    "proof.tests.held": (
        "The verification passes, but only with your changes to the tests. goalkeeper ran it again "
        "with the tests as they were when the goal was set, over your code, and there it fails:\n"
        "{changed}\n\nThe original tests say, last lines:\n{tail}\n\nFix the code so the original "
        "tests pass and put the tests back. If a test itself was wrong, say so in {path}'s Progress "
        "Log and ask the user to accept the change: only they can (`goalkeeper goal accept-tests`)."
    ),
    "proof.tests.held_user": (
        "goalkeeper: the goal's verification passes only with the agent's changes to the tests, so "
        "it is not proven:\n{changed}\nAgainst the original tests it fails. Review the change; to "
        "accept it, run `goalkeeper goal accept-tests` in your own terminal."
    ),
    "proof.tests.unchecked_user": (
        "goalkeeper: the goal's tests changed since it was set, and goalkeeper could not run the "
        "verification against the original ones ({problem}), so it is not proven:\n{changed}\n"
        "To accept the changed tests, run `goalkeeper goal accept-tests` in your own terminal."
    ),
    # -- hidden acceptance tests (goal set --hidden-tests) -------------------------------------
    "proof.hidden.failed": (
        "The goal's verification passes, but the user also gave acceptance tests you cannot see, "
        "and with them it fails. They check the goal itself on other inputs than the visible "
        "tests: make the code correct in general, never for the tested values only. goalkeeper "
        "will not show what they test."
    ),
    "proof.hidden.failed_user": (
        "goalkeeper: the goal's verification passes, but your hidden acceptance tests fail "
        "against the agent's code, so the goal is not proven."
    ),
    "proof.hidden.unchecked_user": (
        "goalkeeper: your hidden acceptance tests could not be run ({problem}), so the goal is "
        "not proven."
    ),
    # -- checks that ran (cadence) ------------------------------------------------------------
    "proof.plan_tests.held": (
        "Not closed: the tests pass only with your changes to them. goalkeeper ran the project's "
        "tests again with the test files as they were when the user set this session going, over "
        "your code, and there they fail:\n{changed}\n\nThe original tests say, last lines:\n"
        "{tail}\n\nFix the code so the original tests pass and put the tests back. If a test itself "
        "was wrong, say why in {path} and ask the user to accept the change: only they can "
        "(`goalkeeper goal accept-tests`)."
    ),
    "proof.plan_tests.held_user": (
        "goalkeeper: the plan was not closed: its tests pass only with the agent's changes to "
        "them:\n{changed}\nAgainst the original tests they fail. Review the change; to accept it, "
        "run `goalkeeper goal accept-tests` in your own terminal."
    ),
    "proof.plan_tests.unchecked_user": (
        "goalkeeper: the plan was not closed: the tests changed since this session began, and "
        "goalkeeper could not run them as they were ({problem}):\n{changed}\nTo accept the "
        "changed tests, run `goalkeeper goal accept-tests` in your own terminal."
    ),
    "check.ran.passed": "`{command}` (passed)",
    "check.ran.failed": "`{command}` (failed)",
    "check.ran.unknown": "`{command}` (ran, but nothing shows how it ended)",
    "check.ran.narrowed": "`{command}` (a selection of the tests)",
    "check.ran.not_verification": "`{command}` (not a test run)",
    "check.ran.unfinished": "`{command}` (did not finish: interrupted, timed out or in the background)",
    "check.ran.refused": "`{command}` (refused, so it never ran)",
    "check.ran.empty": "`{command}` (selected no tests)",
    "check.ran.unseen": "`{command}` (goalkeeper never saw it start)",
    "check.ran.nothing": "no shell command",
    "check.none": (
        "That [PDCA] check ran no verification: {ran}. A check is a test run that finishes in "
        "the same round: a test runner (pytest, npm test, cargo test, go test, make test …), "
        "the goal's verify command, or a command your key results name in backticks. Run it in "
        "the foreground, read the result, then report [PDCA] check."
    ),
    "check.idle": (
        "That [PDCA] check ran no tool at all, so it produced no evidence. Run the tests (or the "
        "goal's verify command) in this round, read the result, then report [PDCA] check."
    ),
    "check.unknown": (
        "That [PDCA] check ran {ran}, but its exit status is hidden (`|| true`, a pipe, output "
        "sent to /dev/null) and its output shows no test summary, so nothing says whether the "
        "tests passed. Run the tests plainly, read the result, then report [PDCA] check."
    ),
    "check.narrowed": (
        "That [PDCA] check ran {ran}: a selection of the tests (a test file named on the command "
        "line, -k, -m, a test id). A check runs the whole suite, so it shows the other tests "
        "still pass. Run it without the selection, read the result, then report [PDCA] check."
    ),
    "check.unreadable": (
        "goalkeeper could not read which commands that [PDCA] check ran (the session's "
        "transcript is missing or not a regular file), so it does not count. Run the tests "
        "again and report [PDCA] check."
    ),
    "check.stale": (
        "Your check ran {ran}, but {path} changed after that run, so the change is not checked "
        "yet. Run the verification again after your last change and report [PDCA] check."
    ),
    "check.failed": (
        "The check ran and failed: {what}. A failure is evidence: it shows where the plan is "
        "wrong. Next: [PDCA] act: fix the cause (one variable) or rewrite the plan where the "
        "evidence refutes it, then check again. [PDCA] complete is refused while the last check "
        "fails."
    ),
    "gate.check.check_not_verified": (
        "- Check gate: the last [PDCA] check ran no verification ({ran}). Run the tests or the "
        "goal's verify command, read the result, and report [PDCA] check."
    ),
    "gate.check.check_unknown": (
        "- Check gate: nothing shows how the last check's test run ended ({ran}: its exit "
        "status was hidden and its output shows no summary). Run the tests plainly and report "
        "[PDCA] check."
    ),
    "gate.check.check_narrowed": (
        "- Check gate: the last check ran a selection of the tests ({ran}). Run the whole suite "
        "and report [PDCA] check."
    ),
    "gate.check.check_failed": (
        "- Check gate: the last check's verification failed ({what}). Fix the cause, run it "
        "again and report [PDCA] check."
    ),
    "gate.check.check_stale": (
        "- Check gate: a project file changed after the last check's test run. Run it again "
        "after the change and report [PDCA] check."
    ),
    "gate.check.changed_after_check": (
        "- Check gate: project files changed after the last check. Check the change with a "
        "test run and report [PDCA] check."
    ),
    "gate.check.check_unreadable": (
        "- Check gate: goalkeeper could not read which commands the last check ran. Run the "
        "tests again and report [PDCA] check."
    ),
    # -- todo gates ---------------------------------------------------------------------------
    "todo.gate.kept": (
        "goalkeeper: task #{id} declared the gate {was}, and a declared gate is a duty: an update "
        "cannot remove or weaken it (this one asks for {now}). Complete the task with the evidence "
        "its gate asks for, or set it back to pending and tell the user what blocks it."
    ),
    "todo.gate.effect": (
        "goalkeeper: task #{id} declares the gate {gate}. effect evidence is a declaration left "
        "for human acceptance, so it cannot complete a gated todo: complete it with runnable "
        "evidence (a test command goalkeeper re-runs) or state evidence (the files you changed), "
        "with a review entry for an audit gate; or set it back to pending and explain the blocker."
    ),
    "todo.gate.own_key": (
        "goalkeeper: metadata.{key} is written by goalkeeper when it checks a completion; a todo "
        "call cannot set it. Leave it out."
    ),
    "todo.gate.not_rerun": (
        "goalkeeper: task #{id} declares a test gate, which needs a test run goalkeeper makes "
        "itself, and goalkeeper will not re-run `{cmd}`: {reason}. Claim a run of an approved test "
        "command instead ({approved}), as it is: goalkeeper re-runs it in the project folder and "
        "reads its summary."
    ),
    "todo.gate.narrowed": (
        "goalkeeper: task #{id} declares a test gate; goalkeeper re-ran `{cmd}` and it passed, "
        "but it ran a selection of the tests ({summary}). A test gate is met by the whole suite, "
        "which shows the other tests still pass: claim {approved} without test paths, -k or -m."
    ),
    "todo.gate.none_approved": (
        "none is approved for this project yet; the user can set test-command in .goalkeeper.toml "
        "and run `goalkeeper allow`"
    ),
    "todo.gate.tests_changed": (
        "goalkeeper: task #{id} declares a test gate; goalkeeper re-ran `{cmd}` and it passed, "
        "but only with your changes to the tests. Run again with the tests as they were when the "
        "user set this session going, over your code, it fails:\n{changed}\n\nThe original "
        "tests say, last lines:\n{tail}\n\nFix the code so the original tests pass and put the "
        "tests back. If a test itself was wrong, say so and ask the user to accept the change: "
        "only they can (`goalkeeper goal accept-tests`)."
    ),
    "todo.gate.no_tests": (
        "goalkeeper: task #{id} declares a test gate; goalkeeper re-ran `{cmd}` and it exited 0 "
        "but ran no tests ({summary}). A test gate needs a run that executes at least one test: "
        "select tests that exist, or write them."
    ),
    "todo.gate.no_summary": (
        "goalkeeper: task #{id} declares a test gate; goalkeeper re-ran `{cmd}` and it exited 0, "
        "but its output has no test summary goalkeeper can read, so nothing shows that a test ran "
        "(node --test --test-reporter=dot prints none). Run the project's test runner so that it prints its summary "
        "(pytest, python -m unittest, jest, vitest, mocha, node --test, cargo test, go test). "
        "Last output:\n{tail}"
    ),
    "todo.gate.unchecked": (
        "goalkeeper: task #{id} declares a test gate, and goalkeeper could not re-run `{cmd}` this "
        "time, so the gate is not met. Send the completion again."
    ),
    "todo.gate.rerun_mode": "evidence_check is {mode}: goalkeeper did not re-run it",
    "todo.gate.rerun_ungated": (
        "the task has no test gate: goalkeeper re-runs commands only for test-gated todos"
    ),
    "todo.gate.not_inspected": "goalkeeper did not inspect it",
    "todo.gate.review": "a review is the reviewer's word: goalkeeper does not check it",
    "todo.gate.effect_declared": "effect evidence is a declaration left for human acceptance",
    "todo.gate.files_off": "evidence_check is off: goalkeeper checked no file",
    "todo.proof.file_outside": (
        "goalkeeper: the evidence says {path} was {op}, but it is outside the project, where "
        "goalkeeper checks nothing. Name the files you changed inside the project, or correct the "
        "evidence."
    ),
    "todo.proof.file_folder": (
        "goalkeeper: the evidence says {path} was {op}, but it is a folder. Name the files you "
        "changed in it."
    ),
    "todo.proof.file_other": (
        "goalkeeper: the evidence says {path} was {op}, but it is not a regular file. Name the "
        "files you changed."
    ),
    "todo.proof.file_never": (
        "goalkeeper: the evidence says {path} was deleted, but there was no such file when task "
        "#{id} was created. Correct the evidence."
    ),
    "todo.proof.seen_same": (
        "its content is what it was then; a newer modification time is not an edit"
    ),
    "todo.proof.seen_head": "its content is what git's HEAD has",
    "todo.proof.no_baseline": (
        "goalkeeper has no snapshot of this file from when the task was created, so only git and "
        "its modification time were checked"
    ),
    "todo.stop.notice": "goalkeeper: not done — {items}.",
    "todo.stop.more": " (and {n} more)",
    "todo.stop.refused": "todo #{id}: {why}",
    "todo.stop.deleted": "todo #{id} (deleted): {why}",
    "todo.stop.native": "a task marked completed with {tool} was refused (no evidence)",
    "todo.stop.open_gated": "todo #{id} is still open, with the gate {gate}",
    "todo.stop.why.tree": "its subtasks are unfinished",
    "todo.stop.why.evidence": "its completion had no valid evidence",
    "todo.stop.why.gate": "its evidence lacked what its gate asks for",
    "todo.stop.why.effect": "it was claimed with effect evidence despite its gate",
    "todo.stop.why.gate_kept": "it tried to drop its gate",
    "todo.stop.why.test_failed": "its test run failed ({detail})",
    "todo.stop.why.tests_changed": "its tests pass only with the agent's changes to them",
    "todo.stop.why.no_tests": "its test run ran no tests",
    "todo.stop.why.narrowed": "its test run ran a selection of the tests",
    "todo.stop.why.no_summary": "its test run showed no test summary",
    "todo.stop.why.not_rerun": "its test command is not one goalkeeper may run",
    "todo.stop.why.unchecked": "its test command could not be re-run",
    "todo.stop.why.file": "its claim about {detail} was false",
    "todo.stop.why.abandoned": "its gate {detail} was never met",
    # -- commitments --------------------------------------------------------------------------
    "proof.plan.vague": (
        "A cancelled commitment needs a reason that says why it is no longer needed. In {path} "
        "these reasons say nothing:\n{items}\nWrite what made each one unnecessary (what covers "
        "it, what changed), or do it; then report again."
    ),
    "proof.plan.objective": "- the objective was rewritten",
    "proof.plan.held_user": (
        "goalkeeper: the agent wants to close {path}, but it dropped {n} of the {total} "
        "commitments the plan had when you last wrote (or rewrote its objective). That is yours "
        "to accept, so the task is not closed:\n{what}\nTo accept the plan as it is now, run "
        "`goalkeeper plan accept` in your own terminal; otherwise tell the agent to do them."
    ),
    "proof.plan.ask.title": "The agent dropped most of the plan's commitments:\n{what}\nAccept the plan as it is now?",
    "proof.plan.ask.accept": "Accept the changed plan",
    "proof.plan.ask.keep": "Keep the commitments",
    # -- honest exits and the truth at a stop -------------------------------------------------
    "blocked.again": (
        "You have reported this blocker {n} times; at {bound} goalkeeper pauses and hands it "
        "to the user. If a reversible default exists, take it now."
    ),
    "blocked.pause_same": (
        "goalkeeper paused: the agent reported the same blocker {n} times ({reason}). It needs "
        "you: answer it or narrow the task. A new prompt resumes and restarts the count."
    ),
    "blocked.pause_stalled": (
        "goalkeeper paused: {n} blocked rounds without progress on the plan's key results or "
        "map (last: {reason}). A new prompt resumes and restarts the count."
    ),
    "check.pause_forged": (
        "goalkeeper paused: {n} times a [PDCA] check or complete came without a verification "
        "that ran (last check: {ran}). A new prompt resumes and restarts the count."
    ),
    "refusal.pause": (
        "goalkeeper paused: [PDCA] complete was refused {n} times for the same open gates. A "
        "new prompt resumes and restarts the count."
    ),
    "stop.not_done": "goalkeeper: not done: {gates}.",
    "stop.separator": "; ",
    "stop.gate.check.no_check": "the check gate is open (no [PDCA] check was reported)",
    "stop.gate.check.do_after_check": "the check gate is open (no test run since the last change)",
    "stop.gate.check.changed_after_check": (
        "the check gate is open (no test run since the last change)"
    ),
    "stop.gate.check.check_stale": "the check gate is open (no test run since the last change)",
    "stop.gate.check.check_without_evidence": (
        "the check gate is open (the last check ran no test)"
    ),
    "stop.gate.check.check_not_verified": "the check gate is open (the last check ran no test)",
    "stop.gate.check.check_failed": "the check gate is open (the last check's tests failed)",
    "stop.gate.check.check_unknown": (
        "the check gate is open (nothing shows how the last check's tests ended)"
    ),
    "stop.gate.check.check_narrowed": (
        "the check gate is open (the last check ran a selection of the tests)"
    ),
    "stop.gate.check.check_unreadable": (
        "the check gate is open (goalkeeper could not read what the last check ran)"
    ),
    "stop.gate.okr": "the OKR gate is open ({n} key result(s) not closed)",
    "stop.gate.map": "the map gate is open ({n} story-map leaf/leaves not closed)",
}
