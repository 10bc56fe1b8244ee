"""Bubblewrap for the tests that confine commands: installed when it is missing (Debian's
``bubblewrap`` package, through ``tests.debian``), else the test is skipped with the reason. A
bwrap that is there but cannot create its namespaces (a container without user namespaces) also
skips, with what bwrap said."""

from __future__ import annotations

import pytest

from goalkeeper.engine.ports import find_program
from goalkeeper.engine.sandbox import probe

from .debian import require


def require_bwrap() -> str:
    """The path of a working bwrap, installing it if needed; skips the test otherwise."""
    path = find_program("bwrap")
    if path is None:
        require({"bwrap": "bubblewrap"})
        path = find_program("bwrap")
        if path is None:
            pytest.skip("bwrap was installed but is not on PATH")
    problem = probe(path)
    if problem is not None:
        pytest.skip(problem)
    return path


@pytest.fixture
def bwrap() -> str:
    """A bwrap that works here (see ``require_bwrap``)."""
    return require_bwrap()
