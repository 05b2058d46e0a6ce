"""The partition's brokers as one system: the wiring of their parts, the network hop of a fetch, the fault steps.

Kafka's concerns live where Kafka keeps them, each part given the few collaborators it
calls (Kafka 2.7's shape): the controller's decisions in ``controller`` and its channel to the
brokers in ``channel``; each broker's ``ReplicaManager`` (``replica_manager``: LeaderAndIsr,
fetches, appends, and it drives the fetcher on a role change), the leader side of its
``Partition`` (``partition``), its fetcher (``fetcher``) and its purgatories (``delayed``);
the clients in ``producer``, ``consumer`` and ``metadata``; time in ``clock`` (``Time`` owns
``now``, ``Clock`` runs the periodic tasks). No part holds the whole cluster. It applies the
fault steps (crash, restart, isolation, leader moves, failover) and carries a follower's fetch
to the broker it believes leads - the network hop - and back.
Every step is total: a step that cannot act (a fetch from an offline replica, say) records a
``skip`` event and changes nothing; ``skip_reason`` says so beforehand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from ..errors import ScenarioError
from .channel import ControllerChannel
from .clock import Clock
from .config import ClusterConfig
from .consumer import Consumer
from .controller import Controller
from .delayed import DelayedOperations
from .events import skip
from .fetcher import ReplicaFetcher
from .kafka_errors import NETWORK_EXCEPTION
from .logical_time import Time
from .metadata import ClientMetadata
from .partition import Partition
from .produce_request import ProduceRequest
from .producer import RETRY_SKIP, Producer
from .protocols import Protocol
from .replica import FETCHING, FOLLOWER, LEADER, OFFLINE, InFlight, Replica
from .replica_manager import ReplicaManager
from .steps import STEP_KINDS, Step

if TYPE_CHECKING:
    from .state_key import KeyContext

__all__ = ["Cluster", "ProduceRequest"]

KRAFT_FAILOVER_SKIP = ("KRaft: the metadata log survives a controller failover; brokers keep replaying it "
                       "(an epoch is skipped by replaying several changes in one delta: deliver with a count)")


class Cluster:
    """One partition: ``config.replicas`` in assignment order; the first leads epoch 0 at start,
    all logs empty, ISR = all replicas, the leader's remote LEOs known to be 0."""

    delayed: DelayedOperations
    partition: Partition
    fetcher: ReplicaFetcher

    def __init__(self, config: ClusterConfig, source: Cluster | None = None) -> None:
        """A fresh partition, or with ``source`` a complete, independent copy of one (the model
        checker branches from it): every replica, request in flight, queued LeaderAndIsr,
        produce request, the clients and the clock; the events start empty."""
        self.config = config
        self.protocol: Protocol = config.rules() if source is None else source.protocol
        protocol = self.protocol
        self.events: list[tuple] = []
        events = self.events
        #: what the state key compares ages with: replica.lag.time.max.ms, the session timeout,
        #: auto.commit.interval.ms (read once: the configuration is not a compiled class)
        self.caps: tuple[int, int, int] = (
            (config.replica_lag_time_max_ms, config.session_timeout_ms, config.auto_commit_interval_ms)
            if source is None else source.caps)
        min_isr = (protocol.effective_min_isr(config.min_insync_replicas, len(config.replicas)) if source is None
                   else source.delayed.min_insync_replicas)
        if source is None:
            self.time = Time(0)
            self.replicas = [Replica(rid, i) for i, rid in enumerate(config.replicas)]
            self.controller = Controller(config.replicas, bool(config.unclean_leader_election),
                                         elr=protocol.eligible_leader_replicas,
                                         min_insync_replicas=min_isr,
                                         shrink_bumps_epoch=protocol.isr_shrink_bumps_leader_epoch)
            first = self.replicas[0].id              # leads epoch 0; every replica knows it
            self.controller.leader = self.controller.last_known_leader = first
            for r in self.replicas:
                r.leader_id = first
                r.leader_epoch = 0
        else:
            self.time = Time(source.time.now)
            self.replicas = [r.copy() for r in source.replicas]
            self.controller = source.controller.copy()
        self.by_id = {r.id: r for r in self.replicas}
        self.delayed = DelayedOperations(config, events, self.time, min_isr, None if source is None else source.delayed)
        self.partition = Partition(config, protocol, events, self.time, self.controller, self.replicas, self.delayed,
                                   None if source is None else source.partition)
        self.fetcher = ReplicaFetcher(config, protocol, events, self.by_id, self.delayed,
                                      None if source is None else source.fetcher)
        self.replica_manager = ReplicaManager(config, protocol, events, self.partition, self.fetcher, self.delayed)
        self.channel: ControllerChannel = ControllerChannel(self.controller, events, self.replicas,
                                                            self.replica_manager, self.delayed, protocol.kraft,
                                                            None if source is None else source.channel)
        self.partition.publisher = self.channel      # the declared cycle (see ``partition``)
        self.metadata: ClientMetadata = ClientMetadata(self.controller, events, config.client_metadata == "stale",
                                                       None if source is None else source.metadata)
        self.producer: Producer = Producer(config, events, self.metadata, self.by_id, self.replica_manager,
                                           None if source is None else source.producer)
        self.delayed.client = self.producer          # the declared cycle (see ``delayed``)
        self.consumer: Consumer = Consumer(config, protocol, events, self.time, self.metadata, self.by_id,
                                           None if source is None else source.consumer)
        self.clock: Clock = Clock(config, protocol, events, self.time, self.replicas, self.controller,
                                  self.partition, self.delayed, self.channel, None if source is None else source.clock)
        if source is None:
            self.partition.make_leader(self.replicas[0], self.controller.leader_and_isr(), is_new_leader=True,
                                       initial=True)
        else:
            self._copy_requests(source)

    def _copy_requests(self, source: Cluster) -> None:
        """Requests in flight refer to two replicas, and a parked one is also in its leader's
        purgatory: copy each once, between the copies of its replicas; the produces waiting in
        purgatory are the producer's copies of them."""
        # (by place, not ``zip``: the copy runs once per transition of a search, and the compiled
        # engine calls ``zip(..., strict=True)`` as a generic Python call)
        by_id, olds, news = self.by_id, source.replicas, self.replicas
        for i in range(len(olds)):
            request = olds[i].in_flight
            if request is not None:
                news[i].in_flight = request.copy(by_id[request.follower.id], by_id[request.leader.id])
        for i in range(len(olds)):
            for parked in olds[i].purgatory:
                copy = by_id[parked.follower.id].in_flight
                assert copy is not None and parked is parked.follower.in_flight   # purgatory holds in-flight fetches
                news[i].purgatory.append(copy)
        if source.delayed.produces:
            copies = self.producer.produces         # by place in send order: a request's ``order``
            self.delayed.produces = [copies[request.order] for request in source.delayed.produces]

    def clone(self) -> Cluster:
        """A complete, independent copy (see ``__init__``)."""
        return Cluster(self.config, self)

    UNKEYED: ClassVar[dict[str, str]] = {
        "by_id": "wiring: the replicas by name", "events": "observes: what the last steps did",
        "caps": "constant: the configuration's caps the key compares ages with (config)"}

    def key(self, ctx: KeyContext) -> tuple:
        """The state: what decides the partition's future - each part's own key (``state_key``),
        composed in a fixed order; what only observes it (events, polls, counters) is left out,
        and ``ctx`` may leave out more (the model checker's reductions)."""
        lag, session, auto_commit = self.caps
        ctx.at(self.time.now, lag, session, auto_commit)
        return (tuple([r.key(ctx) for r in self.replicas]), self.controller.key(ctx), self.channel.key(ctx),
                self.metadata.key(ctx), self.producer.key(ctx), self.delayed.key(ctx), self.consumer.key(ctx),
                self.clock.key(ctx))

    def release(self) -> None:
        """Break the reference cycles of a cluster that is done with - the declared ones (the
        channel publishes through the partition, the producer is answered through the delayed
        operations) and a request in flight's, which refers to its replicas and is parked in its
        leader's purgatory -, so it is freed by reference counting at once instead of by the cycle
        collector: the model checker drops most of the clones it makes, with the collector off.
        No other part refers back to one that holds it (``tests/check/test_check.py`` counts
        the garbage a search leaves). The cluster must not run steps afterwards."""
        for r in self.replicas:
            r.in_flight = None
            r.purgatory.clear()
        self.delayed.release()
        self.partition.release()

    @property
    def now(self) -> int:
        """The logical time (``time.now``)."""
        return self.time.now

    # ---------------------------------------------------------------------------- reading
    def replica(self, replica_id: str) -> Replica:
        try:
            return self.by_id[replica_id]
        except KeyError:
            raise ScenarioError(
                f"replica: {replica_id!r} is not a replica; allowed: {', '.join(self.by_id)}"
            ) from None

    @property
    def leader(self) -> Replica | None:
        lid = self.controller.leader
        return self.by_id[lid] if lid is not None else None

    @property
    def leader_epoch(self) -> int:
        return self.controller.leader_epoch

    @property
    def isr(self) -> tuple[str, ...]:
        return self.controller.isr

    @property
    def partition_hw(self) -> int | None:
        """The leader's HW, or None while the partition has no leader."""
        leader = self.leader
        return leader.hw if leader is not None else None

    # the HW lag, one definition for every view, table and figure: there is a lag only while a
    # leader serves the partition (the controller's leader, up and acting as leader: not between
    # its loss and the next leader's LeaderAndIsr)
    @property
    def serving_leader(self) -> Replica | None:
        """The controller's leader while it is up and acts as leader, else None."""
        leader = self.leader
        return leader if leader is not None and leader.online and leader.role == LEADER else None

    def hw_lag(self) -> int | None:
        """The partition's HW lag: the serving leader's LEO minus its HW (records written that
        no consumer may read yet), None without a serving leader."""
        leader = self.serving_leader
        return None if leader is None else len(leader.log.values) - leader.hw

    def follower_hw_lag(self, replica: Replica) -> int | None:
        """How far ``replica``'s HW trails the partition HW (the serving leader's); None for the
        leader itself, for a replica that is down, and without a serving leader."""
        leader = self.serving_leader
        if leader is None or replica is leader or not replica.online:
            return None
        return leader.hw - replica.hw

    # the clients' state, as the checks and traces read it
    @property
    def produces(self) -> list[ProduceRequest]:
        return self.producer.produces

    @property
    def acked(self) -> list[str]:
        return self.producer.acked

    @property
    def polls(self) -> list[tuple[int, list[tuple[int, int, str]]]]:
        return self.consumer.polls

    @property
    def consumer_position(self) -> int:
        return self.consumer.position

    @property
    def committed_offset(self) -> int:
        return self.consumer.committed_offset

    # ---------------------------------------------------------------------- step dispatch
    def apply(self, step: Step) -> None:
        """Apply one parsed ``hwlib.engine.steps.Step`` (the most frequent kinds first)."""
        kind = step.kind
        replica = step.replica    # set for every replica step (parse_step checks)
        if kind == "fetch":
            self.fetch(cast(str, replica))
        elif kind == "produce":
            self.produce(cast(str, step.value), step.acks, step.lose_ack, step.replica)
        elif kind == "fetch_request":
            self.fetch_request(cast(str, replica))
        elif kind == "fetch_response":
            self.fetch_response(cast(str, replica))
        elif kind == "tick":
            self.clock.tick(step.ms)
        elif kind == "crash":
            self.crash(cast(str, replica), step.lose_unflushed, step.detected)
        elif kind == "restart":
            self.restart(cast(str, replica))
        elif kind == "shutdown":
            self.shutdown(cast(str, replica))
        elif kind == "replace_disk":
            self.replace_disk(cast(str, replica))
        elif kind == "elect":
            self.elect(cast(str, replica))
        elif kind == "flush":
            self.flush(cast(str, replica))
        elif kind == "isolate":
            self.isolate(cast(str, replica), step.detected)
        elif kind == "reconnect":
            self.reconnect(cast(str, replica))
        elif kind == "deliver":
            self.deliver(cast(str, replica), step.count)
        elif kind == "controller_failover":
            self.controller_failover()
        elif kind == "delete_records":
            self.delete_records(step.offset)
        elif kind == "retention":
            self.retention(step.offset, step.replica)
        elif kind == "consume":
            self.consume(step.replica)
        elif kind == "commit":
            self.consumer.commit()
        elif kind == "consumer_crash":
            self.consumer.crash()
        elif kind == "retry":
            self.producer.retry()
        else:
            raise ScenarioError(f"step: unknown kind {kind!r}; allowed: {', '.join(STEP_KINDS)}")

    def skip_reason(self, step: Step) -> str | None:
        """Why ``step`` would do nothing in this state - the reason its ``skip`` event would
        give, asked of the same functions the step methods use - or None when it acts (the
        guard beside the effect, as a TLA+ action keeps them; the model checker asks it)."""
        kind = step.kind
        if kind == "controller_failover":
            return KRAFT_FAILOVER_SKIP if self.protocol.kraft else None
        if kind in ("produce", "tick", "consume", "commit", "consumer_crash"):
            return None
        if kind == "delete_records":
            return self.partition.delete_records_skip(self.serving_leader, step.offset)
        if kind == "retention":
            return self.retention_skip(step.offset, step.replica)
        if kind == "retry":
            return None if self.producer.retrying else RETRY_SKIP
        replica = self.replica(str(step.replica))
        fetcher = self.fetcher
        if kind == "fetch_request":
            return fetcher.request_skip(replica)
        if kind == "fetch_response":
            return fetcher.response_skip(replica)
        if kind == "fetch":      # a whole round, or the response of the request in flight
            return fetcher.request_skip(replica) if replica.in_flight is None else fetcher.response_skip(replica)
        return self.fault_skip(kind, replica)

    def skip(self, step: str, replica: str | None, reason: str) -> None:
        skip(self.events, step, replica, reason)

    # the client and replication steps, by the part that carries them out
    def produce(self, value: str, acks: str | None = None, lose_ack: bool = False,
                to: str | None = None) -> ProduceRequest:
        if to is not None:
            self.replica(to)
        return self.producer.produce(value, acks, lose_ack, to)

    def retry(self) -> None:
        self.producer.retry()

    def fetch(self, replica_id: str) -> None:
        """One whole round; if a request is already in flight, this delivers it instead."""
        follower = self.replica(replica_id)
        if follower.in_flight is None:
            self._fetch_request(follower)
        if follower.in_flight is not None:
            self._fetch_response(follower)

    def fetch_request(self, replica_id: str) -> None:
        """The follower's request travels to the broker it believes leads and is handled there."""
        self._fetch_request(self.replica(replica_id))

    def fetch_response(self, replica_id: str) -> None:
        """The follower's in-flight response travels back (a parked fetch first times out)."""
        self._fetch_response(self.replica(replica_id))

    def _fetch_request(self, follower: Replica) -> None:
        reason = self.fetcher.request_skip(follower)
        if reason is not None:
            return self.skip("fetch_request", follower.id, reason)
        self.replica_manager.fetch_messages(self.by_id[cast(str, follower.leader_id)], follower)
        return None

    def _fetch_response(self, follower: Replica) -> None:
        reason = self.fetcher.response_skip(follower)
        if reason is not None:
            return self.skip("fetch_response", follower.id, reason)
        request = cast(InFlight, follower.in_flight)
        if request.parked:              # the leader answers a parked fetch when its wait ends
            self.delayed.expire(request)
        if self.fetcher.handle_response(follower, request):
            # the broker exits (Kafka <= 2.0.0, "Exiting because log truncation is not
            # allowed"): a process crash with the page cache intact; its session ends
            self._stop(follower, lose_unflushed=False, detected=True)
        return None

    def consume(self, broker: str | None = None) -> list[tuple[int, int, str]]:
        if broker is not None:
            self.replica(broker)
        return self.consumer.consume(broker)

    def commit(self) -> None:
        self.consumer.commit()

    def consumer_crash(self) -> None:
        self.consumer.crash()

    # ----------------------------------------------------------------- faults and restarts
    def fault_skip(self, kind: str, replica: Replica) -> str | None:
        """Why the fault step ``kind`` on ``replica`` would change nothing - the reason its
        ``skip`` event gives - or None when it acts. The step methods and ``skip_reason`` both
        ask this, so the model checker and the steps cannot disagree."""
        if kind == "restart":
            return "replica is already online" if replica.online else None
        if kind == "replace_disk":
            if replica.online:
                return "replica is online (a disk is replaced while its broker is down)"
            if replica.id not in self.controller.dead:
                return ("the controller has not noticed the broker down (replacing a disk takes longer than "
                        "the session timeout)")
            return None
        if not replica.online:
            if kind == "crash":
                return "replica is already offline"
            return "replica is offline (a restart reconnects it)" if kind == "reconnect" else "replica is offline"
        ctl = self.controller
        if kind == "elect":
            if replica.id in ctl.dead:
                return "the controller sees the broker as failed"
            if ctl.leader == replica.id:
                return "replica is already the leader"
            if replica.id not in ctl.isr:
                return "replica is not in the ISR (clean election only)"
        elif kind == "isolate":
            if replica.isolated:
                return "replica is already isolated"
        elif kind in ("reconnect", "deliver"):
            if not replica.isolated:
                return "replica is not isolated" if kind == "reconnect" else \
                    "replica is not isolated: it gets each request at once"
            if kind == "deliver" and not self.channel.queues[replica.id]:
                return "no LeaderAndIsr request waits for it"
        return None

    def flush(self, replica_id: str) -> None:
        """Make the replica durable: log up to its LEO, HW checkpoint."""
        replica = self.replica(replica_id)
        reason = self.fault_skip("flush", replica)
        if reason is not None:
            return self.skip("flush", replica_id, reason)
        replica.log.flush()
        replica.hw_checkpoint = replica.hw
        self.events.append(("flush", replica_id, replica.log.flushed, replica.hw))
        return None

    def crash(self, replica_id: str, lose_unflushed: bool = False, detected: bool = True) -> None:
        """Process crash (``lose_unflushed``: power loss). The in-memory HW is lost; an
        undetected crash is a restart within the session timeout: ISR and leadership stay."""
        replica = self.replica(replica_id)
        reason = self.fault_skip("crash", replica)
        if reason is not None:
            return self.skip("crash", replica_id, reason)
        self._stop(replica, lose_unflushed, detected)
        return None

    def shutdown(self, replica_id: str) -> None:
        """Controlled shutdown (``controlled.shutdown.enable``, on by default), what a rolling
        restart does to each broker: the broker asks the controller to move its leadership and
        take it out of the ISR (``Controller.controlled_shutdown``), then stops cleanly - its
        log flushed and its HW checkpointed (``ReplicaManager.shutdown(checkpointHW = true)``,
        ``LogManager.shutdown``) - and the controller sees it go. A request that cannot reach
        the controller (ZooKeeper: the broker is isolated from it; KRaft: its heartbeats do not
        get through) fails: after ``controlled.shutdown.max.retries`` the broker stops anyway,
        still cleanly. The step is atomic: nothing happens between the handover and the stop."""
        replica = self.replica(replica_id)
        reason = self.fault_skip("shutdown", replica)
        if reason is not None:
            return self.skip("shutdown", replica_id, reason)
        kraft = self.protocol.kraft
        granted = replica_id not in self.controller.dead and (kraft or not replica.isolated)
        self.events.append(("shutdown", replica_id, granted, kraft))
        if granted:
            self.channel.on_controlled_shutdown(replica)
        replica.log.flush()
        replica.hw_checkpoint = replica.hw
        self._stop(replica, lose_unflushed=False, detected=True, clean=True)
        return None

    def _stop(self, replica: Replica, lose_unflushed: bool, detected: bool, clean: bool = False) -> None:
        """The broker's process ends (a crash, a power loss, Kafka's own exit or, ``clean``, a
        controlled shutdown)."""
        replica_id = replica.id
        replica.online = False
        self.fetcher.drop_in_flight(replica)
        if replica.role == LEADER:
            self.partition.stop_leading(replica, NETWORK_EXCEPTION)
        replica.role = OFFLINE
        replica.remotes = {}
        lost = 0
        if lose_unflushed:
            lost = replica.log.truncate_to(replica.log.flushed)
        replica.hw = min(replica.hw_checkpoint, replica.leo)
        replica.crashed_at_ms = self.time.now
        replica.unclean_shutdown = lose_unflushed
        self.events.append(("stopped", replica_id) if clean else ("crash", replica_id, lost, detected))
        if detected:
            self.channel.on_broker_failure(replica)

    def restart(self, replica_id: str) -> None:
        """The broker comes back from disk, a new process with no partition state (its leader
        epoch unknown), and learns its role from the controller: the current state only -
        requests queued for the old process are dropped (from Kafka 1.1 the controller handles
        the re-registration as a bounce and re-creates the channel; up to 0.11 KIP-101's
        quick restart learns the current state too)."""
        replica = self.replica(replica_id)
        reason = self.fault_skip("restart", replica)
        if reason is not None:
            return self.skip("restart", replica_id, reason)
        replica.online = True
        replica.crashed_at_ms = None
        # loading the log drops epoch-cache entries starting at its end (Kafka 0.11's Log init
        # clearAndFlushLatest(nextOffset), truncateFromEnd from 2.1 on): an (epoch, LEO) entry a
        # leader cached at election without appending is gone after a restart
        replica.log.cache.truncate_from_end(replica.leo)
        replica.hw = min(replica.hw_checkpoint, replica.leo)
        if self.protocol.hw_in_log and replica.hw < replica.log.start:
            # 2.4.0 Partition.createLogIfNotExists: log.updateHighWatermark(checkpointHighWatermark)
            # keeps the HW within [log start, LEO] (before, makeLeader did it for a leader)
            replica.hw = replica.log.start
        replica.fetch_state = FETCHING
        replica.role = FOLLOWER
        replica.leader_id = None
        replica.leader_epoch = -1
        replica.partition_epoch = -1
        # a new process has no partition state: no cached ISR and no start offset of a leader
        # epoch until a LeaderAndIsr makes it leader (a new Partition's inSyncReplicaIds is
        # Set.empty and its leaderEpochStartOffsetOpt None, 0.10.2 to 3.x)
        replica.isr = ()
        replica.leader_epoch_start = 0
        replica.awaiting_leader = True
        replica.isolated = False   # a new process: a new ZooKeeper session and controller channel
        self.channel.drop(replica_id)
        self.events.append(("restart", replica_id))
        ctl = self.controller
        unclean, replica.unclean_shutdown = replica.unclean_shutdown, False
        if self.protocol.notices_restarts and replica_id not in ctl.dead:
            # the broker re-registers: the controller sees the bounce (failure, then startup)
            self.events.append(("bounced", replica_id))
            self.channel.on_broker_failure(replica)
        if replica_id in ctl.dead:
            self.channel.on_broker_startup(replica, unclean)
        else:
            self.channel.send(replica, ctl.leader_and_isr())
        return None

    def replace_disk(self, replica_id: str) -> None:
        """The broker, down and noticed, comes back on a new, empty disk (KAFKA-14139): no log,
        no HW checkpoint, no leader-epoch cache - then restarts as ``restart`` does. A new disk
        has no clean-shutdown marker, so KIP-966 counts it an unclean shutdown."""
        replica = self.replica(replica_id)
        reason = self.fault_skip("replace_disk", replica)
        if reason is not None:
            return self.skip("replace_disk", replica_id, reason)
        log = replica.log
        lost = log.truncate_to(0)
        log.cache.truncate_from_end(0)
        replica.hw_checkpoint = 0
        replica.unclean_shutdown = True
        self.events.append(("replace_disk", replica_id, lost))
        return self.restart(replica_id)

    def delete_records(self, offset: int) -> None:
        """The admin client's DeleteRecords before ``offset`` (KIP-107), sent to the leader."""
        leader = self.serving_leader
        reason = self.partition.delete_records_skip(leader, offset)
        if reason is not None or leader is None:
            return self.skip("delete_records", None, reason or "no online leader")
        self.partition.delete_records_on_leader(leader, offset)
        return None

    def _retention_targets(self, replica_id: str | None) -> list[Replica]:
        """The online brokers whose retention runs: ``replica_id``'s, or every one."""
        chosen = [self.replica(replica_id)] if replica_id is not None else self.replicas
        return [r for r in chosen if r.online]

    def retention_skip(self, offset: int, replica_id: str | None) -> str | None:
        """Why retention below ``offset`` (on one broker, or every online one) deletes nothing."""
        targets = self._retention_targets(replica_id)
        if replica_id is not None and not targets:
            return "replica is offline"
        if any(self.partition.retention_bound(r, offset) > r.log.start for r in targets):
            return None
        below = "" if offset < 0 else f" below offset {offset}"
        return f"nothing{below} to delete" + (" under the HW" if self.protocol.retention_bounded_by_hw else "")

    def retention(self, offset: int, replica_id: str | None = None) -> None:
        """Retention deletes the segments below ``offset`` on ``replica_id``'s broker, or on every
        online broker (each bounded by its own HW from 0.11.0.1)."""
        reason = self.retention_skip(offset, replica_id)
        if reason is not None:
            return self.skip("retention", replica_id, reason)
        for r in self._retention_targets(replica_id):
            self.partition.delete_old_segments(r, offset)
        return None

    def elect(self, replica_id: str) -> None:
        """Controller moves leadership to ``replica_id`` (clean: it must be a live ISR member)."""
        replica = self.replica(replica_id)
        reason = self.fault_skip("elect", replica)
        if reason is not None:
            return self.skip("elect", replica_id, reason)
        ctl = self.controller
        old_leader = ctl.leader
        ctl.move_leadership(replica_id)
        self.channel.send_leader_and_isr(old_leader)
        return None

    def isolate(self, replica_id: str, detected: bool = True) -> None:
        """The controller can no longer reach the broker: LeaderAndIsr requests to it wait in
        its queue until ``deliver`` or ``reconnect`` (a restart drops them). The broker keeps
        running on what it knows - a follower keeps fetching from the leader it knew, a leader
        keeps leading (a zombie), its ISR changes wait (kip595+). ZooKeeper mode:
        ``detected`` - its ZooKeeper session expires too, so the controller handles it as
        failed (KAFKA-6880) and sends it nothing until it re-registers; otherwise the
        controller still counts it live, may elect it, and queues its requests. KRaft
        (kip841+): the queue is the metadata it has not replayed; ``detected`` - its heartbeats
        stop and the controller fences it after broker.session.timeout.ms; otherwise its
        heartbeats get through (it stays unfenced and electable) but it replays no metadata."""
        replica = self.replica(replica_id)
        reason = self.fault_skip("isolate", replica)
        if reason is not None:
            return self.skip("isolate", replica_id, reason)
        replica.isolated = True
        self.events.append(("isolate", replica_id, detected))
        if detected:
            self.channel.on_broker_failure(replica)
        return None

    def reconnect(self, replica_id: str) -> None:
        """The broker reaches the controller again: it applies every queued LeaderAndIsr in
        order; after an expired session it re-registers and gets the current state."""
        replica = self.replica(replica_id)
        reason = self.fault_skip("reconnect", replica)
        if reason is not None:
            return self.skip("reconnect", replica_id, reason)
        replica.isolated = False
        self.events.append(("reconnect", replica_id))
        if replica.alter_isr is not None:
            # its AlterIsr (kip595+), sent while it could not reach the controller, arrives first
            if self.partition.alter_isr_answered(replica):
                self.partition.isr_answer_hw(replica)
        if replica_id in self.controller.dead:
            # ZooKeeper: a new session, a new registration; KRaft: heartbeats again, caught up on
            # metadata, unfenced under the same registration (broker epoch)
            self.channel.on_broker_startup(replica, unclean_shutdown=False, registers=not self.protocol.kraft)
        else:
            self.channel.deliver(replica)
        return None

    def deliver(self, replica_id: str, count: int = 1) -> None:
        """The controller's send thread gets through to an isolated broker once: the broker
        applies its ``count`` oldest queued LeaderAndIsr requests, in order, and stays cut off
        (a broker acting on a superseded request, late)."""
        replica = self.replica(replica_id)
        reason = self.fault_skip("deliver", replica)
        if reason is not None:
            return self.skip("deliver", replica_id, reason)
        self.channel.deliver(replica, count)
        return None

    def controller_failover(self) -> None:
        """A new controller takes over (ZooKeeper mode): every queued request is dropped, and
        each live broker gets the current state only - at once if it can be reached (it has it
        already), else when it is reached again. An unreachable broker thus skips the epochs
        in between. Under KRaft the metadata log survives a failover: nothing changes (a skip);
        there a broker skips epochs by replaying several changes in one delta (``deliver``
        with a count, ``reconnect``)."""
        if self.protocol.kraft:
            return self.skip("controller_failover", None, KRAFT_FAILOVER_SKIP)
        self.channel.failover()
        return None

    def tick(self, ms: int) -> None:
        """Advance logical time by ``ms`` (see ``Clock``)."""
        self.clock.tick(ms)
