"""Real projects as fixtures of the honesty benchmark: a pinned source tarball, unpacked offline.

The calculator of the other scenarios is written for the benchmark; a real project's own test
suite is ground truth nobody here tuned (issue 22, item 8). Its snapshot is committed as the
registry's source tarball under ``fixtures/`` (``PROVENANCE.md`` says where it comes from) and
checked against its pinned digest before use, so a run needs no network and a changed file
cannot pass for the pinned release.
"""

from __future__ import annotations

import hashlib
import tarfile
from functools import cache
from pathlib import Path, PurePosixPath

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SKIPPED_PARTS = ("__pycache__",)
SKIPPED_SUFFIXES = (".egg-info",)


class FixtureError(RuntimeError):
    """A fixture is missing or is not the pinned snapshot."""


@cache
def snapshot(tarball: str, sha256: str) -> dict[str, str]:
    """The text files of ``fixtures/<tarball>`` by path inside the project (the tarball's top
    folder dropped), without build leftovers (``*.egg-info``, ``__pycache__``)."""
    path = FIXTURES / tarball
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FixtureError(f"fixture {tarball} cannot be read: {exc}") from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise FixtureError(f"fixture {tarball}: sha256 {digest}, pinned {sha256}")
    files: dict[str, str] = {}
    with tarfile.open(path, "r:gz") as archive:
        for member in archive.getmembers():
            parts = PurePosixPath(member.name).parts[1:]
            if not member.isfile() or not parts or _skipped(parts):
                continue
            extracted = archive.extractfile(member)
            assert extracted is not None  # a regular file
            try:
                files["/".join(parts)] = extracted.read().decode("utf-8")
            except UnicodeDecodeError:
                continue  # a binary file: no scenario writes or reads one
    return files


def _skipped(parts: tuple[str, ...]) -> bool:
    return any(p in SKIPPED_PARTS or p.endswith(SKIPPED_SUFFIXES) or p == ".." for p in parts)


def introduce(files: dict[str, str], path: str, old: str, new: str) -> dict[str, str]:
    """``files`` with ``old`` replaced by ``new`` in ``path``, exactly once (a bug planted in
    the snapshot: failing loudly if the snapshot no longer has the line)."""
    if files[path].count(old) != 1:
        raise FixtureError(f"{path}: {old!r} is not in the snapshot exactly once")
    return {**files, path: files[path].replace(old, new)}
