"""The brokers' purgatories (Kafka's DelayedOperations): parked fetches, and acks=all produces awaiting the HW.

One object completes every delayed operation: a fetch that found no records waits in its
leader's purgatory (``Replica.purgatory``) until a produce wakes it, its wait expires, or its
follower goes away; an acks=all produce waits until the leader's HW passes its record, its
leadership ends, or its request times out. A completed produce is answered to the producer
(``client``), whose answer handler may send its next batch - which can complete delayed
operations again: the one object cycle of the engine (``client`` -> producer -> replica
manager -> partition -> here), declared here and broken by ``release``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol

from .kafka_errors import NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT
from .produce_request import ProduceRequest
from .replica import InFlight, Replica

if TYPE_CHECKING:
    from .config import ClusterConfig
    from .logical_time import Time
    from .state_key import KeyContext


class ProduceClient(Protocol):
    """Who a completed produce is answered to (Kafka's produce response callback): the producer."""

    def ack(self, request: ProduceRequest) -> None: ...

    def fail(self, request: ProduceRequest, code: str) -> None: ...


class DelayedOperations:
    """``produces``: the acks=all requests appended and awaiting their leader's HW, oldest
    first; the parked fetches live in each leader's ``purgatory``."""

    __deletable__ = ("client",)

    def __init__(self, config: ClusterConfig, events: list, time: Time, min_isr: int,
                 source: DelayedOperations | None = None) -> None:
        """With ``source``, a clone's: its constants are the source's (not read again); what
        waits is set by the cluster's copy (``Cluster._copy_requests``)."""
        self.events = events
        self.time = time
        if source is None:
            self.fetch_wait_ms = config.replica_fetch_wait_max_ms
            self.request_timeout_ms = config.request_timeout_ms
        else:
            self.fetch_wait_ms, self.request_timeout_ms = source.fetch_wait_ms, source.request_timeout_ms
        #: the effective min.insync.replicas (``Protocol.effective_min_isr``)
        self.min_insync_replicas = min_isr
        self.produces: list[ProduceRequest] = []
        #: who is answered when a delayed produce completes (set once the producer exists)
        self.client: ProduceClient | None = None

    UNKEYED: ClassVar[dict[str, str]] = {
        "fetch_wait_ms": "constant: replica.fetch.wait.max.ms (config)",
        "request_timeout_ms": "constant: request.timeout.ms (config)",
        "min_insync_replicas": "constant: the effective min.insync.replicas (config, rules)",
        "events": "observes: the run's events"}

    def key(self, ctx: KeyContext) -> tuple:
        """Its state (see ``state_key``): which produce requests wait for their leader's HW, by
        their place in send order (the parked fetches are each leader's ``purgatory``)."""
        return tuple([p.order for p in self.produces])

    def release(self) -> None:
        """Break the declared cycle (the producer answers and sends again through here)."""
        self.client = None

    # -------------------------------------------------------------------- DelayedFetch
    def park(self, leader: Replica, request: InFlight) -> None:
        """An empty fetch waits in ``leader``'s purgatory until woken or expired."""
        request.parked = True
        request.deadline = self.time.now + self.fetch_wait_ms
        leader.purgatory.append(request)
        self.events.append(("park", request.follower.id, request.fetch_offset))

    def complete_fetch(self, request: InFlight) -> None:
        """DelayedFetch.onComplete: re-read the log and the current HW."""
        leader = request.leader
        request.parked = False
        request.epochs = leader.log.epochs[request.fetch_offset:]
        request.values = leader.log.values[request.fetch_offset:]
        request.seqs = leader.log.seqs[request.fetch_offset:]
        request.hw = leader.hw
        self.events.append(("fetch", request.follower.id, request.fetch_offset,
                            len(request.values), request.hw))

    def wake(self, leader: Replica) -> None:
        """A produce appended at ``leader``: every fetch parked there completes."""
        for request in leader.purgatory:
            self.events.append(("wake", request.follower.id))
            self.complete_fetch(request)
        leader.purgatory.clear()

    def expire(self, request: InFlight) -> None:
        """The parked fetch's wait ran out (or its response is taken early): it completes."""
        request.leader.purgatory.remove(request)
        self.events.append(("expire", request.follower.id))
        self.complete_fetch(request)

    def cancel(self, request: InFlight) -> None:
        """The follower's fetcher stopped: its parked fetch leaves the purgatory unanswered."""
        if request.parked and request in request.leader.purgatory:
            request.leader.purgatory.remove(request)

    def expire_due(self, replicas: list[Replica], now: int) -> None:
        """Every parked fetch whose wait ended by ``now`` completes."""
        for r in replicas:
            for request in [q for q in r.purgatory if q.deadline <= now]:
                self.expire(request)

    # ------------------------------------------------------------------ DelayedProduce
    def watch(self, request: ProduceRequest, leader: Replica) -> None:
        """An acks=all produce appended at ``leader`` waits for the HW (or its timeout), and is
        answered at once if the HW already passed it."""
        request.deadline = self.time.now + self.request_timeout_ms
        self.produces.append(request)
        self.complete(leader)

    def complete(self, leader: Replica) -> None:
        """DelayedProduce.tryComplete: the requests ``leader`` appended whose offset is below
        its HW succeed - or fail with NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR is
        smaller than min.insync.replicas by now: the maximal ISR from 2.7 (2.7.0 - 3.9
        ``Partition.checkEnoughReplicasReachOffset``: ``minIsr <= curMaximalIsr.size``), which
        counts a member being added by an AlterIsr in flight."""
        hw = leader.hw
        done = [r for r in self.produces if r.leader == leader.id and r.offset < hw]
        if not done:
            return
        enough = len(leader.maximal_isr) >= self.min_insync_replicas
        # Detach first: answering may send queued batches, which may complete others.
        self.produces = [r for r in self.produces if not (r.leader == leader.id and r.offset < hw)]
        client = self.client
        assert client is not None
        for request in done:
            if enough:
                client.ack(request)
            else:
                client.fail(request, NOT_ENOUGH_REPLICAS_AFTER_APPEND)

    def fail(self, leader_id: str, code: str) -> None:
        """The leader ``leader_id`` will not answer its waiting requests: they fail."""
        failed = [r for r in self.produces if r.leader == leader_id]
        if not failed:
            return
        self.produces = [r for r in self.produces if r.leader != leader_id]
        client = self.client
        assert client is not None
        for request in failed:
            client.fail(request, code)

    def time_out(self, now: int) -> None:
        """Requests past their deadline fail with REQUEST_TIMED_OUT."""
        timed_out = [q for q in self.produces if q.deadline <= now]
        if timed_out:
            self.produces = [q for q in self.produces if q.deadline > now]
            client = self.client
            assert client is not None
            for request in timed_out:
                client.fail(request, REQUEST_TIMED_OUT)
