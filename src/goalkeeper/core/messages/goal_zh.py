"""中文消息目录：目标与验证/修复循环（种子 001、种子 004 §4）。与 ``messages.goal_en`` 键和占位符一致。"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    "goal.anchors": "目标（来自 {path}）：{objective}\n- 验证：{verify}\n- 验收标准：已勾 {done}/{total}\n- 已用修复轮次：{attempts}/{rounds}",
    "goal.anchors.failure": "- 最近一次失败：`{command}`（exit {exit}）：{line}",
    "goal.anchors.none": "（尚无）",
    "goal.recorded": (
        "目标已记录在 {path}：{objective}\n"
        "验证：{verify}。goalkeeper 每次停下时都会亲自运行它；验证通过、且 {path} 中每条验收标准都附证据勾上，目标才算完成。"
        "修复原因，绝不改测试。如果目标确实无法达成，在回复末尾写 `[GOAL] blocked: <原因>`：会被记录，不会被惩罚。"
    ),
    "goal.recorded_user": "goalkeeper：已设定目标（{source}）：{objective} —— 验证：{verify}",
    "goal.exists": "goalkeeper：已有一个进行中的目标（{objective}）；用 `goalkeeper goal set --replace …` 替换它。",
    "goal.exists.blocked": "goalkeeper：有一个已暂停的目标在等待（{objective}）；用 `goalkeeper goal resume` 继续，或用 `goalkeeper goal set --replace …` 替换它。",
    "goal.no_verify_user": "goalkeeper：找不到这个目标的验证命令；请指定（会替换这个没有验证命令的目标）：goalkeeper goal set --replace --verify '<命令>' \"<目标>\"",
    "goal.no_verify_model": '目标还没有验证命令。请提出一个：在 {path} 的 frontmatter 中加入 `verify: ["<命令>"]`，并在进展日志里写一行理由。',
    "goal.failed": (
        "[{n}/{rounds}] `{command}` 失败（{result}）。失败信息（末尾几行）：\n{tail}\n"
        "修复原因，而不是检查本身：不要删除、跳过或削弱测试。停下时 goalkeeper 会再次运行验证。"
    ),
    "goal.exit": "exit {code}",
    "goal.progress.failed": "goalkeeper：[{n}/{rounds}] {command} …… 失败（{result}）",
    "goal.progress.passed": "goalkeeper：{command} …… 通过",
    "goal.timed_out": "{seconds} 秒后超时",
    "goal.blocked_same": "goalkeeper 已暂停目标：`{command}` 再次以相同的失败结束（{line}），上一次修复没有改变它。用 `goalkeeper goal resume` 继续、回到计划，或用 `goalkeeper goal clear` 停止。",
    "goal.blocked_limit": "goalkeeper 已在 {rounds} 轮修复后暂停目标：`{command}` 仍然失败（{result}）。用 `goalkeeper goal resume` 继续（再给 {rounds} 轮）、回到计划，或用 `goalkeeper goal clear` 停止。",
    "goal.blocked_agent": "goalkeeper 已暂停目标：agent 报告受阻：{reason}。已记录在 {path}；解除后用 `goalkeeper goal resume` 继续。",
    "goal.criteria_open": "验证已通过（{commands}）。现在在 {path} 中为每条验收标准附证据勾上（`- [x]`），或带理由砍掉（`- [-] …（取消：<理由>）`）。仍未收口：\n{items}",
    "goal.complete": "goalkeeper：目标已证明达成：{objective}。由 {commands} 验证；已归档到 .agents/goal/archive/。",
    "goal.stagnant": "连续 {n} 次迭代没有可度量的进展：通过的标准仍是 {passing} 条，进展日志也没有记录进展。退一步：重读失败信息，质疑当前做法，换一个假设试试，并把学到的写进 {path}。",
    "goal.stagnant_user": "goalkeeper：目标已连续 {n} 次迭代没有进展，两次恢复提示也无效；可能需要你介入。",
    "goal.retry": "上一次运行因错误结束（{error}）。从最后完成的一步继续；重复任何操作前先检查已有的工具结果。",
    "goal.retry_user": "goalkeeper：运行因错误结束（{error}）；第 {n}/{max} 次重试将在 {delay} 秒后开始。发送一条消息即可立即继续。",
    "goal.retries_exhausted": "goalkeeper 在 {max} 次重试失败后暂停了目标（{error}）。换个策略（更小的一步、别的工具、不同的做法），然后用 `goalkeeper goal resume` 继续。",
    "goal.context_save": "上下文已用 {percent}%：现在就把目标的进展写进 {path} 的进展日志，压缩历史时才不会丢失。",
    "goal.problem": "goalkeeper：{path} 无法使用（{problem}）；修好之前不检查目标。",
    "goal.log.set": "{time} 设定目标（{source}）：{objective}",
    "goal.log.failed": "{time} [{n}/{rounds}] {command} 失败（{result}）：{line}",
    "goal.log.same": "{time} 受阻：{command} 再次以相同的失败结束：{line}",
    "goal.log.limit": "{time} 受阻：已用完 {rounds} 轮修复；{command} 仍然失败",
    "goal.log.agent_blocked": "{time} 受阻（agent 报告）：{reason}",
    "goal.log.passed": "{time} 验证通过：{commands}",
    "goal.log.complete": "{time} 完成：验证通过，所有标准都已收口",
    "goal.log.retry": "{time} 运行出错（{error}）；第 {n}/{max} 次重试",
    "goal.log.retries_exhausted": "{time} 受阻：{max} 次重试都失败了（{error}）",
    "goal.log.resumed": "{time} 用户恢复目标；轮次 {attempts}/{rounds}",
    "goal.log.cleared": "{time} 用户清除了目标",
    "goal.log.manual_verify": "{time} 手动验证：{result}",
    "goal.source.agent": "{agent} 的 shell",
    "goal.source.command": "命令",
    "goal.source.phrase": "用户原话",
    "goal.source.cli": "goalkeeper goal set",
    "goal.criterion.command": "`{command}` 退出码为 0",
    "goal.criterion.stage": "阶段 {n}：{stage}",
    "goal.criterion.unchecked": "{words}（没有命令检查这一条：只能由用户确认）",
    "goal.condition.checked": "- {words} → {commands}",
    "goal.condition.unchecked": "- {words} → 这个项目里找不到检查它的命令：保留为验收条件，不满足就不能证明目标完成；请用 goalkeeper goal set --replace --verify '<命令>' \"<目标>\" 给出命令，或从 GOAL.md 删掉它后运行 goalkeeper goal approve",
    "goal.conditions_user": "goalkeeper：目标的每个条件分别成了：\n{items}",
    "goal.unchecked_user": "goalkeeper：目标的验证命令已通过，但下面这些条件没有命令检查，所以目标还不能算完成：\n{items}\n请为每一条给出命令（goalkeeper goal set --replace --verify '<命令>' \"<目标>\"），或从 GOAL.md 删掉它们后运行 goalkeeper goal approve。",
    "goal.command_file": '---\ndescription: "设定一个由 goalkeeper 在每次停止时亲自验证的目标（GOAL.md）"\nargument-hint: "<必须成立的事，例如 `pytest -q` 通过且 mypy 无错误>"\n---\n目标：$ARGUMENTS\n\n一直工作到这个目标达成。goalkeeper 把它记在 .agents/goal/GOAL.md，每次停止时运行它的验证，并告诉你还有什么没通过。\n',
    # -- Pi：/goal 命令 ---------------------------------------------------------------------------
    "goal.pi.command": "设定一个由 goalkeeper 在每次停止时亲自验证的目标（GOAL.md）；不带文字：显示当前目标",
    "goal.pi.prompt": "目标：{goal}\n\n一直工作到这个目标达成。goalkeeper 把它记在 .agents/goal/GOAL.md，每次停止时运行它的验证，并告诉你还有什么没通过。",
    "goal.pi.none": "goalkeeper：没有目标。设定一个：/goal <必须成立的事，例如 `pytest -q` 通过>",
    "goal.pi.status": "goalkeeper 目标（{path}）：{objective} —— {status}；已用修复轮次 {attempts}/{rounds}；验收标准已勾 {done}/{total}。",
    # -- 暂停的目标：宿主能提问时（Pi）由用户选择 ----------------------------------------------------
    "goal.ask.title": "goalkeeper 已暂停目标：{objective}。接下来怎么做？",
    "goal.ask.continue": "继续：再给 {rounds} 轮修复",
    "goal.ask.plan": "回到计划：目标保持暂停",
    "goal.ask.stop": "到此为止",
    "goal.choice.continue": "用户选择继续目标（{objective}），再给 {rounds} 轮修复。上一次的失败是：{line}。换一种和上次不同的修法，然后停下：goalkeeper 会再次运行 `{commands}`。",
    "goal.choice.plan": "用户选择让目标保持暂停、回到计划。挑计划里下一个未完成的项去做；目标留在 {path} 里以后再说。",
    "goal.choice.stop": "goalkeeper：目标保持暂停。随时可以用 `goalkeeper goal resume`（或 Pi 中的 /goal）继续。",
    "goal.resent.resumed": "用户再次发送了已暂停的目标（{objective}）：它从停下的地方继续，再给 {rounds} 轮修复。上一次的失败是：{line}。换一种和上次不同的修法，然后停下：goalkeeper 会再次运行 `{commands}`。",
    "goal.resent.active": "用户再次发送了目标（{objective}）：它已经是活动目标，从当前进度继续（已用修复轮次：{attempts}/{rounds}）。继续朝它做下一步。",
    "goal.paused_anchor": "目标已暂停（来自 {path}）：{objective}\n- 暂停原因：{reason}\n- 在用户恢复之前（再次发送该目标，或运行 `goalkeeper goal resume`），goalkeeper 不会验证它。先做用户现在要求的事；不要报告该目标已完成。",
    "goal.paused_strategy": "恢复之前先换策略：更小的一步、换一个工具、换一种做法。",
    "goal.upgraded": "目标（{objective}）被标记为 `needs-upgrade`：它比一轮修复要粗，goalkeeper 现在通过 `{route}` 路线来推进。按路线的阶段走；目标的验证命令和验收标准保持不变。",
    "goal.log.upgraded": "{time} 升级到 {route} 路线（status: needs-upgrade）",
    "goal.confirm.title": "goalkeeper 在你的消息里读到一个目标：{objective}。每次停下时它都会验证。保留吗？",
    "goal.confirm.keep": "保留为目标",
    "goal.confirm.drop": "丢弃：那不是目标",
    "goal.confirm.dropped": "goalkeeper：已丢弃目标（{objective}）；它已归档到 .agents/goal/archive/。",
    "goal.stale.title": "一个 {hours} 小时前的目标仍处于活动状态：{objective}。继续做吗？",
    "goal.stale.continue": "继续",
    "goal.stale.pause": "先暂停",
    "goal.stale.paused": "goalkeeper：目标（{objective}）已暂停。再次发送该目标或运行 `goalkeeper goal resume` 即可恢复。",
    "goal.log.paused_user": "{time} 用户暂停",
    "goal.failed_shaping": (
        "目标的验证仍然失败：`{command}`（{result}）。{route} 工作流还在梳理工作（阶段 {phase}），"
        "这是预期的，所以不消耗修复轮次。失败的最后几行：\n{tail}\n继续工作流当前的步骤；"
        "只有这项验证通过，目标才算被证明，goalkeeper 会在每次停下时运行它。"
    ),
    "goal.progress.failed_shaping": "goalkeeper：{command} …… 失败（{result}）；工作流处于 {phase} 阶段：不消耗修复轮次",
    "goal.shaping_stop_user": "goalkeeper：目标的工作流处于 {phase} 阶段时智能体停下了；`{command}` 仍然失败（{result}：{line}）。实现之前不消耗修复轮次，而且本阶段已经让智能体回去过一次，所以这次停下不再拦；发一条消息即可继续。",
    "goal.shaping.first_step": "第一步",
}
