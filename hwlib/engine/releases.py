"""Apache Kafka releases 0.9 - 4.1, ZooKeeper and KRaft: each one's rule set and flags, read from its code.

A generation (``protocols``) is a rule set named after the KIP that made it; a release is what
people run. ``release("3.7.1-kraft")`` finds the row of a release and ``rules(...)`` gives the
generation's rules with every flag set as that release's code has it. Each ``Flag`` names the
Protocol attribute it sets, the JIRA or KIP, and the tag, file and function where it was read.
Inside one generation, releases differ only by flags: 2.0.0 and 2.0.1 (KAFKA-7414, -7415,
-7128), 2.1 and 2.2 (KAFKA-1120), 3.6 and 3.7 (KAFKA-15583) ...

Modes: a release up to 2.7 runs on ZooKeeper only; 2.8 - 3.9 on either (KRaft before 3.3 was
early access - KIP-833 marked 3.3 the first production-ready KRaft - and is refused here);
4.0 on KRaft only. ``inter.broker.protocol.version`` (ZooKeeper) and ``metadata.version``
(KRaft) select older rules where Kafka gates a rule on them; by default each release runs
its own latest version.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ConfigError
from .protocols import GENERATIONS, Protocol

ZK = "zk"
KRAFT = "kraft"
MODE_WORDS = {ZK: "ZooKeeper", KRAFT: "KRaft"}

Version = tuple[int, ...]


def _v(text: str) -> Version:
    return tuple(int(p) for p in text.split("."))


def version_text(version: Version) -> str:
    return ".".join(str(p) for p in version)


#: every release line 0.9.0 - 4.1 and its patch releases (0.x lines have four-part versions)
LINES: dict[str, tuple[str, ...]] = {
    "0.9.0": ("0.9.0.0", "0.9.0.1"),
    "0.10.0": ("0.10.0.0", "0.10.0.1"),
    "0.10.1": ("0.10.1.0", "0.10.1.1"),
    "0.10.2": ("0.10.2.0", "0.10.2.1", "0.10.2.2"),
    "0.11.0": ("0.11.0.0", "0.11.0.1", "0.11.0.2", "0.11.0.3"),
    "1.0": ("1.0.0", "1.0.1", "1.0.2"),
    "1.1": ("1.1.0", "1.1.1"),
    "2.0": ("2.0.0", "2.0.1"),
    "2.1": ("2.1.0", "2.1.1"),
    "2.2": ("2.2.0", "2.2.1", "2.2.2"),
    "2.3": ("2.3.0", "2.3.1"),
    "2.4": ("2.4.0", "2.4.1"),
    "2.5": ("2.5.0", "2.5.1"),
    "2.6": ("2.6.0", "2.6.1", "2.6.2", "2.6.3"),
    "2.7": ("2.7.0", "2.7.1", "2.7.2"),
    "2.8": ("2.8.0", "2.8.1", "2.8.2"),
    "3.0": ("3.0.0", "3.0.1", "3.0.2"),
    "3.1": ("3.1.0", "3.1.1", "3.1.2"),
    "3.2": ("3.2.0", "3.2.1", "3.2.2", "3.2.3"),
    "3.3": ("3.3.0", "3.3.1", "3.3.2"),
    "3.4": ("3.4.0", "3.4.1"),
    "3.5": ("3.5.0", "3.5.1", "3.5.2"),
    "3.6": ("3.6.0", "3.6.1", "3.6.2"),
    "3.7": ("3.7.0", "3.7.1", "3.7.2"),
    "3.8": ("3.8.0", "3.8.1"),
    "3.9": ("3.9.0", "3.9.1"),
    "4.0": ("4.0.0",),
    "4.1": ("4.1.0",),
}

#: the first release whose code a flag, a mode or a generation needs
FIRST_KRAFT = _v("2.8.0")          # KIP-500's early-access KRaft
FIRST_PRODUCTION_KRAFT = _v("3.3.0")
FIRST_KRAFT_ONLY = _v("4.0.0")


_FEATURE_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.\d+)?(?:-IV(\d+))?$")


def parse_feature_version(text: object, field_name: str) -> tuple[int, int, int]:
    """``2.7-IV2`` -> (2, 7, 2); ``2.7`` (or ``2.7.0``) -> (2, 7, 99): a bare version means
    its latest IV, as Kafka reads ``inter.broker.protocol.version=2.7``."""
    match = _FEATURE_VERSION.match(str(text))
    if match is None:
        raise ConfigError(f"{field_name}: {text!r} is not a version; allowed: X.Y or X.Y-IVn, e.g. 2.7-IV2 or 3.6")
    major, minor, iv = match.groups()
    return int(major), int(minor), 99 if iv is None else int(iv)


#: the lowest inter.broker.protocol.version (ZooKeeper) / metadata.version (KRaft) a release
#: takes: a cluster part way through an upgrade, back to 0.8.2's protocol / KRaft's first
#: production metadata.version
LOWEST_FEATURE_VERSION = {ZK: "0.8.2", KRAFT: "3.3-IV0"}


#: log.message.format.version: the first format whose batches carry the partition leader epoch
#: (v2, KIP-98 / KIP-101), and the releases that read the setting. From inter.broker.protocol.version
#: 3.0 the broker ignores it and writes v2 (KIP-724): hwlib takes it for ZooKeeper 0.11 - 2.8.
MESSAGE_FORMAT_V2 = (0, 11, 0)
MESSAGE_FORMAT_RELEASES = (_v("0.11.0.0"), _v("3.0.0"))
#: KAFKA-7897 (2.1.1, 2.2.0: ``Log.initializeLeaderEpochCache``): below v2 the log keeps no epoch
#: cache at all; 2.0.1 - 2.1.0 still record (epoch, LEO) at an election (``Partition.makeLeader``).
#: The 2.1 row is read at 2.1.1: it has the fix (2.1.0 under an old format runs as 2.0.1 does)
EPOCH_CACHE_DROPPED_BELOW_V2 = "2.1.1"


def feature_version_text(version: tuple[int, int, int]) -> str:
    """(0, 11, 2) -> ``0.11.0-IV2``, (2, 7, 99) -> ``2.7``: as Kafka's ApiVersion / MetadataVersion
    name it (before 1.0 a version has three parts)."""
    major, minor, iv = version
    base = f"{major}.{minor}.0" if major == 0 else f"{major}.{minor}"
    return base if iv == 99 else f"{base}-IV{iv}"


def _iv(text: str) -> tuple[int, int, int]:
    return parse_feature_version(text, "flag")


@dataclass(frozen=True)
class Flag:
    """One rule that changed inside a generation (or that a config key can turn back): the
    Protocol attribute it sets, the releases and modes whose code has it, and where it was read."""

    attr: str
    title: str
    source: str                     # the JIRA / KIP
    read_at: str                    # tag, file and function where the code was read
    since: Version
    until: Version | None = None    # first release without it (a removal), or None
    modes: tuple[str, ...] = (ZK, KRAFT)
    #: the inter.broker.protocol.version (ZooKeeper) / metadata.version (KRaft) it also needs,
    #: as ``parse_feature_version`` gives it
    ibp: tuple[int, int, int] | None = None
    metadata_version: tuple[int, int, int] | None = None
    #: the value a release without the flag has (most flags turn a rule on)
    off: bool = False
    #: patch releases of earlier lines that already have the change ``until`` names (backports)
    fixed_in: tuple[Version, ...] = ()

    def has(self, version: Version, mode: str, ibp: tuple[int, int, int] | None,
            metadata_version: tuple[int, int, int] | None) -> bool:
        if mode not in self.modes or version < self.since:
            return False
        if self.until is not None and version >= self.until:
            return False
        if any(version[:2] == fix[:2] and version >= fix for fix in self.fixed_in):
            return False
        if mode == ZK and self.ibp is not None and ibp is not None and ibp < self.ibp:
            return False
        if (mode == KRAFT and self.metadata_version is not None and metadata_version is not None
                and metadata_version < self.metadata_version):
            return False
        return True

    def needs(self, mode: str) -> tuple[int, int, int] | None:
        """The feature version it needs in ``mode``: inter.broker.protocol.version (ZooKeeper) or
        metadata.version (KRaft); None: none."""
        return self.ibp if mode == ZK else self.metadata_version

    def value(self, version: Version, mode: str, ibp, metadata_version) -> bool:
        on = self.has(version, mode, ibp, metadata_version)
        return (not self.off) if on else self.off


FLAGS: tuple[Flag, ...] = (
    Flag("sends_epoch_requests",
         "a follower asks the leader OffsetsForLeaderEpoch before it truncates (below: it truncates to its HW)",
         "KIP-101",
         "0.11.0.0 ReplicaFetcherThread.fetchEpochsFromLeader (shouldSendLeaderEpochRequest = "
         "inter.broker.protocol.version >= 0.11.0-IV2; else an UNDEFINED_EPOCH_OFFSET answer: maybeTruncate "
         "truncates to the HW); 2.1.0 the same as brokerSupportsLeaderEpochRequest",
         since=_v("0.11.0.0"), ibp=_iv("0.11.0-IV2")),
    Flag("epoch_answers_carry_epoch",
         "the leader's OffsetsForLeaderEpoch answer carries the epoch with the end offset (KIP-279's walk back)",
         "KIP-279",
         "2.0.0 ReplicaFetcherThread (offsetForLeaderEpochRequestVersion 1 when inter.broker.protocol.version >= "
         "2.0-IV0, else 0) and AbstractFetcherThread.getOffsetTruncationState (an answer without an epoch: "
         "truncate to min(end offset, LEO), done)",
         since=_v("2.0.0"), ibp=_iv("2.0-IV0")),
    Flag("fences_requests",
         "followers' fetches and OffsetsForLeaderEpoch requests carry their current leader epoch; a broker in "
         "another epoch refuses them (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH)",
         "KIP-320",
         "2.1.0 ReplicaFetcherThread (fetchRequestVersion 10 from inter.broker.protocol.version 2.1-IV2, "
         "offsetForLeaderEpochRequestVersion 2 from 2.1-IV1) and Partition.localReplicaWithEpochOrException",
         since=_v("2.1.0"), ibp=_iv("2.1-IV2")),
    Flag("follows_leader_log_start",
         "fetch responses carry the leader's log start offset and the follower moves its own start to it; "
         "DeleteRecords moves the leader's (below: only a follower's own retention moves its start)",
         "KIP-107",
         "0.11.0.0 ReplicaFetcherThread.processPartitionData (replica.maybeIncrementLogStartOffset(partitionData"
         ".logStartOffset)) and Partition.deleteRecordsOnLeader",
         since=_v("0.11.0.0")),
    Flag("answer_refreshed_after_fetch",
         "a follower's fetch answered at once carries the leader's HW, log start and LEO as this fetch left them "
         "(it moved the HW: the follower hears the new HW one round earlier); otherwise as read with the records",
         "KAFKA-5758 / KAFKA-7104",
         "1.0.0 ReplicaManager.updateFollowerLogReadResults (if partition.updateReplicaLogReadResult(...) "
         "updatedReadResult = readResult.updateLeaderReplicaInfo(leaderReplica), added by apache/kafka#3954); "
         "removed by apache/kafka#5305 (KAFKA-7104) in 1.0.2, 1.1.1 and 2.0.0",
         since=_v("1.0.0"), until=_v("2.0.0"), fixed_in=(_v("1.0.2"), _v("1.1.1"))),
    Flag("retention_bounded_by_hw",
         "retention deletes only segments below the high watermark",
         "KAFKA-5634",
         "0.11.0.1 Log.deletableSegments (highWatermark >= upperBoundOffset); 0.11.0.0 takes every segment the "
         "predicate names but the active one",
         since=_v("0.11.0.1")),
    Flag("make_leader_raises_hw_to_start",
         "a new leader whose HW is below its log start serves its log start as HW",
         "KAFKA-9491",
         "2.3.1 Partition.makeLeader (leaderReplica.convertHWToLocalOffsetMetadata: an HW out of the log's "
         "range becomes the log start offset); 2.4.0 keeps the HW in Log and makeLeader does not look at it",
         since=_v("0.9.0.0"), until=_v("2.4.0")),
    Flag("full_truncation_raises_hw",
         "a full truncation (truncateFullyAndStartAt) raises the replica's HW to its new log start",
         "KAFKA-9491",
         "2.4.1 Log.truncateFullyAndStartAt (updateLogStartOffset: if (highWatermark < offset) "
         "updateHighWatermark(offset)); 2.4.0 lowers the HW to the LEO only",
         since=_v("2.4.1")),
    Flag("isr_check_every_lag",
         "the leader checks for followers out of sync every replica.lag.time.max.ms (from 0.10.2: every half)",
         "KAFKA-4485",
         "0.10.1.1 ReplicaManager.startup (scheduler.schedule(\"isr-expiration\", maybeShrinkIsr, period = "
         "config.replicaLagTimeMaxMs)); 0.10.2.0 the same with period = config.replicaLagTimeMaxMs / 2",
         since=_v("0.9.0.0"), until=_v("0.10.2.0"), modes=(ZK,)),
    Flag("out_of_range_exits_broker",
         "a follower whose fetch is out of range because the leader's log is shorter stops its broker "
         "when unclean election is disabled",
         "KAFKA-7414",
         "0.10.0.0 ReplicaFetcherThread.handleOffsetOutOfRange (\"Halting because log truncation is not "
         "allowed\", Runtime.halt); 0.10.0.1 - 2.0.0 the same with \"Exiting because log truncation is not "
         "allowed\" (System.exit / FatalExitError); 2.0.1 truncates",
         since=_v("0.9.0.0"), until=_v("2.0.1"), modes=(ZK,)),
    Flag("caches_epoch_on_election",
         "a new leader records (its epoch, LEO) in its epoch cache at election; an epoch below the first "
         "cached one is answered with the first start offset, not undefined",
         "KAFKA-7415",
         "2.0.1 Partition.makeLeader (epochCache.assign(leaderEpoch, leaderEpochStartOffset)) and "
         "LeaderEpochFileCache.endOffsetFor",
         since=_v("2.0.1")),
    Flag("isr_join_needs_epoch_start",
         "a follower joins the ISR only once its LEO reaches the start offset of the leader's epoch",
         "KAFKA-7128",
         "2.0.1 Partition.maybeExpandIsr (leaderEpochStartOffsetOpt)",
         since=_v("2.0.1")),
    Flag("notices_restarts",
         "the controller notices a broker that restarted within its ZooKeeper session (a bounce) and "
         "handles it as a failure and a startup",
         "KAFKA-1120 / KIP-380",
         "2.2.0 KafkaController.BrokerChange.process (bouncedBrokerIds; processBrokerChange from 2.3.0); 2.1.0 "
         "compares broker ids only",
         since=_v("2.2.0")),
    Flag("fences_consumer_fetches",
         "consumers' fetches carry the leader epoch of their metadata and are fenced like followers'",
         "KIP-320, client side",
         "2.3.0 clients Fetcher.prepareFetchRequests (currentLeaderEpoch of the partition's metadata)",
         since=_v("2.3.0")),
    Flag("truncation_clears_end_epochs",
         "truncating to an offset at or past the log end still drops epoch-cache entries from the log end",
         "KAFKA-10706",
         "2.6.1 Log.truncateTo (leaderEpochCache.truncateFromEnd(logEndOffset) when targetOffset >= logEndOffset)",
         since=_v("2.6.1")),
    Flag("alter_isr_via_controller",
         "the leader sends ISR changes to the controller (AlterIsr / AlterPartition) instead of writing "
         "ZooKeeper",
         "KIP-497",
         "2.7.0 AlterIsrManager, Partition.sendAlterIsrRequest (useAlterIsr = "
         "interBrokerProtocolVersion.isAlterIsrSupported: inter.broker.protocol.version >= 2.7-IV2)",
         since=_v("2.7.0"), ibp=_iv("2.7-IV2")),
    Flag("hw_waits_after_isr_answer",
         "the leader does not recompute its HW when the controller accepts its AlterIsr: a shrink that lets the "
         "HW advance waits for the next fetch or append",
         "KAFKA-13091",
         "3.0.2 Partition.handleAlterIsrResponse (CommittedIsr taken, no maybeIncrementLeaderHW; the same at "
         "2.7.0); 3.1.0 handleAlterIsrResponse (hwIncremented = handleAlterIsrUpdate(...), then "
         "tryCompleteDelayedRequests)",
         since=_v("2.7.0"), until=_v("3.1.0"), modes=(ZK,), ibp=_iv("2.7-IV2")),
    Flag("truncate_on_fetch",
         "a follower's fetch carries its last fetched epoch and the leader answers a diverging epoch: no "
         "OffsetsForLeaderEpoch round trip",
         "KAFKA-10554",
         "2.8.0 AbstractFetcherThread (isTruncationOnFetchSupported: inter.broker.protocol.version >= "
         "2.7-IV1)",
         since=_v("2.8.0"), ibp=_iv("2.7-IV1")),
    Flag("diverging_answer_processed",
         "a diverging-epoch answer is processed as data before the truncation: the follower takes the "
         "leader's HW (up to its LEO) and log start first",
         "KAFKA-14704",
         "3.4.0 AbstractFetcherThread.processFetchRequest (processPartitionData, then divergingEpoch -> "
         "truncateOnFetchResponse; 2.8.0 the same); 3.4.1 and 3.5.0 skip processPartitionData for a diverging "
         "answer (FetchResponse.isDivergingEpoch)",
         since=_v("2.8.0"), until=_v("3.4.1"), ibp=_iv("2.7-IV1")),
    Flag("diverging_checks_log_start",
         "a fetch below the leader's log start is answered OFFSET_OUT_OF_RANGE even when its epoch diverges "
         "(2.8.0: the diverging answer carries a log start the follower cannot take, and its fetcher marks "
         "the partition failed)",
         "KAFKA-12996",
         "2.8.1 Partition.readRecords (fetchOffset < initialLogStartOffset: OffsetOutOfRangeException before the "
         "diverging-epoch answer; also 2.7.2, whose followers do not truncate on fetch); 2.8.0 "
         "ReplicaFetcherThread.processPartitionData (log.maybeIncrementLogStartOffset throws above the HW) and "
         "AbstractFetcherThread.processFetchRequest (\"Unexpected error occurred while processing data\": "
         "markPartitionFailed)",
         since=_v("2.8.1"), ibp=_iv("2.7-IV1")),
    Flag("diverging_fetch_skips_follower_state",
         "a fetch answered with a diverging epoch leaves the leader's view of the follower alone (2.8.0: its "
         "fetch offset becomes the follower's LEO, and the ISR and HW may move on it)",
         "KAFKA-13141",
         "2.8.1 ReplicaManager.updateFollowerFetchState (readResult.divergingEpoch.nonEmpty: \"Skipping update of "
         "fetch state for follower\"; also 2.7.2, whose followers do not truncate on fetch); 2.8.0 calls "
         "Partition.updateFollowerFetchState with the diverging fetch's offset",
         since=_v("2.8.1"), ibp=_iv("2.7-IV1")),
    Flag("alter_isr_rejects_fenced",
         "an ISR change may not add a broker the controller does not see live (fenced, shut down or "
         "shutting down): INELIGIBLE_REPLICA",
         "KIP-841 in KRaft, KAFKA-14140 in ZooKeeper",
         "3.3.0 ReplicationControlManager.validateAlterPartitionData; 3.3.0 KafkaController"
         ".tryProcessAlterPartition (isr -- liveBrokerIds) and Partition.isReplicaIsrEligible",
         since=_v("3.3.0")),
    Flag("alter_isr_checks_broker_epochs",
         "AlterPartition names each ISR member with the broker epoch its fetch carried; the controller "
         "refuses a member that registered again since",
         "KIP-903",
         "3.5.0 ReplicationControlManager.validateAlterPartitionData (metadata.version >= 3.5-IV1)",
         since=_v("3.5.0"), modes=(KRAFT,), metadata_version=_iv("3.5-IV1")),
    Flag("isr_shrink_bumps_leader_epoch",
         "an ISR shrink without a leader change keeps the leader epoch (only the partition epoch moves)",
         "KAFKA-15021",
         "3.6.0 PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded (metadata.version >= 3.6-IV0)",
         since=_v("3.6.0"), modes=(KRAFT,), metadata_version=_iv("3.6-IV0"), off=True),
    Flag("hw_counts_only_live_followers",
         "a caught-up follower outside the ISR holds the HW back only while it is live (under KRaft: not fenced, "
         "not in controlled shutdown); before, the HW waits for it until replica.lag.time.max.ms passes",
         "KAFKA-15021",
         "3.6.0 Partition.maybeIncrementLeaderHW (shouldWaitForReplicaToJoinIsr: isReplicaIsrEligible), shared by "
         "ZooKeeper and KRaft brokers",
         since=_v("3.6.0")),
    Flag("strict_min_isr",
         "the leader's HW does not advance while the committed ISR is smaller than the effective min ISR, "
         "min(min.insync.replicas, replicas)",
         "KAFKA-15583",
         "3.7.0 Partition.maybeIncrementLeaderHW (isUnderMinIsr: partitionState.isr, the committed ISR) and "
         "effectiveMinIsr (also read by appendRecordsToLeader and checkEnoughReplicasReachOffset), shared by "
         "ZooKeeper and KRaft brokers",
         since=_v("3.7.0")),
    Flag("eligible_leader_replicas",
         "Eligible Leader Replicas: elections take the ISR, then the ELR, then the last known leader; a "
         "replica back from an unclean shutdown is not eligible",
         "KIP-966",
         "4.1.0 EligibleLeaderReplicasVersion (enabled by default for new clusters)",
         since=_v("4.1.0"), modes=(KRAFT,)),
)

FLAG_BY_ATTR = {f.attr: f for f in FLAGS}


@dataclass(frozen=True)
class Default:
    """A setting whose default Kafka changed between releases: the ``ClusterConfig`` field,
    Kafka's name, the default at a release (and mode), and where it was read."""

    setting: str
    kafka: str
    at: Callable[[Version, str], object]
    source: str


#: the settings whose default is the release's (a config that does not give one runs it);
#: ``ClusterConfig`` keeps a value given, whatever release comes after
DEFAULTS: tuple[Default, ...] = (
    Default("unclean_leader_election", "unclean.leader.election.enable",
            lambda version, mode: version < _v("0.11.0.0"),
            "0.11.0.0 core/src/main/scala/kafka/server/KafkaConfig.scala Defaults.UncleanLeaderElectionEnable "
            "false (KIP-106; true up to 0.10.2.2)"),
    Default("acks", "acks", lambda version, mode: "all" if version >= _v("3.0.0") else "1",
            "3.0.0 clients/src/main/java/org/apache/kafka/clients/producer/ProducerConfig.java "
            "define(ACKS_CONFIG, ..., \"all\") (KIP-679; \"1\" at 2.8.0)"),
    Default("replica_lag_time_max_ms", "replica.lag.time.max.ms",
            lambda version, mode: 30000 if version >= _v("2.5.0") else 10000,
            "2.5.0 core/src/main/scala/kafka/server/KafkaConfig.scala Defaults.ReplicaLagTimeMaxMs 30000L "
            "(KIP-537; 10000L up to 2.4.1)"),
    Default("session_timeout_ms", "zookeeper.session.timeout.ms / broker.session.timeout.ms",
            lambda version, mode: 9000 if mode == KRAFT else 18000 if version >= _v("2.5.0") else 6000,
            "ZooKeeper: 2.5.0 core/src/main/scala/kafka/server/KafkaConfig.scala Defaults.ZkSessionTimeoutMs "
            "18000 (KIP-537; 6000 up to 2.4.1); KRaft: 3.3.0 KafkaConfig.scala Defaults.BrokerSessionTimeoutMs "
            "9000 (3.9 KRaftConfigs.BROKER_SESSION_TIMEOUT_MS_DEFAULT)"),
    Default("retries", "retries", lambda version, mode: 2147483647 if version >= _v("2.1.0") else 0,
            "2.1.0 clients/src/main/java/org/apache/kafka/clients/producer/ProducerConfig.java "
            "define(RETRIES_CONFIG, Type.INT, Integer.MAX_VALUE, ...) (KIP-91; 0 at 2.0.1)"),
)
DEFAULT_BY_SETTING = {d.setting: d for d in DEFAULTS}


@dataclass(frozen=True)
class Gate:
    """A feature an operator turns on or off in a release that has its code: the ``ClusterConfig``
    field, Kafka's feature name, the flag it sets, the first release with the feature, its level
    at a release by default, and where that was read."""

    setting: str
    kafka: str
    attr: str
    since: Version
    modes: tuple[str, ...]
    at: Callable[[Version], int]
    source: str
    #: what a reader must know of the default (a new cluster's, or an upgraded one's)
    note: str

    def available(self, row: Release) -> bool:
        """Whether ``row``'s code has the feature (a level can be set there)."""
        return row.mode in self.modes and row.version >= self.since


#: features with a level per cluster: a config that gives none runs the release's default level
GATES: tuple[Gate, ...] = (
    Gate("eligible_leader_replicas_version", "eligible.leader.replicas.version", "eligible_leader_replicas",
         _v("4.0.0"), (KRAFT,), lambda version: 1 if version >= _v("4.1.0") else 0,
         "KIP-966: server-common EligibleLeaderReplicasVersion (ELRV_1 bootstraps at metadata.version 4.1-IV0 and "
         "needs 4.0-IV1); Kafka's docs/ops.html \"Eligible Leader Replicas\" (4.0: available, off by default; "
         "4.1: on by default on new clusters)",
         "level 1 is the default only on a cluster created on 4.1; a cluster upgraded to 4.1 (or 4.0) "
         "runs 0 until kafka-features.sh upgrade --feature eligible.leader.replicas.version=1"),
)
GATE_BY_SETTING = {g.setting: g for g in GATES}


def with_message_format(protocol: Protocol, version: Version) -> Protocol:
    """``protocol`` under a log.message.format.version below 0.11.0 (v0 / v1 records) in release
    ``version``. 0.11.0.0 - 2.8.0 ``Log.append`` assigns the epoch cache only for a batch with
    ``batch.magic >= RecordBatch.MAGIC_VALUE_V2``, so no append records an epoch; 2.0.1 - 2.1.0
    ``Partition.makeLeader`` still assigns (epoch, LEO) at an election (KAFKA-7415), and from 2.1.1
    ``Log.initializeLeaderEpochCache`` keeps no cache below v2 (KAFKA-7897), so nothing does. A
    follower whose cache is empty truncates to its HW, as before KIP-101."""
    protocol.records_carry_epochs = False
    if version >= _v(EPOCH_CACHE_DROPPED_BELOW_V2):
        protocol.caches_epoch_on_election = False
    return protocol


def with_gates(protocol: Protocol, gates: tuple[tuple[str, int], ...]) -> Protocol:
    """``protocol`` with the flag of each feature gate (``(setting, level)``) set by its level."""
    for setting, level in gates:
        setattr(protocol, GATE_BY_SETTING[setting].attr, level >= 1)
    return protocol


@dataclass(frozen=True)
class Release:
    """One row of the table: a release (a line, or a patch release whose rules differ) in one
    metadata mode, the generation its rules come from and the tag its code was read at."""

    name: str                 # "2.0.1", "3.7", "0.10.2"
    mode: str
    generation: str
    read_at: str              # the tag read
    patches: tuple[str, ...]  # the patch releases this row covers
    unclean_default: bool     # unclean.leader.election.enable's default

    @property
    def version(self) -> Version:
        return _v(self.read_at)

    def default(self, setting: str) -> object:
        """This release's default of a setting of ``DEFAULTS``."""
        return DEFAULT_BY_SETTING[setting].at(self.version, self.mode)

    @property
    def label(self) -> str:
        """``3.7 KRaft``, ``2.0.1`` (a release with one mode needs no mode word up to 2.7)."""
        modes = modes_of(self.version)
        return self.name if len(modes) == 1 and self.mode == ZK else f"{self.name} {MODE_WORDS[self.mode]}"

    @property
    def feature_version(self) -> tuple[int, int, int]:
        """Its own inter.broker.protocol.version / metadata.version (``3.7`` -> (3, 7, 99)):
        the highest a config may give it."""
        return parse_feature_version(".".join(self.read_at.split(".")[:2]), "release")

    @property
    def key(self) -> str:
        """What ``--release`` takes for this row: ``3.7-kraft``, ``2.0.1``, ``4.1``."""
        return self.name if len(modes_of(self.version)) == 1 else f"{self.name}-{self.mode}"

    def flags(self, ibp: tuple[int, int, int] | None = None,
              metadata_version: tuple[int, int, int] | None = None) -> dict[str, bool]:
        """Every flag's value in this release (with the config's IBP / metadata.version)."""
        return {f.attr: f.value(self.version, self.mode, ibp, metadata_version) for f in FLAGS}

    def generation_for(self, ibp: tuple[int, int, int] | None = None) -> str:
        """The generation whose rules run: an older IBP takes 2.8+ ZooKeeper back to kip320's
        fetch path (``truncate_on_fetch`` off)."""
        if self.generation == "kip595" and not self.flags(ibp)["truncate_on_fetch"]:
            return "kip320"
        return self.generation

    def rules(self, ibp: tuple[int, int, int] | None = None,
              metadata_version: tuple[int, int, int] | None = None,
              gates: tuple[tuple[str, int], ...] = (), records_v2: bool = True) -> Protocol:
        """The generation's rules with this release's flags, and the flags of the feature
        ``gates`` set to a level (``(setting, level)``; one not named runs its default);
        ``records_v2`` False: under a log.message.format.version below 0.11.0
        (``with_message_format``). A fresh Protocol object."""
        base = GENERATIONS[self.generation_for(ibp)]
        protocol = type(base)()
        for attr, value in self.flags(ibp, metadata_version).items():
            setattr(protocol, attr, value)
        if not records_v2:
            with_message_format(protocol, self.version)
        return with_gates(protocol, gates)


def modes_of(version: Version) -> tuple[str, ...]:
    """The metadata modes hwlib models for a release: ZooKeeper up to 3.9, KRaft from 3.3."""
    modes = []
    if version < FIRST_KRAFT_ONLY:
        modes.append(ZK)
    if version >= FIRST_PRODUCTION_KRAFT:
        modes.append(KRAFT)
    return tuple(modes)


def _generation(version: Version, mode: str) -> str:
    """The generation a release's rules come from (before its flags)."""
    if version < _v("0.11.0.0"):
        return "hw"
    if version < _v("2.0.0"):
        return "kip101"
    if version < _v("2.1.0"):
        return "kip279"
    if mode == ZK:
        return "kip320" if version < _v("2.8.0") else "kip595"
    if version < _v("3.5.0"):
        return "kip841"
    if version < _v("4.0.0"):
        return "kip903"
    return "kip966"


#: lines whose patch releases differ in their rules: a row per group of patches, named by its
#: first (1.0.2 and 1.1.1: KAFKA-7104's fix; 2.0.1: KAFKA-7128's and KAFKA-7414's; 2.4.1:
#: KAFKA-9491's; 2.6.1 - 2.6.3: KAFKA-10706's; 2.8.1 - 2.8.2: KAFKA-12996's and KAFKA-13141's;
#: 3.4.1: KAFKA-14704's)
SPLIT_PATCHES: dict[str, tuple[tuple[str, ...], ...]] = {
    "1.0": (("1.0.0", "1.0.1"), ("1.0.2",)),
    "1.1": (("1.1.0",), ("1.1.1",)),
    "2.0": (("2.0.0",), ("2.0.1",)),
    "2.4": (("2.4.0",), ("2.4.1",)),
    "2.6": (("2.6.0",), ("2.6.1", "2.6.2", "2.6.3")),
    "2.8": (("2.8.0",), ("2.8.1", "2.8.2")),
    "3.4": (("3.4.0",), ("3.4.1",)),
}


def _rows() -> list[Release]:
    rows = []
    for line, patches in LINES.items():
        groups = [(covered[0], covered) for covered in SPLIT_PATCHES[line]] if line in SPLIT_PATCHES \
            else [(line, patches)]
        for name, covered in groups:
            version = _v(covered[-1])
            for mode in modes_of(version):
                rows.append(Release(name, mode, _generation(version, mode), covered[-1], covered,
                                    unclean_default=version < _v("0.11.0.0")))
    return rows


RELEASES: tuple[Release, ...] = tuple(_rows())
_BY_KEY = {r.key: r for r in RELEASES}

_RELEASE = re.compile(r"^(\d+(?:\.\d+){1,3})(?:-(zk|kraft))?$")


def isr_route(protocol: Protocol, release_name: str | None) -> str:
    """How a leader's ISR change reaches the controller under ``protocol`` at ``release_name``
    (None: a generation's own rules): written to ZooKeeper by the leader up to 2.6 ("ISR write
    (ZooKeeper)"), an AlterIsr request from 2.7 (KIP-497), named AlterPartition from 3.2.0 (its
    request is clients' AlterPartitionRequest.json there, AlterIsrRequest.json up to 3.1) and
    under KRaft. A generation's rules name the request of its first release."""
    if not protocol.alter_isr_via_controller:
        return "ISR write (ZooKeeper)"
    if protocol.kraft or (release_name is not None and release(release_name).version >= (3, 2)):
        return "AlterPartition"
    return "AlterIsr"


def release(text: object, field_name: str = "release") -> Release:
    """The row ``VERSION[-zk|-kraft]`` names: ``3.7.1-kraft``, ``3.6-zk``, ``1.0.0``, ``0.10.2``.
    ``VERSION`` alone serves a release with one mode; a line (``3.7``) means its latest
    modelled patch. Anything else is a ConfigError naming the field and what is allowed."""
    raw = str(text).strip().lower()
    match = _RELEASE.match(raw)
    if match is None:
        raise ConfigError(f"{field_name}: {text!r} is not a release; allowed: VERSION[-zk|-kraft], e.g. 1.0.0, "
                          "2.0.1, 3.6-zk, 3.7.1-kraft, 4.1 (hwlib releases lists them)")
    number, mode = match.groups()
    parts = _v(number)
    line, patch = _line_of(parts, text, field_name)
    modes = modes_of(_v(LINES[line][-1]))
    if mode is None:
        if len(modes) > 1:
            raise ConfigError(f"{field_name}: {text!r} runs on ZooKeeper or KRaft; allowed: {number}-zk or "
                              f"{number}-kraft")
        mode = modes[0]
    elif mode not in modes:
        if mode == KRAFT and _v(LINES[line][-1]) >= FIRST_KRAFT:
            raise ConfigError(f"{field_name}: {text!r}: KRaft before 3.3 was early access (KIP-833 made 3.3 "
                              f"the first production-ready KRaft) and is not modelled; allowed: {number} "
                              "(ZooKeeper)")
        raise ConfigError(f"{field_name}: {text!r}: {line} runs only on {MODE_WORDS[modes[0]]}; allowed: "
                          f"{number}" + ("" if len(modes) > 1 else f" or {number}-{modes[0]}"))
    name = line
    if line in SPLIT_PATCHES:
        name = next((covered[0] for covered in SPLIT_PATCHES[line] if patch in covered), SPLIT_PATCHES[line][-1][0])
    key = name if len(modes) == 1 else f"{name}-{mode}"
    return _BY_KEY[key]


def _line_of(parts: Version, text: object, field_name: str) -> tuple[str, str | None]:
    """(the line, the patch release or None) a version names; one line of error otherwise."""
    width = 3 if parts[0] == 0 else 2
    if len(parts) < width:
        lines = [line for line in LINES if _v(line)[:len(parts)] == parts]
        if len(lines) == 1:
            return lines[0], None
        if lines:
            raise ConfigError(f"{field_name}: {text!r} names {len(lines)} release lines; allowed: "
                              f"{', '.join(lines)}")
    line = version_text(parts[:width])
    if line not in LINES:
        raise ConfigError(f"{field_name}: {text!r} is not an Apache Kafka release hwlib models; allowed: "
                          f"{next(iter(LINES))} - {list(LINES)[-1]} (hwlib releases lists them)")
    if len(parts) == width:
        return line, None
    patch = version_text(parts)
    if len(parts) > width + 1 or patch not in LINES[line]:
        raise ConfigError(f"{field_name}: {text!r} is not a {line} release; allowed: {', '.join(LINES[line])}")
    return line, patch


#: the release whose code each generation's class defaults follow (a test holds them equal)
REPRESENTATIVE = {"hw": "0.10.2", "kip101": "0.11.0", "kip279": "2.0.0", "kip320": "2.1",
                  "kip595": "2.8-zk", "kip841": "3.3-kraft", "kip903": "3.5-kraft", "kip966": "4.1"}


def table_rows() -> list[dict]:
    """``hwlib releases``: one dict per row - release, mode, generation, what differs from the
    generation's own rules (flags), where read."""
    out = []
    for r in RELEASES:
        own = GENERATIONS[r.generation]
        flags = r.flags()
        differs = [{"flag": attr, "value": value, "source": FLAG_BY_ATTR[attr].source}
                   for attr, value in flags.items() if getattr(own, attr) != value]
        out.append({"release": r.key, "patches": list(r.patches), "mode": MODE_WORDS[r.mode],
                    "generation": r.generation, "read_at": r.read_at,
                    "unclean_leader_election_default": r.unclean_default,
                    "defaults": {d.setting: r.default(d.setting) for d in DEFAULTS},
                    "gates": {g.kafka: g.at(r.version) for g in GATES if g.available(r)},
                    "flags": flags, "differs": differs})
    return out


@functools.lru_cache(maxsize=256)
def release_rules(text: str, ibp: tuple[int, int, int] | None,
                  metadata_version: tuple[int, int, int] | None,
                  gates: tuple[tuple[str, int], ...] = (), records_v2: bool = True) -> Protocol:
    """A release's rules under an inter.broker.protocol.version / metadata.version (None: the
    release's own), feature levels (``gates``) and message format (``records_v2``), made once
    per distinct set (``ClusterConfig.rules``)."""
    return release(text).rules(ibp, metadata_version, gates, records_v2)


@functools.lru_cache(maxsize=64)
def generation_rules(name: str, gates: tuple[tuple[str, int], ...]) -> Protocol:
    """A generation's rules with the flags of feature ``gates`` set to a level (kip966 with
    eligible.leader.replicas.version 0: 4.0's rules)."""
    return with_gates(type(GENERATIONS[name])(), gates)


def rules_named(name: str) -> Protocol:
    """A generation's rules (``kip320``) or a release's (``3.7-kraft``), by name."""
    return GENERATIONS[name] if name in GENERATIONS else release(name).rules()


def generations_table() -> str:
    """Markdown table of the generations: name, the Kafka release whose rules it runs, what
    changed, and every release of the table whose rules come from it (``hwlib releases`` says
    which flags each adds)."""
    rows = ["| `protocol` | Kafka | what changed | releases on these rules |", "|---|---|---|---|"]
    for row in generations_rows():
        rows.append(f"| `{row['protocol']}` | {row['kafka']} | {row['summary']} | {', '.join(row['releases'])} |")
    return "\n".join(rows)


def generations_rows() -> list[dict]:
    """The generations in release order: name, the Kafka release whose rules it runs, what
    changed, and the releases of the table whose rules come from it."""
    return [{"protocol": p.name, "kafka": p.kafka, "summary": p.summary,
             "releases": [r.key for r in RELEASES if r.generation == p.name]} for p in GENERATIONS.values()]
