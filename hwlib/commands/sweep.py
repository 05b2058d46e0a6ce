"""``hwlib sweep``: a fault-injection sweep on Spark: runs, summary, shrunk counterexamples, then its table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import options


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", help="a sweep spec YAML file or a built-in spec name (data/specs)")
    parser.add_argument("--out", help="output directory (default: data/sweeps/<spec name>)")
    parser.add_argument("--runs", type=options.positive, help="runs per cell (overrides the spec)")
    parser.add_argument("--master", help="Spark master URL (default: $HWLIB_SPARK_MASTER or local[*])")
    parser.add_argument("--resume", action="store_true", help="continue a sweep in --out, skipping finished chunks")
    parser.add_argument("--overwrite", action="store_true", help="replace a sweep already in --out")
    parser.add_argument("--check-determinism", type=options.positive, default=0, metavar="N",
                        help="re-run N sampled runs here and compare them with the stored rows")
    parser.add_argument("--no-shrink", action="store_true", help="do not shrink failing cells")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def to_spec(args: argparse.Namespace):
    """The sweep's spec (a built-in name or a file), with ``--runs`` per cell when given."""
    from ..sweep import load_spec

    spec = load_spec(args.spec)
    return spec.with_runs(args.runs) if args.runs else spec


def handle(args: argparse.Namespace) -> int:
    from ..util.extras import require

    require("spark", "hwlib sweep")
    from ..sweep import run_sweep
    from ..sweep.spark import check_master
    from ..util.files import check_directory
    from ..views.text import sweep_text

    check_master(args.master, "master")     # before anything is written or a JVM starts
    spec = to_spec(args)
    out = Path(args.out or Path("data") / "sweeps" / spec.name)
    check_directory(out, "out")             # before a line is printed or a JVM starts
    print(f"sweep {spec.name}: {len(spec.cells)} cells x {spec.runs} runs = {spec.total_runs} runs -> {out}"
          + (f" ({len(spec.skipped)} invalid combinations left out)" if spec.skipped else ""))
    result = run_sweep(spec, out, master=args.master, resume=args.resume, overwrite=args.overwrite,
                       progress=not args.quiet,
                       shrink_failures=not args.no_shrink, check_determinism=args.check_determinism)
    print(sweep_text(spec, result, out))
    if result.determinism is not None:
        bad = result.determinism["mismatches"]
        print(f"determinism: {result.determinism['checked']} runs re-run, {len(bad)} mismatches")
        if bad:
            print(f"hwlib: error: determinism check failed for {bad[0]}", file=sys.stderr)
            return 1
    print(f"{result.rows} rows in {out / 'runs'}, summary {out / 'summary.parquet'}, "
          f"manifest {out / 'manifest.json'}; {result.wall_s:.1f} s "
          f"({result.chunks_run} chunks run, {result.chunks_skipped} resumed)")
    return 0
