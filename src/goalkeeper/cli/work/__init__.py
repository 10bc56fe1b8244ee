"""The work in a session: ``todo``, ``workflow``, ``mode`` and the route ``catalog``."""
