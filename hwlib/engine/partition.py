"""The leader side of the partition on the broker that leads (kafka.cluster.Partition): roles, ISR, HW, appends.

Functions carry Kafka's names (``make_leader``, ``make_follower``,
``update_follower_fetch_state``, ``maybe_expand_isr``, ``maybe_shrink_isr``,
``maybe_increment_leader_hw``, ``append_records_to_leader``) and follow ``Partition`` of the
modelled release; each takes the broker's replica it acts on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol

from .controller import Controller, LeaderAndIsr, membership_events
from .kafka_errors import NOT_LEADER_OR_FOLLOWER, OFFSET_OUT_OF_RANGE, OUT_OF_ORDER_SEQUENCE_NUMBER
from .releases import isr_route
from .replica import FETCHING, FOLLOWER, LEADER, NEVER_MS, RemoteReplica, Replica

if TYPE_CHECKING:
    from .config import ClusterConfig
    from .delayed import DelayedOperations
    from .logical_time import Time
    from .protocols import Protocol as Generation


class PartitionChangePublisher(Protocol):
    """Who carries a partition change the controller wrote for the leader to every broker
    (under KRaft the metadata log every broker replays): the controller's channel."""

    def publish(self, request: LeaderAndIsr) -> None: ...


class Partition:
    """The partition's leader-side rules, for whichever broker's replica a call names. Its
    collaborators: the controller (ISR writes - Kafka 2.7's AlterIsr target), the time, the
    replicas (a leader keeps a view of each follower) and the purgatories (``DelayedOperations``:
    an append wakes parked fetches, a higher HW completes waiting produces)."""

    #: the declared cycle ``publisher`` -> channel -> replica manager -> here, broken by ``release``
    __deletable__ = ("publisher",)

    #: it holds no state of its own: rules, the parts it calls and the configuration
    UNKEYED: ClassVar[dict[str, str]] = {
        "replicas": "wiring: the brokers' replicas", "events": "observes: the run's events",
        "lag": "constant: replica.lag.time.max.ms (config)",
        "min_isr": "constant: the effective min.insync.replicas (config, rules)",
        "flush_interval": "constant: log.flush.interval.messages (config)",
        "isr_route": "constant: how an ISR change reaches the controller (rules, release)"}

    def __init__(self, config: ClusterConfig, protocol: Generation, events: list, time: Time, controller: Controller,
                 replicas: list[Replica], delayed: DelayedOperations, source: Partition | None = None) -> None:
        """With ``source``, a clone's: its constants are the source's (not read again)."""
        self.config = config
        self.protocol = protocol
        self.events = events
        self.time = time
        self.controller = controller
        self.replicas = replicas
        self.delayed = delayed
        self.min_isr = delayed.min_insync_replicas       # the effective one (``Protocol.effective_min_isr``)
        if source is None:
            self.lag = config.replica_lag_time_max_ms
            self.flush_interval = config.log_flush_interval_messages
            #: "ISR write (ZooKeeper)", "AlterIsr" or "AlterPartition": carried by the ISR events
            self.isr_route = isr_route(protocol, config.release)
        else:
            self.lag, self.flush_interval, self.isr_route = source.lag, source.flush_interval, source.isr_route
        #: KRaft: publishes the leader's accepted AlterPartition to every broker (set once the
        #: channel exists)
        self.publisher: PartitionChangePublisher | None = None

    def release(self) -> None:
        """Break the declared cycle (the channel applies changes through the replica manager here)."""
        self.publisher = None

    # ------------------------------------------------------------------------------ roles
    def make_leader(self, replica: Replica, request: LeaderAndIsr, is_new_leader: bool,
                    initial: bool = False) -> None:
        """Partition.makeLeader with the request's epoch and ISR: reset followers' caught-up
        times; a new leader (one that did not lead just before, by its own knowledge) forgets
        their LEOs (unknown, -1) and never truncates; then try to advance the HW. A broker that
        still believes it leads keeps its followers' LEOs, even across epochs it never heard
        of (``isNewLeader = !isLeader`` in every release from 0.10.2 to 3.7: 3.7's
        ``resetReplicaState(isNewLeader = false)`` keeps ``logEndOffsetMetadata``)."""
        replica.role = LEADER
        replica.leader_id = replica.id
        replica.isr = request.isr
        replica.partition_epoch = request.partition_epoch
        replica.awaiting_leader = False
        replica.fetch_state = FETCHING
        if replica.leader_epoch == request.epoch and not is_new_leader:
            # KRaft: a change that keeps the leader epoch (the leader's own AlterPartition
            # replayed, a shrink under KAFKA-15021) updates the ISR only (3.3's makeLeader:
            # "Skipped the become-leader state change ... already the leader")
            self.maybe_increment_leader_hw(replica)
            return
        replica.alter_isr = None              # its answer would be for another epoch
        replica.leader_epoch = request.epoch
        replica.leader_epoch_start = self.protocol.on_become_leader(replica.log, request.epoch)
        if self.protocol.make_leader_raises_hw_to_start and replica.hw < replica.log.start:
            # up to 2.3 Replica.convertHWToLocalOffsetMetadata: an HW out of the log's range
            # becomes the log start offset
            self.events.append(("hw", replica.id, replica.hw, replica.log.start, True))
            replica.hw = replica.log.start
        leo = replica.leo
        now = self.time.now
        isr = replica.isr
        if is_new_leader:
            replica.purgatory.clear()
            replica.remotes = {}
        for r in self.replicas:
            if r is replica:
                continue
            caught_up = now if r.id in isr else NEVER_MS
            remote = replica.remotes.get(r.id)
            replica.remotes[r.id] = RemoteReplica((0 if initial else -1) if remote is None else remote.leo,
                                                  caught_up, leo, now)
        self.maybe_increment_leader_hw(replica)

    def make_follower(self, replica: Replica, request: LeaderAndIsr) -> None:
        """Partition.makeFollower when the leader changed (or, kip320+, the epoch): follow the
        request's leader in its epoch, forget the cached ISR (the replica manager then restarts
        the fetcher, which reconciles)."""
        if replica.role == LEADER:
            self.stop_leading(replica, NOT_LEADER_OR_FOLLOWER)
        replica.role = FOLLOWER
        replica.leader_id = request.leader
        replica.leader_epoch = request.epoch
        replica.partition_epoch = request.partition_epoch
        replica.isr = ()
        replica.alter_isr = None
        replica.awaiting_leader = False

    def stop_leading(self, replica: Replica, code: str) -> None:
        """The replica is no longer leader (demoted, or down): its pending produces fail with
        ``code``, every request addressed to it is gone (parked or answered), and it forgets
        its followers."""
        self.delayed.fail(replica.id, code)
        replica.alter_isr = None
        for r in self.replicas:
            if r.in_flight is not None and r.in_flight.leader is replica:
                r.in_flight = None
        replica.purgatory.clear()
        replica.remotes = {}

    # ------------------------------------------------------------------------ followers
    def update_follower_fetch_state(self, leader: Replica, follower_id: str, fetch_offset: int,
                                    leader_leo: int) -> None:
        """Remote LEO := fetch offset; caught-up time as in Kafka's Replica.updateFetchState."""
        remote = leader.remotes[follower_id]
        now = self.time.now
        caught_up = remote.last_caught_up_ms
        if fetch_offset >= leader_leo:
            if now > caught_up:
                caught_up = now
        elif fetch_offset >= remote.last_fetch_leader_leo:
            if remote.last_fetch_ms > caught_up:
                caught_up = remote.last_fetch_ms
        leader.remotes[follower_id] = RemoteReplica(fetch_offset, caught_up, leader_leo, now)

    def maybe_expand_isr(self, leader: Replica, follower_id: str) -> None:
        """A follower joins the ISR once its remote LEO reaches the leader's HW (nothing is
        sent while an AlterIsr is in flight, as Kafka 2.7's ``Partition`` does)."""
        if leader.alter_isr is not None:
            return
        isr = leader.isr
        leo = leader.remotes[follower_id].leo
        if follower_id in isr or leo < leader.hw or leo < self.protocol.isr_join_floor(leader.leader_epoch_start):
            return
        new_isr = tuple(r for r in self.controller.assignment if r in isr or r == follower_id)
        if self.update_isr(leader, new_isr, f"{follower_id} caught up to HW {leader.hw}"):
            self.isr_answer_hw(leader)

    def maybe_shrink_isr(self, leader: Replica) -> None:
        """Drop followers not caught up for longer than replica.lag.time.max.ms
        (``Partition.getOutOfSyncReplicas``); from Kafka 2.1 (KAFKA-7152) one whose LEO equals
        the leader's stays, however long ago it fetched (``caught_up_follower_stays_in_isr``).
        Nothing is sent while an AlterIsr is in flight."""
        if leader.alter_isr is not None:
            return
        leader_leo = leader.leo
        now, lag = self.time.now, self.lag
        stays = self.protocol.caught_up_follower_stays_in_isr
        out = [rid for rid in leader.isr
               if rid != leader.id
               and not (stays and leader.remotes[rid].leo == leader_leo)
               and now - leader.remotes[rid].last_caught_up_ms > lag]
        if out:
            new_isr = tuple(r for r in leader.isr if r not in out)
            if self.update_isr(leader, new_isr, f"{','.join(out)} lagged > {lag} ms"):
                self.isr_answer_hw(leader)

    def isr_answer_hw(self, leader: Replica) -> None:
        """The leader's HW once the ISR change it sent was accepted: recomputed (the ZooKeeper
        write up to 2.6; 3.1.0's ``handleAlterIsrResponse``), except from 2.7 to 3.0.x, whose
        AlterIsr answer leaves it to the next fetch or append (``hw_waits_after_isr_answer``,
        KAFKA-13091)."""
        if not self.protocol.hw_waits_after_isr_answer:
            self.maybe_increment_leader_hw(leader)

    def update_isr(self, leader: Replica, new_isr: tuple[str, ...], reason: str) -> bool:
        """The leader writes a new ISR (ZooKeeper conditional update; from kip595 an AlterIsr
        request, KIP-497). The write is refused, and the leader's cached ISR kept, unless it is
        the controller's current leader in the current epoch (a zombie leader keeps retrying,
        as Kafka logs "Cached zkVersion ... not equal to that in zookeeper"). An AlterIsr from
        a leader that cannot reach the controller waits, in flight, until it can
        (``alter_isr_answered``)."""
        epochs = self.controller.broker_epochs
        leader.alter_isr = (new_isr, leader.leader_epoch, leader.partition_epoch, tuple(epochs[r] for r in new_isr),
                            reason)
        if self.protocol.alter_isr_via_controller and leader.isolated:
            self.events.append(("alter_isr_sent", leader.id, leader.leader_epoch, new_isr, reason, self.isr_route))
            return False
        return self.alter_isr_answered(leader)

    def alter_isr_answered(self, leader: Replica) -> bool:
        """The controller handles ``leader``'s ISR write - before kip595 the ZooKeeper write,
        from kip595 its AlterIsr in flight - and answers it (Kafka 2.7's ``processAlterIsr``:
        refused unless the sender leads in the controller's current epoch; KRaft's
        ``validateAlterPartitionData`` also compares the partition epoch (kip841+: a change
        may keep the leader epoch), and refuses a member that is fenced - the controller sees
        it down (KIP-841, 3.3) - or registered again since the leader saw it (KIP-903, 3.5)).
        Accepted, the leader - if it still leads in that epoch - takes the new ISR and may
        raise its HW (the caller's job); under KRaft the change is then replayed by every
        broker (a shrink bumps the leader epoch up to 3.5). Returns whether it was accepted."""
        ctl = self.controller
        request = leader.alter_isr
        assert request is not None, "alter_isr_answered: no AlterIsr in flight"
        new_isr, epoch, partition_epoch, member_epochs, reason = request
        leader.alter_isr = None
        protocol = self.protocol
        if (ctl.leader != leader.id or ctl.leader_epoch != epoch
                or (protocol.kraft and ctl.partition_epoch != partition_epoch)):
            self.events.append(("isr_refused", leader.id, epoch, new_isr, reason))
            return False
        ineligible = tuple(r for r, e in zip(new_isr, member_epochs, strict=True)
                           if (protocol.alter_isr_checks_broker_epochs and ctl.broker_epochs[r] != e)
                           or (protocol.alter_isr_rejects_fenced and r in ctl.dead))
        if ineligible:
            self.events.append(("isr_ineligible", leader.id, new_isr, ineligible))
            return False
        old_isr, old_elr = ctl.isr, ctl.elr
        bumped = ctl.alter_partition(new_isr, protocol.kraft and protocol.isr_shrink_bumps_leader_epoch)
        self.events.extend(membership_events(ctl, old_isr, old_elr, reason, self.isr_route))
        if leader.role == LEADER and leader.leader_epoch == epoch and not bumped:
            # the response's state (3.3's handleAlterPartitionUpdate ignores one whose leader
            # epoch is not its own: a bumped epoch reaches it as a partition change instead)
            leader.isr = ctl.isr
            leader.partition_epoch = ctl.partition_epoch
        if protocol.kraft and self.publisher is not None:
            self.publisher.publish(ctl.leader_and_isr())
        return True

    # ----------------------------------------------------------------- the log start offset
    def delete_records_skip(self, leader: Replica | None, offset: int) -> str | None:
        """Why DeleteRecords before ``offset`` (-1: the HW) moves nothing (the admin client's
        answer), or None."""
        if not self.protocol.follows_leader_log_start:
            return "DeleteRecords needs Kafka 0.11 (KIP-107)"
        if leader is None:
            return "no online leader"
        if offset < 0:          # DeleteRecordsRequest.HIGH_WATERMARK
            offset = leader.hw
        if offset > leader.hw:
            # 0.11.0.0 Replica.maybeIncrementLogStartOffset / 2.4.0 Log.maybeIncrementLogStartOffset
            return f"the offset is above the leader's HW {leader.hw}: OFFSET_OUT_OF_RANGE"
        if offset <= leader.log.start:
            return f"the leader's log already starts at {leader.log.start}"
        return None

    def delete_records_on_leader(self, leader: Replica, offset: int) -> None:
        """``Partition.deleteRecordsOnLeader``: the leader's log start moves to ``offset`` (at
        most its HW); the followers' follow with their next fetch responses. The admin client's
        answer waits in DelayedDeleteRecords for the low watermark (the least log start of the
        live replicas), which changes no replica and is not modelled."""
        if offset < 0:
            offset = leader.hw
        self.events.append(("log_start", leader.id, leader.log.start, offset, "DeleteRecords"))
        leader.log.increment_start(offset)

    def retention_bound(self, replica: Replica, offset: int) -> int:
        """Where retention asked to delete below ``offset`` leaves ``replica``'s log start:
        ``Log.deleteOldSegments`` takes whole segments up to it, from 0.11.0.1 only below the HW
        (KAFKA-5634, ``deletableSegments``), and never past the LEO (the last segment rolls);
        ``offset`` -1: as far as that."""
        bound = replica.hw if self.protocol.retention_bounded_by_hw else replica.leo
        return bound if offset < 0 else min(offset, bound)

    def delete_old_segments(self, replica: Replica, offset: int) -> None:
        """Retention on ``replica``'s broker: its log start moves to ``retention_bound``."""
        new = self.retention_bound(replica, offset)
        if new > replica.log.start:
            self.events.append(("log_start", replica.id, replica.log.start, new, "retention"))
            replica.log.increment_start(new)

    # -------------------------------------------------------------------------- the HW
    def hw_unresolvable(self, leader: Replica) -> bool:
        """Kafka 2.4.0 (KAFKA-9491): the HW lives in the Log, whose ``fetchHighWatermarkMetadata``
        throws OffsetOutOfRangeException for an HW below the log start - every fetch of the
        partition, every HW increment and every produce's HW step fail. Only 2.4.0 reaches such
        a leader (earlier releases raise the HW at ``makeLeader``, later ones at the full
        truncation)."""
        return self.protocol.hw_in_log and leader.hw < leader.log.start

    def maybe_increment_leader_hw(self, leader: Replica) -> bool:
        """HW = min LEO over the leader and every follower in the ISR or caught up within the lag;
        it only ever rises. Completes acks=all produces it passes."""
        if self.hw_unresolvable(leader):
            return False
        # 3.7.0 isUnderMinIsr reads the committed ISR (``partitionState.isr``), not the maximal one
        if self.protocol.strict_min_isr and len(leader.isr) < self.min_isr:
            return False
        isr = leader.maximal_isr
        new_hw = len(leader.log.values)
        horizon = self.time.now - self.lag
        live_only = self.protocol.hw_counts_only_live_followers
        dead = self.controller.dead if live_only else ()
        leaving = self.controller.shutting_down if live_only else None
        for rid, remote in leader.remotes.items():
            if remote.leo < new_hw and (rid in isr or (remote.last_caught_up_ms >= horizon and rid not in dead
                                                       and rid != leaving)):
                new_hw = remote.leo
        if new_hw <= leader.hw:
            return False
        self.events.append(("hw", leader.id, leader.hw, new_hw, True))
        leader.hw = new_hw
        if self.delayed.produces:
            self.delayed.complete(leader)
        return True

    # ------------------------------------------------------------------------- appends
    def append_records_to_leader(self, leader: Replica, value: str, seq: int) -> tuple[int, str | None]:
        """Append in the leader's epoch, wake parked fetches, try the HW; returns (offset,
        error). An idempotent producer's duplicate is answered with the original offset and a
        sequence gap with OUT_OF_ORDER_SEQUENCE_NUMBER, from the producer state the leader
        rebuilds from its log."""
        log = leader.log
        if seq >= 0:
            last_seq, last_offset = log.last_sequence()
            if seq <= last_seq:
                for offset in range(last_offset, -1, -1):
                    if log.seqs[offset] == seq:
                        self.events.append(("duplicate_seq", value, seq, offset))
                        return offset, None
            if seq != last_seq + 1:
                return -1, OUT_OF_ORDER_SEQUENCE_NUMBER
        epoch = leader.leader_epoch
        offset = log.append(epoch, value, seq, self.protocol.records_carry_epochs)
        self.events.append(("append", leader.id, offset, epoch, value))
        leader.log.flush_if_due(self.flush_interval)
        if self.hw_unresolvable(leader):
            # 2.4.0 appendRecordsToLeader: the record is in, then maybeIncrementLeaderHW throws and
            # the producer gets the error (not retriable); no delayed request is tried
            return offset, OFFSET_OUT_OF_RANGE
        if leader.purgatory:
            self.delayed.wake(leader)
        self.maybe_increment_leader_hw(leader)
        return offset, None
