"""Commands a host runs, not the user: ``hook``, ``mcp``, ``bridge`` and ``serve``."""
