"""The controller's channel to the brokers: LeaderAndIsr requests and a FIFO per broker (ControllerChannelManager).

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

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LeaderAndIsr:
    """One partition's state in a LeaderAndIsr request: leader epoch, leader (None: no
    leader, Kafka's -1) and ISR."""

    epoch: int
    leader: str | None
    isr: tuple[str, ...]


class ControllerChannel:
    """The requests each broker has not received yet, oldest first."""

    __slots__ = ("queues",)

    def __init__(self, brokers: tuple[str, ...]) -> None:
        self.queues: dict[str, list[LeaderAndIsr]] = {b: [] for b in brokers}

    def enqueue(self, broker: str, request: LeaderAndIsr) -> None:
        self.queues[broker].append(request)

    def take(self, broker: str, count: int | None = None) -> list[LeaderAndIsr]:
        """Remove and return the ``count`` oldest requests for ``broker`` (all with None)."""
        queue = self.queues[broker]
        n = len(queue) if count is None else min(count, len(queue))
        taken, queue[:n] = queue[:n], []
        return taken

    def drop(self, broker: str) -> int:
        """Forget what waits for ``broker`` (removeBroker); returns how many requests."""
        queue = self.queues[broker]
        n = len(queue)
        queue.clear()
        return n

    def pending(self, broker: str) -> tuple[LeaderAndIsr, ...]:
        return tuple(self.queues[broker])
