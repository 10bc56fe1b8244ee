"""无法伪造的证明的中文消息：受保护的测试、真正运行过的检查、作为义务的 todo 门禁、诚实的退出，以及停止时用户听到的内容。"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # -- protected tests (goal verify) --------------------------------------------------------
    "proof.tests.modified": "- {path}：已改动",
    "proof.tests.deleted": "- {path}：已删除",
    "proof.tests.added": "- {path}：新增（测试配置）",
    "proof.tests.more": "- ……另有 {n} 个",
    "proof.tests.held": (
        "验证通过了，但只是因为你改动了测试。goalkeeper 用设定目标时的原始测试、在你的代码上重新运行了验证，"
        "结果失败：\n{changed}\n\n原始测试的输出（最后几行）：\n{tail}\n\n请修改代码使原始测试通过，并把测试改回去。"
        "如果是测试本身有误，请在 {path} 的进展日志中说明，并请用户接受这个改动：只有用户可以"
        "（`goalkeeper goal accept-tests`）。"
    ),
    "proof.tests.held_user": (
        "goalkeeper：目标的验证只有在智能体改动测试后才通过，因此目标未被证明：\n{changed}\n"
        "用原始测试验证时失败。请审阅这些改动；要接受它们，请在你自己的终端里运行 `goalkeeper goal accept-tests`。"
    ),
    "proof.tests.unchecked_user": (
        "goalkeeper：自设定目标以来测试有改动，而 goalkeeper 无法用原始测试运行验证（{problem}），"
        "因此目标未被证明：\n{changed}\n要接受改动后的测试，请在你自己的终端里运行 `goalkeeper goal accept-tests`。"
    ),
    # -- checks that ran (cadence) ------------------------------------------------------------
    # -- todo gates ---------------------------------------------------------------------------
    # -- commitments --------------------------------------------------------------------------
    # -- honest exits and the truth at a stop -------------------------------------------------
}
