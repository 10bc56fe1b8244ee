"""Approvals are the user's: `goalkeeper allow` refuses to run inside an agent's shell, even
when the command drops the agent's variable for itself."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from goalkeeper.config import load_config
from goalkeeper.hosts.transport.agent_shell import find_agent_shell

from .. import user_terminal

GOALKEEPER = [sys.executable, "-m", "goalkeeper"]


def _clean_env() -> dict[str, str]:
    names = ("CLAUDECODE", "PI_CODING_AGENT", "AI_AGENT", "CODEX_", "GEMINI_CLI", "GOALKEEPER_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(names)}
    env["GOALKEEPER_SERVER"] = "off"
    return env


def _fake_proc(root: Path, chain: list[tuple[int, int, bytes, bytes]]) -> Path:
    """A /proc with (pid, ppid, environ, cmdline) entries."""
    for pid, ppid, environ, cmdline in chain:
        folder = root / str(pid)
        folder.mkdir(parents=True)
        (folder / "stat").write_bytes(f"{pid} (some (odd) name) S {ppid} 1 1".encode())
        (folder / "environ").write_bytes(environ)
        (folder / "cmdline").write_bytes(cmdline)
    return root


@pytest.mark.parametrize(
    ("variable", "value", "agent"),
    [
        ("CLAUDECODE", "1", "Claude Code"),
        ("PI_CODING_AGENT", "true", "Pi"),
        ("CODEX_SANDBOX_NETWORK_DISABLED", "1", "Codex CLI"),
        ("CODEX_MANAGED_BY_NPM", "1", "Codex CLI"),
        ("GEMINI_CLI", "1", "Gemini CLI"),
    ],
)
def test_each_hosts_shell_marker_is_recognised(
    tmp_path: Path, variable: str, value: str, agent: str
) -> None:
    found = find_agent_shell({variable: value}, proc=str(tmp_path), pid=10)
    assert found is not None and found.agent == agent


def test_an_ancestors_environment_and_program_count(tmp_path: Path) -> None:
    """A shell that started with the marker, or an agent program up the chain, is found even
    when this process's own environment was cleaned."""
    proc = _fake_proc(
        tmp_path / "a",
        [(30, 20, b"PATH=/bin\0", b"env\0"), (20, 2, b"CLAUDECODE=1\0", b"bash\0")],
    )
    found = find_agent_shell({}, proc=str(proc), pid=30)
    assert found is not None and found.agent == "Claude Code"
    proc = _fake_proc(
        tmp_path / "b",
        [(30, 20, b"", b"bash\0-c\0x\0"), (20, 2, b"", b"node\0/usr/lib/node_modules/.bin/pi\0")],
    )
    found = find_agent_shell({}, proc=str(proc), pid=30)
    assert found is not None and found.agent == "Pi" and "20" in found.evidence
    proc = _fake_proc(tmp_path / "c", [(30, 20, b"", b"bash\0"), (20, 1, b"", b"sshd\0")])
    assert find_agent_shell({}, proc=str(proc), pid=30) is None


def _allow(project: Path, shell: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cmd = " ".join([*GOALKEEPER, "-C", str(project), "allow"])
    return subprocess.run(
        [shell, "-c", f"{cmd}; true"], env=env, capture_output=True, text=True, timeout=60
    )


def test_allow_refuses_in_an_agent_shell_that_unset_its_marker(tmp_path: Path) -> None:
    """`env -u CLAUDECODE goalkeeper allow` from Claude Code's shell is still refused, and the
    agent's raised limit stays unapplied."""
    (tmp_path / ".goalkeeper.toml").write_text("max-continuations = 1000\n", "utf-8")
    env = {**_clean_env(), "CLAUDECODE": "1"}
    cmd = " ".join(["env", "-u", "CLAUDECODE", *GOALKEEPER, "-C", str(tmp_path), "allow"])
    done = subprocess.run(
        ["bash", "-c", f"{cmd}; true"], env=env, capture_output=True, text=True, timeout=60
    )
    assert "run it in your own terminal" in done.stderr
    assert load_config(tmp_path).max_continuations == 40


def test_allow_refuses_under_an_agent_program(tmp_path: Path) -> None:
    """A shell whose ancestor is the agent's executable (here a shell named `claude`)."""
    (tmp_path / ".goalkeeper.toml").write_text("max-continuations = 1000\n", "utf-8")
    fake = tmp_path / "bin" / "claude"
    fake.parent.mkdir()
    bash = shutil.which("bash")
    assert bash is not None
    fake.symlink_to(bash)
    done = _allow(tmp_path, str(fake), _clean_env())
    assert "belongs to Claude Code" in done.stderr
    assert load_config(tmp_path).max_continuations == 40


def test_allow_from_the_users_terminal_applies_the_settings(tmp_path: Path) -> None:
    (tmp_path / ".goalkeeper.toml").write_text("max-continuations = 1000\n", "utf-8")
    done = user_terminal.run([*GOALKEEPER, "-C", str(tmp_path), "allow"], env=_clean_env())
    assert done.returncode == 0, done.stderr
    assert load_config(tmp_path).max_continuations == 1000


def test_a_client_in_codexs_sandbox_is_found_through_its_ancestors(tmp_path: Path) -> None:
    """The engine's question (``sandboxed_process``): a client that dropped Codex's marker for
    itself is still inside the sandboxed shell that has it; a hook, started by Codex itself
    outside the sandbox, is not, and the walk ends at the host's program."""
    from goalkeeper.hosts.transport.agent_shell import sandboxed_process

    proc = _fake_proc(
        tmp_path / "proc",
        [
            (40, 30, b"PATH=/bin\0", b"python3\0client.py\0"),
            (30, 20, b"CODEX_SANDBOX_NETWORK_DISABLED=1\0", b"bash\0-lc\0"),
            (20, 10, b"PATH=/bin\0", b"codex\0exec\0"),
            (50, 20, b"PATH=/bin\0", b"python3\0-m\0goalkeeper\0hook\0codex\0"),
            (10, 2, b"CODEX_SANDBOX_NETWORK_DISABLED=1\0", b"bash\0"),
        ],
    )
    found = sandboxed_process(40, proc=str(proc))
    assert found is not None and "process 30" in found.evidence
    assert sandboxed_process(50, proc=str(proc)) is None  # stops at codex, below pid 10


def _confinement(root: Path, pid: str, mnt: str, status: bytes) -> None:
    """``ns/{mnt,user,pid}`` links (mnt as given) and a status file for ``pid`` in a fake /proc."""
    ns = root / pid / "ns"
    ns.mkdir(parents=True, exist_ok=True)
    for name, target in (("mnt", mnt), ("user", "user:[1]"), ("pid", "pid:[1]")):
        (ns / name).symlink_to(target)
    (root / pid / "status").write_bytes(status)


HOST_STATUS = b"Name:\tcodex\nNoNewPrivs:\t0\nSeccomp:\t0\n"


@pytest.mark.parametrize(
    ("mnt", "status", "why"),
    [
        ("mnt:[2]", HOST_STATUS, "another mnt namespace"),
        ("mnt:[1]", b"NoNewPrivs:\t1\nSeccomp:\t0\n", "NoNewPrivs: 1"),
        ("mnt:[1]", b"NoNewPrivs:\t0\nSeccomp:\t2\n", "Seccomp: 2"),
    ],
)
def test_a_client_confined_where_the_engine_is_not_is_sandboxed(
    tmp_path: Path, mnt: str, status: bytes, why: str
) -> None:
    """No marker anywhere (Codex with network access): another namespace, ``no_new_privs`` or
    a seccomp filter the engine lacks is enough; a client confined exactly as the engine is
    (a container both run in) is not."""
    from goalkeeper.hosts.transport.agent_shell import sandboxed_process

    proc = _fake_proc(tmp_path / "proc", [(40, 20, b"PATH=/bin\0", b"python3\0client.py\0")])
    _confinement(proc, "self", "mnt:[1]", HOST_STATUS)
    _confinement(proc, "40", mnt, status)
    found = sandboxed_process(40, proc=str(proc))
    assert found is not None and why in found.evidence.replace(":\t", ": "), found
    (proc / "self" / "status").write_bytes(status)  # the engine confined the same way
    (proc / "self" / "ns" / "mnt").unlink()
    (proc / "self" / "ns" / "mnt").symlink_to(mnt)
    assert sandboxed_process(40, proc=str(proc)) is None
