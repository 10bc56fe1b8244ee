"""English message catalog: quick and normal modes (seed 004 §3).

Same keys and fields as ``messages.modes_zh`` (golden-tested).
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    "mode.started.quick": "goalkeeper: quick mode for this task: no phases, no artifacts, no question gate (a goal's verification still runs). Run folder: none.",
    "mode.started.normal": "goalkeeper: normal mode for this task: discuss → plan → execute → verify, artifacts in {run_dir}.",
    "mode.advise.quick": "Quick mode (goalkeeper): go straight to the change; no phases or artifacts are required.{task}",
    "mode.advise.normal": "Normal mode (goalkeeper): this task runs discuss → plan → execute → verify, with PLAN.md, EXECUTION.md and VERIFY.md in {run_dir}. Start in discuss: find out the business facts the change depends on (rules, edge cases, data, who is affected) and ask the user about what you cannot look up. No code is written until the user confirms the facts (`{confirm}`).{task}",
    "mode.task": "\n\nTask: {task}",
    "mode.phase.discuss": "Normal mode, discuss phase: the business facts are not confirmed yet. Ask the user what you cannot look up, then wait: they confirm with `{confirm}`. No code until then.",
    "mode.phase.plan": "Normal mode, plan phase: the facts are confirmed. Write the plan to {run_dir}/PLAN.md (the change, the files, the checks that will prove it, the risks), then stop: the next phase starts when it exists. No code yet.",
    "mode.phase.execute": "Normal mode, execute phase: carry out {run_dir}/PLAN.md. Record what you changed and why in {run_dir}/EXECUTION.md (files, decisions, anything that differs from the plan).",
    "mode.phase.verify": "Normal mode, verify phase: run the checks the plan names and record each in {run_dir}/VERIFY.md as a command and its result (for example `- pytest -q: exit 0, 42 passed`). The run is done when the evidence is there.",
    "mode.phase.execute.unchanged": "Normal mode, execute phase: {run_dir}/EXECUTION.md is there, but no code change has been seen in this run yet. Carry out {run_dir}/PLAN.md (the files it names), then record what you changed; the verify phase starts after that.",
    "mode.phase.verify.unchecked": "Normal mode, verify phase: {run_dir}/VERIFY.md is there, but no check has been seen running since the last code change. Run the checks the plan names (a test runner or the project's declared command), then record each with its result; the run is done after that.",
    "mode.waiting": "goalkeeper: normal mode, discuss phase: waiting for you to confirm the business facts ({confirm}); the agent does not continue until then.",
    "mode.phase.moved": "goalkeeper: normal mode: {phase} phase.",
    "mode.done": "goalkeeper: normal mode run complete: plan, execution and verification evidence are in {run_dir}.",
    "mode.confirmed": "goalkeeper: business facts confirmed; normal mode moves to the plan phase.",
    "mode.confirm.none": "goalkeeper: no normal-mode run is waiting for confirmation.",
    "mode.gate": "goalkeeper: normal mode, {phase} phase: no code changes yet ({path}). {why}",
    "mode.gate.discuss": "First confirm the business facts with the user (they confirm with `{confirm}`).",
    "mode.gate.unknown": "goalkeeper: normal mode, {phase} phase: cannot tell where this command writes ({target}: a variable, `~`, braces, a path that climbs out of the project or a script on a shell's input decide it), so it is refused until the plan exists. Write to a literal path: the run's artifacts in {run_dir}, scratch files under /tmp.",
    "mode.gate.link": "No links yet: a later write through a link lands where it points.",
    "mode.gate.plan": "First write the plan to {run_dir}/PLAN.md; the execute phase starts when it exists.",
    "mode.status.none": "goalkeeper mode: none (choose with /gk-mode quick <task> or /gk-mode normal <task>).",
    "mode.status.run": "goalkeeper mode: {mode}, phase {phase}, run folder {run_dir}.",
    "mode.off": "goalkeeper: mode run ended.",
    "mode.usage": "Usage: /gk-mode quick <task> | normal <task> | status | confirm | off",
    "mode.command.description": "Run this task in goalkeeper's quick or normal mode (normal: discuss → plan → execute → verify)",
    "mode.command_file": '---\ndescription: "Run a task in goalkeeper\'s quick or normal mode"\nargument-hint: "quick <task> | normal <task> | status | confirm | off"\n---\n/gk-mode $ARGUMENTS\n\n(goalkeeper handles this command: follow the mode context it adds to this message.)\n',
    "close.quick": "goalkeeper: quick mode: [PDCA] complete accepted without the plan's gates; the task is closed.",
}
