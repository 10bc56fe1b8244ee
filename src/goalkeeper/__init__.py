"""goalkeeper: keeps AI coding agents working on long tasks until the goal is proven done.

This module stays trivial: every hook process imports it first.
"""

__version__ = "0.1.0"
