"""English message catalog: the todo completion duty (seed 002, pi-todone v0.6.0).

Same keys and fields as ``messages.todos_zh`` (golden-tested). Literal braces are ``{{`` ``}}``.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # -- validateEvidence / normalizeEvidence --------------------------------------------------
    "evidence.missing": "evidence is missing or not an object",
    "evidence.kind": "kind must be state|runnable|effect, got: {kind}",
    "evidence.effect_array": "effect evidence must be an array",
    "evidence.too_few": "{kind} evidence needs at least 1 entry",
    "evidence.entry_object": "each evidence entry must be an object",
    "evidence.file_path": "file evidence is missing path",
    "evidence.file_op": "file evidence has an invalid op: {op}",
    "evidence.cmd_cmd": "cmd evidence is missing cmd",
    "evidence.cmd_exit": "cmd evidence exit must be a number",
    "evidence.review_agent": "review evidence is missing agent",
    "evidence.review_path": "review evidence is missing path",
    "evidence.type": "evidence type must be file|cmd|review, got: {type}",
    "evidence.state_file": "state evidence must include a file entry",
    "evidence.runnable_cmd": "runnable evidence must include a cmd entry",
    "evidence.not_array": "evidence.evidence must be an array",
    "evidence.guide": (
        "Marking a todo completed requires metadata.evidence (JSON), in one of these shapes:\n"
        '  {{"kind":"state","evidence":[{{"type":"file","path":"src/a.ts","op":"edit"}}]}}\n'
        '  {{"kind":"runnable","evidence":[{{"type":"cmd","cmd":"npm test","exit":0}}]}}\n'
        '  {{"kind":"effect","evidence":[]}}   ← not hard-verifiable; declaration only, left for human acceptance'
    ),
    # -- tree integrity and gates --------------------------------------------------------------
    "todo.parent_not_number": "parentId must be a number, got: {value}",
    "todo.parent_missing": "parentId refers to task #{id}, which does not exist",
    "todo.id_not_number": "id must be a number, got: {value}",
    "todo.children_open": "subtasks {children} are unfinished; the parent cannot be declared completed",
    "todo.children_sep": ", ",
    "todo.parent_cycle": "parentId #{parent} would put task #{id} under itself (#{parent} is #{id} or one of its subtasks)",
    "gate.test": 'Task #{id} declares a test hard gate: evidence must include a cmd entry with exit explicitly 0 (the tests really passed), e.g. {{"type":"cmd","cmd":"npm test","exit":0}}',
    "gate.audit": 'Task #{id} declares an audit hard gate: evidence must include cross-audit evidence {{"type":"review","agent":"<reviewer>","path":"<review artifact>"}}',
    # -- block reasons -------------------------------------------------------------------------
    "todo.block.parent": "goalkeeper: {err}. Tree tasks: create the parent first, then attach children with metadata.parentId.",
    "todo.block.move": "goalkeeper: {err}. Nothing was changed: a task moves only under an existing task outside its own subtree (or to the root, parentId null).",
    "todo.block.tree": "goalkeeper: {err}. Finish the subtasks first, or set them back to pending/deleted.",
    "todo.block.evidence": "goalkeeper: proof of completion missing ({err}). {guide}",
    "todo.block.gate": "goalkeeper: {err}",
    "todo.storm": "[#{n} same-call blocks] Stop retrying the same shape: resend with compliant evidence in the format above, or set the task back to pending (update status=pending). ",
    # -- checked evidence (beyond the seed) ----------------------------------------------------
    "todo.checked.file_unchanged": "goalkeeper: the evidence says {path} was {op}, but it has not changed since task #{id} was created ({seen}). Make the change, or correct the evidence.",
    "todo.checked.file_missing": "goalkeeper: the evidence says {path} was {op}, but there is no such file. Write it, or correct the evidence.",
    "todo.checked.file_exists": "goalkeeper: the evidence says {path} was deleted, but it still exists. Delete it, or correct the evidence.",
    "todo.checked.cmd_mismatch": "goalkeeper: the evidence says `{cmd}` exited {claimed}, but goalkeeper ran it in the project folder and it {real}. Last output:\n{tail}",
    "todo.checked.exited": "exited {code}",
    "todo.checked.seen_mtime": "last modified before the task was created",
    "todo.checked.seen_git": "last modified before the task was created, and git shows no change",
    "todo.op.write": "written",
    "todo.op.edit": "edited",
    "todo.op.delete": "deleted",
    "todo.timeout": "timed out",
    # -- tool errors (not gates) ---------------------------------------------------------------
    "todo.error.action": "action must be create|update|list|get, got: {action}",
    "todo.error.subject": "create needs a non-empty subject",
    "todo.error.create_status": "a task cannot be created {status}: create it, then update it (completing needs evidence)",
    "todo.error.id": 'id must be a number, got: {value} (the task number, such as 3 or "3")',
    "todo.error.blocked_by": 'blockedBy must list task numbers, such as [1, 2] or ["1", "2"]; cannot read: {value}',
    "todo.error.unknown": "task #{id} does not exist",
    "todo.error.status": "status must be pending|in_progress|completed|deleted, got: {status}",
    "todo.error.input": "the todo arguments must be a JSON object",
    "todo.error.too_long": "{field} is too long ({size} characters, limit {limit})",
    # -- advice ①–⑦ -----------------------------------------------------------------------------
    "todo.advice.stall": "goalkeeper: no progress for {n} consecutive rounds. Re-examine the todo tree first (does the goal node still match the user's own words? wrong split / order / dead end?), update it, then continue; if it truly cannot move forward, set it back to pending and explain why.",
    "todo.advice.create": (
        "goalkeeper: this unit has used {n} tool calls without any todos — the task is more complex than you expected. Break it into todos before continuing:\n"
        '- Granularity: each item is one independently verifiable result (≤ one sentence), e.g. "add idempotency-key dedupe + regression test"\n'
        "- Tree: for complex work create a root node first (the goal, checked against the user's own words) and attach subtasks with metadata.parentId\n"
        "(Small-task exemption — if you think this is a small task, reply with one sentence saying why and carry on)"
    ),
    "todo.advice.parallel": "goalkeeper: these tasks were started while their prerequisites are unfinished:\n{lines}\nIf the parallelism is intentional (the prerequisites do not affect this item), ignore this notice; otherwise finish the prerequisites first, or remove the blockedBy link.",
    "todo.advice.parallel_line": "#{id} {subject} (prerequisites {deps} unfinished)",
    "todo.advice.wait": "goalkeeper: this unit started a long wait (subagent / long command). While waiting you can advance these items in parallel (no dependencies):\n{lines}\nDon't just wait — keep working on these after dispatching the async work, or at least state your plan for the waiting time.",
    "todo.advice.proof": "goalkeeper: {n} todo item(s) are still unfinished:\n{lines}\nPick one and continue: ① prove this round's progress (attach evidence) ② explain the blocker and hand over the intermediate state ③ just keep working.",
    "todo.advice.verify": "goalkeeper: task #{ids} marked completed (format gate passed). Completed ≠ verified: spawn a fresh-context reviewer\nsubagent to verify independently (read-only checks of files/tests against the evidence claims); fix any gap on the spot before wrapping up.",
    "todo.advice.verify_gated": "goalkeeper: task #{ids} marked completed (format gate passed). Completed ≠ verified: #{gated} declare a hard gate — you must spawn a fresh-context reviewer subagent to re-check that their test/audit evidence is real (read-only checks against the evidence claims){others}; fix any gap on the spot before wrapping up.",
    "todo.advice.verify_others": "; have the same reviewer verify the other completed items independently too",
    "todo.advice.ultimatum": "goalkeeper: {n} todo item(s) are still unfinished — do not wrap up yet:\n{lines}\nChoose one: ① explain the blocker (which item, why, next step) and then settle — one explanation is accepted; ② finish the remaining items and then settle.",
    "todo.advice.quiet_stop": "goalkeeper: the agent stopped with {n} todo(s) still open — {items}. It only answered your message, so it was not sent back to finish them; tell it to continue if it should.",
    # -- the tool itself --------------------------------------------------------------------------
    "todo.tool.snippet": "goalkeeper's todo tree: verifiable todos; completing one needs evidence",
    "todo.tool.description": 'goalkeeper\'s todo tree for this session. Break complex work into todos (each one independently verifiable result); tree tasks use metadata.parentId; metadata.gate declares a hard duty ("test": a passing cmd entry, "audit": a review entry) that cannot be removed later. Marking a todo completed requires metadata.evidence: {{"kind":"state","evidence":[{{"type":"file","path":"src/a.py","op":"edit"}}]}}, {{"kind":"runnable","evidence":[{{"type":"cmd","cmd":"pytest -q","exit":0}}]}} or {{"kind":"effect","evidence":[]}}. goalkeeper checks that claimed files changed since the todo was created, and re-runs the test command of a test-gated todo: it must be an approved test command, run as it is (the whole suite, no test paths or -k), that executes at least one test; effect evidence cannot complete a gated todo. A reply lists the whole tree while it is small; past a few dozen todos it gives counts by state and the next open todos (summary), and get reads any todo by id.',
    # -- static guideline (L1) and native todo tools -------------------------------------------
    "todo.guideline": "Todo duty (goalkeeper): before complex work (multiple files / 3+ steps / long-running) break it into todos with goalkeeper's todo tool ({todo_tool}; in a shell: goalkeeper todo), each one independently verifiable result (≤ one sentence); small tasks (single-file tweak / Q&A) need none. Marking a todo completed requires metadata.evidence (state → file evidence / runnable → cmd evidence / effect left for human acceptance); tree tasks: a parent may complete only after all its children are completed.",
    "todo.native_refused": "goalkeeper: do not mark tasks completed with {tool} — completion needs evidence. Use goalkeeper's todo tool instead ({todo_tool}, or `goalkeeper todo` in a shell):\n{guide}",
    # -- pi-todone's environment variables (spec §10 envNumber) ---------------------------------
    "todo.env.invalid": "[goalkeeper] environment variable {name}={raw} is invalid; falling back to default {kept}",
    "todo.env.blank": "[goalkeeper] environment variable {name}={raw} is invalid (blank); falling back to default {kept}",
    # -- claims the user must accept (issue 22 item 2) -------------------------------------------
    "todo.accept.notice": "goalkeeper: awaiting your acceptance (not verified) — {items}. Check each, then run `goalkeeper todo accept ID` in your own terminal.",
    "todo.accept.item": "#{id} {subject}",
    # -- a subagent's done (issue 22 item 6) -----------------------------------------------------
    "subagent.refused": "goalkeeper: you are not done — your work rests on claims goalkeeper refused: {items}.\nFix each with evidence goalkeeper can check (complete the task again through {todo_tool}, run the verification), or say plainly in your answer what is not done and why. Do not report it as done.",
    "subagent.complete": "you reported `[PDCA] complete`, but no verification goalkeeper counts ran and passed in your own run ({status})",
    "subagent.unproven": "goalkeeper: subagent {agent} stopped with its work unproven — {items}. Do not count its result as done.",
}
