"""信任边界的中文消息：被搁置的目标、需批准的设置、被拒绝的重跑、goalkeeper 自己的状态和钩子通道。
智能体写的东西绝不会扩大 goalkeeper 所运行的命令；这些文本告诉用户和智能体什么被搁置了、如何批准。
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # -- held goals ---------------------------------------------------------------------------
    "trust.goal.unapproved_user": (
        "goalkeeper：{path} 中的目标没有经过任何人批准，goalkeeper 既不运行也不检查它：\n{diff}\n"
        "如果这是你的目标，请在你自己的终端里运行 `goalkeeper goal approve`。"
    ),
    "trust.goal.changed_user": (
        "goalkeeper：你设定的目标在 {path} 中被改动了。goalkeeper 不会运行改动中的任何内容，"
        "并继续验证你设定的目标，它尚未被证明。"
        "改动如下：\n{diff}\n要接受改动，请在你自己的终端里运行 `goalkeeper goal approve`；"
        "要保留你的目标，请让智能体改回去。"
    ),
    "trust.goal.replaced_user": (
        "goalkeeper：{path} 现在是另一个目标，不是你设定的（{objective}）。goalkeeper 不运行其中任何内容，"
        "并继续验证你设定的目标，它尚未被证明：\n{diff}\n"
        "要改用那个目标，请在你自己的终端里运行 `goalkeeper goal approve`。"
    ),
    "trust.goal.missing_user": (
        "goalkeeper：{path} 不见了，但你设定的目标（{objective}）尚未被证明。要放弃它，请运行 "
        "`goalkeeper goal clear`；要继续，请恢复该文件（`goalkeeper goal status` 显示你设定的内容）。"
    ),
    "trust.goal.held_model": (
        "{path} 中的目标被搁置：它与用户批准的不同，因此 goalkeeper 不会验证它，目标也没有完成。"
        "请恢复用户批准的内容，或请用户批准你的改动。已批准的内容：\n{approved}"
    ),
    "trust.goal.held_work_model": (
        "你对 {path} 的改动要等用户决定：goalkeeper 不采纳它，用户设定的目标仍然有效且尚未完成。"
        "仍然有效的目标：\n{approved}\n请为它做实际的工作；改动目标要由用户接受。"
    ),
    "trust.goal.held_moot_user": (
        "goalkeeper：你设定的目标已由它自己的验证命令和验收标准证明。对 {path} 的未经批准的改动没有被采纳："
        "其中的任何内容都没有运行，也没有计入。"
    ),
    "trust.goal.replaced_waits_user": (
        "goalkeeper：你设定的目标已由它自己的验证命令和验收标准证明。{path} 现在是另一个目标，"
        "不是你设定的（{objective}）：goalkeeper 保留了它，但不运行其中任何内容。要把它作为你的下一个目标，"
        "请在你自己的终端里运行 `goalkeeper goal approve`；否则运行 `goalkeeper goal clear`。"
    ),
    "trust.goal.added_user": (
        "goalkeeper：智能体在 {path} 中为你的目标新增了验收标准。它们只会让目标更严格，因此 goalkeeper "
        "记录了它们，证明也必须满足它们：\n{items}\n它给出的理由：{reason}"
    ),
    "trust.goal.added_no_reason": "（未给出）",
    "trust.goal.held_again_user": (
        "goalkeeper：智能体再次停下，{path} 中你的目标仍被改动且尚未完成（改动见上文），因此 goalkeeper "
        "暂停了，而不是再次把它送回去。运行 `goalkeeper goal approve` 接受改动，或让智能体恢复你的目标并完成工作。"
    ),
    "trust.goal.unapproved_model": (
        "{path} 中的目标不是用户设定的，因此 goalkeeper 不检查它。目标由用户设定：如果你认为需要一个目标，请询问用户。"
    ),
    "trust.goal.ask.title": "GOAL.md 中的目标被改动了。接受这个改动吗？\n{diff}",
    "trust.goal.ask.approve": "接受改动",
    "trust.goal.ask.keep": "保留我设定的目标",
    "trust.goal.approved": "goalkeeper：目标已按 GOAL.md 当前内容批准；从下一次停止起 goalkeeper 会验证它。",
    "trust.goal.tests_restored": (
        "goalkeeper：它对这个目标的记录丢失了，但它保存过设定目标时测试的副本（{n} 个文件）："
        "目标会再次以这些测试为准来检查。"
    ),
    "trust.goal.tests_kept_now": (
        "goalkeeper：它没有为这个目标保存过测试（目标是智能体提议的，或 goalkeeper 对它的记录丢失了），"
        "因此现在以当前的 {n} 个测试文件和测试配置为准。请在智能体继续之前审阅它们（`git diff`）。"
    ),
    "trust.goal.approve_stale": "goalkeeper：在询问你之后 GOAL.md 又被改动了，因此没有批准任何内容；运行 `goalkeeper goal approve` 查看。",
    "trust.goal.kept_model": (
        "用户保留了他们设定的目标。请把 {path} 恢复成它（目标、验证命令和验收标准），然后继续：\n{approved}"
    ),
    "trust.goal.proposed": (
        "goalkeeper：目标已写入 {path}，但它是在 {agent} 的 shell 中设定的，因此只是一个提议："
        "在用户于自己的终端里运行 `goalkeeper goal approve` 批准之前，其中的任何内容都不会运行。"
    ),
    "trust.goal.tool.description": (
        "请用户批准对 .agents/goal/GOAL.md 中目标的改动（目标、验证命令或验收标准）。你不能自己批准："
        "用户会看到改动内容并作出决定。请先向用户说明目标为何需要改动，再使用它。"
    ),
    "trust.goal.tool.nothing": "{path} 中的目标就是用户批准的那个：没有需要批准的内容。",
    "trust.goal.tool.no_ui": (
        "此宿主无法向用户显示表单。请让用户查看改动，并在自己的终端里运行 `goalkeeper goal approve`。"
    ),
    "trust.goal.tool.approved": "用户已按 {path} 当前内容批准了目标；从下一次停止起会验证它。",
    "trust.goal.tool.kept": "用户保留了他们设定的目标。请把 {path} 恢复成它：\n{approved}",
    "trust.goal.tool.question": "{diff}\n\n接受对你的目标的这个改动吗？",
    "trust.verify.not_approved": "未经用户批准",
    # -- refused re-runs ----------------------------------------------------------------------
    "trust.rerun.shell": "goalkeeper 运行命令时不经过 shell；不允许使用 shell 运算符",
    "trust.rerun.unparsable": "无法把该命令行解析为参数",
    "trust.rerun.not_approved": "这不是 goalkeeper 可以重跑的命令（已批准：{detail}）",
    "trust.rerun.argument": "`{detail}` 的作用超出了选择测试，因此 goalkeeper 不会重跑它",
    # -- goalkeeper's own state ---------------------------------------------------------------
    "trust.state_write": (
        "{path} 是 goalkeeper 自己的状态：其中保存着用户批准的内容，任何工具都不能写入它。请把它留给 goalkeeper 和用户。"
    ),
    "trust.host_config_write": (
        "{path} 配置着让宿主运行 goalkeeper 的内容（钩子、它们的环境变量、MCP 服务器）：智能体不能修改它。请让用户来改。"
    ),
    "trust.approval_command": (
        "`{command}` 是代表用户进行批准；只有用户本人可以在自己的终端里运行它。请改为询问用户。"
    ),
    "trust.entry_command": (
        "`{command}` 是 goalkeeper 自己的入口，只由宿主启动（它的钩子、MCP 服务、引擎）；"
        "代理不可运行它。若觉得 goalkeeper 有误，请告诉用户。"
    ),
    "trust.opaque_command": (
        "这行命令运行了文本中看不出的命令（`{command}`），且同一行提到了 goalkeeper 或批准类动词，"
        "goalkeeper 无法判断它做什么，因此拒绝。请把命令直接写出来。"
    ),
    "trust.state_folder": (
        "`{path}` 指向 goalkeeper 自己的文件夹（状态、配置或运行时文件夹）或宿主记录用户提示的位置："
        "其中保存着用户批准和说过的内容，代理的任何工具都不可读取、修改或删除。请交给 goalkeeper 和用户。"
    ),
    # -- hook transport -----------------------------------------------------------------------
    "hook.runtime_unsafe": (
        "goalkeeper：{path} 不是你私有的（属主 {owner}，权限 {mode}），所以热引擎已关闭，"
        "每个 hook 都在自己的进程里处理；请删除该文件夹，或把 GOALKEEPER_RUNTIME_DIR "
        "设为只有你能打开的文件夹。"
    ),
    "hook.server_foreign": (
        "goalkeeper：引擎套接字 {path} 由 {owner} 提供，而不是你；没有向它发送任何内容，"
        "热引擎已关闭，每个 hook 都在自己的进程里处理。"
    ),
}
