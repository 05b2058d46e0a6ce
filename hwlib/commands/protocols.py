"""``hwlib protocols``: the generations in release order, what each changed, the releases whose rules come from each."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options: the table is printed whole."""


def handle(args: argparse.Namespace) -> int:
    from ..engine.releases import generations_rows
    from ..views.text import generations_text

    print(generations_text(generations_rows()))
    return 0
