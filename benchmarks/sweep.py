"""Sweep speed: runs/s in a bare Python loop vs the same runs through local Spark, 1 vs 2 cores.

The workload is the issue's: 3 replicas, 200-step schedules of the ``swarm`` profile (every
fault kind, switched per run), acks=all, min.insync.replicas=2, kip320. Spark times are the
job alone (session up, a first identical job run to warm it; best of two), including writing
the parquet rows; one task per batch of the sweep's plan (up to 4,000 runs; a small sweep
gets smaller batches, so its fixed cost per task weighs more: ``--runs 64000`` measures the
4,000-run tasks a large sweep has). Bare loop: best of three. Printed, not asserted.

    python benchmarks/sweep.py [--runs N] [--million]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from hwlib.sweep import parse_spec
from hwlib.sweep.driver import plan
from hwlib.sweep.runs import run_batch


def spec(runs: int):
    return parse_spec({"name": "bench", "seed": 1, "runs": runs, "profile": "swarm",
                       "grid": {"protocol": ["kip320"], "replicas": [3], "acks": ["all"],
                                "min_insync_replicas": [2]}})


def bare(s) -> float:
    start = time.perf_counter()
    for batches in plan(s):
        for first, count in batches:
            run_batch(s, first, count)
    return time.perf_counter() - start


def through_spark(s, cores: int) -> float:
    from hwlib.sweep.spark import run_chunk, start_session

    spark = start_session(f"local[{cores}]")
    tmp = tempfile.mkdtemp(prefix="hwlib-bench-")
    try:
        batches = [b for chunk in plan(s) for b in chunk]
        times = []
        for attempt in range(3):   # the first job also starts the Python workers and warms the JVM
            start = time.perf_counter()
            run_chunk(spark, s, batches, os.path.join(tmp, f"runs{attempt}"))
            times.append(time.perf_counter() - start)
        return min(times[1:])     # best of the warm ones: this VM is noisy
    finally:
        spark.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def million() -> float:
    from hwlib.sweep.driver import run_sweep

    out = Path(tempfile.mkdtemp(prefix="hwlib-million-")) / "sweep"
    try:
        start = time.perf_counter()
        result = run_sweep(spec(1_000_000), out, master="local[2]", progress=False, shrink_failures=False)
        elapsed = time.perf_counter() - start
        print(f"1,000,000 runs on local[2], end to end: {elapsed / 60:.1f} min ({result.rows} rows, "
              f"{result.engines}, lost in {int(result.summary['runs_lost'].sum())} runs)")
        return elapsed
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)


def main() -> None:
    import hwlib

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8000, help="runs per measurement (default 8000)")
    parser.add_argument("--million", action="store_true", help="also one real sweep of 1,000,000 runs")
    args = parser.parse_args()
    print(f"engine: {hwlib.ENGINE}")
    s = spec(args.runs)
    n = s.total_runs
    t_bare = min(bare(s) for _ in range(3))
    t_1 = through_spark(s, 1)
    t_2 = through_spark(s, 2)
    rate_bare, rate_1, rate_2 = n / t_bare, n / t_1, n / t_2
    print(f"workload: {n} runs x 200 steps, 3 replicas, swarm profile, kip320, acks=all, min ISR 2")
    print(f"bare Python loop, 1 core : {rate_bare:8.0f} runs/s  ({1000 * t_bare / n:.3f} ms/run)")
    print(f"local Spark, 1 core      : {rate_1:8.0f} runs/s  (Spark overhead {t_1 / t_bare - 1:+.1%})")
    print(f"local Spark, 2 cores     : {rate_2:8.0f} runs/s  (scaling 1 -> 2 cores {rate_2 / (2 * rate_1):.1%})")
    projected = 1_000_000 / rate_2
    print(f"1,000,000 runs on 2 cores: {projected / 60:.1f} min projected (target <= 10 min)")
    if args.million:
        million()


if __name__ == "__main__":
    main()
