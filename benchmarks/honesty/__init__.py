"""The honesty benchmark: scripted agents that cheat, and honest ones, against goalkeeper."""
