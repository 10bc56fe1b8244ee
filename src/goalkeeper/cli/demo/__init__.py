"""``goalkeeper demo``: the PDCA loop and a workflow route end to end, offline."""
