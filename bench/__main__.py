"""`python -m bench`: run the ten figures, print the table, write bench/results.json."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import shutil
import sys
import tempfile
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from bench.harness import Stopwatch, clean_environment, machine

RESULTS = Path(__file__).resolve().parent / "results.json"
#: ``--quick``: fewer runs for figures 2, 3, 5 and 10 (a shared or busy machine).
QUICK = False
QUICK_STORAGE_RUNS = 6
QUICK_PIPELINE_RUNS = 2
ALL = ("7", "9", "5", "2", "3", "6", "10", "4", "8", "1")  # run order: TeX and Python warm up on the cheap ones first


def _fig_pdf(work: Path) -> dict:
    from bench import pdf_build

    return {"7": pdf_build.measure(work)}


def _fig_storage(work: Path) -> dict:
    from bench import storage

    return {"5": asyncio.run(storage.measure(work, runs=QUICK_STORAGE_RUNS if QUICK else storage.RUNS))}


def _fig_pipeline(work: Path) -> dict:
    from bench import pipeline

    return asyncio.run(pipeline.measure(work, runs=QUICK_PIPELINE_RUNS if QUICK else pipeline.RUNS))


def _fig_tokens(work: Path) -> dict:
    from bench import tokens

    return {"6": asyncio.run(tokens.measure(work))}


def _fig_throughput(work: Path) -> dict:
    from bench import throughput

    return {"4": throughput.measure(work)}


def _fig_stores(work: Path) -> dict:
    from bench import stores

    return {"8": stores.measure(work)}


def _fig_startup(work: Path) -> dict:
    from bench import startup

    return {"9": startup.measure(work)}


def _fig_delivery(work: Path) -> dict:
    from bench import delivery

    return {"10": delivery.measure(work, runs=QUICK_PIPELINE_RUNS if QUICK else delivery.RUNS)}


def _fig_ack(work: Path) -> dict:
    from bench import ack

    return {"1": ack.measure(work)}


#: Which step produces which figures.
STEPS: list[tuple[tuple[str, ...], Callable[[Path], dict]]] = [
    (("7",), _fig_pdf),
    (("9",), _fig_startup),
    (("5",), _fig_storage),
    (("2", "3"), _fig_pipeline),
    (("6",), _fig_tokens),
    (("10",), _fig_delivery),
    (("4",), _fig_throughput),
    (("8",), _fig_stores),
    (("1",), _fig_ack),
]


def main(argv: list[str] | None = None) -> int:
    """Run the chosen figures; exit 1 when one could not be measured."""
    from bench import report

    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--only", default=",".join(sorted(ALL)), help="figures to run, e.g. 2,3,7")
    parser.add_argument("--markdown", type=Path, help="also write the Markdown page (docs/performance.md)")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where to write the JSON results")
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_STORAGE_RUNS} storage runs instead of 20, {QUICK_PIPELINE_RUNS} pipeline runs instead of 3")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (data, logs) and print it")
    args = parser.parse_args(argv)
    global QUICK
    QUICK = args.quick
    wanted = {f.strip() for f in args.only.split(",") if f.strip()}
    unknown = wanted - set(ALL)
    if unknown:
        parser.error(f"unknown figure(s): {', '.join(sorted(unknown))}")

    clean_environment()
    logging.basicConfig(level=logging.ERROR, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    clock = Stopwatch()
    facts = machine()
    work = Path(tempfile.mkdtemp(prefix="deepresearch-bench-"))
    figures: dict[str, dict] = {}
    timings: dict[str, float] = {}
    try:
        for produces, step in STEPS:
            chosen = [f for f in produces if f in wanted]
            if not chosen:
                continue
            label = ",".join(chosen)
            print(f"figure {label} ...", file=sys.stderr, flush=True)
            watch = Stopwatch()
            try:
                got = step(work)
            except Exception as err:  # a figure that cannot be measured is reported, not hidden
                traceback.print_exc(file=sys.stderr)
                got = {f: {"not_measured": f"{type(err).__name__}: {err}"} for f in produces}
            timings[label] = round(watch.seconds, 1)
            print(f"figure {label}: {timings[label]:.1f} s", file=sys.stderr, flush=True)
            figures.update({k: v for k, v in got.items() if k in wanted})
    finally:
        if args.keep:
            print(f"work folder: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)

    facts["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    results = {
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "runtime_s": round(clock.seconds, 1),
        "seconds_per_step": timings,
        "machine": facts,
        "figures": figures,
    }
    table = report.rows(figures)
    args.results.write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
    print(report.text_table(table))
    print(f"\n{len(figures)} figure(s) in {results['runtime_s']:.0f} s on {facts['nproc']} CPUs "
          f"({facts['cpu_model']}); results in {args.results}")
    if args.markdown:
        args.markdown.write_text(report.performance_page(results, table), encoding="utf-8")
    return 1 if any(f.get("not_measured") for f in figures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
