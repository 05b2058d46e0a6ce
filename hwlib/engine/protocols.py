"""Protocol generations: how a follower reconciles its log after a leader change, per Kafka release.

Each generation is a small class over the shared engine. The engine asks it four things:
whether a follower must reconcile on this change, how it starts reconciling, what the
leader answers to an OffsetsForLeaderEpoch request, and where the follower truncates.
"""

from __future__ import annotations

from ..errors import ConfigError
from .epoch_cache import UNDEFINED_EPOCH, UNDEFINED_OFFSET
from .log import ReplicaLog

#: an OffsetsForLeaderEpoch answer: 0.11's end offset, or from 2.0 (epoch, end offset)
Answer = int | tuple[int, int]


class Protocol:
    """Kafka <= 0.10.2 (``hw``): a follower truncates to its own high watermark."""

    name = "hw"
    kafka = "<= 0.10.2"
    summary = "follower truncates its log to its own HW, then fetches from there"
    uses_leader_epochs = False
    #: kip320+: followers reconcile on every epoch change, not only on a leader change.
    reconcile_on_epoch_change = False
    #: Kafka >= 0.11 with inter.broker.protocol.version >= 0.11.0-IV2 (KIP-101,
    #: ``ReplicaFetcherThread.fetchEpochsFromLeader``): a reconciling follower asks the leader
    #: OffsetsForLeaderEpoch. Below that IBP - a cluster part way through its upgrade - it makes
    #: up an undefined answer and truncates to its HW, as before 0.11.
    sends_epoch_requests = False
    #: Kafka >= 2.0 with inter.broker.protocol.version >= 2.0-IV0 (KIP-279: OffsetsForLeaderEpoch
    #: v1): the answer carries the epoch as well as its end offset. Below, v0's answer is an end
    #: offset only, and 2.x's ``getOffsetTruncationState`` truncates to min(it, LEO) as 0.11 did.
    epoch_answers_carry_epoch = False
    #: records carry the leader epoch they were written in (message format v2, KIP-101): each
    #: append where the epoch changes assigns the epoch cache. False under a
    #: log.message.format.version below 0.11.0 (``releases.with_message_format``).
    records_carry_epochs = True
    #: Kafka >= 0.11 (KIP-107, ``ReplicaFetcherThread.processPartitionData``): a fetch response
    #: carries the leader's log start offset and the follower moves its own start to it;
    #: DeleteRecords exists. Before, only a broker's own retention moves its log start.
    follows_leader_log_start = False
    #: Kafka >= 0.11.0.1 (KAFKA-5634, ``Log.deletableSegments``): retention deletes only below
    #: the HW. 0.10.2 and 0.11.0.0 delete any closed segment the retention settings name.
    retention_bounded_by_hw = False
    #: Kafka <= 2.3 (``Partition.makeLeader`` -> ``Replica.convertHWToLocalOffsetMetadata``): a
    #: new leader whose HW lies below its log start takes its log start as HW. 2.4.0 keeps the
    #: HW in the Log and does not look at it there (KAFKA-9491).
    make_leader_raises_hw_to_start = True
    #: Kafka >= 2.4.1 (KAFKA-9491, ``Log.truncateFullyAndStartAt`` -> ``updateLogStartOffset``):
    #: a full truncation raises the HW to the new log start. Up to 2.4.0 it only lowers the HW
    #: to the LEO, so a follower truncated fully to the leader's start keeps an HW below it
    #: until its next fetch response.
    full_truncation_raises_hw = False
    #: Kafka 1.0.0, 1.0.1 and 1.1.0 (apache/kafka#3954, KAFKA-5758's change;
    #: ``ReplicaManager.updateFollowerLogReadResults``): a fetch answered at once that moved the
    #: leader's HW carries the HW, log start and LEO as they are after it, not as read with the
    #: records - the follower learns the HW a fetch round earlier. KAFKA-7104 (1.0.2, 1.1.1,
    #: 2.0.0) went back to the values read with the records.
    answer_refreshed_after_fetch = False
    #: Kafka 2.8.0 - 3.4.0 (``AbstractFetcherThread.processFetchRequest``): a diverging-epoch
    #: answer goes through ``processPartitionData`` before the truncation - the follower takes
    #: min(leader's HW, its LEO) as HW and the leader's log start first. From 3.4.1 / 3.5.0
    #: (KAFKA-14704) a diverging answer is only a truncation; the next fetch brings the HW.
    diverging_answer_processed = False
    #: Kafka >= 2.8.1 (KAFKA-12996, ``Partition.readRecords``): a fetch below the leader's log
    #: start is answered OFFSET_OUT_OF_RANGE even when its epoch diverges. 2.8.0 answers the
    #: diverging epoch with its log start, which the follower cannot take above its HW
    #: (``maybeIncrementLogStartOffset`` throws) - its fetcher marks the partition failed.
    #: Meaningful with ``truncate_on_fetch`` only.
    diverging_checks_log_start = False
    #: Kafka >= 2.8.1 (KAFKA-13141, ``ReplicaManager.updateFollowerFetchState``): a fetch answered
    #: with a diverging epoch leaves the leader's view of the follower alone. 2.8.0 records its
    #: fetch offset as the follower's LEO - records it does not share with the leader counted as
    #: replicated - and may expand the ISR and move the HW on it. Meaningful with
    #: ``truncate_on_fetch`` only.
    diverging_fetch_skips_follower_state = False

    @property
    def hw_in_log(self) -> bool:
        """Kafka >= 2.4.0 (KAFKA-8400 / "Refactor high watermark access"): the HW lives in the Log,
        whose ``updateHighWatermark`` keeps it within [log start, LEO] and whose
        ``fetchHighWatermarkMetadata`` throws for an HW below the log start. The same releases
        no longer raise the HW at ``makeLeader``."""
        return not self.make_leader_raises_hw_to_start

    def begin_reconciliation(self, log: ReplicaLog, hw: int) -> int | None:
        """A follower must reconcile. Returns an offset to truncate to now, or None when it
        first needs a round trip to the leader (an OffsetsForLeaderEpoch request)."""
        return hw

    def epoch_request(self, log: ReplicaLog) -> int:
        """The epoch a reconciling follower asks the leader about."""
        latest = log.cache.latest_epoch
        return latest if latest is not None else UNDEFINED_EPOCH

    def answer_epoch_request(self, leader_log: ReplicaLog, epoch: int) -> Answer:
        raise NotImplementedError(f"protocol {self.name} sends no OffsetsForLeaderEpoch request")

    def diverging_epoch(self, leader_log: ReplicaLog, last_fetched_epoch: int,
                        fetch_offset: int) -> tuple[int, int] | None:
        raise NotImplementedError(f"protocol {self.name} does not validate fetches by epoch")

    def truncation_after_answer(self, log: ReplicaLog, hw: int, answer: Answer) -> tuple[int, bool]:
        """Where to truncate after the leader's answer, and whether reconciliation is done
        (False: truncate there, then ask again - one more round trip)."""
        raise NotImplementedError(f"protocol {self.name} sends no OffsetsForLeaderEpoch request")

    #: Kafka >= 2.2.0 (KAFKA-1120 / KIP-380, ``KafkaController.BrokerChange.process``'s
    #: ``bouncedBrokerIds``; ``processBrokerChange`` from 2.3.0): the controller notices a
    #: broker that restarted within its session timeout when it re-registers, and handles it as
    #: a failure plus a startup. Up to 2.1 the handler compares broker ids only: such a bounce
    #: goes unnoticed, ISR and leadership stay.
    notices_restarts = False
    #: Kafka 0.9 - 2.0.0 with unclean election disabled (``ReplicaFetcherThread
    #: .handleOffsetOutOfRange``): a follower whose fetch is out of range because the leader's
    #: log is shorter than its own stops its broker ("Halting because log truncation is not
    #: allowed ..." / "Exiting because log truncation is not allowed ..."); 2.0.1 and 2.1.0
    #: truncate instead (KAFKA-7414). From 0.11 the path is reached only after an undefined
    #: OffsetsForLeaderEpoch answer (the follower truncated to its HW).
    out_of_range_exits_broker = True
    #: Kafka >= 2.0.1 (KAFKA-7415, ``Partition.makeLeader``): a new leader records (epoch, LEO)
    #: in its epoch cache at election, so it can answer about epochs a follower wrote that it
    #: never appended in. Before, the entry appears with its first append. The same commit
    #: makes ``LeaderEpochFileCache.endOffsetFor`` answer an epoch below the first cached one
    #: with (that epoch, the first start offset) instead of undefined (``end_offset_for``).
    caches_epoch_on_election = False
    #: Kafka >= 2.0.1 (KAFKA-7128, ``Partition.maybeExpandIsr``): a follower joins the ISR only
    #: once its LEO reaches the start offset of the leader's epoch, besides the HW.
    isr_join_needs_epoch_start = False
    #: Kafka 0.9 - 0.10.1 (``ReplicaManager.startup``): the leader's ISR-expiry check runs every
    #: replica.lag.time.max.ms; from 0.10.2.0 (KAFKA-4485) every half of it.
    isr_check_every_lag = False

    def isr_check_period(self, lag: int) -> int:
        """How often the leader's ISR-expiry check runs under replica.lag.time.max.ms ``lag``."""
        return lag if self.isr_check_every_lag else lag // 2

    #: Kafka 2.7 - 3.0.x with AlterIsr (KAFKA-13091, ``Partition.handleAlterIsrResponse``): the
    #: leader takes the ISR the controller answered without recomputing its HW, so a shrink that
    #: would let the HW advance - a produce waiting only for the follower dropped - waits for
    #: the next fetch or append. From 3.1.0 the answer advances the HW and completes what waits.
    hw_waits_after_isr_answer = False
    #: Kafka >= 3.7 (KAFKA-15583, ``Partition.maybeIncrementLeaderHW``: ``isUnderMinIsr``): the
    #: leader HW does not advance while its committed ISR is below the effective min ISR; the same
    #: commit makes min.insync.replicas effective as min(it, the replicas) (``effectiveMinIsr``).
    strict_min_isr = False

    def effective_min_isr(self, min_insync_replicas: int, replicas: int) -> int:
        """The min ISR the leader checks (a produce with acks=all, the HW): min.insync.replicas
        as set up to 3.6 - above the replication factor every acks=all write fails - and
        min(it, the replicas) from 3.7 (3.7.0 ``Partition.effectiveMinIsr``)."""
        return min(min_insync_replicas, replicas) if self.strict_min_isr else min_insync_replicas
    #: Kafka >= 4.1 KRaft (KIP-966, on by default for a cluster created on 4.1): Eligible Leader
    #: Replicas; a restart reports an unclean shutdown
    eligible_leader_replicas = False
    #: Kafka >= 2.8 with inter.broker.protocol.version >= 2.7-IV1 (KAFKA-10554; kip595+): no
    #: OffsetsForLeaderEpoch: a reconciling follower's fetch carries its last fetched epoch and
    #: the leader answers a diverging epoch instead of records.
    truncate_on_fetch = False
    #: Kafka >= 2.1.0 (KAFKA-7152, ``Partition.getOutOfSyncReplicas``): a follower whose LEO, as
    #: of its last fetch, equals the leader's LEO is never out of sync, however long ago it
    #: fetched. Kafka 0.10.2.0 to 2.0.1 test only the time since the follower was last caught
    #: up (``time.milliseconds - r.lastCaughtUpTimeMs > maxLagMs``): a caught-up follower that
    #: stops fetching leaves the ISR after replica.lag.time.max.ms (hw, kip101, kip279).
    caught_up_follower_stays_in_isr = False
    #: Kafka >= 3.6.0 (KAFKA-15021, both modes): a caught-up follower outside the ISR counts
    #: for the HW only while it is ISR-eligible (``Partition.isReplicaIsrEligible``: live; under
    #: KRaft also not in controlled shutdown). Up to 3.5 ``maybeIncrementLeaderHW`` waits for
    #: every follower caught up within replica.lag.time.max.ms, live or not.
    hw_counts_only_live_followers = False
    #: Kafka >= 2.1 with inter.broker.protocol.version >= 2.1-IV2 (KIP-320; kip320+): fetch and
    #: OffsetsForLeaderEpoch requests carry the sender's current leader epoch; the leader
    #: answers FENCED_LEADER_EPOCH (older) or UNKNOWN_LEADER_EPOCH (newer)
    fences_requests = False
    #: consumers' fetches carry the leader epoch of their metadata and are fenced the same way
    #: (the client side of KIP-320 shipped in Kafka 2.3's Fetcher: kip595 on)
    fences_consumer_fetches = False
    #: Kafka >= 2.7.0 (KAFKA-10706, cherry-picked into 2.7.0's ``Log.truncateTo``): truncating
    #: to an offset at or past the log end still drops epoch-cache entries starting at the log
    #: end. Up to 2.6 that call returned at once, so a follower that had led an epoch without
    #: appending kept the ``(epoch, LEO)`` entry its election cached (kip320+): its next append
    #: of an older epoch replaced the whole cache (``truncateAndAppend``), and under kip595's
    #: truncation on fetch the conflicting entry made the follower ask forever.
    truncation_clears_end_epochs = False
    #: Kafka >= 2.7.0 (KIP-497, ``AlterIsrManager``; ZooKeeper mode with
    #: inter.broker.protocol.version >= 2.7-IV2, and every KRaft release): the leader no
    #: longer writes the ISR to ZooKeeper but sends AlterIsr / AlterPartition to the
    #: controller. Until the answer the change is in flight: the HW is computed over the
    #: maximal ISR (the current one plus any member being added) and no other ISR change is
    #: sent. The controller checks the leader epoch (2.7's ``processAlterIsr``), not whether
    #: an added broker restarted since: a broker back on an empty disk can be added by a
    #: request made before it restarted (KAFKA-14139). In this model a request is answered at
    #: once unless the leader cannot reach the controller (``isolate``); then at ``reconnect``.
    alter_isr_via_controller = False
    #: Kafka >= 3.5 in KRaft mode (KIP-903, ``ReplicationControlManager``): AlterPartition
    #: carries each ISR member's broker epoch as the leader saw it in its fetches, and the
    #: controller rejects it (INELIGIBLE_REPLICA) when a member re-registered since. ZooKeeper
    #: mode never checked them (3.5's ``KafkaController.processAlterPartition`` keeps only the
    #: broker ids).
    alter_isr_checks_broker_epochs = False
    #: From 3.3.0 an ISR change may not add a broker the controller does not see live:
    #: KRaft (KIP-841, ``ReplicationControlManager.validateAlterPartitionData``) refuses a fenced
    #: or shutting-down one (INELIGIBLE_REPLICA); ZooKeeper mode (KAFKA-14140,
    #: ``KafkaController.tryProcessAlterPartition``: ``isr -- liveBrokerIds``, and the leader's
    #: own ``Partition.isReplicaIsrEligible``) one that is not live. 2.7 - 3.2's
    #: ``processAlterIsr`` never asks.
    alter_isr_rejects_fenced = False
    #: KRaft (kip841+, Kafka 3.3's ``BrokerMetadataListener`` / ``ReplicaManager.applyDelta``):
    #: brokers learn partition changes by replaying the metadata log, not from LeaderAndIsr
    #: requests. A broker that lags applies what it missed in order, but every record of one
    #: commit it reads lands in one metadata delta, which it applies as the partition's final
    #: state only (``deliver`` with a count, ``reconnect``): it can skip epochs. A controller
    #: failover drops nothing (the log survives it). A partition change is stale when its
    #: partition epoch is below the broker's (``Partition.makeLeader`` / ``makeFollower``), so a
    #: change that keeps the leader epoch still reaches the leader; every AlterPartition the
    #: controller accepts is such a record, replayed by every broker. A fenced broker that
    #: reaches the controller again keeps its registration (its broker epoch).
    kraft = False
    #: whether the controller bumps the leader epoch when an ISR shrinks without a leader
    #: change. ZooKeeper mode: on the controller's own writes (a failed broker removed), never
    #: on the leader's ISR writes. KRaft 3.3 to 3.5 (``PartitionChangeBuilder
    #: .triggerLeaderEpochBumpIfNeeded``): on every shrink, the leader's AlterPartition included.
    #: KRaft with metadata.version 3.6-IV0 or later (KAFKA-15021): never - only the partition
    #: epoch moves.
    isr_shrink_bumps_leader_epoch = True

    def on_become_leader(self, log: ReplicaLog, epoch: int) -> int:
        """A replica becomes leader of ``epoch``; returns the start offset of that epoch
        (from 2.0.1, KAFKA-7415, ``(epoch, LEO)`` goes in the cache at once; before, on the
        first append)."""
        start = log.log_end_offset
        if self.caches_epoch_on_election:
            log.cache.assign(epoch, start)
        return start

    def isr_join_floor(self, leader_epoch_start: int) -> int:
        """Lowest follower LEO that may join the ISR besides reaching the HW (from 2.0.1,
        KAFKA-7128: the start offset of the leader's epoch)."""
        return leader_epoch_start if self.isr_join_needs_epoch_start else 0


class Kip101(Protocol):
    """Kafka 0.11 (KIP-101): ask the leader for the end offset of the latest local epoch."""

    name = "kip101"
    kafka = "0.11 - 1.1"
    summary = ("follower asks OffsetsForLeaderEpoch(latest local epoch); leader answers one "
               "offset; truncate to min(answer, LEO); undefined answer -> HW")
    uses_leader_epochs = True
    sends_epoch_requests = True
    follows_leader_log_start = True
    retention_bounded_by_hw = True

    def begin_reconciliation(self, log: ReplicaLog, hw: int) -> int | None:
        # 0.11 sends no request for a partition without epochs, nor below IBP 0.11.0-IV2: it
        # truncates to the HW.
        return hw if not len(log.cache) or not self.sends_epoch_requests else None

    def answer_epoch_request(self, leader_log: ReplicaLog, epoch: int) -> Answer:
        """0.11's one-offset answer: LEO for the latest epoch; -1 when nothing lies above the
        asked epoch or it is below the first; else the start of the first later epoch."""
        cache = leader_log.cache
        if epoch == UNDEFINED_EPOCH or not len(cache):
            return UNDEFINED_OFFSET
        if cache.latest_epoch == epoch:
            return leader_log.log_end_offset
        earliest = cache.earliest_epoch
        if earliest is not None and epoch < earliest:
            return UNDEFINED_OFFSET
        _, end_offset = cache.end_offset_for(epoch, leader_log.log_end_offset)
        return end_offset

    def truncation_after_answer(self, log: ReplicaLog, hw: int, answer: Answer) -> tuple[int, bool]:
        assert isinstance(answer, int)
        if answer == UNDEFINED_OFFSET:
            return hw, True
        return min(answer, log.log_end_offset), True


class Kip279(Kip101):
    """Kafka 2.0 (KIP-279): the leader answers ``(largest epoch <= asked, its end offset)``;
    the follower walks back epoch by epoch when it does not know the answered epoch."""

    name = "kip279"
    kafka = "2.0.0"
    summary = ("leader answers (largest epoch <= asked, its end offset); a follower that lacks "
               "that epoch truncates to its own end of the epoch below and asks again")

    def end_offset_for(self, log: ReplicaLog, epoch: int) -> tuple[int, int]:
        """The cache lookup as this release did it, on either side of the request. 2.0.0
        answered ``(-1, -1)`` below the first epoch; 2.0.1 on (KAFKA-7415's
        ``LeaderEpochFileCache.endOffsetFor``, with ``caches_epoch_on_election``) ``(epoch,
        first start)``."""
        earliest = log.cache.earliest_epoch
        if (not self.caches_epoch_on_election and earliest is not None and epoch != UNDEFINED_EPOCH
                and epoch < earliest):
            return UNDEFINED_EPOCH, UNDEFINED_OFFSET
        return log.cache.end_offset_for(epoch, log.log_end_offset)

    epoch_answers_carry_epoch = True

    def answer_epoch_request(self, leader_log: ReplicaLog, epoch: int) -> Answer:
        """(epoch, end offset); OffsetsForLeaderEpoch v0 (below IBP 2.0-IV0) carries the end
        offset only."""
        answer = self.end_offset_for(leader_log, epoch)
        return answer if self.epoch_answers_carry_epoch else answer[1]

    def truncation_after_answer(self, log: ReplicaLog, hw: int, answer: Answer) -> tuple[int, bool]:
        """AbstractFetcherThread.getOffsetTruncationState (2.0): an answer without an epoch
        (v0) is trusted as 0.11 did - min(it, LEO), done; undefined: the HW."""
        if isinstance(answer, int):
            return Kip101.truncation_after_answer(self, log, hw, answer)
        leader_epoch, leader_end = answer
        leo = log.log_end_offset
        if leader_end == UNDEFINED_OFFSET:
            return hw, True
        follower_epoch, follower_end = self.end_offset_for(log, leader_epoch)
        if follower_end == UNDEFINED_OFFSET:
            # the follower has no epoch at or below the answer: trust the leader's offset
            return min(leader_end, leo), True
        if follower_epoch != leader_epoch:
            # the follower does not know the leader's epoch: cut back to the end of its own
            # largest epoch below it, then ask again about its (now older) latest epoch
            return min(follower_end, leo), False
        return min(follower_end, leader_end, leo), True


class Kip320(Kip279):
    """Kafka 2.1 (KIP-320): followers reconcile on every epoch change; requests carry the
    current leader epoch and a broker in another epoch refuses them. Also in 2.1, from 2.0.1:
    the new leader caches ``(epoch, LEO)`` at election, so it can answer about epochs a
    follower wrote that it never did (KAFKA-7415); a follower joins the ISR only once it
    reaches the start of the leader's epoch (KAFKA-7128); an out-of-range fetch truncates
    instead of stopping the broker (KAFKA-7414). New in 2.1 (KAFKA-7152): a follower whose LEO
    equals the leader's stays in the ISR. 2.2 - 2.7 add flags (``releases``)."""

    name = "kip320"
    kafka = "2.1"
    summary = ("new leader caches (epoch, LEO) at election; reconcile on every epoch change; "
               "ISR join needs LEO >= start of the leader's epoch; fetches fenced by current "
               "leader epoch (FENCED / UNKNOWN_LEADER_EPOCH); a caught-up follower stays in "
               "the ISR (KAFKA-7152)")
    reconcile_on_epoch_change = True
    fences_requests = True
    caught_up_follower_stays_in_isr = True
    out_of_range_exits_broker = False
    caches_epoch_on_election = True
    isr_join_needs_epoch_start = True


class Kip595(Kip320):
    """Kafka 2.8 in ZooKeeper mode (KAFKA-10554: truncation on fetch, as in KIP-595's Raft
    fetch): the fetch itself carries ``last_fetched_epoch``; a diverging log gets
    ``diverging_epoch (epoch, end offset)`` back with no records, takes the answer's HW and log
    start (up to 3.4.0, KAFKA-14704), truncates by the same rule and fetches again. The
    leader's ISR changes go to the controller (AlterIsr, KIP-497, from 2.7) and the controller
    notices quick restarts (from 2.2). Later ZooKeeper releases add flags: KAFKA-14140 (3.3),
    KAFKA-14704 (3.4.1), strict min ISR (3.7) - see ``releases``."""

    name = "kip595"
    kafka = "2.8 - 3.2 (ZooKeeper)"
    summary = ("fetch carries last_fetched_epoch; leader answers diverging_epoch (no records); "
               "follower truncates as in kip320 and fetches again: no extra round trip; the "
               "leader's ISR changes go to the controller as AlterIsr (KIP-497)")
    truncate_on_fetch = True
    diverging_answer_processed = True       # until 3.4.0 (KAFKA-14704)
    diverging_checks_log_start = True
    diverging_fetch_skips_follower_state = True
    fences_consumer_fetches = True
    truncation_clears_end_epochs = True
    alter_isr_via_controller = True
    make_leader_raises_hw_to_start = False
    full_truncation_raises_hw = True
    hw_waits_after_isr_answer = True
    notices_restarts = True

    def diverging_epoch(self, leader_log: ReplicaLog, last_fetched_epoch: int,
                        fetch_offset: int) -> tuple[int, int] | None:
        """Partition.readRecords: the leader's end of the follower's last epoch, when the
        follower's log runs past it (or the leader never had that epoch)."""
        epoch, end = leader_log.cache.end_offset_for(last_fetched_epoch, leader_log.log_end_offset)
        if epoch < last_fetched_epoch or end < fetch_offset:
            return epoch, end
        return None


class Kip841(Kip595):
    """Kafka 3.3 / 3.4 in KRaft mode (KIP-841; KIP-631's control plane): brokers replay the
    metadata log, register and heartbeat; a broker whose session lapses
    (``broker.session.timeout.ms``) is fenced - removed from the ISR, not electable - and is
    unfenced once it is back and caught up. The ISR changes by AlterPartition, checked by
    leader and partition epoch (``ReplicationControlManager.validateAlterPartitionData``), and
    since 3.3 an AlterPartition that adds a fenced broker is refused (INELIGIBLE_REPLICA). The
    controller bumps the leader epoch on every ISR shrink, the leader's own included.
    KIP-704 (3.2): an unclean election marks the leader RECOVERING, but 3.3's
    ``Partition.makeLeader`` marks it RECOVERED at once and its first AlterPartition says so -
    nothing a verdict reads. ``isolate`` under KRaft: ``detected`` - heartbeats stop, the
    controller fences the broker; otherwise its heartbeats get through but it replays no
    metadata (a stalled metadata fetch or loader), so the controller still counts it live."""

    name = "kip841"
    kafka = "3.3 / 3.4 (KRaft)"
    summary = ("KRaft control plane: brokers replay the metadata log (several changes can land in "
               "one delta: an epoch skipped); fenced brokers leave the ISR and are neither "
               "electable nor accepted in an AlterPartition (KIP-841); an ISR shrink bumps the "
               "leader epoch")
    kraft = True
    alter_isr_rejects_fenced = True
    hw_waits_after_isr_answer = False      # 3.1.0's handleAlterIsrResponse (KAFKA-13091)


class Kip903(Kip841):
    """Kafka 3.5 in KRaft mode (KIP-903): a follower's fetch carries its broker epoch and the
    leader's AlterPartition names each member with the broker epoch it saw; the controller
    refuses a member that registered again since (a broker back on an empty disk,
    KAFKA-14139). 3.6 runs the same rules up to metadata.version 3.6-IV0, from which an ISR
    shrink no longer bumps the leader epoch (KAFKA-15021; that rule is kip966's)."""

    name = "kip903"
    kafka = "3.5 (KRaft)"
    summary = ("fetch and AlterPartition carry broker epochs: a replica that registered again "
               "(a replaced disk) cannot be added on the strength of an older fetch")
    alter_isr_checks_broker_epochs = True
    diverging_answer_processed = False      # 3.4.1 / 3.5.0 (KAFKA-14704)


class Kip966(Kip903):
    """Kafka 4.1 (KIP-966, KRaft): strict min ISR - the HW does not advance while the ISR is
    smaller than min.insync.replicas (from 3.7, KAFKA-15583) - and Eligible Leader Replicas in
    elections (on by default for new clusters from 4.1); a replica back from an unclean
    shutdown (power loss, a new disk) is not eligible until it rejoins the ISR. From 3.6
    (KAFKA-15021) an ISR shrink no longer bumps the leader epoch, only the partition epoch, and
    the HW no longer waits for a caught-up follower outside the ISR that is fenced or shutting
    down."""

    name = "kip966"
    kafka = "4.1 (KRaft)"
    summary = ("strict min ISR (no HW advance below min.insync.replicas); elections take ISR, "
               "then ELR, then the last known leader; unclean-shutdown replicas not eligible; "
               "an ISR shrink keeps the leader epoch (KAFKA-15021)")
    strict_min_isr = True
    eligible_leader_replicas = True
    isr_shrink_bumps_leader_epoch = False
    hw_counts_only_live_followers = True


GENERATIONS: dict[str, Protocol] = {
    p.name: p for p in (Protocol(), Kip101(), Kip279(), Kip320(), Kip595(), Kip841(), Kip903(), Kip966())
}


def get_protocol(name: str) -> Protocol:
    try:
        return GENERATIONS[name]
    except KeyError:
        raise ConfigError(
            f"protocol: {name!r} is not known; allowed: {', '.join(GENERATIONS)}"
        ) from None
