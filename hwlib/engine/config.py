"""Cluster configuration: the partition's replicas, protocol generation and Kafka settings, validated."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from ..errors import ConfigError
from .protocols import GENERATIONS

PROTOCOLS = tuple(GENERATIONS)

ACKS = ("0", "1", "all")
#: brokers are named A, B, C ... in assignment order (the first is the initial leader)
REPLICA_NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def replica_names(count: int) -> tuple[str, ...]:
    """The first ``count`` broker names: ``replica_names(3)`` is ``("A", "B", "C")``."""
    return tuple(REPLICA_NAMES[:count])


def parse_acks(value: object, field: str, error: type[Exception] = ConfigError) -> str:
    """``acks`` as Kafka spells it: 0, 1, all (or -1); returned as "0", "1" or "all"."""
    text = str(value).lower()
    if text == "-1":
        text = "all"
    if text not in ACKS:
        raise error(f"{field}: {value!r} is not allowed; allowed: 0, 1, all (or -1)")
    return text


@dataclass(frozen=True)
class ClusterConfig:
    """Settings of one partition. Names follow Kafka's (``min.insync.replicas`` -> ``min_insync_replicas``).

    Times are logical milliseconds; they pass only through ``tick`` steps.
    """

    replicas: tuple[str, ...] = ("A", "B")
    protocol: str = "hw"
    min_insync_replicas: int = 1
    acks: str = "all"
    unclean_leader_election: bool = False
    replica_lag_time_max_ms: int = 30000
    replica_fetch_wait_max_ms: int = 500
    replica_high_watermark_checkpoint_interval_ms: int = 5000
    request_timeout_ms: int = 30000
    session_timeout_ms: int = 18000
    log_flush_interval_messages: int | None = None
    #: producer: resend attempts per batch after a retriable error or a lost acknowledgement
    retries: int = 0
    #: producer: producer id + sequence numbers; the leader drops duplicates
    enable_idempotence: bool = False
    #: producer: batches sent and not yet resolved before later ones must wait; null sends
    #: every produce step at once (as the worked HW examples assume); Kafka's producer default is 5
    max_in_flight_requests_per_connection: int | None = None
    #: consumer: commit the position at a poll once this much time passed since the last commit
    enable_auto_commit: bool = False
    auto_commit_interval_ms: int = 5000
    #: consumer: where to go when its position is beyond the leader's log: latest (the HW) or earliest
    auto_offset_reset: str = "latest"
    #: clients: ``current`` - every request goes to the controller's current leader;
    #: ``stale`` - each client keeps the leader it last learned until an error makes it
    #: refresh (NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, a broken connection)
    client_metadata: str = "current"

    def __post_init__(self) -> None:
        replicas = self.replicas
        if isinstance(replicas, str) or not isinstance(replicas, (list, tuple)):
            raise ConfigError(f"config.replicas: expected a list of replica names, got {replicas!r}")
        for name in replicas:
            if not isinstance(name, str):
                raise ConfigError(f"config.replicas: names must be text, got {name!r} (in YAML, quote names "
                                  "like 'yes', 'no', 'null' or numbers)")
        names = tuple(replicas)
        if not names:
            raise ConfigError("config.replicas: at least one replica is required")
        if len(set(names)) != len(names):
            raise ConfigError(f"config.replicas: names must be unique, got {list(names)}")
        for name in names:
            if not name or not name.replace("_", "").replace("-", "").isalnum():
                raise ConfigError(
                    f"config.replicas: {name!r} is not a valid name; use letters, digits, - or _"
                )
        object.__setattr__(self, "replicas", names)
        if self.protocol not in PROTOCOLS:
            raise ConfigError(
                f"config.protocol: {self.protocol!r} is not known; allowed: {', '.join(PROTOCOLS)}"
            )
        object.__setattr__(self, "acks", parse_acks(self.acks, "config.acks"))
        for name in ("min_insync_replicas", "replica_lag_time_max_ms", "replica_fetch_wait_max_ms",
                     "replica_high_watermark_checkpoint_interval_ms", "request_timeout_ms",
                     "session_timeout_ms", "auto_commit_interval_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"config.{name}: must be an integer >= 1, got {value!r}")
        if self.min_insync_replicas > len(names):
            raise ConfigError(
                f"config.min_insync_replicas: {self.min_insync_replicas} exceeds the "
                f"{len(names)} replicas; allowed: 1..{len(names)}"
            )
        if self.replica_lag_time_max_ms < 2:
            raise ConfigError("config.replica_lag_time_max_ms: must be >= 2 (checked every lag/2)")
        flush = self.log_flush_interval_messages
        if flush is not None and (isinstance(flush, bool) or not isinstance(flush, int)
                                  or flush < 1):
            raise ConfigError(
                f"config.log_flush_interval_messages: must be null (never) or an integer >= 1, "
                f"got {flush!r}"
            )
        retries = self.retries
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ConfigError(f"config.retries: must be an integer >= 0, got {retries!r}")
        in_flight = self.max_in_flight_requests_per_connection
        if in_flight is not None and (isinstance(in_flight, bool) or not isinstance(in_flight, int)
                                      or in_flight < 1):
            raise ConfigError(f"config.max_in_flight_requests_per_connection: must be null (no limit) or "
                              f"an integer >= 1, got {in_flight!r}")
        if not isinstance(self.enable_idempotence, bool):
            raise ConfigError(f"config.enable_idempotence: must be true or false, got {self.enable_idempotence!r}")
        if self.enable_idempotence and (self.acks != "all" or (in_flight or 0) > 5):
            raise ConfigError("config.enable_idempotence: requires acks: all and "
                              "max_in_flight_requests_per_connection <= 5 (as Kafka's producer does)")
        if not isinstance(self.enable_auto_commit, bool):
            raise ConfigError(f"config.enable_auto_commit: must be true or false, got {self.enable_auto_commit!r}")
        if self.auto_offset_reset not in ("latest", "earliest"):
            raise ConfigError(f"config.auto_offset_reset: {self.auto_offset_reset!r} is not allowed; "
                              "allowed: latest, earliest")
        if self.client_metadata not in ("current", "stale"):
            raise ConfigError(f"config.client_metadata: {self.client_metadata!r} is not allowed; "
                              "allowed: current, stale")
        if not isinstance(self.unclean_leader_election, bool):
            raise ConfigError(
                f"config.unclean_leader_election: must be true or false, "
                f"got {self.unclean_leader_election!r}"
            )

    @classmethod
    def from_dict(cls, data: dict, where: str = "config") -> ClusterConfig:
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: expected a mapping, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(
                f"{where}.{unknown[0]}: unknown setting; allowed: {', '.join(sorted(known))}"
            )
        return cls(**data)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["replicas"] = list(self.replicas)
        return out

    def replace(self, **changes) -> ClusterConfig:
        data = self.to_dict()
        data.update(changes)
        return ClusterConfig.from_dict(data)
