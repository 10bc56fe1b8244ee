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
    # (end of the sandbox's messages)
}
