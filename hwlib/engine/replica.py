"""One broker's replica of the partition: log, HW and its checkpoint, role, and fetch/leader state."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from .log import ReplicaLog
from .state_key import CODES, answer_key

if TYPE_CHECKING:
    from .state_key import KeyContext

LEADER = "leader"
FOLLOWER = "follower"
OFFLINE = "offline"

#: Kafka passes 0 (the Unix epoch) for "never caught up"; logical time starts at 0 here.
NEVER_MS = -(1 << 62)

FETCHING = "fetching"
TRUNCATING = "truncating"  # awaiting an OffsetsForLeaderEpoch answer before it may fetch
#: its fetcher marked the partition failed (``AbstractFetcherThread.markPartitionFailed``, 2.3+):
#: no fetch until a new leader epoch reaches it (``makeFollower``) or its broker restarts
FAILED = "failed"


class RemoteReplica:
    """The leader's view of one follower (Kafka's remote ``Replica`` / ``FollowerState``).

    Never changed once made: a write makes a new one (``Partition`` is the only writer), so a
    copy of the leader shares them with its source."""

    __slots__ = ("leo", "last_caught_up_ms", "last_fetch_leader_leo", "last_fetch_ms")

    UNKEYED: ClassVar[dict[str, str]] = {}

    def __init__(self, leo: int, last_caught_up_ms: int, last_fetch_leader_leo: int,
                 last_fetch_ms: int) -> None:
        self.leo = leo
        self.last_caught_up_ms = last_caught_up_ms
        self.last_fetch_leader_leo = last_fetch_leader_leo
        self.last_fetch_ms = last_fetch_ms

    def key(self, ctx: KeyContext, follower: int) -> tuple:
        """Its state (see ``state_key``), led by the follower's index: LEO, caught-up time and
        the last fetch (the leader's LEO then, and its time)."""
        lag = ctx.lag
        if ctx.last_fetch_read(self.last_fetch_ms, self.last_caught_up_ms):
            return (follower, self.leo, ctx.age(self.last_caught_up_ms, lag), self.last_fetch_leader_leo,
                    ctx.age(self.last_fetch_ms, lag))
        return (follower, self.leo, ctx.age(self.last_caught_up_ms, lag), -1, -1)


class InFlight:
    """A follower's outstanding request and, once completed, the leader's response.

    ``kind`` is ``"fetch"`` or ``"epoch"`` (OffsetsForLeaderEpoch). A fetch with nothing to
    return is ``parked`` in the leader's purgatory until a produce wakes it or it expires.
    """

    __slots__ = ("kind", "follower", "leader", "fetch_offset", "asked_epoch", "parked",
                 "deadline", "epochs", "values", "seqs", "hw", "error", "leader_leo", "leader_start", "answer")

    asked_epoch: int
    parked: bool
    deadline: int
    epochs: list[int]
    values: list[str]
    seqs: list[int]
    hw: int
    error: str | None
    leader_leo: int
    #: the leader's log start offset the answer carries (fetch v5+, KIP-107)
    leader_start: int
    #: OffsetsForLeaderEpoch answer or diverging epoch (``protocols.Answer``)
    answer: Any

    def __init__(self, kind: str, follower: Replica, leader: Replica, fetch_offset: int,
                 source: InFlight | None = None) -> None:
        self.kind = kind
        self.follower = follower
        self.leader = leader
        self.fetch_offset = fetch_offset
        if source is not None:          # a copy (see ``copy``)
            self.asked_epoch = source.asked_epoch
            self.parked = source.parked
            self.deadline = source.deadline
            self.epochs = source.epochs
            self.values = source.values
            self.seqs = source.seqs
            self.hw = source.hw
            self.error = source.error
            self.leader_leo = source.leader_leo
            self.leader_start = source.leader_start
            self.answer = source.answer
            return
        self.asked_epoch = -1
        self.parked = False
        self.deadline = 0
        self.epochs = []
        self.values = []
        self.seqs = []
        self.hw = 0
        self.error = None
        self.leader_leo = -1
        self.leader_start = 0
        self.answer = None

    #: the follower is the replica that holds it (its place in ``Cluster.key``)
    UNKEYED: ClassVar[dict[str, str]] = {"follower": "wiring: the replica whose request it is, which holds it"}

    def copy(self, follower: Replica, leader: Replica) -> InFlight:
        """The same request between the copies of its two replicas (the record lists are
        never changed once set, so they are shared)."""
        return InFlight(self.kind, follower, leader, self.fetch_offset, self)

    def key(self, ctx: KeyContext) -> tuple:
        """Its state (see ``state_key``): kind, the broker it went to, what it asked and, once
        answered, the answer (records, HW, error, the leader's LEO and log start, an epoch answer)."""
        values = ctx.values
        return (CODES[self.kind], ctx.index[self.leader.id], self.fetch_offset, ctx.asked_epoch(self.asked_epoch),
                int(self.parked), ctx.deadline(self.deadline, self.parked), tuple([values[v] for v in self.values]),
                tuple(self.epochs), tuple(self.seqs), self.hw, CODES[self.error], self.leader_leo, self.leader_start,
                answer_key(self.answer))


class Replica:
    """A replica on its broker. ``hw`` is in memory; ``hw_checkpoint`` is what survives a crash.
    ``leader_id`` / ``leader_epoch`` are what the broker last learned from the controller: the
    leader it fetches from (None: no leader) and the current leader epoch its requests carry."""

    __slots__ = ("id", "index", "online", "log", "hw", "hw_checkpoint", "role", "leader_id",
                 "leader_epoch", "fetch_state", "in_flight", "remotes", "purgatory",
                 "crashed_at_ms", "leader_epoch_start", "unclean_shutdown", "isr", "isolated",
                 "awaiting_leader", "alter_isr", "partition_epoch")

    def __init__(self, replica_id: str, index: int, log: ReplicaLog | None = None,
                 source: Replica | None = None) -> None:
        self.id = replica_id
        self.index = index
        if source is not None:
            self._copy_of(source)
            return
        self.online = True
        self.log = ReplicaLog() if log is None else log
        self.hw = 0
        self.hw_checkpoint = 0
        self.role = FOLLOWER
        self.leader_id: str | None = None
        self.leader_epoch = -1
        self.fetch_state = FETCHING
        self.in_flight: InFlight | None = None
        self.remotes: dict[str, RemoteReplica] = {}
        self.purgatory: list[InFlight] = []
        self.crashed_at_ms: int | None = None
        #: as leader: the offset at which its current epoch started
        self.leader_epoch_start = 0
        #: crashed with power loss; cleared when it restarts
        self.unclean_shutdown = False
        #: as leader: its cached ISR (the controller's, as of the last LeaderAndIsr it received
        #: or ISR write it made); a stale leader's ISR writes are rejected
        self.isr: tuple[str, ...] = ()
        #: the controller cannot reach the broker: LeaderAndIsr requests to it are lost
        self.isolated = False
        #: restarted and not yet told who leads (it has not reconciled with anyone)
        self.awaiting_leader = False
        #: as leader (kip595+, KIP-497): its AlterIsr request waiting for the controller -
        #: ``(new ISR, leader epoch, partition epoch, each member's broker epoch as the leader
        #: saw it, reason)`` - or None
        self.alter_isr: tuple | None = None
        #: the partition epoch of the last partition state it applied (-1: none since it
        #: started); under KRaft an older change is stale
        self.partition_epoch = -1

    def _copy_of(self, source: Replica) -> None:
        """Everything but the requests in flight and the purgatory, which refer to other
        replicas: ``Cluster.clone`` copies those once every replica exists. The remote views
        are shared (they are never changed, only replaced)."""
        self.online = source.online
        self.log = source.log.copy()
        self.hw = source.hw
        self.hw_checkpoint = source.hw_checkpoint
        self.role = source.role
        self.leader_id = source.leader_id
        self.leader_epoch = source.leader_epoch
        self.fetch_state = source.fetch_state
        self.in_flight = None
        self.remotes = dict(source.remotes)
        self.purgatory = []
        self.crashed_at_ms = source.crashed_at_ms
        self.leader_epoch_start = source.leader_epoch_start
        self.unclean_shutdown = source.unclean_shutdown
        self.isr = source.isr
        self.isolated = source.isolated
        self.awaiting_leader = source.awaiting_leader
        self.alter_isr = source.alter_isr
        self.partition_epoch = source.partition_epoch

    def copy(self) -> Replica:
        """A copy of this replica (see ``_copy_of``)."""
        return Replica(self.id, self.index, None, self)

    UNKEYED: ClassVar[dict[str, str]] = {
        "id": "constant: the broker's name (its place in Cluster.key)",
        "index": "constant: its place in the assignment (its place in Cluster.key)"}

    def key(self, ctx: KeyContext) -> tuple:
        """Its state (see ``state_key``): running or not, role, the leader and epoch it knows,
        fetch state, HW and checkpoint, log, cached ISR, isolation, awaiting a leader, unclean
        shutdown, the start of its epoch as leader, the crash clock, the leader's view of its
        followers, its request in flight, its purgatory, its AlterIsr in flight, its partition
        epoch."""
        log = self.log.key(ctx)
        crashed = ctx.crash_clock(self.crashed_at_ms, self.id)
        unclean = ctx.unclean_flag(self.unclean_shutdown)
        if ctx.forgets_offline(self.online):
            return (0, self.hw_checkpoint, log, unclean, crashed)
        index = ctx.index
        remotes = self._remotes_key(ctx)
        request = self.in_flight
        alter_isr = self.alter_isr
        return (int(self.online), CODES[self.role], ctx.rid(self.leader_id), self.leader_epoch,
                CODES[self.fetch_state], self.hw, self.hw_checkpoint, log, ctx.ids(self.isr),
                ctx.cut_off(self.isolated, self.index),
                int(self.awaiting_leader), unclean, ctx.join_floor(self.leader_epoch_start), crashed,
                remotes, () if request is None else request.key(ctx),
                tuple([index[q.follower.id] for q in self.purgatory]),
                () if alter_isr is None else ctx.alter_isr(alter_isr),
                ctx.own_partition_epoch(self.partition_epoch, self.id, self.index))

    def _remotes_key(self, ctx: KeyContext) -> tuple:
        """The leader's view of each follower, in the followers' index order (each view's key
        is led by that index: the order a sort would give)."""
        remotes = self.remotes
        if not remotes:
            return ()
        out = []
        for i, follower in enumerate(ctx.order):
            view = remotes.get(follower)
            if view is not None:
                out.append(view.key(ctx, i))
        if len(out) != len(remotes):
            raise KeyError(sorted(set(remotes) - set(ctx.order)))
        return tuple(out)

    @property
    def leo(self) -> int:
        return len(self.log.values)

    @property
    def is_leader(self) -> bool:
        return self.role == LEADER

    @property
    def maximal_isr(self) -> tuple[str, ...]:
        """As leader, KIP-497's maximal ISR: its ISR plus any member an AlterIsr in flight adds
        (2.7+ ``PartitionState.maximalIsr``; a shrink in flight keeps the committed one)."""
        alter = self.alter_isr
        return self.isr if alter is None else tuple(set(self.isr) | set(alter[0]))

    def __repr__(self) -> str:
        return (f"Replica({self.id}, {self.role}, leo={self.leo}, hw={self.hw}, "
                f"online={self.online})")
