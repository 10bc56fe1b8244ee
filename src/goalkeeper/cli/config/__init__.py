"""The user's settings: ``config`` (what is in force) and ``allow`` (approve project files)."""
