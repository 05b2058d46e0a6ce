"""The producer client: sends, acks 0 / 1 / all, retries, lost acknowledgements, idempotence, max.in.flight.

One producer (Kafka's ``KafkaProducer`` / ``Sender``): each ``produce`` is one batch with one
record. acks=all requests wait at the leader until its HW passes the record (the broker's
``DelayedProduce``) and time out after ``request_timeout_ms``. Failed batches wait for a
``retry`` step and are resent in the order they were first sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from .events import skip
from .kafka_errors import NETWORK_EXCEPTION, NOT_LEADER_OR_FOLLOWER, REQUEST_TIMED_OUT, RETRIABLE
from .produce_request import ProduceRequest

if TYPE_CHECKING:
    from .config import ClusterConfig
    from .metadata import ClientMetadata
    from .replica import Replica
    from .replica_manager import ReplicaManager
    from .state_key import KeyContext


#: the ``skip`` reason of a retry with nothing to resend
RETRY_SKIP = "no batch awaits a retry"


class Producer:
    """The client: what it sent, what was acknowledged, what waits to be sent again. It picks
    a broker by its ``metadata`` and sends to that broker's ``replica_manager`` over a
    connection that fails when the broker is down (``brokers`` says which is up)."""

    def __init__(self, config: ClusterConfig, events: list, metadata: ClientMetadata, brokers: dict[str, Replica],
                 replica_manager: ReplicaManager, source: Producer | None = None) -> None:
        self.config = config
        self.events = events
        self.metadata = metadata
        self.brokers = brokers
        self.replica_manager = replica_manager
        if source is not None:       # a copy: the same requests, each copied once
            self.produces: list[ProduceRequest] = [request.copy() for request in source.produces]
            # a request's ``order`` is its place in ``produces`` (send order, never reordered)
            self.retrying: list[ProduceRequest] = [self.produces[r.order] for r in source.retrying]
            self.queued: list[ProduceRequest] = [self.produces[r.order] for r in source.queued]
            self.acked: list[str] = list(source.acked)
            self.next_seq: int = source.next_seq
            self.error_counts: dict[str, int] = dict(source.error_counts)
            return
        #: every request, in the order first sent
        self.produces = []
        self.acked = []
        self.retrying = []
        self.queued = []
        self.next_seq = 0
        #: error code -> how many answers carried it
        self.error_counts = {}

    UNKEYED: ClassVar[dict[str, str]] = {
        "brokers": "wiring: the brokers it connects to", "events": "observes: the run's events",
        "error_counts": "observes: how many answers carried each error (the sweep's counters)"}

    def key(self, ctx: KeyContext) -> tuple:
        """Its state (see ``state_key``): every request in send order, those waiting for a
        retry and for an in-flight slot (by their place in send order), the values
        acknowledged, the next sequence number."""
        values = ctx.values
        return (tuple([p.key(ctx) for p in self.produces]), tuple([p.order for p in self.retrying]),
                tuple([p.order for p in self.queued]), tuple([values[v] for v in self.acked]), self.next_seq)

    def produce(self, value: str, acks: str | None = None, lose_ack: bool = False,
                to: str | None = None) -> ProduceRequest:
        """The producer sends one record (``KafkaProducer.send``; at the leader
        ``Partition.appendRecordsToLeader``). ``lose_ack``: the acknowledgement of the first
        attempt never reaches the producer, which times out (errors still arrive). ``to``: the
        first attempt goes to that broker, which answers as it would (a stale leader accepts);
        retries follow the producer's metadata."""
        config = self.config
        seq = -1
        if config.enable_idempotence:
            seq, self.next_seq = self.next_seq, self.next_seq + 1
        request = ProduceRequest(value, acks or config.acks, len(self.produces), seq, lose_ack, to)
        limit = config.max_in_flight_requests_per_connection
        full = limit is not None and self.in_flight() >= limit
        self.produces.append(request)
        if full:
            request.status = "queued"
            self.queued.append(request)
            self.events.append(("queued", value))
            return request
        self.send(request)
        return request

    def in_flight(self) -> int:
        return sum(1 for r in self.produces if r.status in ("pending", "retrying"))

    def send(self, request: ProduceRequest) -> None:
        """One attempt: the request goes to the broker the producer believes leads (or the one
        it is addressed ``to``) and is answered as that broker would: an
        error, acks=1 at once, acks=0 never, acks=all once its record is committed (the broker's
        purgatory answers ``ack`` / ``fail``)."""
        request.attempts += 1
        request.status = "pending"
        if request.to is not None and request.attempts == 1:
            broker: str | None = request.to
        else:
            broker = self.metadata.view("producer")[0]
        if broker is None:
            self.fail(request, NOT_LEADER_OR_FOLLOWER)
            return
        target = self.brokers[broker]
        error = self.replica_manager.append_records(target, request) if target.online else NETWORK_EXCEPTION
        if error is not None:
            self.fail(request, error)
        elif request.acks == "1":
            self.ack(request)
        elif request.acks == "0":
            request.status = "no-answer"

    def retry(self) -> None:
        """The producer resends its failed batches in the order it first sent them."""
        if not self.retrying:
            skip(self.events, "retry", None, RETRY_SKIP)
            return
        batches = sorted(self.retrying, key=lambda r: r.order)
        self.retrying = []
        for request in batches:
            self.events.append(("retry", request.value, request.attempts + 1))
            self.send(request)
        self.send_queued()

    def send_queued(self) -> None:
        limit = self.config.max_in_flight_requests_per_connection
        while self.queued and (limit is None or self.in_flight() < limit):
            self.send(self.queued.pop(0))

    def fail(self, request: ProduceRequest, code: str) -> None:
        self.events.append(("produce_error", request.value, code))
        self.error_counts[code] = self.error_counts.get(code, 0) + 1
        self.metadata.on_error("producer", code)
        request.error = code
        if code in RETRIABLE and request.attempts <= self.config.retries:
            request.status = "retrying"
            self.retrying.append(request)
        else:
            request.status = code
            if self.queued:
                self.send_queued()

    def ack(self, request: ProduceRequest) -> None:
        if request.lose_ack and request.attempts == 1:
            self.events.append(("ack_lost", request.value, request.offset))
            self.fail(request, REQUEST_TIMED_OUT)
            return
        request.status = "acked"
        self.acked.append(request.value)
        self.events.append(("ack", request.value, request.offset))
        if self.queued:
            self.send_queued()
