"""What every command-hook host shares (Claude Code, Codex CLI, Gemini CLI): the fail-open
wrapper, the hook payload and answer of Claude Code's shape, the hooks maps of a settings
document, the JSON-line logs. No host folder is imported from here."""
