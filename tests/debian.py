"""Debian packages the tests need (bubblewrap, socat …): installed with apt-get when a program is
missing and this is a root process with apt-get; on a failure the package lists are refreshed
once (``apt-get update``: often they are stale or were never fetched) and the install tried
again. Whatever stays missing is named in the reason the test is skipped with."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

import pytest

APT_TIMEOUT_S = 600


def require(programs: dict[str, str]) -> dict[str, str]:
    """The path of each program (``program -> Debian package``), installing the packages of
    those missing; skips the test naming what is still missing and why."""
    missing = {p: pkg for p, pkg in programs.items() if shutil.which(p) is None}
    why = install(tuple(sorted(set(missing.values())))) if missing else None
    found = {p: shutil.which(p) for p in programs}
    still = [p for p, path in found.items() if path is None]
    if still:
        names = ", ".join(f"{p} (Debian package {programs[p]})" for p in still)
        pytest.skip(f"missing {names}: {why or 'installed, yet not on PATH'}")
    return {p: path for p, path in found.items() if path is not None}


@functools.cache
def install(packages: tuple[str, ...]) -> str | None:
    """``apt-get install -y PACKAGES`` (once per test session); None on success, else why
    not."""
    apt = shutil.which("apt-get")
    if apt is None or os.geteuid() != 0:
        return "installing it needs root and apt-get"
    said = _apt(apt, "install", "-y", *packages)
    if said is not None:
        _apt(apt, "update")
        said = _apt(apt, "install", "-y", *packages)
    return None if said is None else f"`apt-get install -y {' '.join(packages)}` failed: {said}"


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
