"""中文消息目录：与 ``messages.en`` 键和占位符一一对应（有黄金测试守护）。"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    "guidance.static": (
        "goalkeeper 会让这项任务一直沿着计划推进，直到有证据证明完成。\n"
        "三条原则：\n"
        "1. 价值 = 用户可感知的状态改变。\n"
        "2. 证据 = 可复跑的行为结果，或可观测的 KR 指标 / 用户反馈。“看起来没问题”不是证据。\n"
        "3. 完成 = 每个承诺都有证据，或已被显式取消并留下理由。\n"
        "计划在 plan/<主题>.md（SWOT、目标（Objective）、关键结果（Key Results）、用户故事地图）；"
        "由你维护，goalkeeper 只读取。\n"
        "每次回复的最后一行报告 PDCA 阶段：\n"
        "[PDCA] plan | [PDCA] do | [PDCA] check | [PDCA] act | [PDCA] complete | "
        "[PDCA] blocked: <原因>\n"
        "Do 只动一个变量；在 Act 或 complete 之前，先用可复跑证据 Check。"
    ),
    "guide.no_plan": (
        "进展不错。如果这项任务不止一步，请给它一份计划，这样上下文压缩也不会丢：写 "
        "plan/<主题>.md，包含 `## SWOT`（S：/W：/O：/T： 各一行）、`## 目标（Objective）`"
        "（一句话的用户价值）、`## 关键结果（Key Results）`（`- [ ] KR：基线 → 目标`）和 "
        "`## 用户故事地图`（缩进的勾选清单；第一片是最小端到端价值闭环）。然后以 `[PDCA] plan` "
        "结束回复。如果这只是一次性回答，直接停下即可：本会话内 goalkeeper 不会再提醒。"
    ),
    "guide.empty_plan": (
        "{path} 里没有关键结果，也没有故事地图的叶子，所以它既约束不了、也收不了这项工作。如果任务不止一步，"
        "请补上（`## 关键结果（Key Results）`，写 `- [ ] KR：基线 → 目标`；`## 用户故事地图`，写勾选清单），"
        "并以 `[PDCA] plan` 结束回复；如果这只是一次性回答，直接停下即可。"
    ),
    "anchors.header": "计划锚点（来自 {path}）：",
    "anchors.objective": "- 目标：{objective}",
    "anchors.krs": "- 未完成的关键结果：{items}",
    "anchors.krs_more": "（另有 {n} 项）",
    "anchors.leaf": "- 地图上的下一片叶子：{leaf}",
    "anchors.map_done": "- 用户故事地图：所有叶子都已完成或取消。",
    "anchors.swot": "- SWOT：{swot}",
    "anchors.progress": "当前 {current}；{baseline} → {target}",
    "phase.plan": "计划已更新。下一步：[PDCA] do：只动一个变量——对未完成 KR 的证据影响最大的那个——并且要有实际动作。",
    "phase.do": "改动已完成。下一步：[PDCA] check：用可复跑的证据验证（跑测试、跑命令、测指标），并与预期对比。",
    "phase.check": "证据已到手。下一步：[PDCA] act：证据支持的就标准化，证据推翻的就改写计划。在计划里勾上已证明的项（`- [x]`）。",
    "phase.act": (
        "这一轮闭环了。如果每个 KR 和地图叶子都已完成或带理由取消，就报告 [PDCA] complete。"
        "否则 [PDCA] plan 下一个最小循环：用学到的东西更新 SWOT，选下一片未完成的叶子。"
    ),
    "phase.none": "继续推进。上一条回复没有阶段行：每次回复都以 `[PDCA] <阶段>` 结尾。按计划继续：下一片未完成叶子上的下一个最小步骤。",
    "close.refused": "还不能收口：仍有 {count} 道门未通过。一起处理，然后再报告 [PDCA] complete。",
    "gate.check.no_check": "- Check 门：还没有报告过 [PDCA] check。运行可复跑的证据（测试、命令、指标），然后报告 [PDCA] check。",
    "gate.check.do_after_check": "- Check 门：最近一次 check 之后又有 [PDCA] do。用可复跑的证据验证这次改动，然后报告 [PDCA] check。",
    "gate.check.check_without_evidence": "- Check 门：最近一次 [PDCA] check 没有调用任何工具，没有产生可复跑的证据。真正运行一次检查，然后报告 [PDCA] check。",
    "gate.okr": "- OKR 门：{path} 中有 {n} 个关键结果未收口：",
    "gate.map": "- 地图门：{path} 中有 {n} 片故事地图叶子未收口：",
    "gate.item.open": "  - [ ] {text}",
    "gate.item.no_reason": "  - [-] {text}（取消了但没有写理由）",
    "gate.item.short": "  - [x] {text}（已勾选，但当前数值还没达到目标）",
    "gate.item.more": "  - ……另有 {n} 项",
    "gate.ways_out": (
        "每个未收口的项选一条路，并写回计划：\n"
        "1. 做完，有证据，然后勾上：`- [x]`。\n"
        "2. 砍掉：`- [-] …（取消：<理由>）`。\n"
        "3. 改写 KR：仍须可度量（基线 → 目标），是结果而不是任务。"
    ),
    "blocked.decide": "受阻：{reason}。不要把不确定性交回给用户。选一个最合理、可回退、风险最低的默认方案，把决定和理由写进计划，然后以 [PDCA] plan 继续。",
    "blocked.no_reason": "未给出原因",
    "stuck.compact": "连续 {rounds} 轮没有工具调用：步子太大，或证据太远。正在压缩历史；之后重读计划，[PDCA] plan 一个更小的循环。",
    "stuck.save": "连续 {rounds} 轮没有工具调用：步子太大，或证据太远。现在把当前状态和学到的东西写进计划，然后 [PDCA] plan 一个更小的循环：一个变量，证据可以运行。",
    "stuck.clear": (
        "连续 {rounds} 轮没有工具调用：步子太大，或证据太远。goalkeeper 已清空对话，让你从头开始："
        "之前的轮次已不在，仍然有效的内容在下面（目标、磁盘上的计划和它的下一片未完成的工作）。"
        "重读计划文件，然后 [PDCA] plan 一个更小的循环：一个变量，证据可以运行。每次回复的最后一行"
        "报告 PDCA 阶段：[PDCA] plan | [PDCA] do | [PDCA] check | [PDCA] act | [PDCA] complete | "
        "[PDCA] blocked: <原因>。"
    ),
    "stuck.clear.request": "用户最近的一条消息（被清空的对话里原有它）：\n{request}",
    "stuck.pause": "goalkeeper 已暂停：重新计划 {resets} 次后仍然没有工具调用。计划已落盘；给 agent 一个提示或更小的任务即可继续（新的提示会让计数重新开始）。",
    "compact.instructions": "保留计划路径、目标、未完成的关键结果、下一片未完成的地图叶子、最近的 PDCA 阶段和最新证据。",
    "context.save_state": "上下文已用 {percent}%，很快会被压缩。先把当前状态写进计划（完成了什么、证据是什么、下一步是什么），确保不丢失。",
    "stuck.unmeasured": (
        "goalkeeper 读不到本会话的记录文件，无法统计智能体的工具调用：卡住规则（连续几轮没有工具调用就重新规划）"
        "在能读到之前不起作用，需要工具调用的检查也不计数。"
    ),
    "session.too_large": "goalkeeper 已暂停：本会话记录已有 {mb} MB，超过了 {limit} MB 的上限。计划已落盘：开一个新会话（/clear 或新终端）即可接着做。",
    "pause.aborted": "goalkeeper 已暂停：运行被中止。发送一条消息即可继续。",
    "pause.error": "goalkeeper 已暂停：运行出错（{error}）。发送一条消息即可继续。",
    "pause.cap": "goalkeeper 已暂停：已连续自动续跑 {n} 次（max_continuations）。发送一条消息即可继续（计数会重新开始），或调高上限。",
    "close.done": "goalkeeper：所有门都已通过（{gates}）；任务收口。",
    "close.done_no_plan": "goalkeeper：已报告 [PDCA] complete；没有计划文件可检查。",
    "plan.unreadable": "goalkeeper：计划 {path} 无法使用（{problem}）；修好之前不检查收口门。",
    "plan.note": "goalkeeper：计划 {path} 已使用，但有一个问题：{note}。",
    "hook.internal_error": "goalkeeper：内部错误（{error}）；没有阻塞 agent。详情：goalkeeper status。",
    "hook.background_wait": (
        "goalkeeper：智能体停下时还有 {n} 个后台任务在运行，所以现在不做判定：工作不算完成；"
        "goalkeeper 会在它们结束后的那次停止时判定。"
    ),
    "hook.bad_input": "goalkeeper：{problem}；没有阻塞 agent。",
    "hook.unknown_event": "goalkeeper：忽略未知的 hook 事件 '{event}'。",
    "hook.block_cap_low": (
        "goalkeeper：CLAUDE_CODE_STOP_HOOK_BLOCK_CAP={cap} 小于 goalkeeper 允许的连续无工具调用续跑次数 {n}"
        "（stuck × (reset + 1) − 1），Claude Code 会先结束这样的连续续跑。调高它：在 "
        '~/.claude/settings.json 的 `env` 里加入 "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "{n}"'
        "（插件无法设置它）；用 settings 方式安装的，重新运行 `goalkeeper install claude`。"
    ),
    "config.warning": "goalkeeper 配置：{warning}",
}
