"""The argument types the commands share: a generation, a release, lists of either, a count >= 1, KEY=VALUE settings."""

from __future__ import annotations

import argparse

from ..engine.config import PROTOCOLS, ClusterConfig
from ..errors import HwlibError

#: ``--release``'s help, shared by the commands that take one
RELEASE_HELP = "an Apache Kafka release's rules, VERSION[-zk|-kraft]: 1.0.0, 2.0.1, 3.6-zk, 3.7.1-kraft, 4.1 " \
               "(hwlib releases)"


def protocol(value: str) -> str:
    if value not in PROTOCOLS:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not known; allowed: {', '.join(PROTOCOLS)}")
    return value


def protocols(value: str) -> list[str]:
    from ..util.names import parse_names

    return parse_names(value, "", PROTOCOLS, "a generation", argparse.ArgumentTypeError)  # argparse names the option


def release(value: str) -> str:
    from ..engine.releases import release as known

    try:
        known(value)
    except HwlibError as exc:
        raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[1]) from None
    return value.strip().lower()


def releases(value: str) -> list[str]:
    return [release(v) for v in value.split(",") if v.strip()]


def positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value!r}")
    return number


def rules(parser: argparse.ArgumentParser, release_help: str = RELEASE_HELP) -> None:
    """``--protocol`` or ``--release``, one of the two."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--protocol", type=protocol, help=f"a generation's rules: {', '.join(PROTOCOLS)}")
    group.add_argument("--release", type=release, help=release_help)


def settings(items: list[str]) -> dict:
    """``--config KEY=VALUE`` items as settings (Kafka's names or hwlib's; one line naming a bad one)."""
    return dict(ClusterConfig.setting_from_text(item, "config") for item in items)
