"""中文消息目录：只请一次的独立复核（种子 002 的验证义务）。

与 ``messages.review_en`` 的键和字段相同（黄金测试）。字面量花括号写作 ``{{`` ``}}``。
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    "review.goal": (
        "goalkeeper：目标已证明（{commands} 通过），证明结论不变。收尾前最后一步，只请一次："
        "请一个 fresh reviewer 对照目标复核这次改动。{how}\n"
        "目标：{objective}\n"
        "验收标准：\n{criteria}\n"
        "reviewer 阅读改动（`git diff`）并回答：改动是否对所有输入都做到了目标要求（而不只是"
        "被测的输入），测试、检查和测试数据是否保持原样？发现问题就修复并重新运行 {commands}；"
        "没有发现问题就用一句话说明，然后收尾。"
    ),
    "review.todos": (
        "goalkeeper：声明了 test 门禁的任务 {ids} 已完成。完成 ≠ 验证；只请一次：请一个 fresh "
        "reviewer 复核每项改动是否做到了任务所说的，以及它运行的测试是否真的测到了它（只读："
        "改动、测试、声称的证据）。{how}发现缺口当场修复；没有缺口就用一句话说明，然后继续。"
    ),
    "review.how.subagent": (
        "交给一个 subagent（全新上下文、只读）：给它这里写的目标原文，而不是你对工作的自述。"
    ),
    "review.how.self": "当前宿主没有 subagent：请你自己以全新的眼光复核，把改动当作别人写的来读。",
    "review.no_criteria": "- （除验证命令外没有其他标准）",
}
