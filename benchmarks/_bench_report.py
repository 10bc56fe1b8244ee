"""The environment a benchmark runs in, and how it reports: the headline, tables, ratio budgets,
JSON, and the ``main`` every script shares."""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import shutil
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from _bench_base import FORWARDED_PREFIXES, PYTHON, REPO, SRC
from _bench_stats import stats

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
