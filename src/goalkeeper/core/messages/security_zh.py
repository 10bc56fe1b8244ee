"""Messages about where goalkeeper keeps what it trusts and who may speak to it (zh): the state
folder outside the project, the channels that prove their origin, the host's sandbox."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- the state folder outside the project (issue 21 item 1) ---
    "state.moved": (
        "goalkeeper：这个项目的状态（计数、待办、批准、日志）现在保存在项目之外的 {state_dir}，"
        "智能体的 shell 无法删除它。它是从 {legacy} 复制过来的，goalkeeper 不再读取那里：你可以删除该文件夹。"
    ),
    "state.fresh.link": (
        "goalkeeper：{legacy} 中的旧状态是一个符号链接，goalkeeper 不会跟随它，"
        "所以 goalkeeper 在项目之外的 {state_dir} 重新开始记录这个项目的状态（之前的批准和计数没有带过来）。"
        "goalkeeper 不再读取 {legacy}：你可以删除它。"
    ),
    "state.fresh.not_file": (
        "goalkeeper：{legacy} 中的旧状态不是普通文件，goalkeeper 没有读取它，"
        "所以 goalkeeper 在项目之外的 {state_dir} 重新开始记录这个项目的状态（之前的批准和计数没有带过来）。"
        "goalkeeper 不再读取 {legacy}：你可以删除它。"
    ),
    "state.fresh.too_large": (
        "goalkeeper：{legacy} 中的旧状态大于 {mb} MB，goalkeeper 没有读取它，"
        "所以 goalkeeper 在项目之外的 {state_dir} 重新开始记录这个项目的状态（之前的批准和计数没有带过来）。"
        "goalkeeper 不再读取 {legacy}：你可以删除它。"
    ),
    "state.fresh.unreadable": (
        "goalkeeper：{legacy} 中的旧状态无法读取（{detail}），"
        "所以 goalkeeper 在项目之外的 {state_dir} 重新开始记录这个项目的状态（之前的批准和计数没有带过来）。"
        "goalkeeper 不再读取 {legacy}：你可以删除它。"
    ),
    "state.fresh.not_db": (
        "goalkeeper：{legacy} 中的旧状态不是完好的 goalkeeper 状态数据库（{detail}），"
        "所以 goalkeeper 在项目之外的 {state_dir} 重新开始记录这个项目的状态（之前的批准和计数没有带过来）。"
        "goalkeeper 不再读取 {legacy}：你可以删除它。"
    ),
    # (end of the state folder's messages)
    #
    #
    # --- channels that prove their origin (issue 21 item 2) ---
    "channel.secret_unsafe": (
        "goalkeeper：{path}（向引擎证明 goalkeeper hook 身份的密钥）不是只有你能读取的文件"
        "（属主 {owner}，权限 {mode}），所以热引擎已关闭，每个 hook 都在自己的进程里处理；"
        "删除它，goalkeeper 会重新生成一个。"
    ),
    "channel.mcp_unproven": (
        "这个 goalkeeper MCP 服务器不是由智能体的宿主启动的（{why}），因此它显示的任何表单都不能批准任何内容。"
    ),
    "channel.why.no_secret": "它无法读取 goalkeeper 的密钥",
    "channel.why.parent": "它的父进程是 {parent}，而不是宿主程序",
    # (end of the channels' messages)
    #
    #
    # --- the host's sandbox, set up and checked (issue 21 item 3) ---
    "sandbox.install.enabled": "已为智能体的 Bash 打开 Claude Code 的沙箱（sandbox.enabled）",
    "sandbox.install.failIfUnavailable": "沙箱无法启动时，Claude Code 现在会停止，而不是在沙箱外"
    "运行命令（sandbox.failIfUnavailable）",
    "sandbox.install.allowUnsandboxedCommands": "关上沙箱的后门：Bash 工具的 "
    "dangerouslyDisableSandbox 不再生效（sandbox.allowUnsandboxedCommands: false）",
    "sandbox.install.denyRead": "智能体的 Bash 不能读取 goalkeeper 的文件夹"
    "（sandbox.filesystem.denyRead）：{folders}",
    "sandbox.install.denyWrite": "智能体的 Bash 不能写入 goalkeeper 的文件夹"
    "（sandbox.filesystem.denyWrite）：{folders}",
    "sandbox.install.where": "沙箱设置写在你的用户设置里（{path}）：在所有项目之外，智能体关不掉它"
    "（这里的 true 不受项目 .claude/settings*.json 的影响）。钩子和 MCP 服务在沙箱外运行；"
    "智能体的 Bash 碰不到 goalkeeper 的状态、配置和套接字。",
    "sandbox.install.sockets": "问题：你的 Claude Code 设置允许智能体的 Bash 打开 unix 套接字"
    "（{what}）：它能冒充钩子和 goalkeeper 的引擎说话。请从 {path} 中删掉它。",
    "sandbox.install.missing": "注意：Claude Code 的沙箱在这台机器上需要 {missing}"
    "（Debian、Ubuntu：sudo apt-get install bubblewrap socat）。在此之前 Claude Code 会拒绝启动"
    "（sandbox.failIfUnavailable）。",
    "sandbox.uninstall.restored": "已恢复 sandbox.{key}",
    "sandbox.uninstall.removed": "已删除 sandbox.{key}",
    "sandbox.uninstall.denied": "已从 sandbox.filesystem.{list} 中拿掉 goalkeeper 的文件夹",
    "sandbox.fix": "goalkeeper install claude --sandbox",
    "sandbox.fix_sockets": "从 Claude Code 设置中删掉 sandbox.network.allowAllUnixSockets"
    "（以及 allowUnixSockets 中 goalkeeper 的套接字）",
    "sandbox.off": "Claude Code 的沙箱没有打开：智能体的 Bash 以你的身份不受限制地运行；"
    "goalkeeper 的文本检查只能挡住简单的伪造，挡不住决意作弊的智能体",
    "sandbox.weak": "Claude Code 的沙箱只在 {layer} 设置里打开，而它在项目中：请放到你的用户设置里，"
    "那里智能体关不掉",
    "sandbox.on": "Claude Code 的沙箱已打开（{layer} 设置）",
    "sandbox.may_fall_back": "沙箱无法启动时（没有 bubblewrap 或 socat），Claude Code 会给出警告"
    "并在沙箱外运行命令（sandbox.failIfUnavailable 不是 true）",
    "sandbox.not_denied": "goalkeeper 的文件夹不在 sandbox.filesystem.{list} 中：{folders}",
    "sandbox.denied": "智能体的 Bash 不能读写 goalkeeper 的状态、配置和运行时文件夹",
    "sandbox.sockets_open": "智能体的 Bash 可以打开 unix 套接字（{paths}）：它能冒充钩子和 "
    "goalkeeper 的引擎说话",
    "sandbox.escape": "智能体可以请求在沙箱外运行命令（dangerouslyDisableSandbox；"
    "sandbox.allowUnsandboxedCommands 不是 false）：一次批准，它就能碰到 goalkeeper 的状态",
    "sandbox.excluded": "这些命令在沙箱外运行（sandbox.excludedCommands）：{commands}；"
    "其中任何一个能启动别的程序，就等于全部放开",
    "sandbox.shell.confined": "智能体的 shell 受限：它读写不了 goalkeeper 的状态、配置和套接字，"
    "所以伪造钩子事件、伪装的批准、它自己的 MCP 服务、环境里的设置、冒名的引擎和删除状态都会失败"
    "（README：安全模型）",
    "sandbox.shell.writes_confined": "智能体的 shell 写不了 goalkeeper 的文件夹（状态、套接字和"
    "基线不能被删除或替换），但能读取它们，并在宿主允许时打开 unix 套接字：伪造的事件和批准只靠 "
    "goalkeeper 的检查（README：安全模型）",
    "sandbox.shell.not_confined": "智能体的 shell 不受限：goalkeeper 的文本检查能挡住简单的伪造，"
    "但决意作弊的智能体仍能碰到 goalkeeper 的状态和套接字（README：安全模型）",
    "sandbox.codex.full_access": 'Codex 以 sandbox_mode = "danger-full-access" 运行智能体的 '
    "shell（{where}）：不受限",
    "sandbox.codex.fix_full_access": '使用 sandbox_mode = "workspace-write"（用 goalkeeper 时'
    "不要用 --yolo / --dangerously-bypass-approvals-and-sandbox）",
    "sandbox.codex.writable": "goalkeeper 的文件夹 {folder} 位于 Codex 的 workspace-write 允许"
    "智能体 shell 写入的文件夹中（{root}）",
    "sandbox.codex.fix_writable": "把 {root} 从 [sandbox_workspace_write] writable_roots 中拿掉，"
    "或把 GOALKEEPER_STATE_HOME / XDG_STATE_HOME 指到别处",
    "sandbox.codex.ok": "Codex 的 {mode} 让 goalkeeper 的文件夹不在智能体 shell 可写的位置"
    "（项目、/tmp、$TMPDIR、writable_roots）；用 --yolo 或 "
    "--dangerously-bypass-approvals-and-sandbox 运行时不受限",
    "sandbox.codex.reads": "Codex 的沙箱允许智能体的 shell 读取所有文件，包括 goalkeeper 的文件夹，"
    "unix 套接字取决于它的网络设置：状态不能被写入或删除，但放在那里的密钥对智能体不是秘密",
    "sandbox.gemini": "Gemini CLI 的沙箱（--sandbox、GEMINI_SANDBOX、tools.sandbox：docker、"
    "podman 或 macOS seatbelt）把整个 CLI 连同钩子一起放进去：智能体的 shell 和 goalkeeper "
    "的钩子之间没有墙；goalkeeper 只靠它的文本检查",
    "sandbox.pi": "Pi 没有沙箱：智能体的 shell 以你的身份运行；goalkeeper 只靠它的文本检查",
    # (end of the sandbox's messages)
}
