"""Cluster configuration: the partition's replicas, protocol generation and Kafka settings, validated."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from ..errors import ConfigError
from .protocols import GENERATIONS, Protocol
from .releases import (
    DEFAULTS,
    FLAGS,
    GATE_BY_SETTING,
    GATES,
    KRAFT,
    LOWEST_FEATURE_VERSION,
    MESSAGE_FORMAT_RELEASES,
    MESSAGE_FORMAT_V2,
    ZK,
    Release,
    feature_version_text,
    generation_rules,
    parse_feature_version,
    release,
    release_rules,
)

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


#: settings whose default is the release's (``releases.DEFAULTS``): None when constructing stands
#: for that default; a value given - in a scenario file, ``--config``, a CLI option, a sweep spec -
#: is kept through ``replace`` and ``with_rules`` whatever release comes after (``ClusterConfig.given``)
RELEASE_DEFAULTS = tuple(d.setting for d in DEFAULTS)
#: their defaults under a generation's own rules (no release)
GENERATION_DEFAULTS: dict[str, object] = {"unclean_leader_election": False, "acks": "all",
                                           "replica_lag_time_max_ms": 30000, "session_timeout_ms": 18000,
                                           "retries": 0}


#: Kafka's names of settings whose field is named otherwise (``setting_from_text``)
SETTING_ALIASES = {"unclean_leader_election_enable": "unclean_leader_election",
                   "zookeeper_session_timeout_ms": "session_timeout_ms",
                   "broker_session_timeout_ms": "session_timeout_ms",
                   "log_message_format_version": "message_format_version"}
#: fields a KEY=VALUE setting does not take: the replicas and the rules have options of their own
UNSETTABLE = ("replicas", "protocol", "release")
#: the settings that take a release back to older rules (a cluster part way through an upgrade),
#: with Kafka's names
FEATURE_SETTINGS = (("inter_broker_protocol_version", "inter.broker.protocol.version"),
                    ("metadata_version", "metadata.version"),
                    ("message_format_version", "log.message.format.version"))


@dataclass(frozen=True)
class ClusterConfig:
    """Settings of one partition. Names follow Kafka's (``min.insync.replicas`` -> ``min_insync_replicas``).

    Times are logical milliseconds; they pass only through ``tick`` steps.
    """

    replicas: tuple[str, ...] = ("A", "B")
    #: the generation (rule set); with ``release`` given, that release's generation ("" when
    #: constructing: whichever the release names, else hw)
    protocol: str = ""
    min_insync_replicas: int = 1
    #: acks; null when constructing: the release's default ("1" up to 2.8, "all" from 3.0, KIP-679),
    #: all for a generation - always "0", "1" or "all" once constructed
    acks: str = None  # type: ignore[assignment]
    #: unclean.leader.election.enable; null: the release's default (true before 0.11, KIP-106),
    #: false for a generation
    unclean_leader_election: bool | None = None
    #: replica.lag.time.max.ms; null: the release's default (10 s up to 2.4, 30 s from 2.5,
    #: KIP-537), 30 s for a generation
    replica_lag_time_max_ms: int = None  # type: ignore[assignment]
    replica_fetch_wait_max_ms: int = 500
    replica_high_watermark_checkpoint_interval_ms: int = 5000
    request_timeout_ms: int = 30000
    #: how long a broker that stopped unnoticed keeps its session: zookeeper.session.timeout.ms
    #: (ZooKeeper) or broker.session.timeout.ms (KRaft); null: the release's default (6 s up to
    #: 2.4, 18 s from 2.5, KIP-537; 9 s under KRaft), 18 s for a generation
    session_timeout_ms: int = None  # type: ignore[assignment]
    log_flush_interval_messages: int | None = None
    #: producer: resend attempts per batch after a retriable error or a lost acknowledgement;
    #: null: the release's default (0 up to 2.0, 2147483647 from 2.1, KIP-91), 0 for a generation
    retries: int = None  # type: ignore[assignment]
    #: producer: producer id + sequence numbers; the leader drops duplicates. Off unless given,
    #: in every release: Kafka's producer turns it on by default from 3.0.1 / 3.1.1 / 3.2.0
    #: (KAFKA-13598), but it then resends a refused batch by itself, in order, and recovers its
    #: sequence after OUT_OF_ORDER_SEQUENCE_NUMBER (KIP-360) - hwlib's producer resends only at
    #: ``retry`` steps, so on by default it would refuse writes Kafka takes and hide their losses
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
    #: an Apache Kafka release, ``VERSION[-zk|-kraft]`` (``hwlib releases``): its generation
    #: with the flags of its code
    release: str | None = None
    #: ZooKeeper mode: inter.broker.protocol.version (e.g. 2.6 or 2.7-IV1) where it selects
    #: older rules; null: the release's own
    inter_broker_protocol_version: str | None = None
    #: KRaft: metadata.version (e.g. 3.5-IV2) where it selects older rules; null: the release's own
    metadata_version: str | None = None
    #: ZooKeeper 0.11 - 2.8: log.message.format.version (e.g. 0.10.2) where it is below 0.11.0:
    #: v0 / v1 records carry no leader epoch, so followers truncate to their HW as before KIP-101;
    #: null: the release's own (v2)
    message_format_version: str | None = None
    #: KRaft from 4.0: the eligible.leader.replicas.version feature (KIP-966): 1 turns Eligible
    #: Leader Replicas on, 0 off; null: the release's default - 1 on 4.1 as a cluster created on
    #: 4.1 has it (one upgraded to 4.1 runs 0 until the feature is upgraded), 0 on 4.0
    eligible_leader_replicas_version: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "_given", frozenset(name for name in RELEASE_DEFAULTS
                                                     if getattr(self, name) is not None))
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
        if self.release is not None:
            object.__setattr__(self, "release", str(self.release).strip().lower())
        row = self.release_row
        if self.protocol and self.protocol not in PROTOCOLS:
            raise ConfigError(
                f"config.protocol: {self.protocol!r} is not known; allowed: {', '.join(PROTOCOLS)}"
            )
        if row is None:
            for name in ("inter_broker_protocol_version", "metadata_version"):
                if getattr(self, name) is not None:
                    raise ConfigError(f"config.{name}: applies to a release; give config.release too")
            if self.message_format_version is not None:
                raise ConfigError("config.message_format_version: applies to a release; give config.release too")
            if not self.protocol:
                object.__setattr__(self, "protocol", "hw")
            self._check_gates(None, None)
        else:
            ibp, metadata_version = self._feature_versions(row)
            generation = row.generation_for(ibp)
            if self.protocol and self.protocol != generation:
                raise ConfigError(f"config.protocol: {self.protocol!r} is not the rule set of release "
                                  f"{self.release} ({generation}); give one of them")
            object.__setattr__(self, "protocol", generation)
            self._check_gates(row, metadata_version)
            self._check_message_format(row, ibp)
        for name in RELEASE_DEFAULTS:
            if getattr(self, name) is None:
                object.__setattr__(self, name, GENERATION_DEFAULTS[name] if row is None else row.default(name))
        if self.enable_idempotence is True:
            # an idempotent producer not given acks sends acks=all, not given retries retries without
            # end (2.0.1 KafkaProducer.configureAcks / configureRetries; 2.8.0
            # ProducerConfig.maybeOverrideAcksAndRetries)
            if "acks" not in self.given:
                object.__setattr__(self, "acks", "all")
            if "retries" not in self.given:
                object.__setattr__(self, "retries", 2147483647)
        object.__setattr__(self, "acks", parse_acks(self.acks, "config.acks"))
        for name in ("min_insync_replicas", "replica_lag_time_max_ms", "replica_fetch_wait_max_ms",
                     "replica_high_watermark_checkpoint_interval_ms", "request_timeout_ms",
                     "session_timeout_ms", "auto_commit_interval_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"config.{name}: must be an integer >= 1, got {value!r}")
        # min.insync.replicas above the replicas is allowed, as Kafka allows it: up to 3.6 every
        # acks=all write then fails, from 3.7 the leader checks min(it, the replicas)
        # (``Protocol.effective_min_isr``)
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
        if self.enable_idempotence and (self.acks != "all" or (in_flight or 0) > 5 or self.retries == 0):
            raise ConfigError("config.enable_idempotence: requires acks: all, retries >= 1 and "
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

    @property
    def given(self) -> frozenset[str]:
        """The settings of ``RELEASE_DEFAULTS`` given a value (the others are the release's
        defaults, and follow the release when it changes)."""
        return self._given      # type: ignore[attr-defined, no-any-return]

    @property
    def rules_name(self) -> str:
        """What the rules are called: the release (``3.7.1-kraft``) or the generation."""
        return self.release if self.release is not None else self.protocol

    @property
    def release_row(self) -> Release | None:
        """The release table's row for ``release`` (None for a generation's own rules)."""
        return None if self.release is None else release(self.release, "config.release")

    def _feature_versions(self, row: Release) -> tuple[tuple[int, int, int] | None, tuple[int, int, int] | None]:
        """inter.broker.protocol.version / metadata.version, checked against the release."""
        own = row.feature_version
        out: list[tuple[int, int, int] | None] = []
        for name, mode in (("inter_broker_protocol_version", ZK), ("metadata_version", KRAFT)):
            lowest = LOWEST_FEATURE_VERSION[mode]
            text = getattr(self, name)
            if text is None:
                out.append(None)
                continue
            if row.mode != mode:
                raise ConfigError(f"config.{name}: {row.label} runs {'KRaft' if mode == ZK else 'ZooKeeper'}; "
                                  f"allowed: null")
            value = parse_feature_version(text, f"config.{name}")
            low = parse_feature_version(lowest, name)
            if not low <= value <= own:
                raise ConfigError(f"config.{name}: {text!r} is not modelled for {row.label}; allowed: "
                                  f"{lowest} up to {'.'.join(map(str, own[:2]))}")
            out.append(value)
        return out[0], out[1]

    def _check_gates(self, row: Release | None, metadata_version: tuple[int, int, int] | None) -> None:
        """A feature level given: 0 or 1; 1 only where the release has the feature's code
        (eligible.leader.replicas.version: KRaft from 4.0, metadata.version from 4.0-IV1) or the
        generation has the rule (kip966); 0 anywhere (kip966 with 0 runs 4.0's rules)."""
        level = self.eligible_leader_replicas_version
        if level is None:
            return
        name = "config.eligible_leader_replicas_version"
        if isinstance(level, bool) or level not in (0, 1):
            raise ConfigError(f"{name}: {level!r} is not allowed; allowed: 0, 1 or null (the release's default)")
        gate = GATE_BY_SETTING["eligible_leader_replicas_version"]
        if row is None:
            if level == 1 and not getattr(GENERATIONS[self.protocol], gate.attr):
                raise ConfigError(f"{name}: {self.protocol} has no Eligible Leader Replicas (kip966 has); "
                                  "allowed: 0 or null")
            return
        if level == 1 and not gate.available(row):
            raise ConfigError(f"{name}: {row.label} has no Eligible Leader Replicas (KRaft from 4.0); allowed: 0 or "
                              "null")
        if level == 1 and metadata_version is not None and metadata_version < parse_feature_version("4.0-IV1", name):
            raise ConfigError(f"{name}: 1 needs metadata_version 4.0-IV1 or later; allowed: 0 or null")

    def _check_message_format(self, row: Release, ibp: tuple[int, int, int] | None) -> None:
        """log.message.format.version: ZooKeeper 0.11 - 2.8 (before, every record is v0 / v1;
        from inter.broker.protocol.version 3.0 Kafka ignores it, KIP-724), from 0.8.0 up to the
        inter.broker.protocol.version (KafkaConfig refuses a format above it)."""
        text = self.message_format_version
        if text is None:
            return
        name = "config.message_format_version"
        first, last = MESSAGE_FORMAT_RELEASES
        if row.mode != ZK or not first <= row.version < last:
            raise ConfigError(f"{name}: not modelled for {row.label}; allowed: null (hwlib takes "
                              "log.message.format.version for ZooKeeper 0.11 - 2.8: before, every record is v0 / v1; "
                              "from inter.broker.protocol.version 3.0 Kafka ignores it, KIP-724)")
        value = parse_feature_version(text, name)
        top = ibp if ibp is not None else row.feature_version
        if not (0, 8, 0) <= value <= top:
            raise ConfigError(f"{name}: {text!r} is not allowed for {row.label} at inter.broker.protocol.version "
                              f"{feature_version_text(top)} (Kafka refuses a message format above it); allowed: 0.8.0 "
                              f"up to {feature_version_text(top)}")

    def records_v2(self) -> bool:
        """Whether records carry their leader epoch (message format v2): False under a
        log.message.format.version below 0.11.0."""
        text = self.message_format_version
        return text is None or parse_feature_version(text, "config.message_format_version") >= MESSAGE_FORMAT_V2

    def gate_level(self, setting: str) -> int | None:
        """A feature's level as run: given, else the release's default (None where the release
        has no such feature, or for a generation's own rules)."""
        given = getattr(self, setting)
        if given is not None:
            return int(given)
        row, gate = self.release_row, GATE_BY_SETTING[setting]
        if row is None:
            return 1 if getattr(GENERATIONS[self.protocol], gate.attr) else None
        return gate.at(row.version) if gate.available(row) else None

    def feature_versions(self) -> tuple[tuple[int, int, int] | None, tuple[int, int, int] | None]:
        """(inter.broker.protocol.version, metadata.version) as keys, None where not set."""
        row = self.release_row
        return (None, None) if row is None else self._feature_versions(row)

    def rules(self) -> Protocol:
        """The rules this config runs: its release's (generation and flags), else its generation's own."""
        gates = tuple((g.setting, getattr(self, g.setting)) for g in GATES if getattr(self, g.setting) is not None)
        if self.release is None:
            return GENERATIONS[self.protocol] if not gates else generation_rules(self.protocol, gates)
        ibp, metadata_version = self.feature_versions()
        return release_rules(self.release, ibp, metadata_version, gates, self.records_v2())

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

    @classmethod
    def setting_from_text(cls, item: str, where: str = "config") -> tuple[str, object]:
        """``KEY=VALUE`` as a field and its value: Kafka's name (``min.insync.replicas``,
        ``unclean.leader.election.enable``, ``zookeeper.session.timeout.ms``) or the field's;
        the value as the field takes it (true / false, an integer, null, text). The config
        checks the value when it is built; a bad key or form is one line naming it."""
        key, sep, text = item.partition("=")
        settable = sorted(f.name for f in fields(cls) if f.name not in UNSETTABLE)
        if not sep or not key.strip():
            raise ConfigError(f"{where}: {item!r} is not KEY=VALUE; allowed keys: {', '.join(settable)}")
        name = key.strip().lower().replace(".", "_").replace("-", "_")
        name = SETTING_ALIASES.get(name, name)
        if name in UNSETTABLE:
            raise ConfigError(f"{where}.{name}: has an option of its own (--replicas, --release, --protocol); "
                              f"allowed keys: {', '.join(settable)}")
        if name not in settable:
            raise ConfigError(f"{where}.{key.strip()}: unknown setting; allowed: {', '.join(settable)}")
        kind = next(str(f.type) for f in fields(cls) if f.name == name)
        text = text.strip()
        if text.lower() in ("null", "none") and "None" in kind:
            return name, None
        if kind.startswith("bool"):
            if text.lower() not in ("true", "false"):
                raise ConfigError(f"{where}.{name}: {text!r} is not allowed; allowed: true, false")
            return name, text.lower() == "true"
        if kind.startswith("int"):
            try:
                return name, int(text)
            except ValueError:
                raise ConfigError(f"{where}.{name}: {text!r} is not an integer") from None
        return name, text

    def to_dict(self, written: bool = False) -> dict:
        """Every setting as run; ``written``: those of ``RELEASE_DEFAULTS`` only where given (a
        form read back under another release brings that release's defaults, as this would)."""
        out = asdict(self)
        out["replicas"] = list(self.replicas)
        if written:
            for name in RELEASE_DEFAULTS:
                if name not in self.given:
                    del out[name]
        return out

    def setting_words(self, name: str, kafka: str | None = None) -> str:
        """``acks=1``, and ``(0.10.2's default)`` where it is the release's default, not given."""
        value = getattr(self, name)
        return f"{kafka or name}={str(value).lower() if isinstance(value, bool) else value}{self.default_note(name)}"

    def settings_words(self) -> list[str]:
        """The settings a run states, as Kafka names them, each marked where it is the release's
        default: acks, min.insync.replicas, unclean election where on, the flush interval where
        set, the lag and session timeouts, then the feature levels (``gate_words``)."""
        out = [self.setting_words("acks"), self.min_isr_words()]
        if self.unclean_leader_election:
            out.append(self.setting_words("unclean_leader_election", self.kafka_name("unclean_leader_election")))
        if self.log_flush_interval_messages is not None:
            out.append(f"log.flush.interval.messages={self.log_flush_interval_messages}")
        return out + [self.setting_words("replica_lag_time_max_ms", self.kafka_name("replica_lag_time_max_ms")),
                      self.setting_words("session_timeout_ms", self.kafka_name("session_timeout_ms")),
                      *self.gate_words()]

    def gate_words(self) -> list[str]:
        """Each feature level the rules run with, as Kafka names it, and whose it is:
        ``eligible.leader.replicas.version=1 (4.1's default: a cluster created on 4.1)``; an
        inter.broker.protocol.version / metadata.version given, with the rules it turns off:
        ``inter.broker.protocol.version=1.1 (below 2.0-IV0: as before KIP-279)``."""
        out = []
        row = self.release_row
        if row is not None:
            ibp, metadata_version = self._feature_versions(row)
            for text, value, kafka in ((self.inter_broker_protocol_version, ibp, "inter.broker.protocol.version"),
                                       (self.metadata_version, metadata_version, "metadata.version")):
                if value is None:
                    continue
                off = [f for f in FLAGS if f.has(row.version, row.mode, None, None)
                       and not f.has(row.version, row.mode, ibp, metadata_version)]
                words = "; ".join(f"below {feature_version_text(needs)}: as before {f.source}"
                                  for f in off if (needs := f.needs(row.mode)) is not None)
                out.append(f"{kafka}={text}" + (f" ({words})" if words else ""))
        if not self.records_v2():
            cache = ("the epoch cache holds a leader's own elections only, KAFKA-7897"
                     if self.rules().caches_epoch_on_election else "a follower truncates to its HW as before KIP-101")
            out.append(f"log.message.format.version={self.message_format_version} (below 0.11.0: records carry no "
                       f"leader epoch; {cache})")
        for gate in GATES:
            level = self.gate_level(gate.setting)
            if level is None:
                continue
            row = self.release_row
            whose = "" if getattr(self, gate.setting) is not None else \
                f" ({row.name}'s default{': a cluster created on ' + row.name if level else ''})" if row is not None \
                else f" ({self.protocol}'s rule)"
            out.append(f"{gate.kafka}={level}{whose}")
        return out

    def kafka_name(self, name: str) -> str:
        """A setting's name as Kafka writes it: ``min_insync_replicas`` -> ``min.insync.replicas``,
        ``unclean_leader_election`` -> ``unclean.leader.election.enable``, the session timeout
        as the rules' mode names it."""
        if name == "session_timeout_ms":
            return "broker.session.timeout.ms" if self.rules().kraft else "zookeeper.session.timeout.ms"
        kafka = next((alias for alias, field in SETTING_ALIASES.items() if field == name), name)
        return kafka.replace("_", ".")

    def min_isr_words(self) -> str:
        """``min.insync.replicas=N``, and what the leader makes of it where N is above the
        replicas: from 3.7 min(N, replicas) (KAFKA-15583), before every acks=all write fails."""
        configured, replicas = self.min_insync_replicas, len(self.replicas)
        text = f"min.insync.replicas={configured}"
        if configured <= replicas:
            return text
        if self.rules().strict_min_isr:
            return f"{text} (effective {replicas}: min(it, the {replicas} replicas) from 3.7, KAFKA-15583)"
        return f"{text} (above the {replicas} replicas: every acks=all write fails up to 3.6)"

    def default_note(self, name: str) -> str:
        """`` (0.10.2's default)`` where the setting runs its release's default, not given; else empty."""
        row = self.release_row
        return f" ({row.name}'s default)" if row is not None and name in RELEASE_DEFAULTS and name not in self.given \
            else ""

    def with_rules(self, name: str) -> ClusterConfig:
        """This config under a generation (``kip320``) or a release (``3.7-kraft``)."""
        return self.replace(protocol=name) if name in PROTOCOLS else self.replace(release=name)

    def replace(self, **changes) -> ClusterConfig:
        """A copy with ``changes``. A new ``release`` brings its own generation and the defaults
        of the settings not given (``given``: a setting given is kept, always); a new
        ``protocol`` leaves the release (a generation's own rules)."""
        data = self.to_dict()
        for name in RELEASE_DEFAULTS:
            if name not in self.given and name not in changes:
                data[name] = None               # the default of whichever rules come
        if "protocol" not in changes and (changes.get("release", data["release"]) is not None):
            data["protocol"] = ""               # the release's rule set, as its IBP selects it
        if "protocol" in changes and "release" not in changes:
            data.update(release=None, inter_broker_protocol_version=None, metadata_version=None,
                        message_format_version=None)
        data.update(changes)
        return ClusterConfig.from_dict(data)
