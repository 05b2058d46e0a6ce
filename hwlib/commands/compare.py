"""``hwlib compare``: scenarios under the generations (or releases) side by side: a table; with --out, the HW plot."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..engine.config import PROTOCOLS
from . import options


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scenarios", nargs="*", help="names or files (default: every built-in)")
    parser.add_argument("--out", help="also write OUT.txt (the table) and OUT.png (HW over steps); without it, "
                                      "only the table is printed")
    columns = parser.add_mutually_exclusive_group()
    columns.add_argument("--protocols", type=options.protocols, default=list(PROTOCOLS),
                         help="comma-separated generations (default: all)")
    columns.add_argument("--releases", type=options.releases,
                         help="comma-separated Apache Kafka releases instead, e.g. 2.0.0,2.0.1,3.7-kraft")


def handle(args: argparse.Namespace) -> int:
    from ..scenario import builtin_scenarios, load_scenario
    from ..util.extras import require
    from ..util.files import check_writable
    from ..views.compare import run_matrix, text_table, write_comparison

    if args.out is not None:
        require("report", "hwlib compare --out", ("matplotlib",))     # the PNG
        for suffix in (".txt", ".png"):
            check_writable(Path(args.out).with_suffix(suffix))
    scenarios = [load_scenario(n) for n in args.scenarios or list(builtin_scenarios())]
    columns = args.releases or args.protocols
    if args.out is None:
        print(text_table(scenarios, run_matrix(scenarios, columns), columns))
    else:
        txt, png, text = write_comparison(scenarios, args.out, columns)
        print(text)
        print(f"wrote {txt} and {png}")
    return 0
