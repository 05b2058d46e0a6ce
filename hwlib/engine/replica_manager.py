"""A broker's ReplicaManager for the partition: LeaderAndIsr, the leader's answer to a follower's fetch, appends.

``become_leader_or_follower`` applies a controller request as ``becomeLeaderOrFollower``
does, and - as Kafka 2.7's ``makeLeaders`` / ``makeFollowers`` - drives the fetcher around
the partition's role change; ``fetch_messages`` is the leader half of a follower's fetch
(``fetchMessages``, and ``lastOffsetForLeaderEpoch`` for OffsetsForLeaderEpoch), an empty
fetch parked in the leader's purgatory (``DelayedOperations``); ``append_records`` is the
broker's side of a produce (``appendRecords``), an acks=all request waiting in purgatory too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from .controller import LeaderAndIsr
from .kafka_errors import (
    DIVERGING,
    FENCED_LEADER_EPOCH,
    NOT_ENOUGH_REPLICAS,
    NOT_LEADER_OR_FOLLOWER,
    OFFSET_OUT_OF_RANGE,
    UNKNOWN_LEADER_EPOCH,
)
from .replica import FOLLOWER, LEADER, TRUNCATING, InFlight, Replica

if TYPE_CHECKING:
    from .config import ClusterConfig
    from .delayed import DelayedOperations
    from .fetcher import ReplicaFetcher
    from .partition import Partition
    from .produce_request import ProduceRequest
    from .protocols import Protocol


class ReplicaManager:
    #: it holds no state of its own: rules, the parts it calls and the configuration
    UNKEYED: ClassVar[dict[str, str]] = {
        "events": "observes: the run's events",
        "min_insync_replicas": "constant: the effective min.insync.replicas (config, rules)"}

    def __init__(self, config: ClusterConfig, protocol: Protocol, events: list, partition: Partition,
                 fetcher: ReplicaFetcher, delayed: DelayedOperations) -> None:
        self.protocol = protocol
        self.events = events
        self.partition = partition
        self.fetcher = fetcher
        self.delayed = delayed
        #: 3.7.0 appendRecordsToLeader: the committed ISR against the effective min ISR
        self.min_insync_replicas = delayed.min_insync_replicas     # the effective one

    # ----------------------------------------------------------------------- LeaderAndIsr
    def become_leader_or_follower(self, r: Replica, request: LeaderAndIsr, queued: bool = False) -> None:
        """ReplicaManager.becomeLeaderOrFollower for this partition. A request whose leader
        epoch is not above the one the broker knows is stale and ignored (every release). The
        broker leads if the request names it (``makeLeaders``: its fetcher stops first);
        otherwise it follows the named leader and reconciles when that leader differs from the
        one it knew (``makeFollowers``: makeFollower returns true - kip320+, Kafka 2.1: on any
        epoch change - then the fetcher stops and restarts from where reconciliation says).
        ``queued``: the request waited in the channel (the broker was unreachable), which the
        events say. Under KRaft (kip841+) the broker replays a partition change instead, stale
        only when its partition epoch is below the broker's (3.3's ``Partition.makeLeader`` /
        ``makeFollower``): a change that keeps the leader epoch updates a leader's ISR, and a
        follower restarts its fetcher only on a new leader epoch."""
        stale = (request.partition_epoch < r.partition_epoch if self.protocol.kraft
                 else request.epoch <= r.leader_epoch)
        if stale:
            self.events.append(("leader_and_isr_stale", r.id, request.epoch, r.leader_epoch))
            return
        if queued:
            self.events.append(("leader_and_isr", r.id, request.epoch, request.leader))
        new_leader = request.leader
        partition, fetcher = self.partition, self.fetcher
        if new_leader == r.id:
            fetcher.drop_in_flight(r)
            partition.make_leader(r, request, is_new_leader=r.role != LEADER)
        elif new_leader is None:
            # no leader: the fetcher stops; a leader that lost its leadership steps down
            if r.role == LEADER:
                partition.stop_leading(r, NOT_LEADER_OR_FOLLOWER)
                r.role = FOLLOWER
            fetcher.drop_in_flight(r)
            r.leader_id = None
            r.leader_epoch = request.epoch
            r.partition_epoch = request.partition_epoch
        elif (r.leader_id != new_leader or r.role == LEADER
              or (self.protocol.reconcile_on_epoch_change and request.epoch != r.leader_epoch)):
            partition.make_follower(r, request)
            fetcher.drop_in_flight(r)
            fetcher.begin_reconciliation(r)
        else:
            r.leader_epoch = request.epoch
            r.partition_epoch = request.partition_epoch

    # ---------------------------------------------------------------- a follower's fetch
    def fetch_messages(self, leader: Replica, follower: Replica) -> None:
        """The follower's request (fetch, or OffsetsForLeaderEpoch while it reconciles)
        reaches the broker it believes leads; the response is left in ``follower.in_flight``."""
        error = self.request_error(leader, follower)
        if error is not None:
            request = follower.in_flight = InFlight("fetch", follower, leader, follower.leo)
            request.error = error
            request.asked_epoch = follower.leader_epoch
        elif follower.fetch_state == TRUNCATING and not self.protocol.truncate_on_fetch:
            self.last_offset_for_leader_epoch(leader, follower)
        else:
            self.read_for_follower(leader, follower)

    def request_error(self, leader: Replica, follower: Replica) -> str | None:
        """What the broker the follower believes leads answers before reading anything: it may
        not lead (any more, or yet). From Kafka 2.1 (KIP-320) the request carries the sender's
        current leader epoch, compared *before* leadership (``Partition
        .localLogWithEpochOrException``: ``checkCurrentLeaderEpoch``, then ``requireLeader``):
        a broker behind the sender's epoch answers UNKNOWN_LEADER_EPOCH even if it does not
        lead yet, one ahead FENCED_LEADER_EPOCH; a broker that has no state for the partition
        (restarted, no LeaderAndIsr yet) NOT_LEADER_OR_FOLLOWER."""
        if self.protocol.fences_requests and leader.leader_epoch >= 0 and follower.leader_epoch != leader.leader_epoch:
            return FENCED_LEADER_EPOCH if follower.leader_epoch < leader.leader_epoch else UNKNOWN_LEADER_EPOCH
        if leader.role != LEADER:
            return NOT_LEADER_OR_FOLLOWER
        return None

    def last_offset_for_leader_epoch(self, leader: Replica, follower: Replica) -> None:
        """OffsetsForLeaderEpoch: the leader's answer about the follower's latest epoch."""
        request = InFlight("epoch", follower, leader, follower.leo)
        request.asked_epoch = self.protocol.epoch_request(follower.log)
        request.answer = self.protocol.answer_epoch_request(leader.log, request.asked_epoch)
        follower.in_flight = request

    def read_for_follower(self, leader: Replica, follower: Replica) -> None:
        """fetchMessages for a follower (``ReplicaManager.fetchMessages``, leader side):
        validate the last fetched epoch (kip595), record the fetch offset as the remote LEO,
        maybe expand the ISR and move the HW; answer with the records and the HW read *before*
        this fetch, or park an empty fetch."""
        fetch_offset = len(follower.log.values)
        leader_log = leader.log
        leader_leo = len(leader_log.values)
        request = InFlight("fetch", follower, leader, fetch_offset)
        follower.in_flight = request
        protocol = self.protocol
        if protocol.truncate_on_fetch and follower.log.cache.latest_epoch is not None:
            # Partition.readRecords: the last fetched epoch is checked first; from 2.8.1 a fetch
            # below the log start is out of range whatever its epoch (KAFKA-12996)
            request.asked_epoch = follower.log.cache.latest_epoch
            if not (protocol.diverging_checks_log_start and fetch_offset < leader_log.start):
                diverging = protocol.diverging_epoch(leader_log, request.asked_epoch, fetch_offset)
                if diverging is not None:
                    request.error = DIVERGING
                    request.answer = diverging
                    if protocol.diverging_answer_processed:
                        # the HW and log start read before the check (initialHighWatermark,
                        # initialLogStartOffset), which a follower up to 3.4.0 takes
                        request.hw = leader.hw
                        request.leader_start = leader_log.start
                    if not protocol.diverging_fetch_skips_follower_state:
                        # 2.8.0 (KAFKA-13141): the fetch offset is recorded as the follower's LEO
                        self.record_follower_fetch(leader, follower.id, fetch_offset, leader_leo)
                    return
        request.leader_start = leader_log.start
        if fetch_offset > leader_leo or fetch_offset < leader_log.start or self.partition.hw_unresolvable(leader):
            # Log.read: an offset outside [log start, LEO]; 2.4.0 - a leader whose HW is below its
            # log start cannot resolve its HW (Log.fetchOffsetSnapshot throws, KAFKA-9491)
            request.error = OFFSET_OUT_OF_RANGE
            request.leader_leo = leader_leo
            request.hw = leader.hw
            return
        hw0 = leader.hw
        self.record_follower_fetch(leader, follower.id, fetch_offset, leader_leo)
        if fetch_offset < leader_leo:
            request.epochs = leader_log.epochs[fetch_offset:]
            request.values = leader_log.values[fetch_offset:]
            request.seqs = leader_log.seqs[fetch_offset:]
            if protocol.answer_refreshed_after_fetch and leader.hw != hw0:
                # 1.0.0 - 1.1.0 updateLeaderReplicaInfo: the HW (and log start, LEO) this fetch
                # left; the log start cannot have moved within the step
                hw0 = leader.hw
            request.hw = hw0
            self.events.append(("fetch", follower.id, fetch_offset, leader_leo - fetch_offset, hw0))
        else:
            self.delayed.park(leader, request)

    def record_follower_fetch(self, leader: Replica, follower_id: str, fetch_offset: int, leader_leo: int) -> None:
        """``ReplicaManager.updateFollowerFetchState``: the fetch offset becomes the follower's
        remote LEO; the ISR may expand and the HW move on it."""
        partition = self.partition
        partition.update_follower_fetch_state(leader, follower_id, fetch_offset, leader_leo)
        partition.maybe_expand_isr(leader, follower_id)
        partition.maybe_increment_leader_hw(leader)

    # -------------------------------------------------------------------------- produce
    def append_records(self, broker: Replica, request: ProduceRequest) -> str | None:
        """appendRecords for the producer's request at ``broker``: it must lead (or believe it
        does) and, for acks=all, have min.insync.replicas in its ISR; the record is appended
        in its leader epoch; an acks=all request then waits in purgatory for the HW. Returns
        the error the broker answers, or None (the record is at ``request.offset``)."""
        if broker.role != LEADER:   # elected, but its LeaderAndIsr has not arrived
            return NOT_LEADER_OR_FOLLOWER
        if request.acks == "all" and len(broker.isr) < self.min_insync_replicas:
            return NOT_ENOUGH_REPLICAS
        request.leader, request.epoch = broker.id, broker.leader_epoch
        offset, error = self.partition.append_records_to_leader(broker, request.value, request.seq)
        if error is not None:
            return error
        request.offset = offset
        if request.acks == "all":
            self.delayed.watch(request, broker)
        return None
