"""``hwlib shrink``: a minimal scenario that still shows an anomaly, written to ``--out``."""

from __future__ import annotations

import argparse

from . import options


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scenario", help="a built-in scenario name or a YAML file")
    parser.add_argument("--kind", required=True, help="the anomaly kind to keep, e.g. lost-write")
    options.rules(parser, "an Apache Kafka release's rules (hwlib releases)")
    parser.add_argument("--out", required=True, help="where to write the shrunk scenario (YAML)")


def handle(args: argparse.Namespace) -> int:
    from ..scenario import load_scenario
    from ..shrink import shrink_scenario
    from ..util.files import check_writable

    check_writable(args.out)
    scenario = load_scenario(args.scenario)
    if args.release is not None:
        scenario = scenario.with_release(args.release)
    shrunk, result = shrink_scenario(scenario, args.kind, args.protocol)
    path = shrunk.save(args.out)
    print(f"shrank {result.before} -> {len(shrunk.steps)} steps in {result.runs} runs; "
          f"wrote {path}; `hwlib run {path}` shows {args.kind}")
    return 0
