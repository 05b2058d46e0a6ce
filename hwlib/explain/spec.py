"""An explain request: the logs, the partition, the rules and settings to try, the bounds, validated once.

``ExplainSpec`` is what ``hwlib explain`` and notebook 04 build and ``driver.explain`` carries
out (as ``CheckSpec`` is for ``hwlib check``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..engine.config import PROTOCOLS
from ..engine.releases import release
from ..errors import ConfigError, HwlibError

#: the settings a log seldom shows and the search tries (``--config``), each with what it takes
SETTINGS = {"acks": ("0", "1", "all"), "min_insync_replicas": None, "unclean_leader_election": (True, False)}
#: a partition as the logs write it: ``topic-N``, ``[topic,N]``, or redacted (``X-N``, ``[XXXXXXX,1]``)
PARTITION = re.compile(r"^[^\s\x00-\x1f]{1,300}$")


class ExplainError(HwlibError, ValueError):
    """A bad explain request."""


@dataclass(frozen=True)
class ExplainSpec:
    """What to explain and how far to look (see ``hwlib explain --help``)."""

    logs: tuple[str, ...]
    #: observations files: facts stated in hwlib's vocabulary (``stated``), read beside the logs
    observations: tuple[str, ...] = ()
    #: where to write what the lines were understood to say, as an observations file (None: nowhere)
    emit_observations: str | None = None
    partition: str | None = None
    release: str | None = None
    protocol: str | None = None
    #: log file -> the broker id that wrote it (``--broker FILE=ID``)
    brokers: tuple[tuple[str, str], ...] = ()
    #: settings fixed by the user (``--config key=value``); the others are searched
    config: tuple[tuple[str, object], ...] = ()
    #: records the model produces, at most (None: the lines' distinct offsets + 2, at least 3 -
    #: room for records the lines never name, lost or not yet read)
    max_records: int | None = None
    #: the leader epoch's bound (None: the lines' distinct epochs + 2, at least 4)
    max_epoch: int | None = None
    max_silent: int = 6
    depth: int = 30
    time_limit: float = 60.0
    #: replicas in the model (None: as many as the logs name brokers, at least 2 - or 1 first where the
    #: lines name one broker and an ISR of it alone, ``driver.single_replica``)
    replicas: int | None = None
    #: how far apart (ms) two lines of different files may be stamped and still come in either order
    skew_ms: float = 0.0
    #: the faults searched, tier by tier (each widens the one before; None: the tiers the lines
    #: imply - ``candidates.fault_tiers``)
    fault_tiers: tuple[tuple[str, ...], ...] | None = None

    def __post_init__(self) -> None:
        if not self.logs and not self.observations:
            raise ExplainError("LOG: give at least one log file (or --observations FILE.yaml)")
        if self.partition is not None and not PARTITION.match(self.partition):
            raise ExplainError(f"partition: {self.partition!r}: give the partition as the logs write it, without "
                               "spaces (e.g. orders-0 or [orders,0])")
        if self.release is not None and self.protocol is not None:
            raise ExplainError("release: give --release or --protocol, not both")
        if self.release is not None:
            try:
                release(self.release, "release")
            except ConfigError as exc:
                raise ExplainError(str(exc)) from None
        if self.protocol is not None and self.protocol not in PROTOCOLS:
            raise ExplainError(f"protocol: {self.protocol!r} is not a generation; allowed: {', '.join(PROTOCOLS)}")
        for name, value in self.config:
            if name not in SETTINGS:
                raise ExplainError(f"config: {name!r} is not searched; allowed: {', '.join(SETTINGS)}")
            allowed = SETTINGS[name]
            if allowed is not None and value not in allowed:
                raise ExplainError(f"config.{name}: {value!r}; allowed: {', '.join(map(str, allowed))}")
            if name == "min_insync_replicas" and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ExplainError(f"config.min_insync_replicas: must be an integer >= 1, got {value!r}")
        for name, low in (("max_records", 1), ("max_epoch", 1), ("max_silent", 0), ("depth", 1)):
            value = getattr(self, name)
            if value is None and name in ("max_records", "max_epoch"):
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ExplainError(f"{name.replace('_', '-')}: must be an integer >= {low}, got {value!r}")
        if not isinstance(self.time_limit, (int, float)) or self.time_limit <= 0:
            raise ExplainError(f"time-limit: must be a number of seconds > 0, got {self.time_limit!r}")
        if self.replicas is not None and (not isinstance(self.replicas, int) or not 1 <= self.replicas <= 5):
            raise ExplainError(f"replicas: 1 to 5, got {self.replicas!r}")
        for path, broker in self.brokers:
            if not str(broker).isdigit():
                raise ExplainError(f"broker: {path}={broker}: a broker id is a number")

    def fixed(self, name: str) -> object:
        for key, value in self.config:
            if key == name:
                return value
        return None


def parse_config(items: list[str]) -> tuple[tuple[str, object], ...]:
    """``key=value`` settings as the spec takes them (one line naming the field when bad)."""
    out = []
    for item in items:
        if "=" not in item:
            raise ExplainError(f"config: {item!r} is not key=value; allowed keys: {', '.join(SETTINGS)}")
        key, _, text = item.partition("=")
        key = key.strip().replace(".", "_").replace("-", "_")
        if key == "unclean_leader_election_enable":
            key = "unclean_leader_election"
        value: object = text.strip()
        if key == "unclean_leader_election":
            lowered = str(value).lower()
            if lowered not in ("true", "false"):
                raise ExplainError(f"config.unclean_leader_election: {text!r}; allowed: true, false")
            value = lowered == "true"
        elif key == "min_insync_replicas":
            if not str(value).isdigit():
                raise ExplainError(f"config.min_insync_replicas: must be an integer >= 1, got {text!r}")
            value = int(str(value))
        out.append((key, value))
    return tuple(out)


def parse_brokers(items: list[str]) -> tuple[tuple[str, str], ...]:
    out = []
    for item in items:
        path, sep, broker = item.rpartition("=")
        if not sep or not path or not broker.strip().isdigit():
            raise ExplainError(f"broker: {item!r} is not FILE=ID (e.g. server-2.log=2)")
        out.append((path, broker.strip()))
    return tuple(out)
