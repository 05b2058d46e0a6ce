"""The partition's brokers as one system: owns their parts, dispatches steps, injects faults, moves time.

Kafka's concerns live where Kafka keeps them: the controller's decisions in ``controller``
and its channel to the brokers in ``channel``; each broker's ``ReplicaManager``
(``replica_manager``), the leader side of its ``Partition`` (``partition``) and its fetcher
thread (``fetcher``); the clients in ``producer``, ``consumer`` and ``metadata``. This module
wires them, applies the fault steps (crash, restart, isolation, leader moves, failover) and
runs what falls due as logical time passes. Every step is total: a step that cannot act (a
fetch from an offline replica, say) records a ``skip`` event and changes nothing.
"""

from __future__ import annotations

from typing import cast

from .channel import ControllerChannel
from .config import ClusterConfig
from .consumer import Consumer
from .controller import Controller
from .errors import ScenarioError
from .fetcher import ReplicaFetcher
from .kafka_errors import NETWORK_EXCEPTION
from .metadata import ClientMetadata
from .partition import Partition
from .producer import Producer, ProduceRequest
from .protocols import get_protocol
from .replica import FETCHING, FOLLOWER, LEADER, OFFLINE, Replica
from .replica_manager import ReplicaManager
from .steps import STEP_KINDS, Step

__all__ = ["Cluster", "ProduceRequest"]

class Cluster:
    """One partition: ``config.replicas`` in assignment order; the first leads epoch 0 at start,
    all logs empty, ISR = all replicas, the leader's remote LEOs known to be 0."""

    def __init__(self, config: ClusterConfig) -> None:
        self.config = config
        self.protocol = get_protocol(config.protocol)
        self.replicas = [Replica(rid, i) for i, rid in enumerate(config.replicas)]
        self.by_id = {r.id: r for r in self.replicas}
        self.now = 0
        self.events: list[tuple] = []
        self._lag = config.replica_lag_time_max_ms
        self._next_isr_check = self._lag // 2
        self._next_checkpoint = config.replica_high_watermark_checkpoint_interval_ms
        self.controller = Controller(config.replicas, config.unclean_leader_election,
                                     elr=self.protocol.eligible_leader_replicas,
                                     min_insync_replicas=config.min_insync_replicas)
        first = self.replicas[0]
        self.controller.leader = self.controller.last_known_leader = first.id
        self.controller.leader_epoch = 0
        for r in self.replicas:
            r.leader_id = first.id
            r.leader_epoch = 0
        self.channel = ControllerChannel(self)
        self.metadata = ClientMetadata(self.controller, self.events, config.client_metadata == "stale")
        self.partition = Partition(self)
        self.replica_manager = ReplicaManager(self)
        self.fetcher = ReplicaFetcher(self)
        self.producer = Producer(self)
        self.consumer = Consumer(self)
        self.partition.make_leader(first, self.controller.leader_and_isr(), is_new_leader=True, initial=True)

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
        """Apply one parsed ``hwlib.steps.Step`` (the most frequent kinds first)."""
        kind = step.kind
        replica = step.replica    # set for every replica step (parse_step checks)
        if kind == "fetch":
            self.fetcher.fetch(cast(str, replica))
        elif kind == "produce":
            self.producer.produce(cast(str, step.value), step.acks, step.lose_ack, step.replica)
        elif kind == "fetch_request":
            self.fetcher.fetch_request(cast(str, replica))
        elif kind == "fetch_response":
            self.fetcher.fetch_response(cast(str, replica))
        elif kind == "tick":
            self.tick(step.ms)
        elif kind == "crash":
            self.crash(cast(str, replica), step.lose_unflushed, step.detected)
        elif kind == "restart":
            self.restart(cast(str, replica))
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
        elif kind == "consume":
            self.consumer.consume(step.replica)
        elif kind == "commit":
            self.consumer.commit()
        elif kind == "consumer_crash":
            self.consumer.crash()
        elif kind == "retry":
            self.producer.retry()
        else:
            raise ScenarioError(f"step: unknown kind {kind!r}; allowed: {', '.join(STEP_KINDS)}")

    def skip(self, step: str, replica: str | None, reason: str) -> None:
        self.events.append(("skip", step, replica, reason))

    # the client and replication steps, by the part that carries them out
    def produce(self, value: str, acks: str | None = None, lose_ack: bool = False,
                to: str | None = None) -> ProduceRequest:
        return self.producer.produce(value, acks, lose_ack, to)

    def retry(self) -> None:
        self.producer.retry()

    def fetch(self, replica_id: str) -> None:
        self.fetcher.fetch(replica_id)

    def fetch_request(self, replica_id: str) -> None:
        self.fetcher.fetch_request(replica_id)

    def fetch_response(self, replica_id: str) -> None:
        self.fetcher.fetch_response(replica_id)

    def consume(self, broker: str | None = None) -> list[tuple[int, int, str]]:
        return self.consumer.consume(broker)

    def commit(self) -> None:
        self.consumer.commit()

    def consumer_crash(self) -> None:
        self.consumer.crash()

    # ------------------------------------------------------------------------- controller
    def note_membership(self, old_isr: tuple[str, ...], old_elr: tuple[str, ...], reason: str) -> None:
        """Events for whatever changed in the ISR and (kip966) the ELR."""
        ctl = self.controller
        if ctl.isr != old_isr:
            self.events.append(("isr", old_isr, ctl.isr, reason))
        if ctl.elr != old_elr:
            self.events.append(("elr", old_elr, ctl.elr))

    def _on_broker_failure(self, replica: Replica) -> None:
        """The controller handles a failed broker: its channel and queue go (removeBroker)."""
        ctl = self.controller
        self.channel.drop(replica.id)
        old_leader, old_isr, old_elr = ctl.leader, ctl.isr, ctl.elr
        if ctl.on_broker_failure(replica.id):
            self.note_membership(old_isr, old_elr, f"controller: {replica.id} failed")
            self.channel.send_leader_and_isr(old_leader)

    def _on_broker_startup(self, replica: Replica, unclean_shutdown: bool) -> None:
        """A broker (re-)registers: elect if the partition has no leader, else send it the
        current state (onBrokerStartup)."""
        ctl = self.controller
        old_leader, old_isr, old_elr = ctl.leader, ctl.isr, ctl.elr
        elected = ctl.on_broker_startup(replica.id, unclean_shutdown)
        self.note_membership(old_isr, old_elr, f"election of {ctl.leader}")
        if elected:
            self.channel.send_leader_and_isr(old_leader)
        else:
            self.channel.send(replica, ctl.leader_and_isr())

    # ----------------------------------------------------------------- faults and restarts
    def flush(self, replica_id: str) -> None:
        """Make the replica durable: log up to its LEO, HW checkpoint."""
        replica = self.replica(replica_id)
        if not replica.online:
            return self.skip("flush", replica_id, "replica is offline")
        replica.log.flush()
        replica.hw_checkpoint = replica.hw
        self.events.append(("flush", replica_id, replica.log.flushed, replica.hw))
        return None

    def crash(self, replica_id: str, lose_unflushed: bool = False, detected: bool = True) -> None:
        """Process crash (``lose_unflushed``: power loss). The in-memory HW is lost; an
        undetected crash is a restart within the session timeout: ISR and leadership stay."""
        replica = self.replica(replica_id)
        if not replica.online:
            return self.skip("crash", replica_id, "replica is already offline")
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
        replica.crashed_at_ms = self.now
        replica.unclean_shutdown = lose_unflushed
        self.events.append(("crash", replica_id, lost, detected))
        if detected:
            self._on_broker_failure(replica)
        return None

    def restart(self, replica_id: str) -> None:
        """The broker comes back from disk, a new process with no partition state (its leader
        epoch unknown), and learns its role from the controller: the current state only -
        requests queued for the old process are dropped (from Kafka 1.1 the controller handles
        the re-registration as a bounce and re-creates the channel; up to 0.11 the SPEC's
        quick restart learns the current state too)."""
        replica = self.replica(replica_id)
        if replica.online:
            return self.skip("restart", replica_id, "replica is already online")
        replica.online = True
        replica.crashed_at_ms = None
        replica.hw = min(replica.hw_checkpoint, replica.leo)
        replica.fetch_state = FETCHING
        replica.role = FOLLOWER
        replica.leader_id = None
        replica.leader_epoch = -1
        replica.awaiting_leader = True
        replica.isolated = False   # a new process: a new ZooKeeper session and controller channel
        self.channel.drop(replica_id)
        self.events.append(("restart", replica_id))
        ctl = self.controller
        unclean, replica.unclean_shutdown = replica.unclean_shutdown, False
        if self.protocol.notices_restarts and replica_id not in ctl.dead:
            # the broker re-registers: the controller sees the bounce (failure, then startup)
            self.events.append(("bounced", replica_id))
            self._on_broker_failure(replica)
        if replica_id in ctl.dead:
            self._on_broker_startup(replica, unclean)
        else:
            self.channel.send(replica, ctl.leader_and_isr())
        return None

    def elect(self, replica_id: str) -> None:
        """Controller moves leadership to ``replica_id`` (clean: it must be a live ISR member)."""
        replica = self.replica(replica_id)
        ctl = self.controller
        if not replica.online:
            return self.skip("elect", replica_id, "replica is offline")
        if replica_id in ctl.dead:
            return self.skip("elect", replica_id, "the controller sees the broker as failed")
        if ctl.leader == replica_id:
            return self.skip("elect", replica_id, "replica is already the leader")
        if replica_id not in ctl.isr:
            return self.skip("elect", replica_id, "replica is not in the ISR (clean election only)")
        old_leader = ctl.leader
        ctl.move_leadership(replica_id)
        self.channel.send_leader_and_isr(old_leader)
        return None

    def isolate(self, replica_id: str, detected: bool = True) -> None:
        """The controller can no longer reach the broker: LeaderAndIsr requests to it wait in
        its queue until ``deliver`` or ``reconnect`` (a restart drops them). The broker keeps
        running on what it knows - a follower keeps fetching from the leader it knew, a leader
        keeps leading (a zombie). ``detected``: its ZooKeeper session expires too, so the
        controller handles it as failed (KAFKA-6880) and sends it nothing until it
        re-registers; otherwise the controller still counts it live, may elect it, and queues
        its requests."""
        replica = self.replica(replica_id)
        if not replica.online:
            return self.skip("isolate", replica_id, "replica is offline")
        if replica.isolated:
            return self.skip("isolate", replica_id, "replica is already isolated")
        replica.isolated = True
        self.events.append(("isolate", replica_id, detected))
        if detected:
            self._on_broker_failure(replica)
        return None

    def reconnect(self, replica_id: str) -> None:
        """The broker reaches the controller again: it applies every queued LeaderAndIsr in
        order; after an expired session it re-registers and gets the current state."""
        replica = self.replica(replica_id)
        if not replica.online:
            return self.skip("reconnect", replica_id, "replica is offline (a restart reconnects it)")
        if not replica.isolated:
            return self.skip("reconnect", replica_id, "replica is not isolated")
        replica.isolated = False
        self.events.append(("reconnect", replica_id))
        if replica_id in self.controller.dead:
            self._on_broker_startup(replica, unclean_shutdown=False)
        else:
            self.channel.deliver(replica)
        return None

    def deliver(self, replica_id: str, count: int = 1) -> None:
        """The controller's send thread gets through to an isolated broker once: the broker
        applies its ``count`` oldest queued LeaderAndIsr requests, in order, and stays cut off
        (a broker acting on a superseded request, late)."""
        replica = self.replica(replica_id)
        if not replica.online:
            return self.skip("deliver", replica_id, "replica is offline")
        if not replica.isolated:
            return self.skip("deliver", replica_id, "replica is not isolated: it gets each request at once")
        if not self.channel.queues[replica_id]:
            return self.skip("deliver", replica_id, "no LeaderAndIsr request waits for it")
        self.channel.deliver(replica, count)
        return None

    def controller_failover(self) -> None:
        """A new controller takes over (ZooKeeper-era failover; under KRaft, a broker that
        applies several partition changes in one metadata delta): every queued request is
        dropped, and each live broker gets the current state only - at once if it can be
        reached (it has it already), else when it is reached again. An unreachable broker
        thus skips the epochs in between."""
        self.channel.failover()

    # ------------------------------------------------------------------------------- time
    def tick(self, ms: int) -> None:
        """Advance logical time by ``ms``, running what falls due in time order: parked fetch
        and produce timeouts, session timeouts, ISR shrink checks (every lag/2), HW checkpoints."""
        if ms < 0:
            raise ScenarioError(f"tick: milliseconds must be >= 0, got {ms}")
        target = self.now + ms
        while True:
            due = self._next_due()
            if due is None or due > target:
                break
            self.now = due
            self._run_due(due)
        self.now = target
        self.events.append(("time", target))

    def _next_due(self) -> int | None:
        candidates = [self._next_isr_check, self._next_checkpoint]
        for r in self.replicas:
            for request in r.purgatory:
                candidates.append(request.deadline)
            if not r.online and r.crashed_at_ms is not None and r.id not in self.controller.dead:
                candidates.append(r.crashed_at_ms + self.config.session_timeout_ms)
        for produce in self.producer.pending:
            candidates.append(produce.deadline)
        return min(candidates)

    def _run_due(self, now: int) -> None:
        for r in self.replicas:
            for request in [q for q in r.purgatory if q.deadline <= now]:
                self.replica_manager.expire(request)
        self.producer.time_out(now)
        for r in self.replicas:
            if (not r.online and r.crashed_at_ms is not None and r.id not in self.controller.dead
                    and r.crashed_at_ms + self.config.session_timeout_ms <= now):
                self.events.append(("detected", r.id))
                self._on_broker_failure(r)
        if self._next_isr_check <= now:
            self._next_isr_check += self._lag // 2
            for r in self.replicas:   # every broker that believes it leads (zombies too)
                if r.online and r.role == LEADER:
                    self.partition.maybe_shrink_isr(r)
        if self._next_checkpoint <= now:
            self._next_checkpoint += self.config.replica_high_watermark_checkpoint_interval_ms
            for r in self.replicas:
                if r.online and r.hw_checkpoint != r.hw:
                    r.hw_checkpoint = r.hw
                    self.events.append(("checkpoint", r.id, r.hw))
