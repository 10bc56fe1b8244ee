"""中文消息目录：quick 与 normal 模式（seed 004 §3）。

与 ``messages.modes_en`` 键和字段一致（有黄金测试）。
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    "mode.started.quick": "goalkeeper：本任务使用 quick 模式：没有阶段、没有产物、没有提问门禁（目标的验证仍会运行）。运行目录：无。",
    "mode.started.normal": "goalkeeper：本任务使用 normal 模式：discuss → plan → execute → verify，产物放在 {run_dir}。",
    "mode.advise.quick": "Quick 模式（goalkeeper）：直接改；不要求阶段或产物。{task}",
    "mode.advise.normal": "Normal 模式（goalkeeper）：本任务按 discuss → plan → execute → verify 进行，PLAN.md、EXECUTION.md、VERIFY.md 放在 {run_dir}。从 discuss 开始：弄清改动依赖的业务事实（规则、边界情况、数据、影响到谁），查不到的问用户。用户确认事实之前不写代码（`{confirm}`）。{task}",
    "mode.task": "\n\n任务：{task}",
    "mode.phase.discuss": "Normal 模式，discuss 阶段：业务事实尚未确认。查不到的问用户，然后等待：用户用 `{confirm}` 确认。在此之前不写代码。",
    "mode.phase.plan": "Normal 模式，plan 阶段：事实已确认。把计划写进 {run_dir}/PLAN.md（改什么、哪些文件、用什么检查证明、风险），然后停下：计划存在后进入下一阶段。现在还不写代码。",
    "mode.phase.execute": "Normal 模式，execute 阶段：执行 {run_dir}/PLAN.md。把改了什么、为什么记进 {run_dir}/EXECUTION.md（文件、决定、与计划不同之处）。",
    "mode.phase.verify": "Normal 模式，verify 阶段：运行计划里列出的检查，并逐条记进 {run_dir}/VERIFY.md，写命令和结果（例如 `- pytest -q: exit 0, 42 passed`）。证据齐了，本次运行就完成。",
    "mode.phase.execute.unchanged": "Normal 模式，execute 阶段：{run_dir}/EXECUTION.md 已经有了，但本次运行还没看到任何代码改动。先执行 {run_dir}/PLAN.md（它列出的文件），再记录改了什么；之后才进入 verify 阶段。",
    "mode.phase.verify.unchecked": "Normal 模式，verify 阶段：{run_dir}/VERIFY.md 已经有了，但自上次代码改动以来没看到任何检查运行。运行计划里列出的检查（测试运行器或项目声明的命令），再逐条记下结果；之后本次运行才完成。",
    "mode.waiting": "goalkeeper：normal 模式，discuss 阶段：等待你确认业务事实（{confirm}）；在此之前 agent 不会继续。",
    "mode.phase.moved": "goalkeeper：normal 模式：{phase} 阶段。",
    "mode.done": "goalkeeper：normal 模式运行完成：计划、执行记录和验证证据都在 {run_dir}。",
    "mode.confirmed": "goalkeeper：业务事实已确认；normal 模式进入 plan 阶段。",
    "mode.confirm.none": "goalkeeper：没有等待确认的 normal 模式运行。",
    "mode.gate": "goalkeeper：normal 模式，{phase} 阶段：还不能改代码（{path}）。{why}",
    "mode.gate.discuss": "先和用户确认业务事实（用户用 `{confirm}` 确认）。",
    "mode.gate.unknown": "goalkeeper：normal 模式，{phase} 阶段：看不出这条命令写到哪里（{target}：由变量、`~`、花括号、跳出项目的相对路径或喂给 shell 的脚本决定），计划存在之前一律拒绝。请写到字面路径：本次运行的产物放在 {run_dir}，临时文件放在 /tmp 下。",
    "mode.gate.link": "现在还不能建链接：之后经由链接的写入会落到它指向的地方。",
    "mode.gate.plan": "先把计划写进 {run_dir}/PLAN.md；它存在后进入 execute 阶段。",
    "mode.status.none": "goalkeeper 模式：无（用 /gk-mode quick <任务> 或 /gk-mode normal <任务> 选择）。",
    "mode.status.run": "goalkeeper 模式：{mode}，阶段 {phase}，运行目录 {run_dir}。",
    "mode.off": "goalkeeper：模式运行已结束。",
    "mode.usage": "用法：/gk-mode quick <任务> | normal <任务> | status | confirm | off",
    "mode.command.description": "用 goalkeeper 的 quick 或 normal 模式运行这个任务（normal：discuss → plan → execute → verify）",
    "mode.command_file": '---\ndescription: "用 goalkeeper 的 quick 或 normal 模式运行任务"\nargument-hint: "quick <任务> | normal <任务> | status | confirm | off"\n---\n/gk-mode $ARGUMENTS\n\n（goalkeeper 处理这个命令：按它附加在这条消息上的模式上下文去做。）\n',
    "close.quick": "goalkeeper：quick 模式：接受 [PDCA] complete，不检查计划的门禁；任务已关闭。",
}
