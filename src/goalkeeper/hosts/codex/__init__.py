"""Codex CLI: its hook translator, config install, sandbox, patch reading and rollout reader."""
