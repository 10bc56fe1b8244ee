"""``goalkeeper install`` / ``uninstall``: put goalkeeper's hooks, MCP server, commands and sandbox
into each host's settings, and take exactly them out again."""
