"""How long goalkeeper takes to resolve a workflow procedure bundle, warm, in the engine process.

Budget: resolving the largest route bundle takes at most 5 ms (median) warm: the catalog loaded
once through ``load_catalog`` (its parse, validation and procedure texts cached by mtime and
size, as the warm engine holds them), then ``bundle(catalog, root, read)`` for every workflow
and standalone root (closure, one ``stat`` per procedure text, link rewriting, wrapping, the
64 KiB check). The verdict uses the slowest root's median, so the largest bundle is covered
whatever its size; the median over all roots and a cached ``load_catalog`` (what every agent
turn pays before resolving) are shown for reference.

Budget: the per-turn guidance of an active workflow is at most 120 words. It is rendered (in
English, with Claude Code's longer tool names) for every placement of every route, the work
item at each procedure with nothing loaded yet (the longest lists), and the largest is reported.

The absolute budget depends on the machine, so a fixed pure-Python workload (``calibration``)
is timed in the same interleaved run and every figure is also given as a ratio to it.

Run: .venv/bin/python benchmarks/workflow_resolve.py [--reps 60] [--json]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import _bench

from goalkeeper.core.workflows.catalog import Catalog
from goalkeeper.core.workflows.resolver import bundle
from goalkeeper.store.catalog_files import LoadedCatalog, load_catalog

BUDGET_MS = 5.0
BUDGET_WORDS = 120
LOAD = "load_catalog cached"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=60, help="measured rounds (default 60)")
    parser.add_argument("--warmup", type=int, default=3, help="rounds thrown away (default 3)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args()


def calibration() -> float:
    """A fixed mix of string and dict work, to tell a slow machine from a slow resolver."""
    started = time.perf_counter()
    counts: dict[str, int] = {}
    for i in range(20_000):
        word = ("alpha beta gamma delta " * 2).split()[i % 8]
        counts[word[: 1 + i % 4]] = counts.get(word[: 1 + i % 4], 0) + 1
    return time.perf_counter() - started


def roots(catalog: Catalog) -> list[str]:
    """Every procedure a route or a capability starts from, once, in catalog order."""
    found = [*catalog.definitions(), *catalog.standalone()]
    return list(dict.fromkeys(p.id for p in found))


def guidance_words(loaded: LoadedCatalog) -> dict[str, object]:
    """The words of the active guidance at every placement; the largest and where it is."""
    from goalkeeper.config import Config
    from goalkeeper.core.messages import make_say
    from goalkeeper.guards.spec import Context
    from goalkeeper.guards.workflow import WorkflowState, active_guidance

    names = {n: f"mcp__goalkeeper__{n}" for n in ("workflow", "workflow_active", "workflow_ask")}
    ctx = Context(
        0.0,
        Config(lang="en"),
        make_say("en"),
        "en",
        None,
        frozenset(),
        procedures=lambda: loaded,
        tool_names=names,
    )
    counts: dict[str, int] = {}
    for route in loaded.catalog.routes():
        for proc in loaded.catalog.definitions(route.route):
            placed = loaded.catalog.placement(route.route, proc.id)
            assert placed is not None
            record = {
                "version": 1,
                "workItemId": "00000000-0000-4000-8000-000000000000",
                "route": route.route,
                "procedure": proc.id,
                "phase": placed.phase,
                "status": "active",
                "loadedReferences": [],
            }
            (advice,) = active_guidance(WorkflowState(active=record), ctx)
            counts[f"{route.route}/{proc.id}"] = len(getattr(advice, "text", "").split())
    largest = max(counts, key=lambda k: counts[k])
    return {"placements": len(counts), "largest": largest, "words": counts[largest]}


def timed_bundle(loaded: LoadedCatalog, root: str) -> Callable[[], float]:
    def case() -> float:
        started = time.perf_counter()
        bundle(loaded.catalog, root, loaded.read)
        return time.perf_counter() - started

    return case


def timed_load(project: Path) -> Callable[[], float]:
    def case() -> float:
        started = time.perf_counter()
        load_catalog(project, "")
        return time.perf_counter() - started

    return case


def run(args: argparse.Namespace) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="gk-bench-") as tmp:
        project = Path(tmp)
        loaded = load_catalog(project, "")
        if loaded.problems:
            raise _bench.BenchError(
                "the built-in catalog has problems: " + "; ".join(loaded.problems)
            )
        names = roots(loaded.catalog)
        sizes = {root: bundle(loaded.catalog, root, loaded.read) for root in names}  # warm
        cases: dict[str, Callable[[], float]] = {
            "calibration": calibration,
            LOAD: timed_load(project),
        }
        cases.update({root: timed_bundle(loaded, root) for root in names})
        samples = _bench.interleave(cases, args.reps, args.warmup, args.seed)
        words = guidance_words(loaded)
    calib = _bench.stats(samples["calibration"]).median
    rows = {
        name: {
            **_bench.stats(values).to_dict(),
            "x_calibration": round(_bench.stats(values).median / calib, 3),
            **(
                {"bytes": sizes[name].byte_length, "loaded": len(sizes[name].loaded)}
                if name in sizes
                else {}
            ),
        }
        for name, values in samples.items()
    }
    medians = {root: float(rows[root]["median"]) for root in names}
    largest = max(names, key=lambda r: sizes[r].byte_length)
    slowest = max(names, key=lambda r: medians[r])
    return {
        "benchmark": "workflow_resolve",
        "machine": _bench.machine(),
        "setup": {
            "reps": args.reps,
            "warmup": args.warmup,
            "entries": len(loaded.catalog.entries),
            "roots": len(names),
        },
        "results_ms": rows,
        "summary": {
            "largest": {
                "root": largest,
                "bytes": sizes[largest].byte_length,
                "median_ms": medians[largest],
            },
            "slowest": {"root": slowest, "median_ms": medians[slowest]},
            "median_over_roots_ms": round(statistics.median(medians.values()), 3),
            "load_catalog_cached_ms": float(rows[LOAD]["median"]),
            "guidance": words,
        },
        "budgets": {
            "largest route bundle warm": {
                "budget_ms": BUDGET_MS,
                "median_ms": medians[slowest],
                "pass": medians[slowest] <= BUDGET_MS,
            },
            "per-turn guidance": {
                "budget_words": BUDGET_WORDS,
                "words": words["words"],
                "pass": int(str(words["words"])) <= BUDGET_WORDS,
            },
        },
    }


def print_report(data: dict[str, object]) -> None:
    m, setup, summary = data["machine"], data["setup"], data["summary"]
    assert isinstance(m, dict) and isinstance(setup, dict) and isinstance(summary, dict)
    print(_bench.headline("workflow bundle resolution", m))
    print(
        f"{setup['entries']} catalog entries, {setup['roots']} workflow and standalone roots; "
        f"{setup['reps']} interleaved rounds (+{setup['warmup']})\n"
    )
    rows = data["results_ms"]
    assert isinstance(rows, dict)
    ordered = sorted(rows.items(), key=lambda item: -float(item[1]["median"]))
    _bench.print_table(
        ["case", "bytes", "median ms", "p90 ms", "min ms", "x calibration"],
        [
            [name, r.get("bytes", "-"), r["median"], r["p90"], r["min"], r["x_calibration"]]
            for name, r in ordered
        ],
    )
    largest, slowest = summary["largest"], summary["slowest"]
    print(
        f"\nlargest bundle: {largest['root']} ({largest['bytes']} bytes), "
        f"{largest['median_ms']:.3f} ms; slowest: {slowest['root']}, "
        f"{slowest['median_ms']:.3f} ms; "
        f"median over roots {summary['median_over_roots_ms']:.3f} ms; "
        f"cached load_catalog {summary['load_catalog_cached_ms']:.3f} ms\n"
    )
    budgets = data["budgets"]
    assert isinstance(budgets, dict)
    guidance = summary["guidance"]
    print(
        f"per-turn guidance: at most {guidance['words']} words, at {guidance['largest']} "
        f"(of {guidance['placements']} placements)\n"
    )
    for name, b in budgets.items():
        if "budget_words" in b:
            print(f"{_bench.verdict(b['pass'])}  {name}: {b['words']} words <= {b['budget_words']}")
            continue
        print(
            f"{_bench.verdict(b['pass'])}  {name}: {b['median_ms']:.3f} ms <= {b['budget_ms']} ms"
        )


def main() -> int:
    return _bench.main(parse_args, run, print_report)


if __name__ == "__main__":
    sys.exit(main())
