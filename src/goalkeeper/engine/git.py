"""goalkeeper's own git calls: one builder for every invocation, and the changed-files check.

The repository is the agent's to write: ``.git/config`` can name a program for git to run
(``core.fsmonitor``, ``core.pager``, ``diff.external``, hooks, ...) and ``.gitattributes`` can
attach a clean/smudge filter or a diff driver to any file. goalkeeper runs git from hooks,
outside the host's permission prompts, so none of that may run. Two layers:

- ``git_argv`` builds every git command goalkeeper runs. It pins each repository-configurable
  program git has a fixed configuration name for to something that runs nothing, passes
  ``--no-pager --no-optional-locks --literal-pathspecs --no-replace-objects``, and runs git
  through ``env`` with a scrubbed environment (no system config, no prompts, no inherited
  ``GIT_*`` programs or repository redirections, no relative ``PATH`` entries). ``env`` and
  ``git`` themselves are found on absolute ``PATH`` entries only.
- Programs whose names the repository chooses (``filter.<driver>.*``, ``diff.<driver>.*``,
  ``merge.<driver>.driver``, ``remote.<name>.uploadpack``/``vcs``, ``submodule.<name>.update``,
  ``trailer.<token>.cmd``, ``<tool>.cmd`` of mergetool/difftool/man/browser, aliases) cannot be
  pinned by name. They are reached only by commands that touch the work tree, diff, merge or
  talk to a remote, and goalkeeper runs none of those: ``read_changed_files`` uses plumbing
  that reads the object store (``rev-parse``, ``ls-tree``) and hashes the work-tree files
  itself, in Python.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from msgspec import Struct

from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.engine.ports import Runner, find_program
from goalkeeper.store.safe_read import open_exact

GIT_TIMEOUT_S = 10.0

# Stands in for a program: exec-ing it fails (EACCES) whether git runs it directly or through
# /bin/sh, on every POSIX system, and it is an absolute path, so no PATH lookup can find a
# program the agent wrote instead.
NO_PROGRAM = "/dev/null"

OVERRIDES: tuple[tuple[str, str], ...] = (
    # read by commands that read the index (status, diff, add, ls-files, ...)
    ("core.fsmonitor", "false"),
    # every hook (pre-commit, post-checkout, reference-transaction, pre-auto-gc, ...)
    ("core.hooksPath", NO_PROGRAM),
    ("core.pager", "cat"),  # "cat" is git's own word for "no pager"; --no-pager as well
    ("core.editor", NO_PROGRAM),
    ("sequence.editor", NO_PROGRAM),
    ("core.askPass", ""),  # empty: no askpass program, and SSH_ASKPASS is not consulted
    ("credential.helper", ""),  # empty resets the helper list
    ("core.sshCommand", NO_PROGRAM),
    ("core.alternateRefsCommand", NO_PROGRAM),
    ("diff.external", NO_PROGRAM),
    ("interactive.diffFilter", NO_PROGRAM),
    ("gpg.program", NO_PROGRAM),
    ("gpg.openpgp.program", NO_PROGRAM),
    ("gpg.x509.program", NO_PROGRAM),
    ("gpg.ssh.program", NO_PROGRAM),
    ("gpg.ssh.defaultKeyCommand", NO_PROGRAM),
    ("log.showSignature", "false"),
    ("sendemail.sendmailCmd", NO_PROGRAM),
    ("sendemail.smtpServer", NO_PROGRAM),
    ("sendemail.toCmd", NO_PROGRAM),
    ("sendemail.ccCmd", NO_PROGRAM),
    ("sendemail.headerCmd", NO_PROGRAM),
    # the ext:: transport runs a command; every transport is refused (goalkeeper never fetches).
    # A protocol.<name>.allow in the repository would beat protocol.allow, so each is pinned.
    ("protocol.allow", "never"),
    *(
        (f"protocol.{name}.allow", "never")
        for name in ("ext", "file", "git", "http", "https", "ssh")
    ),
    # automatic gc/maintenance spawns background git processes
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("submodule.recurse", "false"),
    # a bare repository planted inside the project is never entered implicitly
    ("safe.bareRepository", "explicit"),
    # files git would open by a configured name: a FIFO there would block the call
    ("core.attributesFile", "/dev/null"),
    ("core.excludesFile", "/dev/null"),
)

GLOBAL_FLAGS = ("--no-pager", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects")

# Inherited variables that name a program, redirect git to another repository or index, add
# configuration, or write traces into the output goalkeeper parses.
UNSET_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXTERNAL_DIFF",
    "GIT_DIFF_OPTS",
    "GIT_PAGER",
    "PAGER",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "EDITOR",
    "VISUAL",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_SSH_VARIANT",
    "GIT_EXEC_PATH",
    "GIT_TRACE",
    "GIT_TRACE2",
    "GIT_TRACE2_EVENT",
    "GIT_TRACE2_PERF",
    "GIT_TRACE_PACKET",
    "GIT_TRACE_PERFORMANCE",
    "GIT_TRACE_SETUP",
)

SET_ENV = (
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("GIT_NO_REPLACE_OBJECTS", "1"),
    ("GIT_PROTOCOL_FROM_USER", "0"),
    ("GIT_ATTR_NOSYSTEM", "1"),
    # core.gitProxy is first-match-wins, so a -c cannot override the repository's; a set
    # (even empty) GIT_PROXY_COMMAND makes git skip that setting, and empty means no proxy
    ("GIT_PROXY_COMMAND", ""),
)

_FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin"


class GitUnavailable(RuntimeError):
    """git (or ``env``) is not on an absolute ``PATH`` entry; nothing was run."""


def git_argv(*args: str) -> tuple[str, ...]:
    """The argument vector that runs ``git <args>`` the way goalkeeper always runs git.

    Raises ``GitUnavailable`` when ``env`` or ``git`` cannot be found on an absolute ``PATH``
    entry (or ``git``'s path contains ``=``, which ``env`` would read as an assignment).
    """
    env = find_program("env")
    git = find_program("git")
    if env is None or git is None or "=" in git:
        raise GitUnavailable("git or env is not on an absolute PATH entry")
    unset = [part for name in UNSET_ENV for part in ("-u", name)]
    assignments = [f"{name}={value}" for name, value in (*SET_ENV, ("PATH", _safe_path()))]
    overrides = [part for key, value in OVERRIDES for part in ("-c", f"{key}={value}")]
    return (env, *unset, *assignments, git, *GLOBAL_FLAGS, *overrides, *args)


def _safe_path() -> str:
    entries = [p for p in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(p)]
    return os.pathsep.join(entries) or _FALLBACK_PATH


# ---------------------------------------------------------------------------------------------
# Which claimed files changed
# ---------------------------------------------------------------------------------------------

# A claimed file bigger than this is not hashed: its git state is left unknown.
MAX_HASH_BYTES = 64 << 20
# ls-tree output per call, in characters: well below the 4,000-character output tail of
# SubprocessRunner, so no record is ever cut off. 80 = "100644 blob " + 64 hex + tab + NUL.
_LS_TREE_BUDGET = 2000
_RECORD_OVERHEAD = 80
_HEX_LENGTH = {"sha1": 40, "sha256": 64}
_HEAD = ("-q", "--verify", "HEAD^{commit}")  # the commit, or exit 1 before the first one
_RECORD = lazy_re(r"(\d{6}) (blob|tree|commit) ([0-9a-f]{40}|[0-9a-f]{64})\t(.+)", re.DOTALL)
_READ_CHUNK = 1 << 20


class _Entry(Struct, frozen=True):
    kind: str  # "blob", "tree" or "commit" (a submodule)
    oid: str


class _Repo(Struct, frozen=True):
    root: Path
    algorithm: str  # "sha1" or "sha256"
    head: str | None  # None before the first commit


def read_changed_files(project: Path, paths: Sequence[str], runner: Runner) -> set[str] | None:
    """The resolved paths among ``paths`` that changed since the last commit, the way
    ``git status`` would call them modified, added or untracked; None outside a git work tree
    (or when git cannot answer).

    A path changed if it is a file that is not in ``HEAD`` or whose content's blob id differs
    from ``HEAD``'s, or if it is in ``HEAD`` and gone. Blob ids are computed here from the raw
    bytes (also after CRLF→LF, and as a Git LFS pointer, the two conversions common enough to
    matter), so git runs no clean filter, no fsmonitor and no hook. A path whose state cannot
    be told (a folder, a FIFO, a file too large, one inside a nested repository, one outside
    the work tree) is left out, as unchanged. Untracked files count as changed whether ignored
    or not: goalkeeper does not ask git to read ``.gitignore``.
    """
    repo = _read_repo(project, runner)
    if repo is None:
        return None
    asked: dict[str, str] = {}  # root-relative path -> resolved path
    for path in paths:
        rel = _relative(project, path, repo.root)
        if rel is not None:
            asked[rel[0]] = rel[1]
    committed: dict[str, _Entry] = {}
    if repo.head is not None:
        for chunk in _chunks(list(asked)):
            entries = _ls_tree(project, repo, chunk, runner)
            if entries is None:
                return None
            committed.update(entries)
    changed: set[str] = set()
    for rel_path, resolved in asked.items():
        if _is_changed(resolved, committed.get(rel_path), repo.algorithm):
            changed.add(resolved)
    return changed


def _read_repo(project: Path, runner: Runner) -> _Repo | None:
    try:
        argv = git_argv("rev-parse", "--show-toplevel", "--show-object-format", *_HEAD)
    except GitUnavailable:
        return None
    done = runner.run(argv, cwd=project, timeout_s=GIT_TIMEOUT_S)
    lines = done.output_tail.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if done.exit_code == 0 and len(lines) == 3:
        top, algorithm, head = lines
    elif done.exit_code == 1 and len(lines) == 2:  # no commit yet: HEAD does not resolve
        (top, algorithm), head = lines, None
    else:
        return None
    hex_length = _HEX_LENGTH.get(algorithm)
    if hex_length is None or not os.path.isabs(top):
        return None
    if head is not None and not re.fullmatch(f"[0-9a-f]{{{hex_length}}}", head):
        return None
    try:
        root = Path(top).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    return _Repo(root, algorithm, head)


def _relative(project: Path, path: str, root: Path) -> tuple[str, str] | None:
    """(root-relative POSIX path, resolved path) of a claimed path, or None when git cannot
    speak for it: outside the work tree, the work tree itself, a name that is not UTF-8 (git's
    output comes back decoded), too long for one ls-tree call, or inside a nested repository."""
    try:
        candidate = Path(path)
        resolved = (candidate if candidate.is_absolute() else project / candidate).resolve()
        rel = resolved.relative_to(root)
    except (OSError, RuntimeError, ValueError):
        return None
    text = rel.as_posix()
    if text in ("", ".") or len(text) + _RECORD_OVERHEAD > _LS_TREE_BUDGET:
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    folder = resolved.parent
    while folder != root and root in folder.parents:
        if os.path.lexists(folder / ".git"):  # a submodule or a repository of its own
            return None
        folder = folder.parent
    return text, str(resolved)


def _chunks(paths: list[str]) -> Iterator[list[str]]:
    chunk: list[str] = []
    size = 0
    for path in paths:
        cost = len(path) + _RECORD_OVERHEAD
        if chunk and size + cost > _LS_TREE_BUDGET:
            yield chunk
            chunk, size = [], 0
        chunk.append(path)
        size += cost
    if chunk:
        yield chunk


def _ls_tree(
    project: Path, repo: _Repo, paths: list[str], runner: Runner
) -> dict[str, _Entry] | None:
    """``HEAD``'s entries for ``paths`` (root-relative); None if git's answer is not exactly
    what was asked for (an error, a warning in the output, a record for another path)."""
    assert repo.head is not None
    try:
        argv = git_argv("ls-tree", "-z", "--full-tree", repo.head, "--", *paths)
    except GitUnavailable:
        return None
    done = runner.run(argv, cwd=project, timeout_s=GIT_TIMEOUT_S)
    if done.exit_code != 0 or done.timed_out:
        return None
    records = done.output_tail.split("\0")
    if records[-1] != "":
        return None
    wanted = set(paths)
    hex_length = _HEX_LENGTH[repo.algorithm]
    entries: dict[str, _Entry] = {}
    for record in records[:-1]:
        match = _RECORD.fullmatch(record)
        if match is None or match[4] not in wanted or len(match[3]) != hex_length:
            return None
        entries[match[4]] = _Entry(match[2], match[3])
    return entries


def _is_changed(resolved: str, entry: _Entry | None, algorithm: str) -> bool:
    try:
        st = os.lstat(resolved)
    except FileNotFoundError:
        return entry is not None  # deleted since the commit, or never there
    except (OSError, ValueError):
        return False
    if not stat.S_ISREG(st.st_mode):
        return False  # a folder, a FIFO, a device: not a file git and goalkeeper can compare
    if entry is None or entry.kind != "blob":
        return True
    ids = blob_ids(resolved, algorithm)
    return ids is not None and entry.oid not in ids


def blob_ids(path: str, algorithm: str) -> frozenset[str] | None:
    """The blob ids git could have stored for this file's content: as it is, with CRLF turned
    into LF, and as a Git LFS pointer. None if it is not a regular file that can be read whole
    (a FIFO, a device, larger than ``MAX_HASH_BYTES``, changing while it is read). Never
    blocks: the file is opened non-blocking, and a symlink is not followed."""
    import hashlib

    opened = open_exact(path, MAX_HASH_BYTES)
    if opened is None:
        return None
    fd, size = opened
    try:
        raw = hashlib.new(algorithm, b"blob %d\0" % size)
        content = hashlib.sha256()
        crlf = 0
        read = 0
        carry = b""
        for data in _read_chunks(fd):
            raw.update(data)
            content.update(data)
            read += len(data)
            joined = carry + data
            crlf += joined.count(b"\r\n")
            carry = joined[-1:] if joined.endswith(b"\r") else b""
        if read != size:
            return None
        pointer = (
            "version https://git-lfs.github.com/spec/v1\n"
            f"oid sha256:{content.hexdigest()}\nsize {size}\n"
        ).encode()
        ids = {raw.hexdigest(), _blob_id(pointer, algorithm)}
        if crlf:
            os.lseek(fd, 0, os.SEEK_SET)
            ids.add(_normalized_id(fd, size - crlf, algorithm))
        return frozenset(ids)
    except OSError:
        return None
    finally:
        os.close(fd)


def _read_chunks(fd: int) -> Iterator[bytes]:
    while data := os.read(fd, _READ_CHUNK):
        yield data


def _normalized_id(fd: int, length: int, algorithm: str) -> str:
    """The blob id of the file's content with every CRLF turned into LF (git's ``text``
    conversion on commit); ``length`` is the converted length."""
    import hashlib

    digest = hashlib.new(algorithm, b"blob %d\0" % length)
    carry = b""
    for data in _read_chunks(fd):
        joined = carry + data
        carry = b"\r" if joined.endswith(b"\r") else b""
        digest.update((joined[:-1] if carry else joined).replace(b"\r\n", b"\n"))
    digest.update(carry)
    return digest.hexdigest()


def _blob_id(data: bytes, algorithm: str) -> str:
    import hashlib

    return hashlib.new(algorithm, b"blob %d\0" % len(data) + data).hexdigest()
