"""goalkeeper as a Claude Code plugin, in a marketplace that is this repository.

``claude plugin marketplace add <repository or path>`` and
``claude plugin install goalkeeper@goalkeeper`` are the whole install: nothing is written into
the project, so nothing a team commits names one machine's paths. The files under
``.claude-plugin/`` and ``plugins/goalkeeper/`` are generated here from the code they mirror
(the hook events and their tool matcher, the slash command texts of the message catalog, the
skills of ``goalkeeper.skills``), and a test holds the committed copies equal to what this
generator writes (``goalkeeper.cli.plugin_files``).

Three things differ from a settings install (``goalkeeper install claude``):

- **Names.** Claude Code namespaces a plugin's commands (``/goalkeeper:goal``) and MCP tools
  (``mcp__plugin_goalkeeper_goalkeeper__todo``). ``hook.plugin_prompt`` turns the commands back
  into the ones goalkeeper's prompt hook knows (``/gk-goal``), and the PreToolUse matcher and the
  hook's session hand-over take the plugin's tool prefix too (``PLUGIN_TOOL_PREFIX``).
- **The interpreter.** A plugin cannot know where goalkeeper is installed, so the hooks and the
  MCP server run the portable launcher (``hosts.claude.settings.hook_command`` / ``mcp_command``):
  ``$GOALKEEPER_PYTHON`` (for a virtualenv: the ``env`` of the user's own settings), else
  ``goalkeeper`` on ``PATH`` (``uv tool install``, pipx), else a one-line notice and a session
  without goalkeeper. No ``userConfig`` option: an MCP server's environment has no
  ``CLAUDE_PLUGIN_OPTION_*``, and ``${user_config.…}`` fails the server while the option is
  unset (both seen on 2.1.332), so an option would break the ``PATH`` case it cannot help.
- **The block cap.** A plugin cannot set ``CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`` (Claude Code
  ignores ``env`` in a plugin's files; verified on 2.1.332). None is needed with goalkeeper's
  defaults: a loop that calls tools never meets the cap, and the tool-less streak pauses at
  exactly the 9th stop, where Claude Code's default cap of 8 would end it anyway. A user who
  raises ``stuck`` or ``reset`` is told at session start, by the warning every host gives,
  which value to set in the ``env`` of their own settings.
"""

from __future__ import annotations

from typing import Any

from goalkeeper.hosts.command_hooks.wire import MCP_SERVER, PLUGIN_NAME, PLUGIN_TOOL_PREFIX

MARKETPLACE_NAME = "goalkeeper"


def pre_tool_matcher() -> str:
    """The settings install's PreToolUse matcher, with the plugin's own tools added."""
    from goalkeeper.hosts.claude.hook import PRE_TOOL_MATCHER

    if not PRE_TOOL_MATCHER.startswith("^("):  # the two modules disagree: a programming error
        raise RuntimeError(f"unexpected PreToolUse matcher {PRE_TOOL_MATCHER!r}")
    return f"^({PLUGIN_TOOL_PREFIX}.*|{PRE_TOOL_MATCHER[2:]}"


def hooks_json() -> dict[str, Any]:
    from goalkeeper.hosts.claude.hook import HOOK_EVENTS
    from goalkeeper.hosts.claude.settings import HOOK_TIMEOUT_S, STOP_TIMEOUT_S, hook_command

    hooks: dict[str, Any] = {}
    for event in HOOK_EVENTS:
        handler = {
            "type": "command",
            "command": hook_command(),
            "timeout": STOP_TIMEOUT_S if event == "Stop" else HOOK_TIMEOUT_S,
        }
        group: dict[str, Any] = {"hooks": [handler]}
        if event == "PreToolUse":
            group = {"matcher": pre_tool_matcher(), **group}
        hooks[event] = [group]
    description = "goalkeeper: keeps the agent working until the goal is proven done"
    return {"description": description, "hooks": hooks}


def plugin_json(version: str) -> dict[str, Any]:
    return {
        "name": PLUGIN_NAME,
        "version": version,
        "description": "Keeps the agent working until the goal is proven done: plan gates, "
        "goals goalkeeper verifies itself, todos that need evidence, workflow routes. So that "
        "the agent's Bash cannot forge what goalkeeper trusts, turn on Claude Code's sandbox "
        "with goalkeeper's folders denied to it: goalkeeper install claude --sandbox-only.",
        "author": {"name": "goalkeeper maintainers"},
        "license": "MIT",
        "keywords": ["hooks", "goal", "verification", "pdca", "todo", "workflow"],
    }


def mcp_json() -> dict[str, Any]:
    """The plugin's ``.mcp.json``: goalkeeper's server, started by the launcher."""
    from goalkeeper.hosts.claude.settings import mcp_command

    argv = mcp_command()
    return {"mcpServers": {MCP_SERVER: {"command": argv[0], "args": argv[1:]}}}


def marketplace_json(version: str) -> dict[str, Any]:
    return {
        "name": MARKETPLACE_NAME,
        "owner": {"name": "goalkeeper maintainers"},
        "description": "goalkeeper for Claude Code",
        "plugins": [
            {
                "name": PLUGIN_NAME,
                "source": f"./plugins/{PLUGIN_NAME}",
                "description": plugin_json(version)["description"],
                "version": version,
            }
        ],
    }
