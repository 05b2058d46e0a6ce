"""``hwlib run``: a scenario's steps, states and anomalies under a generation's or a release's rules (or JSON)."""

from __future__ import annotations

import argparse
import json

from . import options


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scenario", help="a built-in scenario name or a YAML file")
    options.rules(parser)
    parser.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting instead of the file's or the release's default, Kafka's name or hwlib's "
                             "(e.g. eligible.leader.replicas.version=0, acks=1); repeatable")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def handle(args: argparse.Namespace) -> int:
    from ..scenario import load_scenario, run_scenario

    result = run_scenario(load_scenario(args.scenario), protocol=args.protocol, release=args.release,
                          settings=options.settings(args.config))
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        from ..views.text import run_text

        print(run_text(result))
    return 0
