"""The controller's channel to the brokers: LeaderAndIsr requests through a FIFO per broker (ControllerChannelManager).

Kafka's ZooKeeper-era controller queues the requests for each broker and a send thread per
broker delivers them in order, retrying until the broker answers (``ControllerChannelManager``,
0.8 to 3.x). So a broker the controller cannot reach applies every request it missed, in
order, once it can be reached again - possibly long after other brokers acted on newer ones.
A broker the controller believes dead has no queue at all: ``removeBroker`` drops it, and
the broker learns the current state when it comes back (``onBrokerStartup``). A controller
failover drops every queue too: the new controller sends the current state only (under
KRaft the same happens when a broker applies several partition changes in one metadata
delta).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .controller import LeaderAndIsr
from .kafka_errors import NOT_LEADER_OR_FOLLOWER

if TYPE_CHECKING:
    from .cluster import Cluster
    from .replica import Replica


class ControllerChannel:
    """The requests each broker has not received yet, oldest first, and their delivery."""

    def __init__(self, cluster: Cluster, source: ControllerChannel | None = None) -> None:
        self.cluster = cluster
        self.events = cluster.events
        self.queues: dict[str, list[LeaderAndIsr]] = (
            {r.id: [] for r in cluster.replicas} if source is None
            else {broker: list(queue) for broker, queue in source.queues.items()})   # requests never change

    def send_leader_and_isr(self, old_leader: str | None) -> None:
        """The controller sends its new (leader, epoch, ISR) to every broker, the new leader
        first; once it took over, the old leader's pending produces fail (the producer's
        retries go to the new one)."""
        cluster = self.cluster
        request = cluster.controller.leader_and_isr()
        new_leader = request.leader
        self.events.append(("leader", old_leader, new_leader, request.epoch))
        if new_leader is not None:
            self.send(cluster.by_id[new_leader], request)
        if old_leader is not None and old_leader != new_leader and not cluster.by_id[old_leader].isolated:
            cluster.producer.fail_pending(old_leader, NOT_LEADER_OR_FOLLOWER)
        for r in cluster.replicas:
            if r.id != new_leader:
                self.send(r, request)

    def send(self, r: Replica, request: LeaderAndIsr) -> None:
        """Nothing for a broker the controller believes dead (no channel) or that is down (a
        restart learns the current state); queued while the broker cannot be reached;
        otherwise handled at once."""
        if not r.online or r.id in self.cluster.controller.dead:
            return
        if r.isolated:
            self.queues[r.id].append(request)
            self.events.append(("leader_and_isr_queued", r.id, request.epoch, request.leader))
            return
        self.cluster.replica_manager.become_leader_or_follower(r, request)

    def deliver(self, r: Replica, count: int | None = None) -> int:
        """The broker applies its ``count`` oldest queued requests (all with None), in order;
        returns how many."""
        queue = self.queues[r.id]
        n = len(queue) if count is None else min(count, len(queue))
        taken, queue[:n] = queue[:n], []
        for request in taken:
            self.cluster.replica_manager.become_leader_or_follower(r, request, queued=True)
        return n

    def drop(self, broker: str) -> int:
        """Forget what waits for ``broker`` (removeBroker); returns how many requests."""
        queue = self.queues[broker]
        n = len(queue)
        queue.clear()
        return n

    def failover(self) -> None:
        """A new controller: every queue dropped; unreachable live brokers get the current
        state queued (reachable ones have it already)."""
        dropped = sum(self.drop(r) for r in self.queues)
        self.events.append(("controller_failover", dropped))
        request = self.cluster.controller.leader_and_isr()
        for r in self.cluster.replicas:
            if r.isolated:
                self.send(r, request)

    def pending(self, broker: str) -> tuple[LeaderAndIsr, ...]:
        return tuple(self.queues[broker])
