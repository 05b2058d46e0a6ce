"""What a state key is made of: what every stateful part's ``key(ctx)`` reads besides itself, the whole state.

Each stateful part of the engine declares its own state beside its copy constructor, as TLA+
declares ``vars`` where the variables live: ``Replica.key``, ``InFlight.key``,
``RemoteReplica.key``, ``ReplicaLog.key``, ``LeaderEpochCache.key``, ``Controller.key``,
``LeaderAndIsr.key``, ``ControllerChannel.key``, ``DelayedOperations.key``, ``Producer.key``,
``ProduceRequest.key``, ``Consumer.key``, ``ClientMetadata.key``, ``Clock.key``, composed by
``Cluster.key``. A field a part holds is in its key, or named in the part's ``UNKEYED`` with
the reason it is not (a constant of the configuration, the wiring to the parts it calls, or
what only observes the run: events, polls, counters, markers its observers reset) -
``tests/check/test_state_keys.py`` perturbs every field a copy of the cluster holds and fails
on one that is neither.

A key is a tuple of integers only - replicas by index, record values by the number
``KeyContext.values`` gives them, names by ``CODES``, any other text by a CRC-32 - so Python's
``hash`` of it is the same in every process (a fingerprint that worker processes and Spark
tasks share). Times are kept relative to ``now``: no rule of the engine reads the clock's
absolute value, only how long ago something was or how long until a deadline.

``KeyContext`` answers each question a part asks of it with the whole state; the model
checker's reductions (``hwlib.model.reductions``) answer some with less, each where it can show
that what it leaves out never changes what comes next.
"""

from __future__ import annotations

import zlib

from .kafka_errors import (
    DIVERGING,
    FENCED_LEADER_EPOCH,
    NETWORK_EXCEPTION,
    NOT_ENOUGH_REPLICAS,
    NOT_ENOUGH_REPLICAS_AFTER_APPEND,
    NOT_LEADER_OR_FOLLOWER,
    OFFSET_OUT_OF_RANGE,
    OUT_OF_ORDER_SEQUENCE_NUMBER,
    REQUEST_TIMED_OUT,
    UNKNOWN_LEADER_EPOCH,
)

#: every name a state holds, as a small integer (an unknown name is a bug: KeyError) - roles,
#: fetch states, request kinds, acks, produce statuses, error codes
CODES: dict[str | None, int] = {name: i for i, name in enumerate((
    None, "leader", "follower", "offline", "fetching", "truncating", "fetch", "epoch", "0", "1", "all",
    "pending", "queued", "retrying", "acked", "no-answer", NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH,
    UNKNOWN_LEADER_EPOCH, DIVERGING, OFFSET_OUT_OF_RANGE, NETWORK_EXCEPTION, NOT_ENOUGH_REPLICAS,
    NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT, OUT_OF_ORDER_SEQUENCE_NUMBER, "failed"))}


def text_code(text: str) -> int:
    """Any other text as an integer that is the same in every process (CRC-32 of its UTF-8)."""
    return zlib.crc32(text.encode())


def answer_key(answer: object) -> tuple[int, ...]:
    """An OffsetsForLeaderEpoch answer or diverging epoch (``protocols.Answer``: an offset, or
    an (epoch, offset) pair) as integers; () for none."""
    if answer is None:
        return ()
    if isinstance(answer, tuple):
        return (int(answer[0]), int(answer[1]))
    return (int(answer),)        # type: ignore[call-overload]


class KeyContext:
    """What a part's ``key`` reads besides the part: replicas by index (``index``), record values
    by number (``values``), the time (``now``, set by ``at`` for each state) and the caps the
    rules compare ages with - and one method per question whose answer a reduction may shorten,
    each answered here with the whole state. A question is asked with the values it reads, not
    the part that holds them: this module knows no part of the engine (each part knows it)."""

    def __init__(self, replicas: tuple[str, ...] | list[str], values: dict[str, int]) -> None:
        #: each replica's index by its name, and the names in index order
        self.index: dict[str, int] = {rid: i for i, rid in enumerate(replicas)}
        self.order: tuple[str, ...] = tuple(replicas)
        #: ``ids``' answers so far (an ISR or ELR is one of a few tuples, met again and again)
        self._ids: dict[tuple[str, ...], tuple[int, ...]] = {}
        #: each record value's number
        self.values = values
        #: the state's logical time (``at``)
        self.now = 0
        #: replica.lag.time.max.ms, the session timeout, auto.commit.interval.ms (``at``)
        self.lag = 0
        self.session = 0
        self.auto_commit = 0

    def at(self, now: int, lag: int, session: int, auto_commit: int) -> None:
        """Before a state's parts give their keys (``Cluster.key`` calls it): its logical time,
        and the caps its configuration compares ages with."""
        self.now = now
        self.lag = lag
        self.session = session
        self.auto_commit = auto_commit

    def rid(self, replica_id: str | None) -> int:
        """A replica by its index (-1: none)."""
        return -1 if replica_id is None else self.index[replica_id]

    def ids(self, replica_ids: tuple[str, ...]) -> tuple[int, ...]:
        """Replicas by index, in the order given."""
        known = self._ids.get(replica_ids)
        if known is None:
            index = self.index
            known = self._ids[replica_ids] = tuple([index[r] for r in replica_ids])
        return known

    def members(self, replica_ids: set[str]) -> tuple[int, ...]:
        """A set of replicas by index, in index order (KeyError: one is not a replica)."""
        out = tuple([i for i, rid in enumerate(self.order) if rid in replica_ids])
        if len(out) != len(replica_ids):
            raise KeyError(sorted(replica_ids - set(self.order)))
        return out

    # --------------------------------------------------------- what a reduction may shorten
    def age(self, then: int, cap: int) -> int:
        """How long ago ``then`` was; a rule compares it with ``cap``."""
        return self.now - then

    def deadline(self, deadline: int, waiting: bool) -> int:
        """How long until ``deadline``; ``waiting``: someone waits on it now."""
        return deadline - self.now

    def crash_clock(self, crashed_at_ms: int | None, replica_id: str) -> int:
        """How long ago broker ``replica_id`` crashed (-1: it is running)."""
        return -1 if crashed_at_ms is None else self.now - crashed_at_ms

    def forgets_offline(self, online: bool) -> bool:
        """Whether a replica's key is only what survives a restart."""
        return False

    def unclean_flag(self, unclean_shutdown: bool) -> int:
        """Whether the broker stopped with a power loss (cleared when it restarts)."""
        return int(unclean_shutdown)

    def join_floor(self, leader_epoch_start: int) -> int:
        """The start offset of the leader's epoch."""
        return leader_epoch_start

    def cut_off(self, isolated: bool, index: int) -> int:
        """Whether the controller cannot reach broker ``index``."""
        return int(isolated)

    def last_fetch_read(self, last_fetch_ms: int, last_caught_up_ms: int) -> bool:
        """Whether the leader's view of a follower keeps its last fetch (time and leader LEO)."""
        return True

    def asked_epoch(self, asked_epoch: int) -> int:
        """The leader epoch an OffsetsForLeaderEpoch request asked about."""
        return asked_epoch

    def alter_isr(self, request: tuple) -> tuple:
        """A leader's ISR write in flight - (new ISR, leader epoch, partition epoch, each
        member's broker epoch, reason) - as integers."""
        new_isr, epoch, partition_epoch, member_epochs, reason = request
        return (self.ids(new_isr), epoch, partition_epoch, tuple(member_epochs), text_code(reason))

    def broker_epochs(self, epochs: dict[str, int], assignment: tuple[str, ...]) -> tuple[int, ...]:
        """Each broker's registration (broker epoch), in assignment order."""
        return tuple([epochs[r] for r in assignment])

    def partition_epoch(self, value: int) -> int:
        """A partition epoch (the controller's, or a queued change's)."""
        return value

    def own_partition_epoch(self, partition_epoch: int, replica_id: str, index: int) -> int:
        """The partition epoch of the last change replica ``replica_id`` (at ``index``) applied."""
        return partition_epoch

    def queue_read(self, online: bool, index: int) -> bool:
        """Whether the changes waiting for broker ``index`` are kept."""
        return True

    def finished(self, status: str) -> bool:
        """Whether a produce request in ``status`` keeps only its value in its key."""
        return False

    def known_leaders_read(self, stale: bool) -> bool:
        """Whether the leader and epoch each client last learned are kept (``stale``: the
        clients keep what they learned, client_metadata: stale)."""
        return True
