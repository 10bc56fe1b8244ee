"""信任边界的中文消息：被搁置的目标、需批准的设置、被拒绝的重跑、goalkeeper 自己的状态和钩子通道。
智能体写的东西绝不会扩大 goalkeeper 所运行的命令；这些文本告诉用户和智能体什么被搁置了、如何批准。
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # -- hook transport -----------------------------------------------------------------------
}
