"""One record the producer sends, over all its attempts: appended by a broker, held by the purgatory, answered."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from .state_key import CODES

if TYPE_CHECKING:
    from .state_key import KeyContext

#: a request awaiting its acknowledgement in a leader's purgatory (``DelayedOperations.produces``)
PENDING = "pending"


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
        self.status = PENDING
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

    UNKEYED: ClassVar[dict[str, str]] = {
        "error": "observes: the last error answered, for the trace (status holds a final one)"}

    def key(self, ctx: KeyContext) -> tuple:
        """Its state (see ``state_key``): value, acks, offset, the leader and epoch it was
        appended by, status, the deadline it waits for, sequence number, attempts, whether its
        first acknowledgement is lost, the broker its first attempt goes to, its place in send
        order."""
        values = ctx.values
        if ctx.finished(self.status):
            return (values[self.value],)
        return (values[self.value], CODES[self.acks], self.offset, ctx.rid(self.leader), self.epoch,
                CODES[self.status], ctx.deadline(self.deadline, self.status == PENDING), self.seq, self.attempts,
                int(self.lose_ack), ctx.rid(self.to), self.order)

    def as_dict(self) -> dict:
        out = {"value": self.value, "offset": self.offset, "acks": self.acks,
               "leader": self.leader, "epoch": self.epoch, "status": self.status,
               "attempts": self.attempts}
        if self.seq >= 0:
            out["seq"] = self.seq
        return out
