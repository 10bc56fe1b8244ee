"""Bubblewrap for the tests that confine commands: installed when it is missing and this is a
root process with apt-get (Debian's ``bubblewrap`` package), else the test is skipped with the
reason. A bwrap that is there but cannot create its namespaces (a container without user
namespaces) also skips, with what bwrap said."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

import pytest

from goalkeeper.engine.ports import find_program
from goalkeeper.engine.sandbox import probe

APT_TIMEOUT_S = 600


@functools.cache
def _install_bwrap() -> str | None:
    """Install Debian's bubblewrap (once per test session); None on success, else why not."""
    apt = shutil.which("apt-get")
    if apt is None or os.geteuid() != 0:
        return "bwrap is not installed, and installing it needs root and apt-get"
    said = _apt(apt, "install", "-y", "bubblewrap")
    if said is not None:  # often a package list that is stale or was never fetched
        _apt(apt, "update")
        said = _apt(apt, "install", "-y", "bubblewrap")
    return None if said is None else f"`apt-get install -y bubblewrap` failed: {said}"


def _apt(apt: str, *args: str) -> str | None:
    """Run apt-get; None if it succeeded, else the end of what it said."""
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    try:
        done = subprocess.run(
            [apt, *args], env=env, capture_output=True, text=True, timeout=APT_TIMEOUT_S
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    return (done.stdout + done.stderr).strip()[-300:] or f"exit {done.returncode}"


def require_bwrap() -> str:
    """The path of a working bwrap, installing it if needed; skips the test otherwise."""
    path = find_program("bwrap")
    if path is None:
        why = _install_bwrap()
        path = find_program("bwrap")
        if path is None:
            pytest.skip(why or "bwrap was installed but is not on PATH")
    problem = probe(path)
    if problem is not None:
        pytest.skip(problem)
    return path


@pytest.fixture
def bwrap() -> str:
    """A bwrap that works here (see ``require_bwrap``)."""
    return require_bwrap()
