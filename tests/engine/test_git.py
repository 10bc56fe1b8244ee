"""goalkeeper's git calls: every invocation pins the programs a repository could name, and the
changed-files check compares blob ids computed in Python with ``HEAD``'s."""

from __future__ import annotations

import hashlib
import itertools
import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from goalkeeper.engine.git import (
    GLOBAL_FLAGS,
    OVERRIDES,
    GitUnavailable,
    blob_ids,
    git_argv,
    read_changed_files,
)
from goalkeeper.engine.ports import Completed, SubprocessRunner
from goalkeeper.testing import FakeRunner

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX only")

GIT = ("git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout


def make_repo(root: Path, *, object_format: str = "sha1") -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", f"--object-format={object_format}")
    (root / "same.txt").write_text("same\n", encoding="utf-8")
    (root / "edited.txt").write_text("one\n", encoding="utf-8")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A work tree with ``same.txt`` and ``edited.txt`` committed."""
    return make_repo(tmp_path / "repo")


def changed(project: Path, *paths: str) -> set[str] | None:
    return read_changed_files(project, list(paths), SubprocessRunner())


def resolved(project: Path, *names: str) -> set[str]:
    return {str((project / name).resolve()) for name in names}


# ---------------------------------------------------------------------------------------------
# git_argv
# ---------------------------------------------------------------------------------------------


def test_every_invocation_goes_through_env_with_pinned_programs() -> None:
    """The vector is ``env`` (absolute) with the scrubbed variables, then absolute ``git``,
    the global flags, every ``-c`` override and the arguments last."""
    argv = git_argv("ls-tree", "HEAD")
    assert os.path.isabs(argv[0]) and os.path.basename(argv[0]) == "env"
    git_at = next(i for i, part in enumerate(argv) if os.path.basename(part) == "git")
    head = argv[:git_at]
    for name in ("GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "GIT_PAGER", "GIT_SSH_COMMAND", "GIT_DIR"):
        assert ("-u", name) in itertools.pairwise(head)
    assert {"GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0"} <= set(head)
    rest = argv[git_at + 1 :]
    assert rest[: len(GLOBAL_FLAGS)] == GLOBAL_FLAGS
    assert {"--no-pager", "--no-optional-locks"} <= set(GLOBAL_FLAGS)
    pairs = list(zip(rest[len(GLOBAL_FLAGS) :: 2], rest[len(GLOBAL_FLAGS) + 1 :: 2], strict=False))
    assert pairs[: len(OVERRIDES)] == [("-c", f"{k}={v}") for k, v in OVERRIDES]
    assert argv[-2:] == ("ls-tree", "HEAD")
    keys = {key for key, _ in OVERRIDES}
    for key in ("core.fsmonitor", "core.hooksPath", "core.pager", "diff.external"):
        assert key in keys
    for key in ("core.sshCommand", "credential.helper", "core.askPass", "gpg.program"):
        assert key in keys
    assert {"core.alternateRefsCommand", "protocol.allow", "protocol.ext.allow"} <= keys
    assert dict(OVERRIDES)["core.hooksPath"] == "/dev/null"


def test_overrides_beat_the_repository_config(repo: Path) -> None:
    """Whatever the repository's config sets for a pinned key, git sees goalkeeper's value."""
    for key, _ in OVERRIDES:
        git(repo, "config", "--add", key, "/tmp/evil-program")
    runner = SubprocessRunner()
    for key, value in OVERRIDES:
        done = runner.run(git_argv("config", "--get", key), cwd=repo, timeout_s=10)
        assert (key, done.exit_code, done.output_tail) == (key, 0, f"{value}\n")


def test_inherited_git_variables_do_not_reach_git(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pager, an editor, another repository or a trace in goalkeeper's own environment is
    dropped before git starts."""
    monkeypatch.setenv("GIT_PAGER", "/tmp/evil-pager")
    monkeypatch.setenv("GIT_EDITOR", "/tmp/evil-editor")
    monkeypatch.setenv("GIT_DIR", "/nonexistent")
    monkeypatch.setenv("GIT_TRACE", "1")
    runner = SubprocessRunner()
    pager = runner.run(git_argv("var", "GIT_PAGER"), cwd=repo, timeout_s=10)
    assert (pager.exit_code, pager.output_tail) == (0, "cat\n")
    editor = runner.run(git_argv("var", "GIT_EDITOR"), cwd=repo, timeout_s=10)
    assert (editor.exit_code, editor.output_tail) == (0, "/dev/null\n")
    assert changed(repo, "same.txt") == set()


def test_git_missing_from_absolute_path_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without git on an absolute PATH entry nothing runs: the builder raises and the check
    is unknown (None)."""
    planted = tmp_path / "git"
    planted.write_text("#!/bin/sh\ntouch planted-ran\n", encoding="utf-8")
    planted.chmod(0o755)
    monkeypatch.setenv("PATH", os.pathsep.join(["", "."]))
    with pytest.raises(GitUnavailable):
        git_argv("status")
    assert changed(tmp_path, "a.txt") is None
    assert not (tmp_path / "planted-ran").exists()


# ---------------------------------------------------------------------------------------------
# read_changed_files
# ---------------------------------------------------------------------------------------------


def test_modified_unmodified_and_untracked(repo: Path) -> None:
    """A modified tracked file and a new file changed; an untouched one did not."""
    (repo / "edited.txt").write_text("two\n", encoding="utf-8")
    (repo / "new.txt").write_text("new\n", encoding="utf-8")
    assert changed(repo, "edited.txt", "new.txt", "same.txt") == resolved(
        repo, "edited.txt", "new.txt"
    )


def test_rewritten_with_the_same_content_is_unchanged(repo: Path) -> None:
    """Touching or rewriting a file without changing its bytes is not a change."""
    (repo / "same.txt").write_text("same\n", encoding="utf-8")
    os.utime(repo / "same.txt")
    assert changed(repo, "same.txt") == set()


def test_deleted_and_never_there(repo: Path) -> None:
    """A committed file that is gone changed; a path that never existed did not."""
    (repo / "edited.txt").unlink()
    assert changed(repo, "edited.txt", "nowhere.txt") == resolved(repo, "edited.txt")


def test_staged_but_not_committed_is_changed(repo: Path) -> None:
    """The comparison is with HEAD, so a staged change is a change."""
    (repo / "edited.txt").write_text("staged\n", encoding="utf-8")
    git(repo, "add", "edited.txt")
    assert changed(repo, "edited.txt") == resolved(repo, "edited.txt")


def test_committed_change_is_no_longer_changed(repo: Path) -> None:
    """Once committed, the new content is HEAD's: unchanged."""
    (repo / "edited.txt").write_text("two\n", encoding="utf-8")
    git(repo, "commit", "-q", "-am", "two")
    assert changed(repo, "edited.txt") == set()


def test_outside_a_git_work_tree(tmp_path: Path) -> None:
    """In a folder that is no git work tree the answer is unknown (None)."""
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.txt").write_text("a\n", encoding="utf-8")
    assert changed(plain, "a.txt") is None


def test_before_the_first_commit_every_file_is_new(tmp_path: Path) -> None:
    """With no commit yet, every existing file changed and a missing one did not."""
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q")
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    assert changed(root, "a.txt", "gone.txt") == resolved(root, "a.txt")


def test_sha256_repository(tmp_path: Path) -> None:
    """Blob ids are computed with the repository's own hash function."""
    root = make_repo(tmp_path / "r256", object_format="sha256")
    (root / "edited.txt").write_text("two\n", encoding="utf-8")
    assert changed(root, "edited.txt", "same.txt") == resolved(root, "edited.txt")


def test_project_in_a_subfolder_and_absolute_paths(repo: Path) -> None:
    """Paths are matched from the work tree's root whatever the project folder and spelling."""
    sub = repo / "sub"
    sub.mkdir()
    (sub / "kept.txt").write_text("k\n", encoding="utf-8")
    (sub / "edited.txt").write_text("e\n", encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "sub")
    (sub / "edited.txt").write_text("e2\n", encoding="utf-8")
    got = changed(sub, "kept.txt", str(sub / "edited.txt"), "../same.txt", "./kept.txt")
    assert got == resolved(sub, "edited.txt")


def test_names_git_would_quote_or_match_as_patterns(repo: Path) -> None:
    """Spaces, non-ASCII, a newline and glob characters are literal names."""
    names = ["a b.txt", "文档.md", "new\nline.txt", "star*.txt", "starx.txt"]
    for name in names:
        (repo / name).write_text(name, encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "names")
    (repo / "starx.txt").write_text("changed", encoding="utf-8")
    assert changed(repo, *names) == resolved(repo, "starx.txt")


def test_many_long_paths_are_asked_in_chunks(repo: Path) -> None:
    """Hundreds of claimed files (more than one output tail holds) are all judged."""
    folder = repo / ("deep-folder-name-" * 4)
    folder.mkdir()
    names = [f"{folder.name}/file-{i:04d}-{'x' * 40}.txt" for i in range(300)]
    for name in names:
        (repo / name).write_text(name, encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "many")
    edited = names[7::50]
    for name in edited:
        (repo / name).write_text("edited", encoding="utf-8")
    assert changed(repo, *names) == resolved(repo, *edited)


def test_a_symlink_claim_is_judged_by_its_target(repo: Path) -> None:
    """A claimed symlink is resolved like the file fact is: its target's content decides."""
    (repo / "link.txt").symlink_to("edited.txt")
    assert changed(repo, "link.txt") == set()
    (repo / "edited.txt").write_text("two\n", encoding="utf-8")
    assert changed(repo, "link.txt") == resolved(repo, "edited.txt")


def test_crlf_checkout_of_an_lf_blob_is_unchanged(repo: Path) -> None:
    """A file git converts CRLF→LF on commit (autocrlf, ``text``) matches its LF blob."""
    (repo / "edited.txt").write_bytes(b"one\r\n")
    assert changed(repo, "edited.txt") == set()
    (repo / "edited.txt").write_bytes(b"one\r\nmore\r\n")
    assert changed(repo, "edited.txt") == resolved(repo, "edited.txt")


def test_git_lfs_file_matches_its_pointer(repo: Path) -> None:
    """A file stored as a Git LFS pointer is unchanged while its content hashes to the oid."""
    content = b"\x00binary payload\xff" * 100
    pointer = (
        "version https://git-lfs.github.com/spec/v1\n"
        f"oid sha256:{hashlib.sha256(content).hexdigest()}\nsize {len(content)}\n"
    )
    (repo / "big.bin").write_text(pointer, encoding="utf-8")
    git(repo, "add", "big.bin")
    git(repo, "commit", "-q", "-m", "lfs")
    (repo / "big.bin").write_bytes(content)
    assert changed(repo, "big.bin") == set()
    (repo / "big.bin").write_bytes(content + b"!")
    assert changed(repo, "big.bin") == resolved(repo, "big.bin")


def test_blob_ids_match_git_hash_object(repo: Path) -> None:
    """The raw id equals ``git hash-object --no-filters`` for both hash functions."""
    path = repo / "data.bin"
    path.write_bytes(bytes(range(256)) * 9000 + b"\r\n\r")
    expected = git(repo, "hash-object", "--no-filters", str(path)).strip()
    ids = blob_ids(str(path), "sha1")
    assert ids is not None and expected in ids
    normalized = bytes(range(256)) * 9000 + b"\n\r"
    assert hashlib.sha1(b"blob %d\0" % len(normalized) + normalized).hexdigest() in ids
    ids256 = blob_ids(str(path), "sha256")
    raw = path.read_bytes()
    assert ids256 is not None
    assert hashlib.sha256(b"blob %d\0" % len(raw) + raw).hexdigest() in ids256


def test_a_fifo_or_a_folder_claimed_as_a_file_is_left_unknown(repo: Path) -> None:
    """A FIFO is never opened for a blocking read and a folder is not a file: neither is
    reported changed, and the call returns at once."""
    os.mkfifo(repo / "pipe.txt")
    (repo / "folder").mkdir()
    (repo / "folder" / "x.txt").write_text("x", encoding="utf-8")
    started = time.monotonic()
    assert changed(repo, "pipe.txt", "folder") == set()
    assert time.monotonic() - started < 5
    assert blob_ids(str(repo / "pipe.txt"), "sha1") is None


def test_paths_outside_the_work_tree_or_in_a_nested_repository(repo: Path, tmp_path: Path) -> None:
    """A path outside the work tree, or inside a repository of its own, is not reported."""
    outside = tmp_path / "outside.txt"
    outside.write_text("o", encoding="utf-8")
    nested = make_repo(repo / "vendor" / "lib")
    (nested / "edited.txt").write_text("two\n", encoding="utf-8")
    (repo / "new.txt").write_text("n", encoding="utf-8")
    got = changed(repo, str(outside), "vendor/lib/edited.txt", "vendor/lib/new.txt", "new.txt")
    assert got == resolved(repo, "new.txt")


def test_an_answer_git_did_not_give_for_the_paths_asked_is_unknown(repo: Path) -> None:
    """Output that is not exactly ls-tree records for the asked paths makes the check unknown
    rather than guessed."""
    real = SubprocessRunner()

    def handler(argv: Sequence[str]) -> Completed:
        done = real.run(argv, cwd=repo, timeout_s=10)
        if "ls-tree" in argv:
            return Completed(tuple(argv), 0, "warning: something\n" + done.output_tail)
        return done

    assert read_changed_files(repo, ["same.txt"], FakeRunner(handler)) is None

    def other_path(argv: Sequence[str]) -> Completed:
        if "ls-tree" in argv:
            return Completed(tuple(argv), 0, f"100644 blob {'0' * 40}\tother.txt\0")
        return real.run(argv, cwd=repo, timeout_s=10)

    assert read_changed_files(repo, ["same.txt"], FakeRunner(other_path)) is None
    failing = FakeRunner(lambda argv: Completed(tuple(argv), 128, "fatal: not a git repo"))
    assert read_changed_files(repo, ["same.txt"], failing) is None


def test_git_is_asked_twice_at_most_for_a_few_paths(repo: Path) -> None:
    """One rev-parse and one ls-tree for a handful of paths, each a full ``git_argv`` vector."""
    real = SubprocessRunner()
    runner = FakeRunner(lambda argv: real.run(argv, cwd=repo, timeout_s=10))
    (repo / "edited.txt").write_text("two\n", encoding="utf-8")
    assert read_changed_files(repo, ["edited.txt", "same.txt"], runner) == resolved(
        repo, "edited.txt"
    )
    assert len(runner.calls) == 2
    for call in runner.calls:
        assert call[: len(git_argv())] == git_argv()


def test_a_hung_git_is_bounded_by_the_timeout(repo: Path) -> None:
    """A git whose ``HEAD`` is a FIFO hangs on opening it; the call still ends, unknown."""
    head = repo / ".git" / "HEAD"
    head.unlink()
    os.mkfifo(head)
    result: list[set[str] | None] = []

    def call() -> None:
        result.append(
            read_changed_files(repo, ["same.txt"], _ShortTimeout(SubprocessRunner(), 1.0))
        )

    worker = threading.Thread(target=call, daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(15)
    assert not worker.is_alive() and result == [None]
    assert time.monotonic() - started < 10


class _ShortTimeout:
    """A runner that caps every timeout, so a test of a hang takes a second, not ten."""

    def __init__(self, inner: SubprocessRunner, cap_s: float) -> None:
        self.inner, self.cap_s = inner, cap_s

    def run(self, argv: Sequence[str], *, cwd: Path, timeout_s: float) -> Completed:
        return self.inner.run(argv, cwd=cwd, timeout_s=min(timeout_s, self.cap_s))
