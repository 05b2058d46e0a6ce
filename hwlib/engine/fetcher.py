"""The follower side of replication (AbstractFetcherThread / ReplicaFetcherThread): fetch, reconcile, truncate.

A follower sends its request to the broker it believes leads, in the leader epoch it knows
(``fetch_request``), and applies the response (``fetch_response``): records and the HW, an
OffsetsForLeaderEpoch answer or a diverging epoch to truncate by (per protocol generation),
OFFSET_OUT_OF_RANGE, or a refusal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from .kafka_errors import DIVERGING, OFFSET_OUT_OF_RANGE, REFUSED
from .replica import FAILED, FETCHING, LEADER, TRUNCATING, InFlight, Replica

if TYPE_CHECKING:
    from .config import ClusterConfig
    from .delayed import DelayedOperations
    from .log import ReplicaLog
    from .protocols import Protocol


class ReplicaFetcher:
    """Each follower's fetcher: whether it can send, and what it does with the response. The
    request itself travels through the cluster (the network hop) to the broker it believes
    leads; ``brokers`` says only whether that broker is up, as a connection would."""

    #: it holds no state of its own: rules, the parts it calls and the configuration
    UNKEYED: ClassVar[dict[str, str]] = {
        "brokers": "wiring: the brokers by name", "events": "observes: the run's events",
        "flush_interval": "constant: log.flush.interval.messages (config)",
        "unclean": "constant: unclean.leader.election.enable (config)"}

    def __init__(self, config: ClusterConfig, protocol: Protocol, events: list, brokers: dict[str, Replica],
                 delayed: DelayedOperations, source: ReplicaFetcher | None = None) -> None:
        """With ``source``, a clone's: its constants are the source's (not read again)."""
        self.protocol = protocol
        self.events = events
        self.brokers = brokers
        self.delayed = delayed
        if source is None:
            self.flush_interval = config.log_flush_interval_messages
            self.unclean = bool(config.unclean_leader_election)
        else:
            self.flush_interval, self.unclean = source.flush_interval, source.unclean

    def request_skip(self, follower: Replica) -> str | None:
        """Why the follower sends no request now (its ``skip`` reason), or None."""
        if not follower.online:
            return "replica is offline"
        if follower.role == LEADER:
            return "replica is the leader"
        if follower.in_flight is not None:
            return "a request is already in flight"
        if follower.leader_id is None:
            return "the partition has no leader"
        if follower.fetch_state == FAILED:
            return "its fetcher marked the partition failed"
        if not self.brokers[follower.leader_id].online:
            return f"leader {follower.leader_id} is offline"
        return None

    def response_skip(self, follower: Replica) -> str | None:
        """Why no response can be delivered to the follower now (its ``skip`` reason), or None."""
        if not follower.online:
            return "replica is offline"
        if follower.in_flight is None:
            return "no request in flight"
        return None

    def handle_response(self, follower: Replica, request: InFlight) -> bool:
        """The follower's response arrives (``processFetchRequest``): a refusal, an
        OffsetsForLeaderEpoch answer, a diverging epoch, OFFSET_OUT_OF_RANGE, or records.
        Returns True when the follower's broker must stop (Kafka up to 2.0.0: an out-of-range
        fetch it may not truncate for, ``handle_offset_out_of_range``)."""
        follower.in_flight = None
        if request.error in REFUSED:
            # the fetcher backs off and tries again; it learns the new state only from the
            # controller (FENCED) or once the leader has learned it (UNKNOWN)
            self.events.append(("refused", follower.id, request.leader.id, request.error, request.asked_epoch,
                                request.leader.leader_epoch))
        elif request.kind == "epoch":
            self.process_epoch_response(follower, request)
        elif request.error == DIVERGING:
            self.process_diverging_epoch(follower, request)
        elif request.error == OFFSET_OUT_OF_RANGE:
            return self.handle_offset_out_of_range(follower, request)
        else:
            self.process_fetch_response(follower, request)
        return False

    def process_fetch_response(self, follower: Replica, request: InFlight) -> None:
        """Append the records, then HW = min(leader HW, own LEO)."""
        if follower.fetch_state == TRUNCATING:   # kip595: the leader accepted the fetch
            follower.fetch_state = FETCHING
            self.events.append(("reconciled", follower.id, request.fetch_offset))
        log = follower.log
        if request.values:
            start = len(log.values)
            log.append_as_follower(request.epochs, request.values, request.seqs, self.protocol.records_carry_epochs)
            self.events.append(("replicate", follower.id, start, len(log.values)))
            log.flush_if_due(self.flush_interval)
        self.take_hw(follower, request.hw)
        if not self.take_leader_start(follower, request):
            # records with a consistent answer: its start is at most the HW it sends, and the
            # follower's new HW at least that (KAFKA-7104's race inside the leader's handling,
            # 1.0.0 - 1.1.0, is not modelled)
            raise AssertionError(f"{follower.id}: leader's log start {request.leader_start} above the HW "
                                 f"{follower.hw} in a fetch with records")

    def take_hw(self, follower: Replica, leader_hw: int) -> None:
        """processPartitionData: HW = min(leader's HW, own LEO) - from 2.4.0 ``Log
        .updateHighWatermark``, which keeps it within [log start, LEO]."""
        log = follower.log
        new_hw = leader_hw if leader_hw < len(log.values) else len(log.values)
        if self.protocol.hw_in_log and new_hw < log.start:
            new_hw = log.start
        if new_hw != follower.hw:
            self.events.append(("hw", follower.id, follower.hw, new_hw, False))
            follower.hw = new_hw

    def take_leader_start(self, follower: Replica, request: InFlight) -> bool:
        """processPartitionData, 0.11.0.0+: ``maybeIncrementLogStartOffset(leader's log start)``,
        which refuses a start above the HW (OffsetOutOfRangeException). Refused, the fetcher
        marks the partition failed (2.3+ ``AbstractFetcherThread.processFetchRequest``:
        "Unexpected error occurred while processing data for partition ... at offset ...") and
        False is returned."""
        log = follower.log
        if not self.protocol.follows_leader_log_start or request.leader_start <= log.start:
            return True
        if request.leader_start > follower.hw:
            self.events.append(("fetcher_failed", follower.id, request.fetch_offset, request.leader_start,
                                follower.hw))
            follower.fetch_state = FAILED
            return False
        self.events.append(("log_start", follower.id, log.start, request.leader_start, "leader's log start"))
        log.increment_start(request.leader_start)
        return True

    def process_diverging_epoch(self, follower: Replica, request: InFlight) -> None:
        """kip595: no records; truncate and let the next fetch validate again. Up to 3.4.0 the
        answer is first processed as data (``processPartitionData``, KAFKA-14704): the HW and the
        leader's log start, which 2.8.0 may send above the follower's HW (KAFKA-12996) - then
        ``maybeIncrementLogStartOffset`` throws, the fetcher marks the partition failed and no
        truncation follows."""
        self.events.append(("diverging", follower.id, request.fetch_offset, request.asked_epoch,
                            request.answer))
        if self.protocol.diverging_answer_processed:
            self.take_hw(follower, request.hw)
            if not self.take_leader_start(follower, request):
                return
        offset, _ = self.protocol.truncation_after_answer(follower.log, follower.hw, request.answer)
        self.truncate(follower, offset, "diverging epoch")

    def handle_offset_out_of_range(self, follower: Replica, request: InFlight) -> bool:
        """OFFSET_OUT_OF_RANGE: ``ReplicaFetcherThread.handleOffsetOutOfRange`` (up to 2.0.1),
        ``AbstractFetcherThread.fetchOffsetAndTruncate`` (2.1+). The leader is shorter than the
        follower (it lost or never had the suffix): with unclean election disabled, Kafka 0.9 -
        2.0.0 refuse to truncate and stop the broker - 0.9 / 0.10 "Halting because log
        truncation is not allowed for topic ...", 0.11 - 2.0.0 "Exiting because log truncation
        is not allowed for partition ..." - returning True; from 2.0.1 / 2.1.0 (KAFKA-7414) and
        with unclean election the follower truncates to the leader's LEO. Otherwise the
        follower fetches from max(leader's log start, its LEO), first truncating fully to the
        leader's start when its LEO is below it ("Reset fetch offset ... to current leader's
        start offset")."""
        if request.fetch_offset > request.leader_leo:
            self.events.append(("out_of_range", follower.id, request.fetch_offset, request.leader_leo))
        elif request.fetch_offset < request.leader_start:
            self.events.append(("out_of_range_start", follower.id, request.fetch_offset, request.leader_start))
        else:
            self.events.append(("out_of_range_hw", follower.id, request.fetch_offset, request.hw,
                                request.leader_start))
        if request.leader_leo < follower.leo:
            if self.protocol.out_of_range_exits_broker and not self.unclean:
                self.events.append(("halt", follower.id, request.leader_leo, follower.leo))
                return True
            self.truncate(follower, request.leader_leo, "leader's log is shorter")
        elif request.leader_start > follower.leo:
            self.truncate_fully(follower, request.leader_start, request.leader.log)
        return False

    def truncate_fully(self, replica: Replica, offset: int, leader_log: ReplicaLog) -> None:
        """``Log.truncateFullyAndStartAt(offset)``: the log restarts empty at the leader's log
        start; the HW drops to the LEO where above it and, from 2.4.1 (KAFKA-9491), rises to the
        new start where below it."""
        old = replica.leo
        replica.log.truncate_fully_and_start_at(offset, leader_log)
        self.events.append(("truncate_fully", replica.id, old, offset))
        new_hw = replica.hw if replica.hw <= offset else offset
        if self.protocol.full_truncation_raises_hw and new_hw < offset:
            new_hw = offset
        if new_hw != replica.hw:
            self.events.append(("hw", replica.id, replica.hw, new_hw, replica.is_leader))
            replica.hw = new_hw

    def process_epoch_response(self, follower: Replica, request: InFlight) -> None:
        offset, done = self.protocol.truncation_after_answer(follower.log, follower.hw, request.answer)
        self.events.append(("epoch_request", follower.id, request.asked_epoch, request.answer))
        if done:
            follower.fetch_state = FETCHING
        self.truncate(follower, offset, "OffsetsForLeaderEpoch" if done else "OffsetsForLeaderEpoch, walking back")

    def begin_reconciliation(self, replica: Replica) -> None:
        """After a leader (kip320+: epoch) change: truncate now (to the HW, before 0.11) or
        first ask the leader."""
        offset = self.protocol.begin_reconciliation(replica.log, replica.hw)
        if offset is None:
            replica.fetch_state = TRUNCATING
        else:
            replica.fetch_state = FETCHING
            self.truncate(replica, offset, "truncate to HW")

    def truncate(self, replica: Replica, offset: int, reason: str) -> None:
        """truncate_to, and clamp the HW to the new LEO."""
        old = replica.leo
        if offset < old:
            replica.log.truncate_to(offset)
            self.events.append(("truncate", replica.id, old, offset, reason))
        else:
            # Log.truncateTo logs "Truncating to X has no effect as the largest offset in the
            # log is LEO - 1"; the event lets a reader (and a log matcher) see it happened
            self.events.append(("truncate_noop", replica.id, old, offset, reason))
            if self.protocol.truncation_clears_end_epochs:
                replica.log.cache.truncate_from_end(old)     # Kafka 2.7.0+ Log.truncateTo (KAFKA-10706)
        if replica.hw > replica.leo:
            self.events.append(("hw", replica.id, replica.hw, replica.leo, replica.is_leader))
            replica.hw = replica.leo

    def drop_in_flight(self, replica: Replica) -> None:
        """The fetcher for this replica stops: its outstanding request is forgotten (a parked
        one leaves the leader's purgatory)."""
        request = replica.in_flight
        if request is not None:
            self.delayed.cancel(request)
            replica.in_flight = None
