"""The producer client: sends, acks 0 / 1 / all, retries, lost acknowledgements, idempotence, max.in.flight.

One producer (Kafka's ``KafkaProducer`` / ``Sender``): each ``produce`` is one batch with one
record. acks=all requests wait at the leader until its HW passes the record (the broker's
``DelayedProduce``) and time out after ``request_timeout_ms``. Failed batches wait for a
``retry`` step and are resent in the order they were first sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .kafka_errors import (
    NETWORK_EXCEPTION,
    NOT_ENOUGH_REPLICAS,
    NOT_ENOUGH_REPLICAS_AFTER_APPEND,
    NOT_LEADER_OR_FOLLOWER,
    REQUEST_TIMED_OUT,
    RETRIABLE,
)
from .replica import LEADER, Replica

if TYPE_CHECKING:
    from .cluster import Cluster


class ProduceRequest:
    """One record the producer sends, over all its attempts. ``status``: ``queued`` (waiting
    for an in-flight slot), ``pending`` (awaiting its acknowledgement), ``retrying`` (failed
    with a retriable error or lost acknowledgement, awaiting a ``retry`` step), ``acked``,
    ``no-answer`` (acks=0), or the error it finally failed with."""

    __slots__ = ("value", "offset", "acks", "leader", "epoch", "status", "deadline", "order",
                 "seq", "attempts", "lose_ack", "error", "to")

    def __init__(self, value: str, acks: str, order: int, seq: int, lose_ack: bool,
                 to: str | None = None) -> None:
        self.value = value
        self.offset = -1
        self.acks = acks
        self.leader: str | None = None
        self.epoch = -1
        self.status = "pending"
        self.deadline = 0
        self.order = order
        self.seq = seq
        self.attempts = 0
        self.lose_ack = lose_ack
        self.error: str | None = None
        #: the broker the first attempt goes to, whatever the producer's metadata says
        self.to = to

    def copy(self) -> ProduceRequest:
        new = ProduceRequest(self.value, self.acks, self.order, self.seq, self.lose_ack, self.to)
        new.offset = self.offset
        new.leader = self.leader
        new.epoch = self.epoch
        new.status = self.status
        new.deadline = self.deadline
        new.attempts = self.attempts
        new.error = self.error
        return new

    def as_dict(self) -> dict:
        out = {"value": self.value, "offset": self.offset, "acks": self.acks,
               "leader": self.leader, "epoch": self.epoch, "status": self.status,
               "attempts": self.attempts}
        if self.seq >= 0:
            out["seq"] = self.seq
        return out


#: the ``skip`` reason of a retry with nothing to resend
RETRY_SKIP = "no batch awaits a retry"


class Producer:
    def __init__(self, cluster: Cluster, source: Producer | None = None) -> None:
        self.cluster = cluster
        self.events = cluster.events
        self.config = cluster.config
        #: every request, in the order first sent
        self.produces: list[ProduceRequest] = []
        #: acks=all requests appended and awaiting the leader's HW (DelayedProduce)
        self.pending: list[ProduceRequest] = []
        self.acked: list[str] = []
        self.retrying: list[ProduceRequest] = []
        self.queued: list[ProduceRequest] = []
        self.next_seq = 0
        #: error code -> how many answers carried it
        self.error_counts: dict[str, int] = {}
        if source is not None:       # a copy: the same requests, each copied once
            copies = {id(request): request.copy() for request in source.produces}
            self.produces = [copies[id(r)] for r in source.produces]
            self.pending = [copies[id(r)] for r in source.pending]
            self.retrying = [copies[id(r)] for r in source.retrying]
            self.queued = [copies[id(r)] for r in source.queued]
            self.acked = list(source.acked)
            self.next_seq = source.next_seq
            self.error_counts = dict(source.error_counts)

    def produce(self, value: str, acks: str | None = None, lose_ack: bool = False,
                to: str | None = None) -> ProduceRequest:
        """The producer sends one record (``KafkaProducer.send``; at the leader
        ``Partition.appendRecordsToLeader``). ``lose_ack``: the acknowledgement of the first
        attempt never reaches the producer, which times out (errors still arrive). ``to``: the
        first attempt goes to that broker, which answers as it would (a stale leader accepts);
        retries follow the producer's metadata."""
        config = self.config
        if to is not None:
            self.cluster.replica(to)
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
        """One attempt: the request reaches the broker the producer believes leads (or the one
        it is addressed ``to``) and is handled there, as that broker would."""
        cluster = self.cluster
        request.attempts += 1
        request.status = "pending"
        leader: Replica | None
        if request.to is not None and request.attempts == 1:
            leader = cluster.by_id[request.to]
        else:
            leader_id = cluster.metadata.view("producer")[0]
            leader = cluster.by_id[leader_id] if leader_id is not None else None
        if leader is None:
            self.fail(request, NOT_LEADER_OR_FOLLOWER)
            return
        if not leader.online:
            self.fail(request, NETWORK_EXCEPTION)
            return
        if leader.role != LEADER:   # elected, but its LeaderAndIsr has not arrived
            self.fail(request, NOT_LEADER_OR_FOLLOWER)
            return
        if request.acks == "all" and len(leader.isr) < self.config.min_insync_replicas:
            self.fail(request, NOT_ENOUGH_REPLICAS)
            return
        request.leader, request.epoch = leader.id, leader.leader_epoch
        offset, error = cluster.partition.append_records_to_leader(leader, request.value, request.seq)
        if error is not None:
            self.fail(request, error)
            return
        request.offset = offset
        if request.acks == "1":
            self.ack(request)
        elif request.acks == "0":
            request.status = "no-answer"
        else:
            request.deadline = cluster.now + self.config.request_timeout_ms
            self.pending.append(request)
            self.complete_delayed(leader)

    def retry(self) -> None:
        """The producer resends its failed batches in the order it first sent them."""
        if not self.retrying:
            self.cluster.skip("retry", None, RETRY_SKIP)
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
        self.cluster.metadata.on_error("producer", code)
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

    def complete_delayed(self, leader: Replica) -> None:
        """DelayedProduce: acks=all succeeds once the leader HW passes the record."""
        hw = leader.hw
        enough = len(leader.isr) >= self.config.min_insync_replicas
        done = [r for r in self.pending if r.leader == leader.id and r.offset < hw]
        if not done:
            return
        # Detach first: answering may send queued batches, which may complete others.
        self.pending = [r for r in self.pending if not (r.leader == leader.id and r.offset < hw)]
        for request in done:
            if enough:
                self.ack(request)
            else:
                self.fail(request, NOT_ENOUGH_REPLICAS_AFTER_APPEND)

    def fail_pending(self, leader_id: str, code: str) -> None:
        """The leader ``leader_id`` will not answer its pending requests: they fail."""
        failed = [r for r in self.pending if r.leader == leader_id]
        if not failed:
            return
        self.pending = [r for r in self.pending if r.leader != leader_id]
        for request in failed:
            self.fail(request, code)

    def time_out(self, now: int) -> None:
        """Requests past their deadline fail with REQUEST_TIMED_OUT."""
        timed_out = [q for q in self.pending if q.deadline <= now]
        if timed_out:
            self.pending = [q for q in self.pending if q.deadline > now]
            for request in timed_out:
                self.fail(request, REQUEST_TIMED_OUT)
