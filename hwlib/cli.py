"""Command line: ``hwlib COMMAND``, dispatched to its module in ``hwlib.commands``; the exit-code contract lives here.

Bad input prints one line naming the field and what is allowed, and exits 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .commands import COMMANDS
from .errors import HwlibError
from .util.extras import MissingExtraError

#: what ``hwlib --help`` says hwlib is
DESCRIPTION = "Kafka replication, one partition's replicas in every release: " + ", ".join(COMMANDS) + "."


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        self.exit(2, f"hwlib: error: {message}\n")


class _Version(argparse.Action):
    """``--version``: one unwrapped line, e.g. ``hwlib 0.2.0, compiled engine (mypyc, ...)``."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from .compiled import ENGINE
        from .version import __version__

        print(f"hwlib {__version__}, {ENGINE}")
        parser.exit(0)


def _command(name: str):
    return importlib.import_module(f".commands.{COMMANDS[name][0]}", __package__)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hwlib", description=DESCRIPTION)
    parser.add_argument("--version", action=_Version, help="print the version and which engine runs")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, (_, text) in COMMANDS.items():
        _command(name).add_arguments(sub.add_parser(name, help=text))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _command(args.command).handle(args)
    except MissingExtraError as exc:    # "hwlib sweep: needs pyspark: pip install 'hwlib[spark]'"
        print(str(exc), file=sys.stderr)
        return 2
    except HwlibError as exc:
        print(f"hwlib: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `hwlib run ... | head`
        sys.stderr.close()
    except OSError as exc:   # a path the checks above did not foresee: still one line
        if exc.filename is None:
            raise
        print(f"hwlib: error: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
