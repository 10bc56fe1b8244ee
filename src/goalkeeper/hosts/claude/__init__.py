"""Claude Code: its hook translator, settings install, plugin, sandbox, doctor and transcript."""
