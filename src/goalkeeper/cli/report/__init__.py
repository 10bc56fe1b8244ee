"""Seeing the loop from its journal: ``status`` (and ``status --follow``, the watch) and
``report``; none of them is on a hook's path."""
