"""``hwlib releases``: each release and mode, its generation, the flags that differ from its rules, the sources."""

from __future__ import annotations

import argparse
import json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="one JSON object per release")


def handle(args: argparse.Namespace) -> int:
    from ..engine.releases import FLAG_BY_ATTR, table_rows

    rows = table_rows()
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    from ..views.text import releases_text

    print(releases_text(rows, FLAG_BY_ATTR.values()))
    return 0
