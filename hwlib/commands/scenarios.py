"""``hwlib scenarios``: each built-in scenario, its summary and expected anomalies (or docs/scenarios.md's table)."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--markdown", action="store_true",
                        help="print docs/scenarios.md's table: summary and expected anomalies per generation")


def handle(args: argparse.Namespace) -> int:
    from ..scenario import builtin_scenarios, load_scenario, scenario_table

    if args.markdown:
        print(scenario_table())
        return 0
    from ..views.text import scenarios_text

    print(scenarios_text({name: load_scenario(path) for name, path in builtin_scenarios().items()}))
    return 0
