"""Codex's workspace-write, with the real Codex CLI (0.171.0): the agent's shell may write the
project, not goalkeeper's state home, while goalkeeper's hooks (outside the sandbox) keep
working.

Codex's writable roots are the project, ``/tmp`` and ``$TMPDIR`` unless excluded, and every
``writable_roots`` entry. The tests' folders all lie under ``/tmp``, as a user's state home
(``~/.local/state``) does not: so the run excludes ``/tmp`` and ``$TMPDIR``
(``[sandbox_workspace_write] exclude_slash_tmp``, ``exclude_tmpdir_env_var``), which puts
the state home outside every writable root, as it is on a user's machine; ``goalkeeper doctor``
says ``writes confined`` for it. The scripted model runs one shell command that tries to write,
delete and read in the state home, write in the project, and open a unix socket.

``$TMPDIR`` is a folder of the test's own: Codex refuses to create its sandbox helper
(``codex-linux-sandbox``) under the temp folder, where the tests' ``CODEX_HOME`` would be, and
then every sandboxed command fails with ``bwrap: execvp codex-linux-sandbox: No such file or
directory``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .fake_responses import FakeResponses, last_tool_output, shell, text

pytestmark = pytest.mark.e2e

CONFINE = (
    "-c", "sandbox_workspace_write.exclude_slash_tmp=true",
    "-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true",
)  # fmt: skip
TOML = "\n[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"
SECRET = "kept by goalkeeper"
DONE = "SHELL-DONE"
PROBE = """import os, shutil, socket
def step(name, fn):
    try:
        print(name, fn())
    except Exception as exc:
        print(name, repr(exc))
step("project", lambda: open("{repo}/ok.txt", "w").write("in-project"))
step("write", lambda: open("{state}/forged.txt", "w").write("forged"))
step("delete", lambda: shutil.rmtree("{state}"))
step("read", lambda: open("{state}/sentinel").read())
step("unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
step("marker", lambda: os.environ.get("CODEX_SANDBOX_NETWORK_DISABLED"))
"""


def run_sandboxed(
    case: Any, rules: list[dict[str, Any]]
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """``codex exec -s workspace-write`` (not the bypass the other Codex tests use) against the
    fake; what it printed and the requests the fake saw."""
    out = case.root / "last-message.txt"
    tmpdir = case.root / "tmpdir"
    tmpdir.mkdir(exist_ok=True)
    with FakeResponses(rules) as fake:
        args = [
            str(case.codex), "exec", "--skip-git-repo-check", "--color", "never",
            "-s", "workspace-write", *CONFINE,
            "-c", f'model_providers.fake.base_url="{fake.url}"',
            "-C", str(case.repo), "-o", str(out), "Check the state.",
        ]  # fmt: skip
        proc = subprocess.Popen(
            args, cwd=case.repo, stdin=subprocess.DEVNULL,
            env={**case.base_env(), "GOALKEEPER_NO_PLAN": "silent", "TMPDIR": str(tmpdir)},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip
        try:
            stdout, stderr = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
            rules_seen = [r.get("rule") for r in fake.requests]
            raise AssertionError(f"codex exec hung; rules {rules_seen}\n{stderr[-3000:]}") from None
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return subprocess.CompletedProcess(args, proc.returncode, stdout, stderr), fake.requests


def run_script(case: Any, command: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """The model runs ``command`` in the sandboxed shell once (it ends with ``echo DONE``),
    then stops; what codex printed, and every tool output the fake saw."""
    rules = [
        {"name": "end", "when": {"tool_output": DONE}, "reply": text("Done.")},
        {"name": "try", "reply": shell(command)},
    ]
    proc, requests = run_sandboxed(case, rules)
    return proc, "\n".join(last_tool_output(r.get("input", [])) or "" for r in requests)


def test_the_sandboxed_shell_cannot_write_goalkeepers_state_home(codex_case: Any) -> None:
    case = codex_case
    case.install()
    config = case.codex_home / "config.toml"
    config.write_text(config.read_text("utf-8") + TOML, "utf-8")
    env = case.base_env()
    state = Path(env.get("XDG_STATE_HOME") or Path(env["HOME"]) / ".local/state") / "goalkeeper"
    state.mkdir(parents=True, exist_ok=True)
    (state / "sentinel").write_text(SECRET, "utf-8")
    doctor = subprocess.run(
        [sys.executable, "-m", "goalkeeper", "-C", str(case.repo), "doctor", "--host", "codex",
         "--json"], cwd=case.repo, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert json.loads(doctor.stdout)["hosts"][0]["shell"] == "writes confined", doctor.stdout
    # In a script, as a cheating agent would hide it: the trust guard refuses shell lines that
    # name goalkeeper's folders; what is tested here is the sandbox.
    (case.repo / "probe.py").write_text(PROBE.format(repo=case.repo, state=state), "utf-8")
    command = f"python3 probe.py 2>&1; echo {DONE}"
    proc, seen = run_script(case, command)
    if not (case.repo / "ok.txt").exists() and any(
        word in (seen + proc.stderr) for word in ("bwrap", "namespace", "andbox")
    ):
        pytest.skip(
            f"Codex's workspace-write sandbox cannot start here: {(seen or proc.stderr)[-1500:]}"
        )
    assert (case.repo / "ok.txt").exists(), (seen, proc.stderr[-2000:])
    # The state home is as goalkeeper left it: nothing written, nothing deleted.
    assert not (state / "forged.txt").exists(), seen
    assert (state / "sentinel").read_text("utf-8") == SECRET, seen
    assert "write PermissionError" in seen or "write OSError" in seen, seen
    # What Codex's sandbox does not hide (doctor says so): the shell reads goalkeeper's files
    # and may open unix sockets.
    assert f"read {SECRET}" in seen and "unix <socket.socket" in seen, seen
    # What the warm engine refuses a client by (agent_shell.sandboxed_process; the engine side
    # is tests/security/test_channels.py::test_a_client_in_codexs_sandbox_is_refused_even_with_
    # the_secret): the sandboxed shell's commands carry Codex's marker.
    assert "marker 1" in seen, seen
    # goalkeeper's hooks ran outside the sandbox and wrote their journal there.
    assert case.status()["recent"], proc.stderr[-2000:]
    # Control: the user, outside any sandbox, writes there.
    (state / "forged.txt").write_text("mine", "utf-8")


FORGER = """import os, socket, sys, time
sys.path[:0] = {paths!r}
from goalkeeper.hosts.hook_channel import read_secret, secret_path, socket_address
from goalkeeper.hosts.hook_channel import socket_path
from goalkeeper.hosts.hook_client import encode_request, seal_request
print("marker", os.environ.get("CODEX_SANDBOX_NETWORK_DISABLED"))
secret = read_secret(secret_path(os.environ))
print("secret", isinstance(secret, bytes))
path = socket_path({prefix!r}, {repo!r})
for _ in range(100):  # the engine the hooks started may still be starting
    if os.path.exists(path):
        break
    time.sleep(0.1)
body = encode_request("codex", {repo!r}, {{}}, {payload!r})
try:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(20)
        conn.connect(socket_address(path)[0])
        conn.sendall(seal_request(secret, body, os.urandom(16), time.time() + 20))
        conn.shutdown(socket.SHUT_WR)
        got = b"".join(iter(lambda: conn.recv(65536), b""))
    print("reply", repr(got[:3]))
except OSError as exc:
    print("reply", repr(exc))
"""


def test_with_network_access_the_sandboxed_shell_still_cannot_speak_to_the_engine(
    codex_case: Any,
) -> None:
    """``network_access = true``: Codex sets no marker on its shell's commands, and the shell
    reads goalkeeper's secret and opens unix sockets. A script there that proves the secret to
    the warm engine the hooks started is closed unread (its confinement differs from the
    engine's: ``agent_shell.confined_apart``), so its forged session never appears; the same
    request from outside the sandbox, as a hook sends it, is taken."""
    from goalkeeper.hosts.hook_channel import read_secret, secret_path, socket_address, socket_path
    from goalkeeper.hosts.hook_client import encode_request, seal_request
    from goalkeeper.store.db import Store
    from goalkeeper.store.sessions import get_session

    case = codex_case
    case.install()
    config = case.codex_home / "config.toml"
    config.write_text(config.read_text("utf-8") + TOML + "network_access = true\n", "utf-8")
    repo = str(case.repo)
    forged = json.dumps(
        {"session_id": "forged", "cwd": repo, "hook_event_name": "SessionStart",
         "source": "startup", "model": "gpt-5.5", "permission_mode": "default"}
    ).encode()  # fmt: skip
    paths = [p for p in sys.path if p]
    script = FORGER.format(paths=paths, prefix=sys.prefix, repo=repo, payload=forged)
    (case.repo / "forge.py").write_text(script, "utf-8")
    command = f"{sys.executable} forge.py 2>&1; echo {DONE}"
    proc, seen = run_script(case, command)
    if "secret" not in seen and any(w in seen + proc.stderr for w in ("bwrap", "andbox")):
        pytest.skip(f"Codex's workspace-write sandbox cannot start here: {seen[-1500:]}")
    assert "marker None" in seen and "secret True" in seen, (seen, proc.stderr[-2000:])
    # Closed unread: nothing, or a reset (the engine closed with the request unread); no OK.
    assert "reply b''" in seen or "reply ConnectionResetError" in seen, seen

    def has_forged_session() -> bool:
        store = Store(case.repo)
        try:
            return store.exists() and get_session(store.connection(), "forged") is not None
        finally:
            store.close()

    assert not has_forged_session()
    # Control: the same request from outside the sandbox (as Codex's hooks run) is taken.
    env = case.base_env()
    secret = read_secret(secret_path(env))
    assert isinstance(secret, bytes)
    path = socket_path(sys.prefix, repo)
    body = encode_request("codex", repo, {}, forged)
    import socket as _socket
    import time as _time

    with _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM) as conn:
        conn.settimeout(30)
        conn.connect(socket_address(path)[0])
        conn.sendall(seal_request(secret, body, os.urandom(16), _time.time() + 30))
        conn.shutdown(_socket.SHUT_WR)
        got = b"".join(iter(lambda: conn.recv(65536), b""))
    assert got.startswith(b"OK "), got[:200]
    assert has_forged_session()
