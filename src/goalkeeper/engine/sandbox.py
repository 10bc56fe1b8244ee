"""Optional confinement of a command goalkeeper runs (a verify command, a re-run of test
evidence) with bubblewrap.

Running a user-approved test command runs the project's own code; that is the accepted risk.
Where ``bwrap`` exists and can create namespaces here, ``confine`` narrows what that code can
reach: no network (a network namespace of its own, with only a loopback), the whole file system
read-only, writable only the project folder and a scratch folder of this run (which is also
``TMPDIR``), a minimal ``/dev`` and a ``/proc`` of its own PID namespace, killed with its
parent, in a session of its own (no terminal to inject keystrokes into), started in the
project folder. ``/tmp`` stays visible (read-only): a virtualenv or a checkout that lives
there keeps working. Where it cannot, the command is returned unchanged with the reason, and
the caller decides whether that is acceptable. This module only builds argument vectors and
probes ``bwrap`` once per process; it does not decide when to confine.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from goalkeeper.engine.ports import SubprocessRunner, find_program

PROBE_TIMEOUT_S = 10.0


class Confinement(Struct, frozen=True):
    """Whether a command was wrapped in bubblewrap; if not, why not (fit for a notice)."""

    confined: bool
    reason: str
    bwrap: str | None = None


def confine(
    argv: Sequence[str], *, project: Path, scratch: Path | None = None
) -> tuple[tuple[str, ...], Confinement]:
    """``argv`` wrapped so it runs confined to ``project``, or unchanged with the reason.
    ``scratch``: a folder of this run only, writable and ``TMPDIR`` inside (the caller makes
    and removes it); without one nothing but the project is writable.

    Unconfined when: ``bwrap`` is not on an absolute ``PATH`` entry; it cannot set up its
    namespaces here (no user namespaces, a container without the capability; probed once per
    process); the project folder cannot be resolved; or the project is the file system's root
    (then "writable only in the project" would cover everything).
    """
    args = tuple(argv)
    bwrap = find_program("bwrap")
    if bwrap is None:
        return args, Confinement(False, "bubblewrap (bwrap) is not installed on PATH")
    try:
        root = project.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        return args, Confinement(False, f"the project folder cannot be resolved ({exc})", bwrap)
    if root == Path(root.anchor):  # "writable only in the project" would be everything
        return args, Confinement(False, "the project is the file system's root", bwrap)
    problem = probe(bwrap)
    if problem is not None:
        return args, Confinement(False, problem, bwrap)
    prefix = bwrap_prefix(bwrap, root, scratch)
    return (*prefix, *args), Confinement(True, "confined with bubblewrap", bwrap)


def bwrap_prefix(bwrap: str, project: Path | None, scratch: Path | None = None) -> tuple[str, ...]:
    """bwrap and its options, up to and including ``--``; the command follows. Without a
    project (the probe) nothing is writable."""
    writable: list[str] = []
    if scratch is not None:
        where = str(scratch)
        writable += ["--bind", where, where, "--setenv", "TMPDIR", where]
    if project is not None:
        where = str(project)
        writable += ["--bind", where, where, "--chdir", where]
    return (
        bwrap,
        "--die-with-parent",
        "--new-session",
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        *("--ro-bind", "/", "/"),
        *("--dev", "/dev"),
        *("--proc", "/proc"),
        *writable,
        "--",
    )


@functools.cache
def probe(bwrap: str) -> str | None:
    """None if ``bwrap`` can run a command with the options ``confine`` uses, else why not.
    Cached per process: the answer depends on the kernel and the container, not the call."""
    true = find_program("true")
    if true is None:
        return "cannot probe bubblewrap: no `true` program on PATH"
    argv = (*bwrap_prefix(bwrap, None), true)
    done = SubprocessRunner(tail_chars=400).run(argv, cwd=Path("/"), timeout_s=PROBE_TIMEOUT_S)
    if done.exit_code == 0:
        return None
    if done.timed_out:
        return f"bubblewrap did not start within {PROBE_TIMEOUT_S:g} s"
    said = " ".join(done.output_tail.split()) or f"exit {done.exit_code}"
    return f"bubblewrap cannot create its sandbox here: {said}"
