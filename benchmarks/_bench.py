"""Shared helpers of goalkeeper's benchmarks: statistics, interleaved timing, fixtures, processes.

Why these shapes:
- The machines that run these benchmarks are small and noisy, so every figure is a **ratio**
  against a baseline measured in the same run, the measured commands are **interleaved in a
  random order** (a burst of noise hits every variant alike), and the summary is the **median**
  with the p90 beside it, never a mean.
- The fixtures are realistic rather than minimal: a plan with SWOT, objective, key results and a
  story map of hundreds of leaves, and a transcript in Claude Code's JSONL shape (assistant lines
  with ``tool_use`` blocks and ``usage``, user lines with ``tool_result``), because the hook's
  cost depends on what it has to parse.
- Every process started here is stopped through its own handle, and every file lives in a
  temporary folder removed on exit, also on Ctrl-C or SIGTERM.

Standard library only; imported by the scripts next to it (``python benchmarks/<name>.py`` puts
this folder first on ``sys.path``).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src"
PYTHON = sys.executable  # the interpreter running the benchmark is the one measured
FORWARDED_PREFIXES = ("GOALKEEPER_", "CLAUDE_", "PI_TODONE_")


class BenchError(RuntimeError):
    """A measured command misbehaved: its figure would mean nothing."""


# ---------------------------------------------------------------------------------------------
# Statistics and interleaved timing
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stats:
    n: int
    median: float
    p90: float
    minimum: float

    def to_dict(self, scale: float = 1000.0) -> dict[str, float | int]:
        """Rounded figures in milliseconds (``scale=1000``) or microseconds (``1e6``)."""
        return {
            "n": self.n,
            "median": round(self.median * scale, 3),
            "p90": round(self.p90 * scale, 3),
            "min": round(self.minimum * scale, 3),
        }


def percentile(samples: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (``q`` in 0..100) of a non-empty sample."""
    ordered = sorted(samples)
    if len(ordered) == 1:
        return ordered[0]
    pos = (len(ordered) - 1) * q / 100.0
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def stats(samples: Sequence[float]) -> Stats:
    return Stats(len(samples), percentile(samples, 50), percentile(samples, 90), min(samples))


def interleave(
    cases: Mapping[str, Callable[[], float]],
    reps: int,
    warmup: int = 2,
    seed: int | None = None,
    progress: bool = True,
) -> dict[str, list[float]]:
    """Run every case ``reps`` times, in a fresh random order in each round.

    A case prepares whatever it needs (untimed) and returns the seconds of the part measured.
    ``warmup`` rounds are run first and thrown away (page cache, engine caches, CPU clocks).
    """
    rng = random.Random(seed)
    names = list(cases)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_no in range(warmup + reps):
        rng.shuffle(names)
        for name in names:
            elapsed = cases[name]()
            if round_no >= warmup:
                samples[name].append(elapsed)
        if progress and sys.stderr.isatty():
            sys.stderr.write(f"\r  round {round_no + 1}/{warmup + reps}")
            sys.stderr.flush()
    if progress and sys.stderr.isatty():
        sys.stderr.write("\r" + " " * 30 + "\r")
    return samples


def time_process(
    argv: Sequence[str], stdin: bytes, env: Mapping[str, str], cwd: Path, timeout: float = 60
) -> tuple[float, bytes]:
    """Wall time of one fresh process, from spawn to exit, and its stdout.

    The spawn cost of ``subprocess`` is in every figure, the baseline's included, so it cancels
    out of the ratios.
    """
    started = time.perf_counter()
    proc = subprocess.run(
        list(argv),
        input=stdin,
        capture_output=True,
        env=dict(env),
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if proc.returncode != 0 or b"Traceback" in proc.stderr:
        raise BenchError(
            f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}"
        )
    return elapsed, proc.stdout


# ---------------------------------------------------------------------------------------------
# Environment and output
# ---------------------------------------------------------------------------------------------


def machine() -> dict[str, object]:
    """What a reader needs to compare figures: date, interpreter, CPUs, bytecode setting."""
    return {
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "executable": PYTHON,
        "nproc": os.cpu_count(),
        "platform": platform.platform(),
        "PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE", ""),
        "git": git_state(),
    }


def git_state() -> str:
    """The commit measured, marked ``+dirty`` when goalkeeper's sources differ from it."""
    try:
        head = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--", "src"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def clean_env(project: Path, **extra: str) -> dict[str, str]:
    """This process's environment without goalkeeper's or Claude Code's own variables, plus
    ``CLAUDE_PROJECT_DIR`` (what Claude Code sends every hook) and ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(FORWARDED_PREFIXES)}
    env["CLAUDE_PROJECT_DIR"] = str(project)
    env.update(extra)
    return env


def prepare_sources(snapshot: Path | None = None) -> tuple[dict[str, str], Path]:
    """Compile goalkeeper's bytecode where the measured processes will import it from.

    With ``PYTHONDONTWRITEBYTECODE`` set (it is on some machines and in CI images), Python
    never writes ``.pyc`` files itself, so without this every fresh hook process would compile
    goalkeeper's modules from source again. By default that is ``src/goalkeeper`` of this
    checkout. With ``snapshot`` (a folder), the sources are copied there first and every
    measured process imports the copy through ``PYTHONPATH``: edits made to the checkout while
    the benchmark runs then neither mix versions nor make the engine exit as stale.

    Returns the environment additions and the folder that holds the ``goalkeeper`` package.
    """
    root = SRC
    extra: dict[str, str] = {}
    if snapshot is not None:
        root = copy_sources(snapshot)
        extra["PYTHONPATH"] = str(root)
    subprocess.run(
        [PYTHON, "-m", "compileall", "-q", str(root / "goalkeeper")],
        check=True,
        capture_output=True,
    )
    return extra, root


def copy_sources(dest: Path, root: Path = SRC) -> Path:
    """A copy of the ``goalkeeper`` package under ``root``, without ``__pycache__``."""
    shutil.copytree(
        root / "goalkeeper", dest / "goalkeeper", ignore=shutil.ignore_patterns("__pycache__")
    )
    return dest


def headline(title: str, m: Mapping[str, object]) -> str:
    """The first line of every report: what ran where."""
    return (
        f"goalkeeper {title} — {m['date']}, Python {m['python']}, nproc {m['nproc']}, "
        f"git {m['git']}"
    )


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """A plain aligned table: text columns left, figures right."""
    cells = [[str(c) for c in headers]] + [[_cell(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    numeric = [all(_is_number(row[i]) for row in rows) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        parts = [
            c.rjust(w) if num else c.ljust(w)
            for c, w, num in zip(row, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    print(line(cells[0]))
    print("  ".join("-" * w for w in widths))
    for row in cells[1:]:
        print(line(row))


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 1 else f"{value:.2f}"
    return str(value)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float)


def print_json(data: object) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


def main(
    parse_args: Callable[[], Any],
    run: Callable[[Any], Any],
    print_report: Callable[[Any], None],
) -> int:
    """The ``main`` of a benchmark script: parse, clean up on a signal, run, print the report
    (or one JSON object with ``--json``). Exit 0: a budget that fails is reported, not raised."""
    args = parse_args()
    install_signal_cleanup()
    # goalkeeper's state (and its hooks' runtime folder) in a folder of this run, for the
    # script and every process it starts, so a run leaves nothing in the user's state home
    import shutil
    import tempfile

    state = tempfile.mkdtemp(prefix="gk-bench-state-")
    os.environ["XDG_STATE_HOME"] = state
    try:
        data = run(args)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    if args.json:
        print_json(data)
    else:
        print_report(data)
    return 0


def ratio_rows(
    samples: Mapping[str, Sequence[float]], baseline: str
) -> dict[str, dict[str, object]]:
    """Each variant's stats with its median and p90 as multiples of ``baseline``'s, measured
    in the same run (the machines are noisy: a ratio travels, a millisecond does not)."""
    base = stats(samples[baseline])
    rows: dict[str, dict[str, object]] = {}
    for name, values in samples.items():
        s = stats(values)
        rows[name] = {
            **s.to_dict(),
            "ratio_median": round(s.median / base.median, 3),
            "ratio_p90": round(s.p90 / base.p90, 3),
        }
    return rows


def ratio_budgets(
    rows: Mapping[str, Mapping[str, object]], budgets: Mapping[str, float]
) -> dict[str, dict[str, object]]:
    """For each budgeted variant: its budget, its median ratio and whether it passes."""
    out: dict[str, dict[str, object]] = {}
    for name, budget in budgets.items():
        ratio = float(rows[name]["ratio_median"])  # type: ignore[arg-type]
        out[name] = {"budget": budget, "ratio": ratio, "pass": ratio <= budget}
    return out


def print_ratio_table(data: Mapping[str, object], first: str = "variant") -> None:
    """The ``results_ms`` of a report made by ``ratio_rows``: one line per case, in ms and as
    multiples of the baseline."""
    rows = data["results_ms"]
    assert isinstance(rows, dict)
    print_table(
        [first, "median ms", "p90 ms", "min ms", "x baseline (median)", "x baseline (p90)"],
        [
            [name, r["median"], r["p90"], r["min"], r["ratio_median"], r["ratio_p90"]]
            for name, r in rows.items()
        ],
    )


def print_ratio_budgets(data: Mapping[str, object]) -> None:
    """The ``budgets`` of a report (each ``ratio`` against ``budget``, as multiples of the
    baseline) as PASS/FAIL lines, then its ``notes``."""
    budgets = data["budgets"]
    assert isinstance(budgets, dict)
    for name, b in budgets.items():
        print(f"{verdict(b['pass'])}  {name}: {b['ratio']:.2f}x <= {b['budget']}x")
    notes = data.get("notes") or ()
    assert isinstance(notes, list | tuple)
    for note in notes:
        print(f"note: {note}")


def install_signal_cleanup() -> None:
    """Turn SIGTERM and SIGHUP into ``SystemExit`` so ``finally`` blocks and context managers
    stop the engine processes and remove the temporary files."""

    def _exit(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, _exit)
    signal.signal(signal.SIGHUP, _exit)


# ---------------------------------------------------------------------------------------------
# Fixtures: a realistic plan
# ---------------------------------------------------------------------------------------------

_SLICES = (
    "walking skeleton",
    "first real user",
    "team rollout",
    "hardening",
    "scale out",
    "polish",
)
_ACTIVITIES = (
    "Install",
    "Configure",
    "Run the first task",
    "Review results",
    "Share with the team",
    "Recover from failure",
)
_VERBS = (
    "can see",
    "can export",
    "gets a clear error when",
    "can undo",
    "is warned before",
    "can search",
    "can resume",
)
_OBJECTS = (
    "the deploy log as JSON",
    "a failed step with its command line",
    "the plan's open items in the status bar",
    "`--dry-run` output for every change",
    "the last 20 runs of a pipeline",
    "which key result a change moves",
    "a config value's source (file, env, flag)",
)


def make_plan(lines: int, seed: int = 7) -> str:
    """A Markdown plan of exactly ``lines`` lines in goalkeeper's grammar.

    SWOT, an objective, 20 key results with figures (some done, some cancelled with a reason,
    one with notes), a fenced code block and an HTML comment the parser must skip, then a story
    map in ``### Slice`` sections of activity → leaf items filling the rest. Leaf states
    are mixed (about 55 % done, 40 % open, 5 % cancelled), so the anchors and the gates have
    real work to do.
    """
    rng = random.Random(seed)
    out = [
        "# Plan: one-command deploy for small teams",
        "",
        "## SWOT",
        "",
        "S: the deploy engine is covered by tests and already used internally",
        "W: no onboarding; errors are raw tracebacks",
        "O: two pilot teams asked for it this quarter",
        "T: the platform team may ship a competing tool",
        "",
        "## Objective",
        "",
        "A new team ships its first deploy in under 10 minutes without help. Background: "
        "pilot teams churned at the config step.",
        "",
        "## Key Results",
        "",
    ]
    for n in range(1, 21):
        base, target = rng.randint(0, 40), rng.randint(50, 100)
        current = rng.randint(base, target)
        text = f"KR{n}: pilot teams deploying unaided, baseline {base} → target {target}"
        roll = n % 7
        if roll == 3:
            out.append(f"- [x] {text} (current {target})")
        elif roll == 5:
            out.append(f"- [-] {text} (cancelled: pilot ended early)")
        else:
            out.append(f"- [ ] {text} (current {current})")
        if n == 2:
            out.append("  - note: measured from the deploy log, weekly")
    out += [
        "",
        "<!-- reviewed with the pilot teams on Monday",
        "- [ ] this commented-out item must not count -->",
        "",
        "```bash",
        "- [ ] neither must this one inside a fence",
        "```",
        "",
        "## User Story Map",
        "",
    ]
    slice_no = 0
    while len(out) < lines:
        slice_no += 1
        out += [f"### Slice {slice_no}: {_SLICES[(slice_no - 1) % len(_SLICES)]}", ""]
        for activity in rng.sample(_ACTIVITIES, 2):
            if len(out) >= lines - 1:
                break
            out.append(f"- [ ] {activity}")
            for _ in range(rng.randint(35, 50)):
                if len(out) >= lines:
                    break
                out.append("  " + _leaf(rng))
        if len(out) < lines:
            out.append("")
    return "\n".join(out[:lines]) + "\n"


def _leaf(rng: random.Random) -> str:
    text = f"a user {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}"
    roll = rng.random()
    if roll < 0.55:
        return f"- [x] {text}"
    if roll < 0.95:
        return f"- [ ] {text}"
    return f"- [-] {text} (cancelled: out of scope for the pilot)"


def write_plan(project: Path, lines: int, name: str = "deploy.md") -> Path:
    folder = project / "plan"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(make_plan(lines), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Fixtures: a Claude Code transcript (JSONL)
# ---------------------------------------------------------------------------------------------


class Transcript:
    """Writes transcript lines shaped like Claude Code's (reference §11).

    Each content block of an API message is its own ``assistant`` line with the same
    ``message.id`` and a ``usage`` object; tool results are ``user`` lines with a
    ``tool_result`` block, a ``toolUseResult`` copy and ``sourceToolAssistantUUID``.
    """

    def __init__(self, path: Path, session_id: str, cwd: Path, seed: int = 11) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = str(cwd)
        self.rng = random.Random(seed)
        self.parent: str | None = None
        self.counter = 0
        self.context = 42_000  # tokens in the context window; grows slowly, stays below 80 %

    def _hex(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def _uuid(self) -> str:
        h = self._hex(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:]}"

    def _line(self, kind: str, body: dict[str, object]) -> tuple[str, bytes]:
        uid = self._uuid()
        self.counter += 1
        entry: dict[str, object] = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.332",
            "gitBranch": "main",
            "type": kind,
            **body,
            "uuid": uid,
            "timestamp": f"2025-11-30T08:{self.counter // 60 % 60:02d}:{self.counter % 60:02d}Z",
        }
        self.parent = uid
        return uid, json.dumps(entry, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"

    def _assistant(self, msg_id: str, block: dict[str, object]) -> tuple[str, bytes]:
        self.context += self.rng.randint(50, 400)
        usage = {
            "input_tokens": self.rng.randint(2, 12),
            "cache_creation_input_tokens": self.rng.randint(200, 3000),
            "cache_read_input_tokens": self.context,
            "output_tokens": self.rng.randint(20, 600),
            "service_tier": "standard",
        }
        message = {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-5",
            "content": [block],
            "stop_reason": "tool_use" if block["type"] == "tool_use" else None,
            "stop_sequence": None,
            "usage": usage,
        }
        return self._line("assistant", {"message": message, "requestId": "req_" + self._hex(24)})

    def round(self, final: str | None = None, output_bytes: int | None = None) -> bytes:
        """One agent step: a sentence, a tool call, its result, optionally a final text.

        ``output_bytes`` sets the tool output's size (random 300 B .. 12 KB when None: shell
        output and file reads make most of a real transcript's bulk)."""
        msg_id = "msg_" + self._hex(24)
        tool_id = "toolu_" + self._hex(24)
        tool, tool_input = self.rng.choice(
            (
                ("Bash", {"command": "pytest -q tests/deploy", "description": "Run the tests"}),
                ("Read", {"file_path": f"{self.cwd}/src/deploy/runner.py"}),
                ("Grep", {"pattern": "def deploy", "path": "src", "output_mode": "content"}),
                ("Edit", {"file_path": f"{self.cwd}/src/deploy/log.py", "old_string": "x"}),
            )
        )
        size = output_bytes if output_bytes is not None else self.rng.randint(300, 12_000)
        output = _filler(self.rng, size)
        parts = [self._assistant(msg_id, {"type": "text", "text": "Let me check that."})[1]]
        tool_uuid, line = self._assistant(
            msg_id, {"type": "tool_use", "id": tool_id, "name": tool, "input": tool_input}
        )
        parts.append(line)
        result = {
            "message": {
                "role": "user",
                "content": [
                    {
                        "tool_use_id": tool_id,
                        "type": "tool_result",
                        "content": output,
                        "is_error": False,
                    }
                ],
            },
            "toolUseResult": {"stdout": output, "stderr": "", "interrupted": False},
            "sourceToolAssistantUUID": tool_uuid,
        }
        parts.append(self._line("user", result)[1])
        if final is not None:
            final_id = "msg_" + self._hex(24)
            parts.append(self._assistant(final_id, {"type": "text", "text": final})[1])
        return b"".join(parts)

    def block(self, approx_bytes: int) -> bytes:
        """Consecutive rounds of about ``approx_bytes``, to be written many times over."""
        chunks: list[bytes] = []
        total = 0
        while total < approx_bytes:
            chunk = self.round(final="Done with this step.\n\n[PDCA] do" if total % 3 else None)
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)

    def fill(self, size: int, block_bytes: int = 512 * 1024) -> int:
        """Write the file up to ``size`` bytes (less at most one line) fast: one block of
        rounds written repeatedly, the last copy cut after a complete line."""
        block = self.block(min(block_bytes, max(size // 4, 4096)))
        written = 0
        with open(self.path, "wb") as f:
            while written + len(block) <= size:
                f.write(block)
                written += len(block)
            rest = block[: block.rfind(b"\n", 0, size - written) + 1]
            f.write(rest)
            written += len(rest)
        return written

    def append_round(self, final: str) -> int:
        """Append one small new round (tool_use line, tool_result, final text); its length."""
        data = self.round(final=final, output_bytes=1500)
        with open(self.path, "ab") as f:
            f.write(data)
        return len(data)


def _filler(rng: random.Random, size: int) -> str:
    words = ("ok", "PASSED", "tests/deploy/test_runner.py::", "def", "return", "self", "0.12s")
    out: list[str] = []
    total = 0
    while total < size:
        line = " ".join(rng.choice(words) for _ in range(10))
        out.append(line)
        total += len(line) + 1
    return "\n".join(out)[:size]


def stop_payload(session_id: str, transcript: Path, cwd: Path, text: str) -> bytes:
    """A Stop hook input as Claude Code sends it (reference §9.1)."""
    return json.dumps(
        {
            "session_id": session_id,
            "transcript_path": str(transcript),
            "cwd": str(cwd),
            "permission_mode": "default",
            "effort": {"level": "medium"},
            "prompt_id": "p-1",
            "hook_event_name": "Stop",
            "stop_hook_active": True,
            "last_assistant_message": text,
            "background_tasks": [],
            "session_crons": [],
        }
    ).encode()


def session_start_payload(session_id: str, transcript: Path, cwd: Path) -> bytes:
    return json.dumps(
        {
            "session_id": session_id,
            "transcript_path": str(transcript),
            "cwd": str(cwd),
            "hook_event_name": "SessionStart",
            "source": "startup",
            "model": "claude-opus-4-5",
        }
    ).encode()


def check_stop_answer(stdout: bytes) -> None:
    """A Stop answer must be the engine's real decision (a continuation with the plan's
    anchors), not a fail-open message: otherwise the timing measured an error path."""
    try:
        answer = json.loads(stdout)
    except ValueError as exc:
        raise BenchError(f"hook printed no JSON: {stdout[:200]!r}") from exc
    if answer.get("decision") != "block" or "Plan anchors" not in str(answer.get("reason")):
        raise BenchError(f"unexpected Stop answer: {json.dumps(answer)[:400]}")


# ---------------------------------------------------------------------------------------------
# The warm engine process
# ---------------------------------------------------------------------------------------------


def engine_paths(
    python: str, project: Path, env: Mapping[str, str] | None = None
) -> dict[str, Path]:
    """The runtime files of the engine keyed by (installation, project): socket, pid, lock and
    the files a client leaves when it had to answer in-process and spawned an engine. The key
    is the interpreter's ``sys.prefix`` (its virtualenv), shared by python, python3 and the
    console script; the folder is the runtime folder in ``env`` (the hooks' environment: its
    ``HOME`` names the state home), else in this process's."""
    from goalkeeper.hosts.hook_client import join, runtime_dir, server_key

    prefix = subprocess.run(
        [python, "-c", "import sys; print(sys.prefix)"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    sock = Path(join(runtime_dir(env), server_key(prefix, str(project)) + ".sock"))
    return {
        "socket": sock,
        "pid": Path(str(sock) + ".pid"),
        "lock": Path(str(sock) + ".lock"),
        "spawn": Path(str(sock) + ".spawn"),
        "log": Path(str(sock) + ".log"),
    }


@contextmanager
def warm_engine(
    python: str,
    project: Path,
    log_path: Path,
    env: Mapping[str, str],
    idle_s: float = 60,
    timeout_s: float = 30,
) -> Iterator[subprocess.Popen[bytes]]:
    """Start ``python -m goalkeeper serve`` for ``project``, wait until it listens, and stop it
    through its Popen handle on exit, whatever happens in between.

    Also removes the engine's runtime files for this (interpreter, project) key afterwards, and
    stops an engine a hook client may have spawned for it (which would mean a measured request
    fell back in-process: ``check_no_fallback`` reports that).
    """
    paths = engine_paths(python, project, env)
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            [
                python,
                "-m",
                "goalkeeper",
                "serve",
                "--project",
                str(project),
                "--idle",
                f"{idle_s:g}",
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=project,
            env=dict(env),
        )
    try:
        _wait_listening(proc, paths, timeout_s, log_path)
        yield proc
    finally:
        _stop(proc)
        _stop_spawned(paths, project)
        for key in ("socket", "pid", "lock", "spawn", "log"):
            try:
                paths[key].unlink()
            except OSError:
                pass


def check_no_fallback(python: str, project: Path, env: Mapping[str, str] | None = None) -> None:
    """Fail when a hook client answered in-process and tried to start an engine for this key
    (the stamp it leaves behind exists): a "warm" figure would then include cold runs. The
    usual cause is an edit to goalkeeper's sources during the run (the engine answers STALE
    and exits)."""
    if engine_paths(python, project, env)["spawn"].exists():
        raise BenchError(
            f"a warm request fell back in-process (no engine answered for {python}); "
            "were goalkeeper's sources edited during the run?"
        )


def _wait_listening(
    proc: subprocess.Popen[bytes], paths: Mapping[str, Path], timeout_s: float, log: Path
) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BenchError(f"engine exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            if paths["socket"].exists() and int(paths["pid"].read_text()) == proc.pid:
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    raise BenchError(f"engine did not listen within {timeout_s:g} s: {log.read_text()[-2000:]}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()  # SIGTERM: the engine unwinds and removes its socket and pid file
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def _stop_spawned(paths: Mapping[str, Path], project: Path) -> None:
    """An engine a measured client spawned for our temporary project: stop it by its pid,
    after checking that pid really is ``goalkeeper serve --project <our project>``."""
    try:
        pid = int(paths["pid"].read_text())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError):
        return
    if b"serve" in cmdline and os.fsencode(str(project)) in cmdline:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass


def shebang_interpreter(script: Path) -> str | None:
    """The interpreter a console script runs under: its ``sys.executable`` decides which
    engine socket its hook client looks for."""
    try:
        first = script.read_bytes().split(b"\n", 1)[0]
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    return os.fsdecode(first[2:].strip().split()[0])


def overhead_report(
    title: str,
    samples: Mapping[str, Sequence[float]],
    base: str,
    case: str,
    budget_ms: float,
    *,
    as_json: bool,
    what: str,
) -> int:
    """Report ``case``'s median cost beyond ``base``'s, in ms, against an additive budget (the
    runner pins per Stop, the hidden tests per proof): a table, or one JSON value; the exit
    status is 0 within the budget."""
    stats_by = {name: stats(values) for name, values in samples.items()}
    base_s, case_s = stats_by[base].median, stats_by[case].median
    cost_ms = round((case_s - base_s) * 1000, 3)
    result = {
        "machine": machine(),
        "git": git_state(),
        "rows": {name: s.to_dict() for name, s in stats_by.items()},
        "ratio": round(case_s / base_s, 3) if base_s else None,
        "overhead_ms": cost_ms,
        "budget_ms": budget_ms,
        "ok": cost_ms <= budget_ms,
    }
    if as_json:
        print_json(result)
        return 0 if result["ok"] else 1
    print(headline(title, result["machine"]))  # type: ignore[arg-type]
    rows = [(name, f"{s.median * 1000:.3f}", f"{s.p90 * 1000:.3f}") for name, s in stats_by.items()]
    print_table(["case", "median ms", "p90 ms"], rows)
    print(
        f"{what}: +{cost_ms:.3f} ms ({result['ratio']}× {base}), budget +{budget_ms:.0f} ms: "
        f"{verdict(bool(result['ok']))}"
    )
    return 0 if result["ok"] else 1
