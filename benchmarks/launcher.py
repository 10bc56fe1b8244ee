"""The hook command exactly as ``goalkeeper install claude`` writes it, timed as Claude Code runs
it: ``/bin/sh -c '<the command from settings.json>'``, the launcher resolving goalkeeper on
``PATH`` each time (issue 13).

Budgets (medians, ratios against ``python -c pass`` in the same run):
  warm Stop              <= 1.3x   (engine running; 500-line plan, 20 MB transcript)
  warm PreToolUse Bash   <= 1.3x
  cold first event       <= 6x     (no engine: the SessionStart that opens a session, answered
                                    in-process; a Stop after an idle exit is printed beside it)

goalkeeper is installed the way users install it (``uv tool install`` / pipx: a virtualenv of
its own with goalkeeper in site-packages and a ``goalkeeper`` script on PATH): a throwaway
virtualenv of this interpreter, this checkout's ``goalkeeper`` package copied into its
site-packages (bytecode compiled), beside it this virtualenv's dependencies (linked, as an
installer puts them there; until 2026-12-02 they were reached through a ``.pth`` line, which
made the first event run ``site``). ``--editable`` measures this checkout's own virtualenv instead
(``goalkeeper`` on PATH from ``.venv/bin``, the hatchling editable ``.pth``).

Also measured, for the floor: ``python -S -c pass``, ``python -E -P -S -c pass``, ``sh -c :``
and the previous command, ``<python> -m goalkeeper hook claude``.

Run: .venv/bin/python benchmarks/launcher.py [--reps 30] [--editable] [--against REV] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import sysconfig
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import _bench

BUDGETS = {"warm Stop": 1.3, "warm PreToolUse Bash": 1.3, "cold SessionStart": 6.0}
FINAL_TEXT = "Updated the runner and ran the tests.\n\n[PDCA] do"
SESSION = "bench-launcher"
FIXED_PATH_ENV = {"GOALKEEPER_MAX_CONTINUATIONS": "1000000"}
SYSTEM_PATH = "/usr/bin:/bin"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=30, help="measured rounds (default 30)")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--plan-lines", type=int, default=500)
    parser.add_argument("--transcript-mb", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--editable", action="store_true", help="measure this checkout's .venv (editable)"
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        help="also time the cold SessionStart of goalkeeper at git REV (its own tool install "
        "and project), in the same interleaved rounds: a before/after on a noisy machine",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args()


def sources_at(rev: str, dest: Path) -> Path:
    """The ``src`` folder of this repository at git ``rev``, extracted under ``dest``."""
    archive = subprocess.run(
        ["git", "-C", str(_bench.REPO), "archive", rev, "src/goalkeeper"],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        raise _bench.BenchError(f"git archive {rev}: {archive.stderr.decode()[-300:]}")
    dest.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest / "src"


SKIPPED_ENTRIES = ("goalkeeper", "_editable_impl_goalkeeper", "__editable__", "__pycache__")
"""This checkout's own entries in the virtualenv's site-packages (the copy replaces them)."""


def tool_install(root: Path, src: Path = _bench.SRC, name: str = "gk-tool") -> tuple[str, Path]:
    """A virtualenv laid out as ``uv tool install goalkeeper`` leaves it: its interpreter and
    the folder holding its ``goalkeeper`` script (for PATH). ``src``: the folder holding the
    ``goalkeeper`` package to install (this checkout's by default)."""
    venv = root / name
    subprocess.run(
        [_bench.PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True
    )
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    site = Path(purelib)
    _bench.copy_sources(site, src)
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():  # the dependencies beside it
        if not entry.name.startswith(SKIPPED_ENTRIES) and not entry.name.endswith(".pth"):
            (site / entry.name).symlink_to(entry)
    subprocess.run(
        [str(python), "-m", "compileall", "-q", str(site / "goalkeeper")],
        check=True,
        capture_output=True,
    )
    script = venv / "bin" / "goalkeeper"
    script.write_text(
        f"#!{python}\nimport sys\nfrom goalkeeper.__main__ import main\nsys.exit(main())\n"
    )
    script.chmod(0o755)
    probe = subprocess.run(
        [str(python), "-c", "import goalkeeper; print(goalkeeper.__file__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not probe.startswith(str(site)):
        raise _bench.BenchError(f"the tool install imports goalkeeper from {probe}")
    return str(python), venv / "bin"


def hook_command() -> str:
    """What ``install claude`` writes into the committed ``.claude/settings.json``."""
    from goalkeeper.hosts.claude.settings import hook_command as command

    return command()


def stop_case(
    argv: list[str], env: dict[str, str], project: Path, transcript: _bench.Transcript
) -> Callable[[], float]:
    def case() -> float:
        transcript.append_round(FINAL_TEXT)
        stdin = _bench.stop_payload(SESSION, transcript.path, project, FINAL_TEXT)
        elapsed, out = _bench.time_process(argv, stdin, env, project)
        _bench.check_stop_answer(out)
        return elapsed

    return case


def bash_case(argv: list[str], env: dict[str, str], project: Path) -> Callable[[], float]:
    payload = json.dumps(
        {
            "session_id": SESSION,
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -q > report.txt 2>&1"},
        }
    ).encode()

    def case() -> float:
        elapsed, out = _bench.time_process(argv, payload, env, project)
        if b"deny" in out or b"not installed" in out:
            raise _bench.BenchError(f"unexpected PreToolUse answer: {out[:300]!r}")
        return elapsed

    return case


def start_case(
    argv: list[str], env: dict[str, str], project: Path, transcript: _bench.Transcript
) -> Callable[[], float]:
    counter = [0]

    def case() -> float:
        counter[0] += 1  # a new session each time: the first event of a session
        payload = _bench.session_start_payload(f"{SESSION}-{counter[0]}", transcript.path, project)
        elapsed, out = _bench.time_process(argv, payload, env, project)
        if b"additionalContext" not in out:
            raise _bench.BenchError(f"unexpected SessionStart answer: {out[:300]!r}")
        return elapsed

    return case


def plain_case(argv: list[str], env: dict[str, str], project: Path) -> Callable[[], float]:
    return lambda: _bench.time_process(argv, b"", env, project)[0]


@contextmanager
def instant_engine(python: str, project: Path) -> Iterator[None]:
    """A stand-in engine for ``project`` that answers every request at once with ``{}``: what
    is left of a warm hook is the launcher, the client and the socket, without engine work."""
    from goalkeeper.hosts.hook_channel import ensure_secret, make_runtime_dir, secret_path
    from goalkeeper.hosts.hook_client import frame_answer, ok_line, open_request, runtime_dir

    if make_runtime_dir(runtime_dir()) is not None:
        raise _bench.BenchError(f"{runtime_dir()} is not private")
    secret = ensure_secret(secret_path(os.environ))  # it shows the secret as the engine does
    if not isinstance(secret, bytes):
        raise _bench.BenchError(f"no usable secret: {secret}")
    path = str(_bench.engine_paths(python, project)["socket"])
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                chunks = []
                while chunk := conn.recv(65536):
                    chunks.append(chunk)
                open_request(b"".join(chunks), secret)
                conn.sendall(ok_line(secret) + frame_answer(b"{}"))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        listener.close()
        os.unlink(path)


def instant_case(argv: list[str], env: dict[str, str], project: Path) -> Callable[[], float]:
    def case() -> float:
        elapsed, out = _bench.time_process(argv, b'{"hook_event_name": "Stop"}', env, project)
        if out != b"{}":
            raise _bench.BenchError(f"the stand-in engine did not answer: {out[:300]!r}")
        return elapsed

    return case


def run(args: argparse.Namespace) -> dict[str, object]:
    notes: list[str] = []
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gk-launcher-")))
        if args.editable:
            _bench.prepare_sources()
            python, bin_dir = _bench.PYTHON, Path(_bench.PYTHON).parent
            notes.append(f"editable: goalkeeper on PATH from {bin_dir}")
        else:
            python, bin_dir = tool_install(tmp)
            notes.append("tool install: a virtualenv with goalkeeper copied into site-packages")
        project = tmp / "project"
        project.mkdir()
        _bench.write_plan(project, args.plan_lines)
        transcript = _bench.Transcript(tmp / f"{SESSION}.jsonl", SESSION, project)
        size = transcript.fill(int(args.transcript_mb * 1024 * 1024))
        path = f"{bin_dir}:{SYSTEM_PATH}"
        env = _bench.clean_env(project, PATH=path, **FIXED_PATH_ENV)
        env.pop("PYTHONPATH", None)
        env.pop("VIRTUAL_ENV", None)
        off_env = {**env, "GOALKEEPER_SERVER": "off"}
        launcher = ["/bin/sh", "-c", hook_command()]
        old = [python, "-m", "goalkeeper", "hook", "claude"]
        start = _bench.session_start_payload(SESSION, transcript.path, project)
        _bench.time_process(launcher, start, off_env, project)
        stack.enter_context(_bench.warm_engine(python, project, tmp / "engine.log", env))
        bare = tmp / "bare-project"
        bare.mkdir()
        stack.enter_context(instant_engine(python, bare))
        bare_env = {**env, "CLAUDE_PROJECT_DIR": str(bare)}
        cases = {
            "baseline: python -c pass": plain_case([python, "-c", "pass"], env, project),
            "floor: python -S -c pass": plain_case([python, "-S", "-c", "pass"], env, project),
            "floor: python -E -P -S -c pass": plain_case(
                [python, "-E", "-P", "-S", "-c", "pass"], env, project
            ),
            "floor: sh -c :": plain_case(["/bin/sh", "-c", ":"], env, project),
            "launcher + client, instant stand-in engine": instant_case(launcher, bare_env, bare),
            "warm Stop": stop_case(launcher, env, project, transcript),
            "warm PreToolUse Bash": bash_case(launcher, env, project),
            "warm Stop, previous command (python -m)": stop_case(old, env, project, transcript),
            "cold SessionStart": start_case(launcher, off_env, project, transcript),
            "cold Stop": stop_case(launcher, off_env, project, transcript),
            "cold SessionStart, previous command (python -m)": start_case(
                old, off_env, project, transcript
            ),
        }
        if args.against:
            cases[f"cold SessionStart at {args.against}"] = against_case(
                args.against, tmp, env, args.plan_lines
            )
            notes.append(f"at {args.against}: its own tool install and project, same command")
        samples = _bench.interleave(cases, args.reps, args.warmup, args.seed)
        _bench.check_no_fallback(python, project)
        samples["engine work per Stop (in-process, warm)"] = engine_work(project, transcript, env)
    return report(samples, size, args, notes)


def against_case(rev: str, tmp: Path, env: dict[str, str], plan_lines: int) -> Callable[[], float]:
    """The cold SessionStart of goalkeeper at ``rev``: the same launcher command, finding that
    version's tool install on ``PATH``, in a project of its own (a state database of another
    schema is never shared)."""
    _, bin_dir = tool_install(tmp, sources_at(rev, tmp / "rev"), name="gk-tool-rev")
    project = tmp / "project-rev"
    project.mkdir()
    _bench.write_plan(project, plan_lines)
    transcript = _bench.Transcript(tmp / "rev.jsonl", SESSION, project)
    rev_env = {
        **env,
        "PATH": f"{bin_dir}:{SYSTEM_PATH}",
        "CLAUDE_PROJECT_DIR": str(project),
        "GOALKEEPER_SERVER": "off",
    }
    return start_case(["/bin/sh", "-c", hook_command()], rev_env, project, transcript)


def engine_work(project: Path, transcript: _bench.Transcript, env: dict[str, str]) -> list[float]:
    """``answer_in_process`` timed in this process (modules imported, plan cached), as the
    engine runs it for each request: the part of a warm Stop no launcher can remove."""
    import hook_latency

    return hook_latency.engine_work(project, transcript, env, 20)


def report(
    samples: dict[str, list[float]], size: int, args: argparse.Namespace, notes: list[str]
) -> dict[str, object]:
    rows = _bench.ratio_rows(samples, "baseline: python -c pass")
    budgets = _bench.ratio_budgets(rows, BUDGETS)
    return {
        "benchmark": "launcher",
        "machine": _bench.machine(),
        "setup": {
            "install": "editable" if args.editable else "tool",
            "plan_lines": args.plan_lines,
            "transcript_bytes": size,
            "reps": args.reps,
            "warmup": args.warmup,
            "loadavg": os.getloadavg(),
        },
        "results_ms": rows,
        "budgets": budgets,
        "notes": notes,
    }


def print_report(data: dict[str, object]) -> None:
    m, setup = data["machine"], data["setup"]
    assert isinstance(m, dict) and isinstance(setup, dict)
    print(_bench.headline("Hook launcher (sh -c, as written into settings.json)", m))
    print(
        f"install {setup['install']}, plan {setup['plan_lines']} lines, transcript "
        f"{setup['transcript_bytes'] / 2**20:.1f} MB, {setup['reps']} interleaved rounds "
        f"(+{setup['warmup']} warm-up), load {setup['loadavg']}\n"
    )
    _bench.print_ratio_table(data)
    print()
    _bench.print_ratio_budgets(data)


def main() -> int:
    return _bench.main(parse_args, run, print_report)


if __name__ == "__main__":
    sys.exit(main())
