"""``goalkeeper doctor``: whether goalkeeper's hooks will really run, per agent host."""
