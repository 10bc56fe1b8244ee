"""Gemini CLI: its hook translator, settings install, environment filter and run records."""
