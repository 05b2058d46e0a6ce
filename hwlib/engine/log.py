"""Replica log: records (offset, epoch, value) from its log start offset, a flushed prefix, its epoch cache."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ..util.shared import CopyOnWrite
from .epoch_cache import LeaderEpochCache

if TYPE_CHECKING:
    from .state_key import KeyContext


class ReplicaLog(CopyOnWrite):
    """One replica's log of the partition, from its log start offset ``start``.

    Records live in parallel lists, ``epochs``, ``values`` and ``seqs`` (the idempotent
    producer's sequence number, -1 for other records); the LEO is their length.
    ``flushed`` is the durable prefix: a power loss keeps ``[0, flushed)`` only.
    ``start`` is the log start offset (``Log.logStartOffset``): records below it are deleted -
    by retention, DeleteRecords or a full truncation - and nobody reads them. The lists keep
    their slots so that an offset indexes them: the records the log had there, or, after a
    full truncation to the leader's start (``truncate_fully_and_start_at``), the leader's
    deleted ones, which no check and no reader looks at.
    ``rewritten_from`` is the lowest offset any truncation touched since an observer last
    reset it to ``None`` (appends never rewrite).

    A copy shares the three lists with its source until either side writes them
    (``util.shared``): the model checker copies every log for every transition, and most
    transitions append to or truncate none. The lists are written only here; readers never
    change them. ``memo`` is a reader's note about the records (the model checker keeps its
    state key's part of them there), dropped by every write of the records.
    """

    __slots__ = ("epochs", "values", "seqs", "flushed", "start", "cache", "rewritten_from")

    def __init__(self, source: ReplicaLog | None = None) -> None:
        if source is None:
            self.epochs: list[int] = []
            self.values: list[str] = []
            self.seqs: list[int] = []
            self.flushed = 0
            self.start = 0
            self.cache = LeaderEpochCache()
            self.rewritten_from: int | None = None
            self._fresh()
        else:
            self.epochs = source.epochs
            self.values = source.values
            self.seqs = source.seqs
            self.flushed = source.flushed
            self.start = source.start
            self.cache = source.cache.copy()
            self.rewritten_from = source.rewritten_from
            self._share(source)

    def copy(self) -> ReplicaLog:
        """An independent copy (it shares the record lists until one of the two writes)."""
        return ReplicaLog(self)

    UNKEYED: ClassVar[dict[str, str]] = {
        "rewritten_from": "observes: where a truncation rewrote the log since the checks last looked "
                          "(AnomalyChecker.observe reads and resets it after every step)"}

    def key(self, ctx: KeyContext) -> tuple:
        """Its state (see ``state_key``): the records (values by number, epochs, sequence
        numbers), the flushed offset, the log start offset and the epoch cache. The records' part is kept in
        ``memo`` until the log writes them (a copy shares it)."""
        memo = self.memo
        values = ctx.values
        if memo is None or memo[0] is not values:
            memo = self.memo = (values, (tuple([values[v] for v in self.values]), tuple(self.epochs),
                                         tuple(self.seqs)))
        return (memo[1], self.flushed, self.start, self.cache.key())

    def _own(self) -> None:
        self.epochs = list(self.epochs)
        self.values = list(self.values)
        self.seqs = list(self.seqs)

    @property
    def log_end_offset(self) -> int:
        return len(self.values)

    def records(self, start: int | None = None, end: int | None = None) -> list[tuple[int, int, str]]:
        """(offset, epoch, value) of each record from ``start`` (the log start offset) to ``end``."""
        start = self.start if start is None else start
        end = len(self.values) if end is None else end
        return [(o, self.epochs[o], self.values[o]) for o in range(start, end)]

    def append(self, epoch: int, value: str, seq: int = -1, assigns_cache: bool = True) -> int:
        """Leader append with the leader's epoch; returns the record's offset. ``assigns_cache``
        False: a v0 / v1 batch, which carries no epoch for the cache (``Log.append``)."""
        offset = len(self.values)
        cache = self.cache
        if assigns_cache and cache.latest_epoch != epoch:
            cache.assign(epoch, offset)
        self._write()
        self.epochs.append(epoch)
        self.values.append(value)
        self.seqs.append(seq)
        return offset

    def last_sequence(self) -> tuple[int, int]:
        """(sequence, offset) of the newest idempotent record, or (-1, -1): the producer state
        a leader rebuilds from its log."""
        seqs = self.seqs
        for offset in range(len(seqs) - 1, -1, -1):
            if seqs[offset] >= 0:
                return seqs[offset], offset
        return -1, -1

    def append_as_follower(self, epochs: list[int], values: list[str], seqs: list[int],
                           assigns_cache: bool = True) -> None:
        """Append a fetched batch; the cache gets an entry wherever the record epoch changes
        (not for v0 / v1 batches: ``assigns_cache`` False)."""
        cache = self.cache
        base = len(self.values)
        last = cache.latest_epoch
        for i, epoch in enumerate(epochs):
            if assigns_cache and epoch != last:
                cache.assign(epoch, base + i)
                last = epoch
        self._write()
        self.epochs.extend(epochs)
        self.values.extend(values)
        self.seqs.extend(seqs)

    def truncate_to(self, offset: int) -> int:
        """Drop records at ``offset`` and above; returns how many were dropped."""
        if offset < 0:
            raise ValueError(f"truncate_to: offset must be >= 0, got {offset}")
        dropped = len(self.values) - offset
        if dropped <= 0:
            return 0
        self._write()
        del self.epochs[offset:]
        del self.values[offset:]
        del self.seqs[offset:]
        if self.flushed > offset:
            self.flushed = offset
        if self.start > offset:        # Log.truncateTo below the first segment: truncateFullyAndStartAt
            self.start = offset
        self.cache.truncate_from_end(offset)
        if self.rewritten_from is None or offset < self.rewritten_from:
            self.rewritten_from = offset
        return dropped

    def increment_start(self, offset: int) -> bool:
        """``Log.maybeIncrementLogStartOffset``: the start moves up to ``offset`` (never down),
        the epoch cache drops what lies below it (``truncateFromStart``); the deleted records
        were in closed, flushed segments. The caller checks the bound its release sets (the
        HW). Returns whether it moved."""
        if offset <= self.start:
            return False
        self.start = offset
        if self.flushed < offset:
            self.flushed = offset
        self.cache.truncate_from_start(offset)
        return True

    def truncate_fully_and_start_at(self, offset: int, leader: ReplicaLog) -> None:
        """``Log.truncateFullyAndStartAt``: every record goes, the log restarts empty at
        ``offset`` (its start and LEO), the epoch cache is cleared. The slots below ``offset``
        take the leader's deleted records (``leader``'s start is at or above ``offset``): read
        by nobody, they keep offsets indexing the lists and every pairwise check at rest."""
        self._write()
        self.epochs = leader.epochs[:offset]
        self.values = leader.values[:offset]
        self.seqs = leader.seqs[:offset]
        self.start = self.flushed = offset
        self.cache.clear()
        self.rewritten_from = 0              # every offset was rewritten

    def flush(self) -> None:
        self.flushed = len(self.values)

    def flush_if_due(self, interval: int | None) -> None:
        """log.flush.interval.messages: flush once ``interval`` records are unflushed (None: never)."""
        if interval is not None and len(self.values) - self.flushed >= interval:
            self.flushed = len(self.values)
