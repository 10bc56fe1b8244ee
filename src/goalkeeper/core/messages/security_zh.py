"""Messages about where goalkeeper keeps what it trusts and who may speak to it (zh): the state
folder outside the project, the channels that prove their origin, the host's sandbox."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- the state folder outside the project (issue 21 item 1) ---
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
