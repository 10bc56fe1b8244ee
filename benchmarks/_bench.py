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

This module gathers the names from the modules beside it, one concern each: ``_bench_base``
(paths, the interpreter, ``BenchError``), ``_bench_stats`` (statistics and interleaved timing),
``_bench_report`` (environment and output), ``_bench_fixtures`` (plan, transcript, payloads) and
``_bench_engine`` (the warm engine process). Standard library only; imported by the scripts next
to it (``python benchmarks/<name>.py`` puts this folder first on ``sys.path``).
"""

from __future__ import annotations

from _bench_base import (
    FORWARDED_PREFIXES,
    PYTHON,
    REPO,
    SRC,
    BenchError,
)
from _bench_engine import (
    check_no_fallback,
    engine_paths,
    shebang_interpreter,
    warm_engine,
)
from _bench_fixtures import (
    Transcript,
    check_stop_answer,
    make_plan,
    session_start_payload,
    stop_payload,
    write_plan,
)
from _bench_report import (
    clean_env,
    copy_sources,
    git_state,
    headline,
    install_signal_cleanup,
    machine,
    main,
    overhead_report,
    prepare_sources,
    print_json,
    print_ratio_budgets,
    print_ratio_table,
    print_table,
    ratio_budgets,
    ratio_rows,
    verdict,
)
from _bench_stats import (
    Stats,
    interleave,
    percentile,
    stats,
    time_process,
)

__all__ = [
    "FORWARDED_PREFIXES",
    "PYTHON",
    "REPO",
    "SRC",
    "BenchError",
    "Stats",
    "Transcript",
    "check_no_fallback",
    "check_stop_answer",
    "clean_env",
    "copy_sources",
    "engine_paths",
    "git_state",
    "headline",
    "install_signal_cleanup",
    "interleave",
    "machine",
    "main",
    "make_plan",
    "overhead_report",
    "percentile",
    "prepare_sources",
    "print_json",
    "print_ratio_budgets",
    "print_ratio_table",
    "print_table",
    "ratio_budgets",
    "ratio_rows",
    "session_start_payload",
    "shebang_interpreter",
    "stats",
    "stop_payload",
    "time_process",
    "verdict",
    "warm_engine",
    "write_plan",
]
