"""A broker's ReplicaManager for the partition: LeaderAndIsr handling and the leader's answer to a follower's fetch.

``become_leader_or_follower`` applies a controller request as ``becomeLeaderOrFollower``
does; ``fetch_messages`` is the leader half of a follower's fetch (``fetchMessages``, and
``lastOffsetForLeaderEpoch`` for OffsetsForLeaderEpoch), with empty fetches parked in the
leader's purgatory until a produce wakes them or they expire (``DelayedFetch``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .controller import LeaderAndIsr
from .kafka_errors import (
    DIVERGING,
    FENCED_LEADER_EPOCH,
    NOT_LEADER_OR_FOLLOWER,
    OFFSET_OUT_OF_RANGE,
    UNKNOWN_LEADER_EPOCH,
)
from .replica import FOLLOWER, LEADER, TRUNCATING, InFlight, Replica

if TYPE_CHECKING:
    from .cluster import Cluster


class ReplicaManager:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.events = cluster.events
        self.protocol = cluster.protocol
        self.fetch_wait_ms = cluster.config.replica_fetch_wait_max_ms

    # ----------------------------------------------------------------------- LeaderAndIsr
    def become_leader_or_follower(self, r: Replica, request: LeaderAndIsr, queued: bool = False) -> None:
        """ReplicaManager.becomeLeaderOrFollower for this partition. A request whose leader
        epoch is not above the one the broker knows is stale and ignored (every release). The
        broker leads if the request names it; otherwise it follows the named leader and
        reconciles when that leader differs from the one it knew (makeFollower returns true;
        kip320+, Kafka 2.1: on any epoch change). ``queued``: the request waited in the
        channel (the broker was unreachable), which the events say."""
        if request.epoch <= r.leader_epoch:
            self.events.append(("leader_and_isr_stale", r.id, request.epoch, r.leader_epoch))
            return
        if queued:
            self.events.append(("leader_and_isr", r.id, request.epoch, request.leader))
        new_leader = request.leader
        partition = self.cluster.partition
        if new_leader == r.id:
            partition.make_leader(r, request, is_new_leader=r.role != LEADER)
        elif new_leader is None:
            # no leader: the fetcher stops; a leader that lost its leadership steps down
            if r.role == LEADER:
                partition.stop_leading(r, NOT_LEADER_OR_FOLLOWER)
                r.role = FOLLOWER
            self.cluster.fetcher.drop_in_flight(r)
            r.leader_id = None
            r.leader_epoch = request.epoch
        elif r.leader_id != new_leader or r.role == LEADER or self.protocol.reconcile_on_epoch_change:
            partition.make_follower(r, request)
        else:
            r.leader_epoch = request.epoch

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
        not lead (any more, or yet); kip320+ compares the request's current leader epoch."""
        if leader.role != LEADER:
            return NOT_LEADER_OR_FOLLOWER
        if self.protocol.fences_requests and follower.leader_epoch != leader.leader_epoch:
            return FENCED_LEADER_EPOCH if follower.leader_epoch < leader.leader_epoch else UNKNOWN_LEADER_EPOCH
        return None

    def last_offset_for_leader_epoch(self, leader: Replica, follower: Replica) -> None:
        """OffsetsForLeaderEpoch: the leader's answer about the follower's latest epoch."""
        request = InFlight("epoch", follower, leader, follower.leo)
        request.asked_epoch = self.protocol.epoch_request(follower.log)
        request.answer = self.protocol.answer_epoch_request(leader.log, request.asked_epoch)
        follower.in_flight = request

    def read_for_follower(self, leader: Replica, follower: Replica) -> None:
        """fetchMessages for a follower (``ReplicaManager.fetchMessages``, leader side): validate the last
        fetched epoch (kip595), record the fetch offset as the remote LEO, maybe expand the ISR
        and move the HW; answer with the records and the HW read *before* this fetch, or park
        an empty fetch."""
        fetch_offset = len(follower.log.values)
        leader_log = leader.log
        leader_leo = len(leader_log.values)
        request = InFlight("fetch", follower, leader, fetch_offset)
        follower.in_flight = request
        protocol = self.protocol
        if protocol.truncate_on_fetch and follower.log.cache.latest_epoch is not None:
            request.asked_epoch = follower.log.cache.latest_epoch
            diverging = protocol.diverging_epoch(leader_log, request.asked_epoch, fetch_offset)
            if diverging is not None:
                request.error = DIVERGING
                request.answer = diverging
                return
        if fetch_offset > leader_leo:
            request.error = OFFSET_OUT_OF_RANGE
            request.leader_leo = leader_leo
            return
        hw0 = leader.hw
        partition = self.cluster.partition
        partition.update_follower_fetch_state(leader, follower.id, fetch_offset, leader_leo)
        partition.maybe_expand_isr(leader, follower.id)
        partition.maybe_increment_leader_hw(leader)
        if fetch_offset < leader_leo:
            request.epochs = leader_log.epochs[fetch_offset:]
            request.values = leader_log.values[fetch_offset:]
            request.seqs = leader_log.seqs[fetch_offset:]
            request.hw = hw0
            self.events.append(("fetch", follower.id, fetch_offset, leader_leo - fetch_offset, hw0))
        else:
            request.parked = True
            request.deadline = self.cluster.now + self.fetch_wait_ms
            leader.purgatory.append(request)
            self.events.append(("park", follower.id, fetch_offset))

    # -------------------------------------------------------------------- DelayedFetch
    def complete_delayed_fetch(self, request: InFlight) -> None:
        """DelayedFetch.onComplete: re-read the log and the current HW."""
        leader = request.leader
        request.parked = False
        request.epochs = leader.log.epochs[request.fetch_offset:]
        request.values = leader.log.values[request.fetch_offset:]
        request.seqs = leader.log.seqs[request.fetch_offset:]
        request.hw = leader.hw
        self.events.append(("fetch", request.follower.id, request.fetch_offset,
                            len(request.values), request.hw))

    def wake_parked_fetches(self, leader: Replica) -> None:
        for request in leader.purgatory:
            self.events.append(("wake", request.follower.id))
            self.complete_delayed_fetch(request)
        leader.purgatory.clear()

    def expire(self, request: InFlight) -> None:
        """The parked fetch's wait ran out (or its response is taken early): it completes."""
        request.leader.purgatory.remove(request)
        self.events.append(("expire", request.follower.id))
        self.complete_delayed_fetch(request)
