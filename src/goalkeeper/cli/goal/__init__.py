"""The goal and the plan: ``goal`` (set, status, verify, resume, clear, approve), ``goal tests``,
``plan``, ``gates`` and ``marker``."""
