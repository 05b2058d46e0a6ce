"""The controller's channel to the brokers: LeaderAndIsr requests through a FIFO per broker (ControllerChannelManager).

Kafka's ZooKeeper-era controller queues the requests for each broker and a send thread per
broker delivers them in order, retrying until the broker answers (``ControllerChannelManager``,
0.8 to 3.x). So a broker the controller cannot reach applies every request it missed, in
order, once it can be reached again - possibly long after other brokers acted on newer ones.
A broker the controller believes dead has no queue at all: ``removeBroker`` drops it, and
the broker learns the current state when it comes back (``onBrokerStartup``). A controller
failover drops every queue too: the new controller sends the current state only.

Under KRaft (kip841+) the queue is the part of the metadata log a broker has not replayed
yet. It replays in order, but every record of one commit it reads lands in one metadata delta
(3.3's ``BrokerMetadataListener.HandleCommitsEvent`` loads all batches, then publishes once)
and ``ReplicaManager.applyDelta`` acts on the partition's final state only: so ``deliver``
with a count, and a broker reaching the controller again, apply the changes they take in one
delta - the epochs in between are skipped. A controller failover drops nothing (the log
survives it). A fenced broker that comes back catches up in one delta too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from .controller import Controller, LeaderAndIsr, membership_events
from .kafka_errors import NOT_LEADER_OR_FOLLOWER

if TYPE_CHECKING:
    from .delayed import DelayedOperations
    from .replica import Replica
    from .replica_manager import ReplicaManager
    from .state_key import KeyContext


class ControllerChannel:
    """The requests each broker has not received yet, oldest first, and their delivery to the
    broker's ``ReplicaManager``; an old leader's waiting produces fail in its purgatory. It
    also carries the controller's handling of a broker that fails or (re-)registers
    (``KafkaController.onBrokerFailure`` / ``onBrokerStartup``): the decision is the
    controller's, what reaches the brokers is the channel's."""

    def __init__(self, controller: Controller, events: list, replicas: list[Replica], replica_manager: ReplicaManager,
                 delayed: DelayedOperations, kraft: bool = False, source: ControllerChannel | None = None) -> None:
        self.controller = controller
        self.kraft = kraft
        self.events = events
        self.replicas = replicas
        self.by_id = {r.id: r for r in replicas}
        self.replica_manager = replica_manager
        self.delayed = delayed
        #: what waits for each broker, oldest first. A queue is never changed in place, only
        #: replaced (``send``, ``deliver``, ``drop``), so a copy shares its source's (and the
        #: requests never change)
        self.queues: dict[str, list[LeaderAndIsr]] = (
            {r.id: [] for r in replicas} if source is None else dict(source.queues))

    UNKEYED: ClassVar[dict[str, str]] = {
        "kraft": "constant: the rules' controller (KRaft or ZooKeeper)",
        "replicas": "wiring: the brokers it delivers to", "by_id": "wiring: the brokers by name",
        "events": "observes: the run's events"}

    def key(self, ctx: KeyContext) -> tuple:
        """Its state (see ``state_key``): the changes waiting for each broker, oldest first."""
        queues = self.queues
        return tuple([tuple([q.key(ctx) for q in queues[r.id]]) if ctx.queue_read(r.online, r.index) else ()
                      for r in self.replicas])

    def send_leader_and_isr(self, old_leader: str | None) -> None:
        """The controller sends its new (leader, epoch, ISR) to every broker, the new leader
        first; once it took over, the old leader's pending produces fail (the producer's
        retries go to the new one)."""
        ctl = self.controller
        request = ctl.leader_and_isr()
        new_leader = request.leader
        # how the leader was chosen (``controller.ELECTIONS``): only a new leader was elected
        election = ctl.election if new_leader != old_leader else None
        ctl.election = None
        self.events.append(("leader", old_leader, new_leader, request.epoch, election))
        if new_leader is not None:
            self.send(self.by_id[new_leader], request)
        if old_leader is not None and old_leader != new_leader and not self.by_id[old_leader].isolated:
            self.delayed.fail(old_leader, NOT_LEADER_OR_FOLLOWER)
        for r in self.replicas:
            if r.id != new_leader:
                self.send(r, request)

    def on_broker_failure(self, replica: Replica) -> None:
        """The controller handles a failed broker: its channel and queue go (removeBroker);
        a changed leader or ISR is sent to the others."""
        ctl = self.controller
        self.drop(replica.id)
        old_leader, old_isr, old_elr = ctl.leader, ctl.isr, ctl.elr
        if ctl.on_broker_failure(replica.id):
            self.events.extend(membership_events(ctl, old_isr, old_elr, f"controller: {replica.id} failed"))
            self.send_leader_and_isr(old_leader)

    def on_controlled_shutdown(self, replica: Replica) -> None:
        """The controller moves leadership off a broker that asked to shut down and takes it out
        of the ISR (``Controller.controlled_shutdown``); the change reaches every broker, the
        one shutting down too (ZooKeeper: KAFKA-7482 from 2.1 and before 1.1; KRaft: it still
        replays the metadata log)."""
        ctl = self.controller
        old_leader, old_isr, old_elr = ctl.leader, ctl.isr, ctl.elr
        if ctl.controlled_shutdown(replica.id, self.kraft):
            self.events.extend(membership_events(ctl, old_isr, old_elr, f"controller: {replica.id} shutting down"))
            if self.kraft:
                # KIP-841 (3.3+): a broker in controlled shutdown is not ISR-eligible
                # (``Partition.isReplicaIsrEligible``: ``isBrokerShuttingDown``), so the leader's HW
                # stops waiting for it when the change arrives
                ctl.shutting_down = replica.id
            self.send_leader_and_isr(old_leader)
            ctl.shutting_down = None

    def on_broker_startup(self, replica: Replica, unclean_shutdown: bool, registers: bool = True) -> None:
        """A broker (re-)registers - or, under KRaft, is unfenced (``registers`` False: the same
        registration) - : elect if the partition has no leader, else send it the current state."""
        ctl = self.controller
        old_leader, old_isr, old_elr = ctl.leader, ctl.isr, ctl.elr
        elected = ctl.on_broker_startup(replica.id, unclean_shutdown, registers)
        if not elected:
            ctl.election = None       # an election that found nobody wrote nothing
        self.events.extend(membership_events(ctl, old_isr, old_elr, f"election of {ctl.leader}"))
        if elected:
            self.send_leader_and_isr(old_leader)
        else:
            self.send(replica, ctl.leader_and_isr())

    def send(self, r: Replica, request: LeaderAndIsr) -> None:
        """Nothing for a broker the controller believes dead (no channel) or that is down (a
        restart learns the current state); queued while the broker cannot be reached;
        otherwise handled at once."""
        if not r.online or r.id in self.controller.dead:
            return
        if r.isolated:
            self.queues[r.id] = [*self.queues[r.id], request]
            self.events.append(("leader_and_isr_queued", r.id, request.epoch, request.leader))
            return
        self.replica_manager.become_leader_or_follower(r, request)

    def publish(self, request: LeaderAndIsr) -> None:
        """KRaft: a partition change the leader's AlterPartition made reaches every broker (the
        leader first), as every record of the metadata log does."""
        leader = request.leader
        if leader is not None:
            self.send(self.by_id[leader], request)
        for r in self.replicas:
            if r.id != leader:
                self.send(r, request)

    def deliver(self, r: Replica, count: int | None = None) -> int:
        """The broker applies its ``count`` oldest queued requests (all with None), in order -
        under KRaft in one metadata delta, i.e. only the newest of them; returns how many."""
        queue = self.queues[r.id]
        n = len(queue) if count is None else min(count, len(queue))
        taken, self.queues[r.id] = queue[:n], queue[n:]
        if self.kraft and n > 1:
            self.events.append(("metadata_delta", r.id, n, taken[-1].epoch))
            taken = taken[-1:]
        for request in taken:
            self.replica_manager.become_leader_or_follower(r, request, queued=True)
        return n

    def drop(self, broker: str) -> int:
        """Forget what waits for ``broker`` (removeBroker); returns how many requests."""
        n = len(self.queues[broker])
        self.queues[broker] = []
        return n

    def failover(self) -> None:
        """A new controller: every queue dropped; unreachable live brokers get the current
        state queued (reachable ones have it already)."""
        dropped = sum(self.drop(r) for r in self.queues)
        self.events.append(("controller_failover", dropped))
        request = self.controller.leader_and_isr()
        for r in self.replicas:
            if r.isolated:
                self.send(r, request)

    def longest_queue(self) -> int:
        """How many requests wait for the running broker furthest behind (a broker that is down
        never reads its queue: its restart drops it)."""
        longest = 0
        for r in self.replicas:
            if r.online and len(self.queues[r.id]) > longest:
                longest = len(self.queues[r.id])
        return longest

    def pending(self, broker: str) -> tuple[LeaderAndIsr, ...]:
        return tuple(self.queues[broker])
