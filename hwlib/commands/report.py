"""``hwlib report``: the fault-sweep report notebook run (papermill) and rendered to offline HTML."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a notebook parameter (value read as YAML), e.g. runs=100; repeatable")
    parser.add_argument("--sweep", help="a finished sweep directory to report on instead of running one")
    parser.add_argument("--out", default="reports/fault-sweep.html", help="the HTML to write (default %(default)s)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def to_spec(args: argparse.Namespace) -> dict:
    """The notebook's parameters: each ``--param`` (one line naming a bad one), ``--sweep`` as ``sweep_dir``."""
    from ..report.document import parse_param

    params = dict(parse_param(p) for p in args.param)
    if args.sweep:
        params["sweep_dir"] = args.sweep
    return params


def handle(args: argparse.Namespace) -> int:
    from ..util.extras import require

    require("report", "hwlib report")
    params = to_spec(args)
    if params.get("sweep_dir") is None:         # the report runs its sweep
        require("spark", "hwlib report")
    from ..report.document import NotebookFailed, render

    try:
        paths = render(params, args.out, progress=not args.quiet)
    except NotebookFailed as exc:
        print(f"hwlib: error: the report notebook failed: {exc.ename}: {' '.join(exc.evalue.split())} "
              f"(executed notebook: {exc.notebook})", file=sys.stderr)
        return 1
    print(f"wrote {paths['html']} (executed notebook {paths['notebook']}, metrics {paths['metrics']})")
    return 0
