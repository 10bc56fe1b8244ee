"""``goalkeeper run`` and ``goalkeeper pi``: start an agent CLI headless under goalkeeper and
report what goalkeeper decided."""
